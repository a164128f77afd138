// Process-wide allocator settings for running the network on the CPU.
//
// Why: a forward pass allocates and frees a few tensors of 0.1-2 MiB. glibc serves
// blocks that large with mmap and returns them with munmap, so every batch pays for
// fresh pages (page faults plus zeroing by the kernel); its dynamic threshold only
// partly adapts, and the main thread's heap trims its top after each free as well.
// Measured with `kumalak bench` (Togyz, 64x6, batch 256, one thread): the network alone
// went from 7,700 to 8,800 positions/s, and one search round at a time from 4,800 to
// 7,100, with the settings below. They keep freed blocks in the heap for reuse instead.
#pragma once

namespace kz {

// Call once at the start of main(), before any thread starts. Raises glibc's mmap and
// trim thresholds (64 MiB and 256 MiB); a no-op elsewhere. Environment variables
// MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ set by the user take precedence.
void keep_tensor_memory();

}  // namespace kz
