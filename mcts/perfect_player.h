// A Kalah player that plays perfectly where it can: each move it first tries to solve
// the position exactly (mcts/kalah_solver.h) within a share of the move's time, and
// plays the move that keeps the largest final margin (a won game is won by as much as
// possible, a lost one lost by as little); when the solver runs out of time it asks
// the engine it wraps (the expert search) for the rest of the time. The "perfect"
// level is this player with a generous solving budget and the endgame database built
// on first use; Kalah's expert level and its hints/analysis wrap the expert search
// the same way with half the expert's second and only a database already built.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "mcts/kalah_solver.h"
#include "mcts/player.h"

namespace kz {

struct PerfectPlayerOptions {
  // Seconds the solver may use when think() gets no time limit (a node or depth limit
  // is the wrapped engine's; the solver then still gets this much).
  double solve_s = 10;
  // With a time limit from think(): the solver's share of it; the wrapped engine gets
  // what is left when the solver gives up.
  double solve_share = 1.0;
  int tt_mib = 256;
  // Endgame database: seeds on the pits it covers (-1: the largest table of at most
  // 1 GiB already in the folder, else default_egtb_seeds(); 0: none), where it lives ("" =
  // default_egtb_dir()) and whether a missing one is built (once, then cached on disk) or simply
  // done without.
  int egtb_seeds = -1;
  std::string egtb_dir;
  bool build_egtb = true;
  // Exact margins for every legal move (hints and analysis); otherwise only the best
  // move's, which is cheaper.
  bool all_moves = false;
  std::ostream* log = nullptr;  // notes such as "building the endgame database"
  std::string label = "perfect";
};

class PerfectPlayer : public Player {
 public:
  // `fallback` may be null: an unsolved position then gets the solver's best guess
  // (the first legal move), which only happens when a limit stops it.
  PerfectPlayer(const GameSpec& spec, std::unique_ptr<Player> fallback,
                const PerfectPlayerOptions& options = {});
  std::string name() const override;
  void new_game() override;  // the wrapped engine forgets; solved facts stay
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override;
  // The wrapped engine's budget, its seconds lengthened by the solver's (solve_s).
  ThinkLimits budget() const override;
  void set_progress_callback(ProgressCallback cb) override;

  // The solver's answer in the last think() (solved = false when it gave up and the
  // wrapped engine chose).
  const SolveResult& last_solve() const { return last_; }
  Player* fallback() { return fallback_.get(); }

 private:
  // Makes the solver, with its endgame table (loaded, or built: seconds). False when
  // `stop` was raised while building it: no solver yet, the build kept to go on with.
  bool ensure_solver(const std::atomic<bool>* stop);
  GameSpec spec_;
  std::unique_ptr<Player> fallback_;
  PerfectPlayerOptions opt_;
  std::unique_ptr<KalahSolver> solver_;
  SolveResult last_;
  ProgressCallback progress_;
};

// ThinkResult of an exact solve: every known move with proven margins, best first.
ThinkResult solve_to_think_result(const Position& pos, const SolveResult& r);

// The mover's final margins with perfect play after the best move and after the played
// one, when both are exact.
struct ExactMargins {
  int best = 0;
  int played = 0;
};
// For analysis: when `r` holds exact margins for the best move and `played`, and the
// played move gives stones away against perfect play, both margins ({+8, +2}: 6 stones
// given away); otherwise nothing.
std::optional<ExactMargins> stones_given_away(const ThinkResult& r, int played);

}  // namespace kz
