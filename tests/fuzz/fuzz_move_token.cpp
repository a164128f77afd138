// Fuzz target: move tokens (parse_move_token) and move lists (parse_move_list), then
// the moves played from the start with replay_moves.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/notation.h"

using namespace kz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const GameSpec spec = data[0] & 1 ? GameSpec::togyz() : GameSpec::kalah(6, 4);
  try {
    const MoveToken t = parse_move_token(text, spec);
    if (t.from < 1 || t.from > spec.pits) __builtin_trap();
  } catch (const ParseError&) {
  }
  try {
    replay_moves(parse_move_list(text), Position::start(spec));
  } catch (const ParseError&) {
  }
  return 0;
}
