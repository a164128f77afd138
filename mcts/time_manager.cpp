#include "mcts/time_manager.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace kz {

namespace {

// Togyz: stones on the board -> the mover's moves left (docs of estimated_moves_left).
// Each row is a bucket of ten stones in the recorded games: its middle, and the plies
// left that 80 % of the games had ended within, halved and rounded up (from 100 stones
// on one value for all: the buckets give 66 to 72). tests/mcts_time_manager_test.cpp
// recomputes them from the games (MovesLeftAreTheRecordedGamesOwn).
struct MovesLeftPoint {
  int board_stones;
  int moves_left;
};
constexpr MovesLeftPoint kTogyzMovesLeft[] = {
    {5, 7},   {15, 15}, {25, 24}, {35, 34}, {45, 41},  {55, 47},
    {65, 53}, {75, 58}, {85, 61}, {95, 65}, {105, 70},
};

int togyz_moves_left(int board) {
  const auto* first = std::begin(kTogyzMovesLeft);
  const auto* last = std::end(kTogyzMovesLeft) - 1;
  if (board <= first->board_stones) return first->moves_left;
  if (board >= last->board_stones) return last->moves_left;
  const auto* hi = first + 1;
  while (hi->board_stones < board) ++hi;
  const auto* lo = hi - 1;
  const double t = double(board - lo->board_stones) / double(hi->board_stones - lo->board_stones);
  return int(std::ceil(lo->moves_left + t * (hi->moves_left - lo->moves_left)));
}

}  // namespace

int estimated_moves_left(const Position& pos) {
  const int board = pos.total_stones() - pos.store[0] - pos.store[1];
  const int moves = pos.is_togyz() ? togyz_moves_left(board) : board / 2 + 2;
  return std::max(moves, 1);
}

double clock_move_seconds(const Position& pos, const MoveClock& clock,
                          const TimeManagerOptions& options) {
  const double left = double(clock.time_left_ms);
  const double increment = double(std::max<int64_t>(clock.increment_ms, 0));
  const double overhead = double(std::max<int64_t>(options.move_overhead_ms, 0));
  const int moves = clock.moves_to_go > 0
                        ? clock.moves_to_go
                        : std::max(estimated_moves_left(pos), std::max(options.min_moves_left, 1));
  // This move's part of what is left for the `moves` moves: the time left and the
  // increments of the moves before the last (the last one's comes too late to use).
  double ms = (left + increment * (moves - 1)) / moves - overhead;
  // Never more than what is on the clock now, less the overhead; and without an exact
  // movestogo only a share of it, as the estimate may be short (an increment the move
  // earns back is safe to spend).
  double cap = left - overhead;
  if (clock.moves_to_go != 1)
    cap = std::min(cap, options.max_share_of_time_left * left + increment);
  ms = std::min(ms, cap);
  return std::max(ms / 1000.0, options.min_think_s);
}

ThinkLimits limits_under_clock(const Position& pos, const MoveClock& clock, const ThinkLimits& own,
                               const TimeManagerOptions& options) {
  ThinkLimits l = own;
  const double seconds = clock_move_seconds(pos, clock, options);
  l.movetime_s = own.movetime_s > 0 ? std::min(own.movetime_s, seconds) : seconds;
  return l;
}

}  // namespace kz
