// A chess clock for two sides under a ClockControl (core/clock_control.h), and the flag
// rule: what a game's result is when a side's time runs out.
//
// The clock reads the time from a function given to it, so that tests drive it to the
// exact millisecond and the play loop gives it the steady clock.
//
// When a move is in time: a move that takes exactly the time the mover had left is in
// time (its clock shows 0:00.000 when it lands, and then gets its increment); the flag
// falls only once more time than that has passed. So a side with 0 ms left that has
// not yet used any of it has not lost.
//
// The flag rule (our decision, modelled on FIDE's Laws of Chess, article 6.9: the
// player whose time runs out loses, "however, the game is drawn if the position is
// such that the opponent cannot checkmate the player's king by any possible series of
// legal moves"; chess engines' match managers apply the same): in Togyz and Kalah the
// side whose time runs out loses, except where the opponent could not win whatever
// both sides played. Stones in a kazan (store) never leave it, so the opponent can end
// with at most every stone not in the flagged side's kazan; when that is not more than
// half of all stones (Togyz: the flagged side already has 81 in its kazan; Kalah(6,4):
// 24 in its store) the opponent cannot win and the game is drawn. A game whose result
// is already decided (a kazan at 82, a store past half) keeps that result: the flag
// fell after the game was over. This bound is the only exception we apply: a position
// where the opponent could not reach 82 for a subtler reason (every remaining way to
// capture blocked) still counts as a loss on time, as it would on PlayOK, whose rooms
// end a game when a clock reaches zero (we found no written PlayOK rule on exceptions).
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "core/clock_control.h"
#include "core/position.h"

namespace kz {

class GameClock {
 public:
  // Milliseconds from any fixed point (a steady clock), never going backwards.
  using Now = std::function<int64_t()>;

  // Both sides start with `control.base_ms`; nothing runs until start().
  GameClock(const ClockControl& control, Now now);
  // The steady clock of this process.
  static Now steady_now();

  const ClockControl& control() const { return control_; }
  // Starts `side`'s clock (0 = White/South, 1 = Black/North); the other one stops
  // without an increment (use move_done() for a move). A running side is kept running.
  void start(int side);
  // Stops whichever clock runs, keeping its time used so far (a pause: a game saved,
  // the engine's side while nothing is asked of it).
  void pause();
  // The side whose clock runs, or -1.
  int running() const { return running_; }

  // `side`'s time left now, counting the running clock up to this moment; negative once
  // its flag has fallen.
  int64_t remaining_ms(int side) const;
  // Time has run out for `side`: more time passed than it had (see the top of the file).
  bool flagged(int side) const { return remaining_ms(side) < 0; }

  struct MoveTiming {
    int64_t used_ms = 0;       // time the move took
    bool in_time = true;       // false: the flag fell before the move was made
    int64_t remaining_ms = 0;  // the mover's time after it, increment included when in time
  };
  // The running side has moved: stops its clock, adds the increment when the move was in
  // time and starts `next` (which may be the same side: a Kalah extra turn; -1 starts
  // nothing). Without a running clock this changes nothing and reports a move of 0 ms.
  MoveTiming move_done(int next);

  // Sets `side`'s time left (a game resumed, a test); stops nothing.
  void set_remaining_ms(int side, int64_t ms);

 private:
  ClockControl control_;
  Now now_;
  std::array<int64_t, 2> remaining_{};  // as of the running side's start
  int running_ = -1;
  int64_t started_at_ = 0;  // now_() when the running side's clock started
};

// The result when `flagged_side`'s time has run out in `pos` (the rule at the top of the
// file): the opponent wins, the game is drawn when the opponent could not win anyway,
// and a game already decided keeps its result.
Outcome flag_outcome(const Position& pos, int flagged_side);

// The opponent of `flagged_side` can still end with more stones than it (the test
// behind flag_outcome): every stone outside `flagged_side`'s kazan is more than half.
bool opponent_can_still_win(const Position& pos, int flagged_side);

}  // namespace kz
