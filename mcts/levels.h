// Playing levels: beginner, easy, medium, hard, expert, for every game, and perfect
// for Kalah games (mcts/perfect_player.h). Each level is a Player made by
// make_level_player(). Today every level is the alpha-beta engine with
// a depth/time budget and some root noise (docs/levels.md has the table and the match
// results that calibrate it). The upper levels switch to the neural MCTS engine once
// one is available: the MCTS library registers a factory with
// set_mcts_player_factory(), and a model is given or shipped under models/.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mcts/alphabeta.h"
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

// The alpha-beta settings of a level. `time_scale` multiplies the level's time and node
// budgets (1 = as played; the level matches use less to stay affordable). `seed`
// drives the root noise of the low levels.
AlphaBetaOptions level_alphabeta_options(const GameSpec& spec, Level level, double time_scale = 1.0,
                                         uint64_t seed = 1);

// --- Hook for the model-based engine -------------------------------------------------
// The MCTS engine lives in another library (it needs LibTorch); it plugs itself in
// here so that this file and everything that makes players stay free of it. Whoever
// links the network code calls set_mcts_player_factory() once at start-up (before any
// player is made); from then on make_level_player() uses it for hard and expert
// whenever a model is available, and the protocol's `Engine mcts` option uses it for
// any level.
struct MctsRequest {
  GameSpec spec;
  Level level = Level::kExpert;
  std::string model_path;  // an existing file
  int threads = 1;         // CPU threads the engine may use (protocol option Threads)
  uint64_t seed = 1;
  double time_scale = 1.0;  // as for level_alphabeta_options
};
using MctsPlayerFactory = std::function<std::unique_ptr<Player>(const MctsRequest&)>;
void set_mcts_player_factory(MctsPlayerFactory factory);
bool has_mcts_player_factory();
// Makes an MCTS player through the registered factory; nullptr when none is registered.
std::unique_ptr<Player> make_mcts_player(const MctsRequest& request);

// The model shipped for a game: <dir>/<stem>.pt where dir is $KZ_MODELS_DIR or
// "models" (relative to the working directory) and stem is model_file_stem(spec).
// Returns "" when that file does not exist.
std::string shipped_model_path(const GameSpec& spec);
// "togyz", "kalah" (6,4), "bantumi" (5,4 empty), otherwise "kalah-M-N" / "kalah-M-N-empty".
std::string model_file_stem(const GameSpec& spec);

struct LevelPlayerOptions {
  double time_scale = 1.0;
  uint64_t seed = 1;
  int threads = 1;
  // Use alpha-beta even when a model is available (levels-match, comparisons).
  bool force_alphabeta = false;
};

// A player for `level`. perfect (Kalah only; Togyz: ParseError saying so) solves each
// position exactly within 10 s (time_scale scales it) with the endgame database built
// on first use, and plays expert where that fails. Kalah's expert tries the solver for
// half its second (without building a database) before its own search. hard and expert use the
// registered MCTS factory when there is one and a model: `model_path` if not empty (it must exist,
// else std::runtime_error), or the shipped model. Every other case is alpha-beta.
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
