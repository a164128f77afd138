// The alpha-beta baseline: iterative-deepening negamax with principal-variation search,
// a transposition table, capture quiescence and a hand-written evaluation, for Togyz
// Kumalak and every Kalah(m, n). It needs no model, so it backs the playing levels
// until networks are trained, serves hints and analysis, and is the yardstick the
// MCTS engine has to beat.
//
// Scores are integers in "centi-stones" from the side to move's point of view: 100 is
// worth one stone of store difference. Finished or decided games score ±(kWinScore -
// ply), so a win reached in fewer plies scores higher and a loss postponed scores
// higher too. Kalah extra turns keep the side to move, so a child's score is negated
// only when the side to move changes.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mcts/player.h"

namespace kz {

inline constexpr int kWinScore = 30000;
inline constexpr int kMaxSearchPly = 128;   // plies from the root, quiescence included
inline constexpr int kMaxSearchDepth = 64;  // nominal depth of the deepest iteration
// |score| above this is a proven result (a decided game within kMaxSearchPly plies).
inline constexpr int kProvenScore = kWinScore - kMaxSearchPly;

// The hand-written evaluation's weights, all in centi-stones (100 = one stone), added
// from the side to move's point of view. The defaults were tuned by self-play matches
// (docs/levels.md); a level may change them.
struct EvalWeights {
  int store = 100;  // per stone of store (kazan) difference; the unit everything is measured in
  // Togyz: owning a tuzdyk. Worth a flat amount plus more while many stones are still
  // on the board to flow into it (tuzdyk_board per stone on the board, in 1/100ths).
  int tuzdyk = 600;
  int tuzdyk_board = 6;
  // Per stone on one's own side minus the opponent's side. In Togyz the player who
  // still has stones when the other runs out keeps them; in Kalah the seeds left on a
  // side at the end go to that side's store.
  int togyz_own_stones = 12;
  int kalah_own_seeds = 25;
  // Largest capture the side to move could make now, in percent of its value (the
  // quiescence search resolves captures too; this keeps shallow searches honest).
  int threat_to_move = 40;
  // Largest capture the side not to move threatens, in percent: it can usually be
  // parried, so it counts less.
  int threat_waiting = 25;
  // Per legal move of the side to move minus the opponent's legal moves.
  int mobility = 32;
  // Kalah: per pit whose seeds would end exactly in the store (an extra turn ready).
  int kalah_extra_turn = 40;
};

// Evaluation of a position that is not finished, from the side to move's view.
int evaluate(const Position& pos, const EvalWeights& w);

// Converts a score (side to move's view) to win/draw/loss probabilities and an
// expected final margin in stones. A search score is read as the centre of a logistic
// distribution of the final margin whose spread shrinks with the stones still on the
// board; margins are always even in both games, so a draw is the mass in [-1, +1].
struct ScoreWdl {
  float win = 0, draw = 0, loss = 0, margin = 0;
  bool proven = false;
};
ScoreWdl score_to_wdl(int score, const Position& pos);

struct AlphaBetaOptions {
  // Defaults for when think() is called without any limit (a limit given to think()
  // replaces all three). 0 = none of that kind; with none at all, 1 second.
  int depth = 0;
  double movetime_s = 0;
  int64_t nodes = 0;
  int tt_mib = 16;  // transposition table size in MiB (rounded down to a power of two)
  // Standard deviation, in stones, of Gaussian noise added to every root move's score
  // before choosing: makes low levels vary and err, while a move that is clearly
  // better (a big capture, a forced win) is still found. 0 = deterministic. With noise
  // every root move is searched with an exact score (costly only for deep searches).
  double randomness = 0;
  uint64_t seed = 1;  // for the noise
  // How many root moves get exact scores; the others only get an upper bound (their
  // reported values are then optimistic). Hints and analysis ask for 3 or all.
  int multipv = 1;
  int max_qdepth = 8;  // quiescence plies (captures and extra turns only)
  // Search late quiet moves one ply shallower first (re-searched when they look good).
  bool late_move_reduction = true;
  EvalWeights weights;
  std::string label = "alphabeta";  // what name() answers
};

class AlphaBetaPlayer : public Player {
 public:
  explicit AlphaBetaPlayer(const AlphaBetaOptions& options = {});
  ~AlphaBetaPlayer() override;

  std::string name() const override;
  void new_game() override;  // clears the transposition table, killers and history
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override;
  // The options' depth, nodes and seconds (1 s when they set none, as think() does).
  ThinkLimits budget() const override;

  // Called after every completed iteration with the result so far (the protocol's
  // `info` lines). Runs on the searching thread.
  void set_progress_callback(ProgressCallback cb) override { on_iteration_ = std::move(cb); }
  const AlphaBetaOptions& options() const { return opt_; }
  void set_options(const AlphaBetaOptions& o);
  // Root move scores of the last think(), in centi-stones, indexed by 0-based pit
  // (INT32_MIN for illegal moves); useful to tests and tuning.
  const std::array<int, kMaxMoves>& last_root_scores() const { return root_score_; }
  // The line the last think() expects after root move `move` (0-based), starting with
  // it; empty for a move it did not search.
  std::vector<int> last_root_line(int move) const;

 private:
  struct TTEntry;
  struct Child;

  // Fills `children` (room for kMaxMoves) with the children of `pos`, best first by
  // the move ordering, and returns how many: every legal move, or with `quiescence`
  // only those that change the balance at once. `tt_move` (-1: none) and the killers
  // of `ply` count only outside quiescence.
  int ordered_children(const Position& pos, int ply, int tt_move, bool quiescence,
                       Child* children) const;
  int search(const Position& pos, int depth, int alpha, int beta, int ply);
  int qsearch(const Position& pos, int alpha, int beta, int ply, int qdepth);
  int child_score(const Position& parent, const Position& child, int depth, int alpha, int beta,
                  int ply);
  void tt_store(uint64_t key, int depth, int score, int flag, int move, int ply);
  bool out_of_time();
  void update_pv(int ply, int move);
  ThinkResult make_result(const Position& pos, int chosen, int depth_done) const;

  // The steps of think(), in the order it takes them.
  // What one think() may spend: the deepest iteration and the seconds (0 or less: no
  // deadline; the node limit goes to node_limit_).
  struct SearchBudget {
    int max_depth = 0;
    double movetime = 0;
  };
  // Resets the per-search state and sets the node limit and the deadline from the
  // caller's `limits`, or from the options where the caller sets none; `start` is when
  // the search began, the deadline counts from it.
  SearchBudget start_search(const ThinkLimits& limits, std::chrono::steady_clock::time_point start);
  // Sorts the `n` legal root moves in `order` for the first iteration: the table's
  // move, then the biggest gains.
  void order_root_moves(const Position& pos, int* order, int n) const;
  // One iteration of the iterative deepening at `depth` over the `n` root moves in
  // `order`, with exact scores for the best `multipv` of them and bounds for the rest.
  // Keeps its scores in root_score_ where they count (see the definition) and sets
  // `depth_done` to `depth` when it completes; returns whether it completed.
  bool search_root_iteration(const Position& pos, int depth, int multipv, const int* order, int n,
                             int& depth_done);
  // Gives the root moves among the `n` in `order` that no iteration finished their
  // static evaluation and a line of one move.
  void evaluate_unsearched_root_moves(const Position& pos, const int* order, int n);
  // The move to play among the `n` root moves in `order`, sorted best first: the best,
  // or with randomness the best after noise on every score.
  int choose_root_move(const int* order, int n);

  AlphaBetaOptions opt_;
  // The transposition table comes from calloc: the kernel hands out zeroed pages as the
  // search first touches them, so a Hash of 16 GiB costs nothing to set up (filling it
  // entry by entry took 31 s at 4 GiB), and an all-zero entry is an empty one (its
  // bound is kBoundNone). Clearing it is a fresh allocation for the same reason.
  struct FreeMemory {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<TTEntry[], FreeMemory> tt_;
  void allocate_tt(size_t entries);
  uint64_t tt_mask_ = 0;
  uint8_t generation_ = 0;
  std::mt19937_64 rng_;

  // Per-search state; fixed arrays so that no node allocates.
  int64_t nodes_ = 0;
  int64_t node_limit_ = 0;
  bool aborted_ = false;
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
  const std::atomic<bool>* stop_ = nullptr;
  std::array<std::array<int8_t, 2>, kMaxSearchPly> killers_{};
  std::array<std::array<int32_t, kMaxMoves>, 2> history_{};
  std::array<std::array<int8_t, kMaxSearchPly>, kMaxSearchPly + 1> pv_{};
  std::array<int, kMaxSearchPly + 1> pv_len_{};
  // Root bookkeeping of the last think().
  std::array<int, kMaxMoves> root_score_{};
  std::array<std::array<int8_t, kMaxSearchPly>, kMaxMoves> root_pv_{};
  std::array<int, kMaxMoves> root_pv_len_{};
  std::function<void(const ThinkResult&)> on_iteration_;
};

}  // namespace kz
