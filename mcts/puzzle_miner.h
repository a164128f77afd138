// Finding puzzles: positions where one move is clearly best. Shared by `kumalak puzzles
// build` (tools/puzzle_build.h) and its tests; docs/puzzles.md says what each step
// checks and why.
//
// Two steps, the cheap one first so that mining thousands of positions takes minutes:
// 1. filter(): the evaluator's value of every child of many positions, in large batches
//    (one network call per batch); a position stays a candidate when its best move's
//    expected score beats the second best's by `filter_gap` and the best holds
//    (`min_best`).
// 2. confirm(): every legal move gets a search of its own (`confirm_visits`); the best
//    must beat the second by `min_gap` and hold. In Kalah the exact solver must agree:
//    solved, the same key move, and every other move gives stones away against perfect
//    play. The puzzle's rating is the search effort that finds the key move
//    (visits_to_find), unless a human model rates it afterwards.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/puzzle_file.h"
#include "mcts/evaluator.h"
#include "mcts/kalah_solver.h"

namespace kz {

struct PuzzleMinerOptions {
  // The confirmed gap: the key move's expected score (win + draw/2) beats every other
  // move's by at least this, each from its own search (`kumalak puzzles build --margin`).
  double min_gap = 0.30;
  // The one-ply gap a position needs to be searched at all (looser than min_gap: the
  // network alone misjudges some positions both ways).
  double filter_gap = 0.20;
  // The key move must hold: its expected score at least this (a move that only loses
  // less slowly is no puzzle).
  double min_best = 0.45;
  // Visits of each move's own search in confirm().
  int64_t confirm_visits = 128;
  // The rating ladder's largest search (visits 1, 2, 4, ... up to this).
  int64_t max_rating_visits = 1024;
  // Rate each puzzle by the ladder's search effort in confirm(); false leaves the rating
  // at 1500 for the caller to set (by a human model: nn/puzzle_human_rating.h).
  bool rate_by_search = true;
  // Plies of the solution line at most (the key move included).
  int max_line = 7;
  // Kalah: seconds the exact solver may spend on one position (all moves); a position
  // it does not solve in time is dropped.
  double solver_seconds = 2.0;
  uint64_t seed = 1;
};

// A position to look at and where it comes from (the Puzzle's `source`).
struct PuzzleCandidate {
  Position position;
  std::string source;
  int game = -1;  // any number identifying the game it belongs to (caps puzzles per game)
};

// The rating of a puzzle whose key move a search first finds, and keeps finding, with
// `visits` visits: 600 + 200 * log2(visits), within kMinPuzzleRating..kMaxPuzzleRating
// (docs/puzzles.md, "Rating").
int puzzle_rating_for_visits(int64_t visits);

// The expected score (win + draw/2) for the side that moved from `parent`, of the
// position `child` reached by a move: exact when the child is over or decided, else
// from `out` (the evaluator's answer for the child, whoever moves there).
double mover_score(const Position& parent, const Position& child, const EvalOutput* out);

class PuzzleMiner {
 public:
  // `evaluator` filters and confirms (the network). `rating_evaluator` is the search
  // whose effort rates a puzzle: null = random playouts (RolloutEvaluator, 8 playouts),
  // a search that knows nothing of the game but its rules, so that a capture the
  // network sees at once is not rated like a quiet move that needs looking ahead.
  // `solver` (Kalah only; may be null for Togyz) confirms Kalah puzzles exactly.
  PuzzleMiner(const GameSpec& spec, std::shared_ptr<Evaluator> evaluator,
              const PuzzleMinerOptions& options, KalahSolver* solver = nullptr,
              std::shared_ptr<Evaluator> rating_evaluator = nullptr);

  // Step 1 over many positions at once: the indexes of the candidates that pass.
  std::vector<size_t> filter(std::span<const PuzzleCandidate> positions);
  // Step 2: the puzzle, with theme, line and rating, or nothing when it is not clear.
  std::optional<Puzzle> confirm(const PuzzleCandidate& candidate);
  // The smallest visit count of the ladder from which on a search plays `key_move`.
  int64_t visits_to_find(const Position& pos, int key_move);

  int64_t evaluations() const { return evaluations_; }

 private:
  GameSpec spec_;
  std::shared_ptr<Evaluator> evaluator_, rating_evaluator_;
  PuzzleMinerOptions options_;
  KalahSolver* solver_;
  int64_t evaluations_ = 0;
};

}  // namespace kz
