// Numbers in file headers, stored little-endian whatever the host's byte order, so that
// a file written on one machine reads the same on any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kz {

// Writes the sizeof(T) bytes of `v` at `p`, least significant first.
template <class T>
requires std::is_integral_v<T>
inline void put_le(uint8_t* p, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) p[i] = uint8_t(uint64_t(v) >> (8 * i));
}

// Appends the sizeof(T) bytes of `v` to `out`, least significant first.
template <class T>
requires std::is_integral_v<T>
inline void append_le(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(char(uint8_t(uint64_t(v) >> (8 * i))));
}

// Reads a T stored by put_le at `p`.
template <class T>
requires std::is_integral_v<T>
inline T get_le(const uint8_t* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(p[i]) << (8 * i);
  return T(v);
}

}  // namespace kz
