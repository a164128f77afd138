// Playing levels: beginner, easy, medium, hard, expert, for every game, and perfect
// for Kalah games (mcts/perfect_player.h). Each level is a Player made by
// make_level_player(). What each level is (its engine, budget and root noise, for Togyz
// and for Kalah) is one table, level_spec() in mcts/levels.cpp; docs/levels.md has the
// matches that calibrate it. hard and expert play the network MCTS engine
// (mcts/mcts_player.h) when a model is at hand and the caller supplies an
// EvaluatorFactory (nn/model_evaluator.h makes the network's), otherwise alpha-beta.
// So this folder needs no LibTorch: the network comes in through that one function.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mcts/alphabeta.h"
#include "mcts/evaluator.h"
#include "mcts/mcts_player.h"
#include "mcts/player.h"

namespace kz {

// kPerfect is outside the calibrated ladder (kLevelCount counts beginner..expert): it
// exists for Kalah only, where positions can be solved (mcts/perfect_player.h).
enum class Level { kBeginner = 0, kEasy = 1, kMedium = 2, kHard = 3, kExpert = 4, kPerfect = 5 };
inline constexpr int kLevelCount = 5;

// "beginner" | "easy" | "medium" | "hard" | "expert" (also 1..5) | "perfect"; throws
// ParseError.
Level parse_level(std::string_view name);
const char* level_name(Level level);

// A level named by a PlayOK rating ("1200"): a whole number (digits only) other than the
// named levels' 1..5. Which ratings are playable is the human model's range, known only
// once that model is read (tools/human_level.h); this only tells the two kinds apart.
// nullopt: not a rating (parse_level's business).
std::optional<int> parse_rating_level(std::string_view text);

// The alpha-beta settings of a level. `time_scale` multiplies the level's time and node
// budgets (1 = as played; the level matches use less to stay affordable). `seed`
// drives the root noise of the low levels.
AlphaBetaOptions level_alphabeta_options(const GameSpec& spec, Level level, double time_scale = 1.0,
                                         uint64_t seed = 1);

// What one level is, for one game: a row of the level table (mcts/levels.cpp).
struct LevelSpec {
  // Alpha-beta: depth (0 = by time or nodes), quiescence plies, node budget (0 = none),
  // seconds per move (0 = none), root noise in stones, transposition table MiB.
  int ab_depth = 0;
  int ab_max_qdepth = 8;
  int64_t ab_nodes = 0;
  double ab_movetime_s = 0;
  double ab_randomness = 0;
  int ab_tt_mib = 4;
  // Plays the network MCTS whenever a model is at hand (and an EvaluatorFactory given).
  bool network = false;
  // MCTS (the level's own engine from hard up, and any level under the protocol's
  // `Engine mcts`): visits per move (0 = by time) and their floor when time_scale
  // shrinks them, seconds per move when by time.
  int64_t mcts_visits = 0;
  int64_t mcts_min_visits = 1;
  double mcts_movetime_s = 0;
};
// The table's row for `level` in `spec`'s game (Togyz, or Kalah of any size). perfect is
// expert's row: where the solver gives up, perfect plays expert.
const LevelSpec& level_spec(const GameSpec& spec, Level level);

// The network as a narrow interface: a model file (checked against the game) and the
// CPU threads it may use -> an Evaluator. nn/model_evaluator.h provides the network's;
// tests pass stubs. Empty = no network: every level plays alpha-beta.
using EvaluatorFactory = std::function<std::shared_ptr<Evaluator>(
    const GameSpec& spec, const std::string& model_path, int threads)>;

// The model shipped for a game: <dir>/<stem>.pt where dir is $KZ_MODELS_DIR or
// "models" (relative to the working directory) and stem is model_file_stem(spec).
// Returns "" when that file does not exist.
std::string shipped_model_path(const GameSpec& spec);
// "togyz", "kalah" (6,4), "bantumi" (5,4 empty), otherwise "kalah-M-N" / "kalah-M-N-empty".
std::string model_file_stem(const GameSpec& spec);

struct LevelPlayerOptions {
  double time_scale = 1.0;
  uint64_t seed = 1;
  // CPU threads of an MCTS level (the protocol's Threads), capped at the core count: T
  // search threads sharing the tree, each evaluating its own batch with one LibTorch
  // thread (MctsPlayerOptions::threads).
  int threads = 1;
  // Use alpha-beta even when a model is available (levels-match, comparisons).
  bool force_alphabeta = false;
  // Makes the network's evaluator for hard and expert (see EvaluatorFactory).
  EvaluatorFactory network = nullptr;
  // The MCTS engine's score bounds (SearchParams::score_bounds); off only to compare.
  bool score_bounds = true;
};

// The MCTS settings of `level` (level_spec's visits; the search parameters the game is
// played with, game_search_params() in mcts/search.h).
MctsPlayerOptions mcts_level_options(const GameSpec& spec, Level level, double time_scale,
                                     uint64_t seed);
// The MCTS engine at `level` over `model_path` (an existing file) through
// options.network; used by the levels and by the protocol's `Engine mcts` at any level.
// Throws std::runtime_error when options.network is empty.
std::unique_ptr<Player> make_mcts_level_player(const GameSpec& spec, Level level,
                                               const std::string& model_path,
                                               const LevelPlayerOptions& options);

// A player for `level`. perfect (Kalah only; Togyz: ParseError saying so) solves each
// position exactly within 60 s (time_scale scales it) with the endgame database built
// on first use, and plays expert where that fails. Kalah's expert tries the solver for
// a fifth of its second (without building a database) before its own search. hard and expert play
// the network MCTS when options.network is given and a model is at hand: `model_path` if
// not empty (it must exist, else std::runtime_error), or the shipped model. Every other
// case is alpha-beta.
std::unique_ptr<Player> make_level_player(const GameSpec& spec, Level level,
                                          const std::string& model_path,
                                          const LevelPlayerOptions& options = {});

// A player for hints, evaluations and analysis at `level`'s strength: the same engine
// choice as make_level_player() but never noisy, and the alpha-beta engine gives exact
// scores to its best `multipv` root moves (0 = all).
std::unique_ptr<Player> make_analysis_player(const GameSpec& spec, Level level,
                                             const std::string& model_path, int multipv,
                                             const LevelPlayerOptions& options = {});

}  // namespace kz
