// A move's facts (mcts/advice.h) in a player's words, in the current language
// (core/i18n.h): the search returns what a move does, this layer says it. Shared by
// `kumalak hint`, `kumalak play`, the server's hints and puzzles, and the page.
#pragma once

#include <string>

#include "core/position.h"

namespace kz {

// One sentence (clauses joined by "; ") from the facts of `move` in `pos`, e.g. "captures
// 10 stones on their hole 6; leaves your hole 3 open to a capture of 4 next move";
// "not a legal move" for one that is not.
std::string explain_move(const Position& pos, int move);

// " (proven +12)" when the margin is exact (a solver, or MCTS score bounds), " (proven)"
// when only the result is, "" otherwise: what the hints print after a value.
std::string proven_note(bool proven, bool margin_exact, float margin);

}  // namespace kz
