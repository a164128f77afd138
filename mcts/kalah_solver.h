// Perfect play for Kalah(m, n): an exact solver of the final margin and endgame
// databases, behind the "perfect" level, exact hints and the perfect-check benchmark.
//
// The key fact: in Kalah what is still to come depends only on the seeds on the pits
// and on who is to move, never on the stores. So the value of a position is
//   final margin (mover's store - opponent's store) = store difference now + rest,
// where `rest` is the best margin the mover can force from the seeds still on the
// pits. Both the endgame database and the solver's transposition table hold `rest`,
// keyed on the pits alone with the mover's row first (so a position and its mirror
// with the other side to move share an entry). `rest` has the parity of the seeds on
// the pits (every seed ends in one of the two stores).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/big_array.h"
#include "core/position.h"

namespace kz {

// --- Endgame databases ------------------------------------------------------------
// Every arrangement of at most `max_seeds` seeds on the 2m pits, with the mover's row
// first, holds `rest` in one signed byte. Arrangements are ranked by the combinatorial
// number system (seeds on the board first, then the arrangement), so the index of a
// position costs 2m additions. Built level by level from fewer seeds up: a move keeps
// or lowers the seeds on the pits, and moves that keep them only sow within the mover's
// own row towards its store, so the positions of one level form no cycle and each is
// solved from its children (retrograde order, computed by a memoised depth-first walk).
class KalahEndgameDb {
 public:
  // Positions in a table for m pits a side and 0..max_seeds seeds on the pits.
  static uint64_t entries(int pits, int max_seeds);
  // Builds the table. `progress` (may be empty) is called after each seed level.
  static KalahEndgameDb build(Variant variant, int pits, int max_seeds,
                              const std::function<void(int level, double seconds)>& progress = {});
  // Reads a file written by save(); throws std::runtime_error naming the file and what
  // is wrong: cannot be opened, bad magic, the old format 1 or another format version
  // (both: rebuild it with `kumalak egtb build`), unknown rules, a size that does not
  // match its pits and seeds, truncated, trailing bytes, checksum mismatch.
  static KalahEndgameDb load(const std::string& path);
  // The same, and refuses a file that holds another table than the one for `variant`,
  // `pits` and `max_seeds` (another game, or a file renamed).
  static KalahEndgameDb load(const std::string& path, Variant variant, int pits, int max_seeds);
  // Writes atomically (core/atomic_file.h): a header of fixed little-endian numbers
  // (magic, format version, rules, pits, seeds, size, CRC-32 of the values), then the
  // values. The layout is described in kalah_solver.cpp and docs/levels.md.
  void save(const std::string& path) const;

  Variant variant() const { return variant_; }
  int pits() const { return pits_; }
  int max_seeds() const { return max_seeds_; }
  uint64_t size() const { return size_; }
  uint32_t checksum() const { return crc_; }
  // Whether this table answers for `pos` (same rules and pits, few enough seeds on them).
  bool covers(const Position& pos, int seeds_on_pits) const {
    return pos.variant == variant_ && pos.npits == pits_ && seeds_on_pits <= max_seeds_;
  }
  // `rest` of a position it covers, from the side to move's point of view.
  int rest(const Position& pos) const { return values_[index(pos)]; }

 private:
  struct Expected {
    Variant variant;
    int pits, max_seeds;
  };
  friend class KalahEndgameDbBuild;
  static KalahEndgameDb load(const std::string& path, const Expected* expected);
  uint64_t index(const Position& pos) const;
  Variant variant_ = Variant::kKalah;
  int pits_ = 0, max_seeds_ = -1;
  uint32_t crc_ = 0;
  uint64_t size_ = 0;
  BigArray<int8_t> values_;
};

// A table being built that a stop may interrupt and a later run() resume where it was:
// a build takes seconds (Kalah(6,n)'s default table: 30 M positions, 11-12 s in a
// browser), and the page's engine must stop a search at once when the player asks, even
// the first search of the perfect level, which builds its table first.
class KalahEndgameDbBuild {
 public:
  // Throws std::invalid_argument as KalahEndgameDb::build does.
  KalahEndgameDbBuild(Variant variant, int pits, int max_seeds);
  // Solves seed levels until the table is complete (true) or `stop` (may be null) is
  // raised (false: every position solved so far is kept, and the next run() goes on from
  // there). Polls `stop` every few thousand positions, after calling yield_search()
  // (mcts/search_yield.h) so that a host without threads answers its calls meanwhile.
  // `progress` (may be empty) is called after each seed level with the seconds spent in
  // all runs so far.
  bool run(const std::atomic<bool>* stop,
           const std::function<void(int level, double seconds)>& progress = {});
  // Whether run() has completed the table.
  bool done() const { return next_level_ > db_.max_seeds_; }
  // The table, once done(); the build is empty after it.
  KalahEndgameDb take();

 private:
  KalahEndgameDb db_;
  int next_level_ = 0;  // the first seed level not yet complete
  double seconds_ = 0;  // spent in run() so far
};

// Thrown by load_or_build_egtb when its `stop` was raised before the table was complete:
// the work done is kept in the process and the next call for the same table goes on from
// there. Also thrown to a call made while the same table is being built on the same
// thread (a build paused for its host's event loop, mcts/search_yield.h).
class EgtbBuildStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where databases are kept: $KZ_EGTB_DIR, else $XDG_CACHE_HOME/kumalak/egtb, else
// $HOME/.cache/kumalak/egtb, else ./egtb.
std::string default_egtb_dir();
// "kalah-6-standard-18.egtb" / "kalah-5-empty-24.egtb".
std::string egtb_file_name(Variant variant, int pits, int max_seeds);
// The seed count the perfect level builds on first use: the largest whose table stays
// under about 32 Mi entries (a byte each; Kalah(6,n): 16 seeds, five pits: 20), and
// never more than the game has.
int default_egtb_seeds(const GameSpec& spec);
// The seeds of the largest table for `spec` of at most 1 GiB that is already in `dir`
// (built with `kumalak egtb build --seeds N`) when it is larger than the default,
// else default_egtb_seeds(spec): what the perfect level and the commands use unless told.
int cached_or_default_egtb_seeds(const GameSpec& spec, const std::string& dir);
// The table for `spec` with `max_seeds`, loaded from `dir` or, when the file is
// missing or unreadable, built and saved there (a note on `log` when given). Shared
// within the process: a second call returns the same table. A raised `stop` (may be
// null) interrupts the build with EgtbBuildStopped, and a later call resumes it. Throws
// std::runtime_error otherwise only when a table can be neither read nor built.
std::shared_ptr<const KalahEndgameDb> load_or_build_egtb(const GameSpec& spec, int max_seeds,
                                                         const std::string& dir,
                                                         std::ostream* log = nullptr,
                                                         const std::atomic<bool>* stop = nullptr);

// --- The solver -----------------------------------------------------------------------
struct SolveLimits {
  double movetime_s = 0;  // 0 = none
  int64_t nodes = 0;      // 0 = none
  const std::atomic<bool>* stop = nullptr;
};

inline constexpr int kUnknownMargin = -10000;

struct SolveResult {
  bool solved = false;  // false: a limit was reached first; nothing below is meaningful
  int margin = 0;       // final margin (mover's store - opponent's) with perfect play
  int best_move = -1;   // 0-based pit that keeps `margin`; -1 when the game is over
  // Final margin after each move for the mover, with perfect play from there
  // (kUnknownMargin: illegal, or not asked for). Filled for every legal move only by
  // solve(..., all_moves = true); otherwise only best_move's.
  std::array<int, kMaxMoves> move_margin{};
  std::vector<int> pv;  // a perfect line from the position (pits, 0-based)
  int64_t nodes = 0;
  double seconds = 0;
};

// MTD(f) over the exact remaining margin: null-window alpha-beta searches that narrow
// the value down, sharing a transposition table of bounds (kept across calls: entries
// are facts about positions, true in every game of the same rules), and the endgame
// database where the seeds on the pits are few enough. Moves are ordered by the
// table's best move, then extra turns, then the seeds they bank at once; a child whose
// stored bound already reaches beta ends a node unsearched (enhanced transposition
// cutoff).
class KalahSolver {
 public:
  explicit KalahSolver(int tt_mib = 64, std::shared_ptr<const KalahEndgameDb> db = nullptr);
  ~KalahSolver();
  KalahSolver(const KalahSolver&) = delete;
  KalahSolver& operator=(const KalahSolver&) = delete;

  void set_db(std::shared_ptr<const KalahEndgameDb> db) { db_ = std::move(db); }
  const KalahEndgameDb* db() const { return db_.get(); }
  // Solves a Kalah position (Togyz: std::invalid_argument). With `all_moves` every legal
  // move gets its exact margin (for hints and analysis); otherwise only the best.
  SolveResult solve(const Position& pos, const SolveLimits& limits = {}, bool all_moves = false);
  void clear();  // empties the transposition table
  int64_t tt_bytes() const;

 private:
  struct Entry;
  struct Aborted {};
  int search(const Position& pos, int board, int alpha, int beta);
  int mtdf(const Position& pos, int board, int guess);
  void begin(const SolveLimits& limits);
  void check_limits();

  BigArray<Entry> tt_;
  uint64_t tt_entries_ = 0;
  uint64_t tt_mask_ = 0;
  std::shared_ptr<const KalahEndgameDb> db_;
  int64_t nodes_ = 0, node_limit_ = 0, next_check_ = 0;
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
  const std::atomic<bool>* stop_ = nullptr;
};

// Seeds on the pits (both rows).
int seeds_on_pits(const Position& pos);

// --- Facts for the words of the layer that shows them ------------------------------------
// (tools/exact_result_words.h: "solved: you win by 8 with perfect play; pit 3 keeps +8,
// pit 5 drops to +2, pit 1 drops to -4 (loses)".)

// What a move leads to with perfect play against the best move's margin `best`: the same
// margin, a smaller one of the same outcome, or a worse outcome (still a win, a draw, a
// loss).
enum class ExactMoveOutcome { kKeeps, kDrops, kDropsStillWins, kDropsToADraw, kDropsToALoss };
ExactMoveOutcome exact_move_outcome(int margin, int best);

// One legal move of a solved position with its perfect-play margin.
struct ExactMove {
  int move = -1;  // 0-based pit
  int margin = 0;
  ExactMoveOutcome outcome = ExactMoveOutcome::kKeeps;
};
// The legal moves whose margin `r` knows (a result of solve(..., all_moves = true)), the
// best margin first (ties: the lower pit).
std::vector<ExactMove> exact_moves(const Position& pos, const SolveResult& r);
// Stones a move gives away against perfect play (0 for a margin-optimal move), from a
// result of solve(..., all_moves = true); -1 when the move is not legal or not known.
int stones_lost(const SolveResult& r, int move);

}  // namespace kz
