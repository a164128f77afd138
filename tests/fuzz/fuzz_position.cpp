// Fuzz target: position strings (Position::parse) and game names (GameSpec::parse).
// Input: a game selector byte, then the text. A position that parses must print a
// string that parses back to the same position, and must be playable: every legal
// move keeps the stone count.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/position.h"

using namespace kz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    GameSpec::parse(text);
  } catch (const ParseError&) {
  }
  static const GameSpec specs[] = {GameSpec::togyz(), GameSpec::kalah(6, 4),
                                   GameSpec::kalah(5, 4, true), GameSpec::kalah(1, 1),
                                   GameSpec::kalah(9, 12)};
  const GameSpec& spec = specs[data[0] % (sizeof(specs) / sizeof(specs[0]))];
  Position pos;
  try {
    pos = Position::parse(text, spec);
  } catch (const ParseError&) {
    return 0;
  }
  const Position again = Position::parse(pos.to_string(), spec);  // must not throw
  if (!(again == pos)) __builtin_trap();
  const int stones = pos.total_stones();  // stores included
  for (uint32_t m = pos.legal_mask(); m; m &= m - 1) {
    Position next = pos;
    next.play(__builtin_ctz(m));
    if (next.total_stones() != stones) __builtin_trap();
  }
  return 0;
}
