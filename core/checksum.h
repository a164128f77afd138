// Checksums shared by the file formats (training shards, model files).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kz {

// CRC-32 (IEEE 802.3 / zlib polynomial, reflected, init and final xor 0xFFFFFFFF) of
// `len` bytes, continuing from `crc` (pass the previous result to chain; 0 to start).
uint32_t crc32(const void* data, size_t len, uint32_t crc = 0);

}  // namespace kz
