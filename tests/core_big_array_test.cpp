// core/big_array.h: the memory of the big tables comes zeroed, aligned to 2 MiB pages,
// writable to its last byte, and is freed by its deleter.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>

#include "core/big_array.h"

namespace kz {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;

TEST(BigArray, ZeroedAlignedAndWritableToTheEnd) {
  // Not a multiple of the page: the rounding up must still cover every byte asked for.
  const size_t n = 3 * kHugePage + 12345;
  BigArray<uint8_t> a(static_cast<uint8_t*>(big_alloc_zeroed(n)));
  ASSERT_NE(a.get(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.get()) % kHugePage, 0u);
  size_t nonzero = 0;
  for (size_t i = 0; i < n; ++i) nonzero += a[i] != 0;
  EXPECT_EQ(nonzero, 0u);
  a[0] = 1;
  a[n - 1] = 2;
  EXPECT_EQ(a[0] + a[n - 1], 3);
}

TEST(BigArray, ZeroBytesStillGivesUsableMemory) {
  BigArray<uint64_t> a(static_cast<uint64_t*>(big_alloc_zeroed(0)));
  ASSERT_NE(a.get(), nullptr);
  EXPECT_EQ(a[0], 0u);
  a.reset();
  EXPECT_EQ(a.get(), nullptr);
}

TEST(BigArray, AbsurdSizesThrowBadAlloc) {
  EXPECT_THROW(big_alloc_zeroed(std::numeric_limits<size_t>::max() - 1), std::bad_alloc);
  if constexpr (sizeof(size_t) >= 8) {
    EXPECT_THROW(big_alloc_zeroed(size_t(1) << 62), std::bad_alloc);
  }
}

}  // namespace
}  // namespace kz
