// What every engine in the project answers when asked to think about a position: the
// MCTS engine (mcts/search.h) and the alpha-beta baseline (mcts/alphabeta.h) both
// implement Player, so levels, the play loop, hints, analysis, the protocol and the
// gating matches treat them alike.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/position.h"

namespace kz {

// How long to think. Zero means "no limit of this kind"; the first limit reached stops
// the search. With no limit at all an engine uses its own default.
struct ThinkLimits {
  int64_t nodes = 0;                        // MCTS: visits; alpha-beta: nodes searched
  int depth = 0;                            // alpha-beta: nominal depth in plies (MCTS ignores it)
  double movetime_s = 0;                    // wall-clock seconds
  const std::atomic<bool>* stop = nullptr;  // set from another thread to stop at once
};

// One candidate move as the engine sees it, from the mover's point of view.
struct MoveEval {
  int move = -1;                      // 0-based pit
  int64_t visits = 0;                 // MCTS visits (alpha-beta: 0)
  float prior = 0;                    // network prior (alpha-beta: 0)
  float win = 0, draw = 0, loss = 0;  // probabilities for the side to move
  float margin = 0;     // expected final (mover's store - opponent's store), in stones
  bool proven = false;  // the value is exact (solved), not an estimate
  // The margin too is exact: the final margin with best play (a solver's, or an MCTS
  // with score bounds). `proven` alone may mean only the result is known.
  bool margin_exact = false;
};

struct ThinkResult {
  int best_move = -1;                 // 0-based pit; -1 only when the game is over
  float win = 0, draw = 0, loss = 0;  // root value for the side to move
  float margin = 0;                   // expected final margin for the side to move
  bool proven = false;                // root value is exact
  bool margin_exact = false;          // ... and so is its margin (see MoveEval)
  std::vector<int> pv;                // principal variation, 0-based pits, from the root
  std::vector<MoveEval> moves;        // every legal move, best first
  int64_t nodes = 0;                  // visits or nodes searched
  int depth = 0;                      // alpha-beta: completed depth; MCTS: pv length
  double seconds = 0;
};

class Player {
 public:
  virtual ~Player() = default;
  virtual std::string name() const = 0;
  // Forget everything game-specific (trees, tables).
  virtual void new_game() {}
  // Think about `pos` and answer. Called repeatedly during a game; an engine may keep
  // what it learned about earlier positions (tree reuse).
  virtual ThinkResult think(const Position& pos, const ThinkLimits& limits) = 0;
  // The limits think() plays by when given none: the level's own budget (visits, nodes,
  // depth or seconds). A clock (mcts/time_manager.h) keeps it where the time allows and
  // caps its time. Empty (the default): the engine does not say, and the clock's share
  // of the time is its whole budget.
  virtual ThinkLimits budget() const { return {}; }
  // Reports of the search so far while think() runs (the protocol's `info` lines), on
  // the thinking thread: alpha-beta after every completed iteration, MCTS about every
  // `ProgressCallback` interval. An empty function turns them off. Default: none.
  using ProgressCallback = std::function<void(const ThinkResult&)>;
  virtual void set_progress_callback(ProgressCallback) {}
};

}  // namespace kz
