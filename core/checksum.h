// Checksums and hash mixers shared by the whole project: the file formats (training
// shards, model files, ladder matches, endgame databases), the seeds derived from a run's
// seed, and hash tables. One definition each, so that a format's checksum or a seeded run
// never depends on which copy of a formula a file happened to use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

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
// FNV-1a 64 of a text. To chain from a string literal write fnv1a64("..."sv, h): with
// a bare literal and `h` the call above is chosen, taking `h` for a length.
inline uint64_t fnv1a64(std::string_view text, uint64_t h = kFnv1a64Start) {
  return fnv1a64(text.data(), text.size(), h);
}
// FNV-1a 64 over the bytes of one number as it lies in memory (settings hashes).
template <class T>
requires std::is_arithmetic_v<T>
inline uint64_t fnv1a64_value(const T& value, uint64_t h) {
  return fnv1a64(&value, sizeof value, h);
}

// 2^64 / golden ratio, odd: splitmix64's increment and the usual first multiplier.
inline constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// splitmix64's finaliser (Stafford's "mix13"): a bijection in which every input bit
// affects every output bit; the project's one 64-bit mixer.
inline constexpr uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A seed for one member of a family (a game, a step) from the run's seed `a` and the
// member's number `b`: different members get unrelated streams, and the same pair
// always the same seed. Self-play's game seeds are this formula; keep it as it is, or
// seeded runs stop reproducing.
inline constexpr uint64_t derive_seed(uint64_t a, uint64_t b) {
  uint64_t h = a * kGoldenGamma ^ (b + 0x632BE59BD9B4E019ull);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

}  // namespace kz
