// Time management: how long one move may think when the game is played on a clock
// (core/game_clock.h; the protocol's `go wtime ... btime ...`, `kumalak play --clock`).
//
// A level has its own budget (visits, nodes, depth or seconds: mcts/levels.h), which is
// what it plays with when time is plenty. The clock only ever takes away from it: the
// move gets the level's budget capped by this move's share of the time left, so a level
// plays the same on a long clock as without one, and thinks less when short, and never
// so long that its flag falls (a safety margin, the move overhead, is kept for what
// happens outside the search: building the engine, printing, the pipe to a GUI).
//
// The share is the time left spread over the moves the side to move still has to make:
// `movestogo` when the clock says (a control that adds time after N moves), otherwise an
// estimate from the stones still on the board (estimated_moves_left), not a chess
// constant: a Togyz game with 30 stones on the board is nearly over, one with 150 has
// most of its moves ahead.
#pragma once

#include <cstdint>

#include "core/position.h"
#include "mcts/player.h"

namespace kz {

// The clock as the side to move sees it.
struct MoveClock {
  int64_t time_left_ms = 0;  // the side to move's time; may be 0 or negative (then: hurry)
  int64_t increment_ms = 0;  // added to it after this move (Fischer), >= 0
  int moves_to_go = 0;       // moves until the next time control adds time; 0 = sudden death
};

struct TimeManagerOptions {
  // Kept back from every move for what the search does not see: the time between the
  // clock's reading and the search's start and after its end (setting up, the answer
  // travelling to the GUI), and the search's own overshoot past its deadline (one
  // batch of network evaluations). The protocol's MoveOverhead option.
  int64_t move_overhead_ms = 50;
  // The most of the time left one move may use when the number of moves left is only
  // an estimate: a game longer than expected must still have time for its last moves.
  double max_share_of_time_left = 0.25;
  // The fewest moves the time left is spread over without movestogo (the estimate never
  // says the game ends after this move).
  int min_moves_left = 6;
  // The shortest think ever given, so that the search still returns a considered move
  // (a budget of 0 means "no limit" to the engines, so it must never be 0).
  double min_think_s = 0.001;
};

// The moves the side to move is expected to still make in `pos`: for Togyz from the
// stones on the board, read off 3714 recorded games (../shared/data/togyz, 2972 from
// PlayOK and 742 from the 2018 tournament): the number of plies after which four games
// in five had ended, halved, at each count of stones on the board (10 stones: 15 moves;
// 50: 47; 100 and more: 70). For Kalah (no records) half a move per seed on the board
// plus two, which overestimates (the safe side). Never less than 1.
int estimated_moves_left(const Position& pos);

// The seconds this move may think at most (the hard limit: never more, or the flag may
// fall): the time left spread over the moves left, plus the increments that will come
// in that time, less the overhead, and never beyond max_share_of_time_left of the time
// left (all of it, less the overhead, when moves_to_go is 1: the clock gets new time
// after this move). At least min_think_s.
double clock_move_seconds(const Position& pos, const MoveClock& clock,
                          const TimeManagerOptions& options = {});

// The limits of this move: `own` (the level's budget, Player::budget(), or the limits
// a `go` gave) where the clock allows, its time capped by clock_move_seconds. A budget
// of visits, nodes or depth is kept and the time cap added; an empty budget (an
// engine that does not say) gets the clock's share. `stop` is kept.
ThinkLimits limits_under_clock(const Position& pos, const MoveClock& clock, const ThinkLimits& own,
                               const TimeManagerOptions& options = {});

}  // namespace kz
