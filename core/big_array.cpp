#include "core/big_array.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kz {

void BigFree::operator()(void* p) const {
  std::free(p);
}

void* big_alloc_zeroed(size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
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
