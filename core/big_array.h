// Zeroed memory for big tables (endgame databases, the exact solver's transposition
// table): aligned to 2 MiB and marked for huge pages where the kernel allows, because
// random probes of a table of hundreds of MiB otherwise miss the TLB at nearly every
// access. (nn/allocator.h is something else: glibc's thresholds for tensor memory.)
#pragma once

#include <cstddef>
#include <memory>

namespace kz {

// The deleter of memory from big_alloc_zeroed.
struct BigFree {
  void operator()(void* p) const;
};
// An array of T in memory from big_alloc_zeroed (T must be trivially constructible:
// its elements start as zero bytes and are never constructed or destroyed).
template <class T>
using BigArray = std::unique_ptr<T[], BigFree>;

// `bytes` of zeroed memory (at least one byte's worth; rounded up to whole 2 MiB pages),
// aligned to 2 MiB, with a huge-page hint. Throws std::bad_alloc. Free with BigFree.
void* big_alloc_zeroed(size_t bytes);

}  // namespace kz
