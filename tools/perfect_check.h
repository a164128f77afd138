// What `kumalak perfect-check` computes, apart from its options and printing
// (tools/cmd_perfect_check.cpp): how often a level's moves keep the perfect-play result
// and margin of Kalah (mcts/kalah_solver.h) on the positions of the level's own games, and
// whole games of the level against perfect play.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/position.h"
#include "mcts/kalah_solver.h"
#include "mcts/player.h"

namespace kz::cli {

// Moves judged against perfect play: how many kept the result (win, draw or loss) and the
// exact margin, and the margin they lost.
struct MarginTally {
  int n = 0, keep_result = 0, keep_margin = 0;
  int worst = 0;  // the most margin one move lost
  long lost = 0;  // the margin lost over all of them
  // Counts a move that got `got` where perfect play gets `best` (the mover's margins).
  void add(int best, int got);
  // "WHAT: N positions, result kept X %, margin kept Y %, mean loss Z, worst W", or "WHAT:
  // no positions", and a newline.
  std::string text(const std::string& what) const;
};

// The positions of a level's games judged so far.
struct PositionsCheck {
  MarginTally all;      // every judged position
  MarginTally decided;  // those where a store holds more than half the seeds
  int unsolved = 0;     // positions the reference did not solve in its limit: left out
  int games = 0;        // games started
  double think_s = 0;   // the level's thinking time...
  int think_n = 0;      // ...over this many moves
};

// The level `player` plays both sides of games from two random plies after the start
// (from `seed`) until `positions` positions are judged: each position's perfect margin
// and that of the move played, by `referee` within `limits`. `after_game` is called after
// each game with the totals so far (may be null).
PositionsCheck check_positions(const GameSpec& spec, Player& player, KalahSolver& referee,
                               const SolveLimits& limits, int positions, uint64_t seed,
                               const std::function<void(const PositionsCheck&)>& after_game);

// The first player's perfect margin from the start (nullopt: not solved within `limits`).
std::optional<int> perfect_start_margin(const GameSpec& spec, KalahSolver& referee,
                                        const SolveLimits& limits);

// One whole game from the start: `player` on `side` (0: first player), perfect play
// (`referee`, no limit) on the other; the margin `player` got, from its side.
int play_against_perfect(const GameSpec& spec, Player& player, KalahSolver& referee, int side);

}  // namespace kz::cli
