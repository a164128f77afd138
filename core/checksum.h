// Checksums shared by the file formats (training shards, model files, ladder matches).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kz {

// CRC-32 (IEEE 802.3 / zlib polynomial, reflected, init and final xor 0xFFFFFFFF) of
// `len` bytes, continuing from `crc` (pass the previous result to chain; 0 to start).
uint32_t crc32(const void* data, size_t len, uint32_t crc = 0);

// FNV-1a 64 of `len` bytes, continuing from `h` (pass the previous result to chain).
inline constexpr uint64_t kFnv1a64Start = 0xcbf29ce484222325ull;
inline uint64_t fnv1a64(const void* data, size_t len, uint64_t h = kFnv1a64Start) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < len; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace kz
