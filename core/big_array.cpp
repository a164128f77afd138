#include "core/big_array.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kz {

void BigFree::operator()(void* p) const {
  std::free(p);
}

void* big_alloc_zeroed(size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
  // More than any machine's address space (x86-64 and AArch64 address 2^48 bytes; wasm32
  // 2^32): refused here, before the rounding below could wrap around and before an
  // allocator that aborts on absurd sizes (as AddressSanitizer's does) sees it.
  constexpr uint64_t kMaxAddressable = uint64_t(1) << 48;
  constexpr size_t kMaxBytes =
      kMaxAddressable < SIZE_MAX / 2 ? size_t(kMaxAddressable) : SIZE_MAX / 2;
  if (bytes > kMaxBytes) throw std::bad_alloc();
  const size_t rounded = (std::max<size_t>(bytes, 1) + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without it the table just uses 4 KiB pages
#endif
  std::memset(p, 0, rounded);
  return p;
}

}  // namespace kz
