// The one JSON view of a hint (mcts/advice.h), for `kumalak hint --json` and the hint in
// `kumalak serve`'s state: the same position gives the same object in both.
// docs/hint-json.md describes every field.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/position.h"
#include "mcts/advice.h"
#include "mcts/levels.h"

namespace kz::cli {

// The side to move of `pos` as a word: white/black (Togyz), south/north (Kalah).
const char* side_to_move_word(const Position& pos);

// `hint` as asked about `pos` of game `spec` by the engine named `engine` at `level`.
nlohmann::ordered_json hint_json(const GameSpec& spec, const Position& pos, const Hint& hint,
                                 const std::string& engine, Level level);

}  // namespace kz::cli
