// A player's accuracy in a game, from the expected-score losses of mcts/analysis.h, in
// the spirit of lichess's accuracy (docs/puzzles.md, "Accuracy"):
//   move accuracy = 103.1668 * exp(-0.04354 * 100 * drop) - 3.1669, within 0..100,
// where drop = E(engine's move) - E(played move) in expected score (win + draw/2, 0..1);
//   game accuracy = (arithmetic mean + harmonic mean of the move accuracies) / 2,
// the harmonic mean over max(accuracy, 1) so that one blunder weighs heavily but a move
// of accuracy 0 does not make the whole game 0.
#pragma once

#include <optional>
#include <span>

#include "mcts/analysis.h"

namespace kz {

// The accuracy (0..100) of one move that lost `drop` of expected score.
double move_accuracy(double drop);
// The game accuracy of moves with these drops; nothing when there are none.
std::optional<double> game_accuracy(std::span<const double> drops);
// The game accuracy of `side`'s judged moves in an analysed game (moves made after the
// result was fixed are not judged and do not count).
std::optional<double> game_accuracy(const GameAnalysis& analysis, int side);

}  // namespace kz
