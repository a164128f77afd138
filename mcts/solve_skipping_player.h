// Kalah's expert: the exact solver first (PerfectPlayer), but not where it just failed.
// A solve's cost grows with the seeds on the pits, so one that failed at S seeds fails
// again at S and takes its share of the move from the search for nothing; the expert lost
// its games against hard in exactly those unsolved positions (docs/levels.md). Once a
// solve failed in a game at S seeds, this player asks the wrapped PerfectPlayer's engine
// directly, with the whole move, until fewer than S - retry_after_seeds seeds are left
// or the endgame database already on disk covers the position.
#pragma once

#include <memory>

#include "mcts/perfect_player.h"

namespace kz {

struct SolveSkippingOptions {
  // Seeds on the pits that must go before the solver is tried again (> 0).
  int retry_after_seeds = 3;
  // The wrapped engine's time on a skipped move when think() gets no limit (0: the
  // engine's own default); the expert gives it the whole second.
  double skipped_movetime_s = 0;
  // Positions with at most this many seeds on the pits are always solved (the endgame
  // database answers them at once); -1: the database PerfectPlayer would load without
  // building one (the largest table of default_egtb_dir() when its file is there), else 0.
  int always_solve_seeds = -1;
};

class SolveSkippingPlayer : public Player {
 public:
  // `inner` must have a fallback engine (it plays the skipped moves).
  SolveSkippingPlayer(const GameSpec& spec, std::unique_ptr<PerfectPlayer> inner,
                      const SolveSkippingOptions& options = {});
  std::string name() const override { return inner_->name(); }
  void new_game() override;
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override;
  void set_progress_callback(ProgressCallback cb) override {
    inner_->set_progress_callback(std::move(cb));
  }
  // Whether the last think() skipped the solver.
  bool skipped_last() const { return skipped_last_; }

 private:
  std::unique_ptr<PerfectPlayer> inner_;
  SolveSkippingOptions opt_;
  // Seeds on the pits where a solve last failed in this game (-1: none), and at the last
  // position asked (more than that: another game began).
  int failed_seeds_ = -1;
  int last_seeds_ = -1;
  bool skipped_last_ = false;
};

}  // namespace kz
