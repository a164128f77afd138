// The words of an exact Kalah result (mcts/kalah_solver.h states the facts): "solved: you
// win by 8 with perfect play; pit 3 keeps +8, pit 5 drops to +2, pit 1 drops to -4
// (loses)", in the player's language (core/i18n.h), for `kumalak solve`, hints in the
// terminal and the page.
#pragma once

#include <string>

#include "core/position.h"
#include "mcts/kalah_solver.h"

namespace kz {

// `r` in words: the result, then every move whose margin it knows, best first.
//   pos: the solved position
//   r: a result of solve(..., all_moves = true) for it ("not solved ..." when unsolved)
std::string describe_exact_result(const Position& pos, const SolveResult& r);

}  // namespace kz
