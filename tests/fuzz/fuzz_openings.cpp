// Fuzz target: the opening explorer's reader (OpeningExplorer::decode, what
// OpeningExplorer::read runs on a file's bytes). The fuzzer would rarely get past the CRC
// at the end, so it is made to match the bytes before it: the header, the lengths and
// the position and move checks are what is fuzzed. An accepted file must encode to bytes
// that decode to the same explorer, and every position in it must be found. Seeds: an
// explorer of a few random games written by make_seeds.cpp (tools/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/checksum.h"
#include "core/opening_explorer.h"

using namespace kz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() > 4) {
    const uint32_t crc = crc32(bytes.data(), bytes.size() - 4);
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = char(uint8_t(crc >> (8 * i)));
  }
  OpeningExplorer e;
  try {
    e = OpeningExplorer::decode(bytes, "fuzz.kzo");
  } catch (const std::runtime_error&) {
    return 0;
  }
  if (!(OpeningExplorer::decode(e.encode(), "again.kzo") == e)) __builtin_trap();
  for (const ExplorerPosition& p : e.positions())
    if (e.find(p.position) != &p) __builtin_trap();
  return 0;
}
