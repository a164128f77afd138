#include "mcts/levels.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include "mcts/perfect_player.h"

namespace kz {

namespace {

std::mutex& factory_mutex() {
  static std::mutex m;
  return m;
}
MctsPlayerFactory& factory_slot() {
  static MctsPlayerFactory f;
  return f;
}

}  // namespace

Level parse_level(std::string_view name) {
  static const char* names[kLevelCount] = {"beginner", "easy", "medium", "hard", "expert"};
  for (int i = 0; i < kLevelCount; ++i)
    if (name == names[i] || (name.size() == 1 && name[0] == char('1' + i))) return Level(i);
  if (name == "perfect") return Level::kPerfect;
  throw ParseError("unknown level '" + std::string(name) +
                   "' (expected beginner, easy, medium, hard, expert or perfect)");
}

const char* level_name(Level level) {
  switch (level) {
    case Level::kBeginner:
      return "beginner";
    case Level::kEasy:
      return "easy";
    case Level::kMedium:
      return "medium";
    case Level::kHard:
      return "hard";
    case Level::kExpert:
      return "expert";
    case Level::kPerfect:
      return "perfect";
  }
  return "?";
}

// The level table (docs/levels.md shows the matches that calibrate it). Low levels
// search shallow with root noise so they vary and slip, yet still see a big capture
// or a win in one; the upper ones differ in time only. Kalah stakes are smaller (48
// seeds against 162 stones), so its noise is smaller too.
AlphaBetaOptions level_alphabeta_options(const GameSpec& spec, Level level, double time_scale,
                                         uint64_t seed) {
  AlphaBetaOptions o;
  o.seed = seed;
  o.tt_mib = 4;
  o.label = std::string("alphabeta-") + level_name(level);
  const bool togyz = spec.is_togyz();
  const double scale = std::max(time_scale, 1e-3);
  switch (level) {
    case Level::kBeginner:
      o.depth = 1;
      o.max_qdepth = 1;
      o.randomness = togyz ? 3.0 : 1.5;
      break;
    case Level::kEasy:
      o.depth = 2;
      o.max_qdepth = 4;
      o.randomness = togyz ? 1.5 : 0.8;
      break;
    case Level::kMedium:
      // Togyz depth 4 came within a few points of hard in the level matches.
      o.depth = togyz ? 3 : 4;
      // Togyz medium at 0.4 beat easy 92 %, and left too small a step up to hard.
      o.randomness = togyz ? 0.8 : 0.2;
      break;
    case Level::kHard:
      // A node budget keeps hard the same on any machine (a few hundredths of a
      // second here); the time cap only guards a very slow one. Kalah needs a smaller
      // budget than Togyz to stay clearly below expert: its searches solve endgames.
      o.nodes = int64_t((togyz ? 60000 : 15000) * scale);
      o.movetime_s = 0.5 * scale;
      o.tt_mib = 16;
      break;
    case Level::kExpert:
    case Level::kPerfect:  // where the solver gives up, perfect plays expert
      o.movetime_s = 1.0 * scale;
      o.tt_mib = 64;
      break;
  }
  return o;
}

void set_mcts_player_factory(MctsPlayerFactory factory) {
  std::lock_guard<std::mutex> lock(factory_mutex());
  factory_slot() = std::move(factory);
}

bool has_mcts_player_factory() {
  std::lock_guard<std::mutex> lock(factory_mutex());
  return bool(factory_slot());
}

std::unique_ptr<Player> make_mcts_player(const MctsRequest& request) {
  MctsPlayerFactory f;
  {
    std::lock_guard<std::mutex> lock(factory_mutex());
    f = factory_slot();
  }
  if (!f) return nullptr;
  return f(request);
}

std::string model_file_stem(const GameSpec& spec) {
  if (spec.is_togyz()) return "togyz";
  if (spec == GameSpec::kalah(6, 4, false)) return "kalah";
  if (spec == GameSpec::kalah(5, 4, true)) return "bantumi";
  std::string s = "kalah-" + std::to_string(spec.pits) + "-" + std::to_string(spec.seeds);
  if (spec.variant == Variant::kKalahEmpty) s += "-empty";
  return s;
}

std::string shipped_model_path(const GameSpec& spec) {
  const char* env = std::getenv("KZ_MODELS_DIR");
  const std::filesystem::path dir = env && *env ? env : "models";
  const auto path = dir / (model_file_stem(spec) + ".pt");
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? path.string() : "";
}

namespace {

std::unique_ptr<Player> make_mcts_for_level(const GameSpec& spec, Level level,
                                            const std::string& model_path,
                                            const LevelPlayerOptions& options) {
  if (!model_path.empty() && !std::filesystem::is_regular_file(model_path))
    throw std::runtime_error("model '" + model_path + "' does not exist");
  // MCTS HOOK: hard and expert become the neural engine when one is registered and a
  // model is at hand. Lower levels stay alpha-beta: a weak network is not a weaker
  // player in a predictable way, and the low levels need their calibrated noise.
  if (options.force_alphabeta || level < Level::kHard || !has_mcts_player_factory()) return nullptr;
  const std::string model = model_path.empty() ? shipped_model_path(spec) : model_path;
  if (model.empty()) return nullptr;
  MctsRequest req;
  req.spec = spec;
  req.level = level;
  req.model_path = model;
  req.threads = options.threads;
  req.seed = options.seed;
  req.time_scale = options.time_scale;
  return make_mcts_player(req);
}

}  // namespace

namespace {

// The engines as they were before the solver: what the expert wraps.
std::unique_ptr<Player> make_plain_analysis_player(const GameSpec& spec, Level level,
                                                   const std::string& model_path, int multipv,
                                                   const LevelPlayerOptions& options) {
  // A model asked for by name is used whatever the level.
  const Level mcts_level = model_path.empty() ? level : std::max(level, Level::kHard);
  if (auto p = make_mcts_for_level(spec, mcts_level, model_path, options)) return p;
  AlphaBetaOptions o = level_alphabeta_options(spec, level, options.time_scale, options.seed);
  // Low levels search too shallow to explain anything; analysis is at least medium.
  if (level < Level::kMedium) o = level_alphabeta_options(spec, Level::kMedium, 1.0, options.seed);
  o.randomness = 0;
  o.multipv = multipv <= 0 ? kMaxMoves : multipv;
  o.tt_mib = std::max(o.tt_mib, 16);
  return std::make_unique<AlphaBetaPlayer>(o);
}

std::unique_ptr<Player> make_plain_level_player(const GameSpec& spec, Level level,
                                                const std::string& model_path,
                                                const LevelPlayerOptions& options) {
  if (auto p = make_mcts_for_level(spec, level, model_path, options)) return p;
  return std::make_unique<AlphaBetaPlayer>(
      level_alphabeta_options(spec, level, options.time_scale, options.seed));
}

// Kalah's perfect level, and Kalah's expert (which tries the solver for half its time
// first, with only a database that is already built): both wrap the expert engine that
// `make_expert(level, options)` makes (for analysis, hard wraps the hard engine). force_alphabeta
// (levels-match --alphabeta, hint --depth) keeps expert the plain alpha-beta engine; perfect always
// solves. Analysis (hints, analyze) of Kalah tries the solver from hard up, so that a move that
// gives stones away is shown exactly wherever the position is solved quickly.
bool uses_solver(const GameSpec& spec, Level level, const LevelPlayerOptions& options,
                 bool analysis = false) {
  if (spec.is_togyz()) return false;
  if (level == Level::kPerfect) return true;
  if (options.force_alphabeta) return false;
  return level == Level::kExpert || (analysis && level == Level::kHard);
}

template <class MakeExpert>
std::unique_ptr<Player> wrap_with_solver(const GameSpec& spec, Level level,
                                         const LevelPlayerOptions& options, bool all_moves,
                                         const MakeExpert& make_expert) {
  const double scale = std::max(options.time_scale, 1e-3);
  LevelPlayerOptions inner = options;
  PerfectPlayerOptions po;
  po.all_moves = all_moves;
  const Level wrapped = level == Level::kHard ? Level::kHard : Level::kExpert;
  if (level == Level::kPerfect) {
    po.solve_s = 10.0 * scale;
    po.solve_share = 1.0;
    po.tt_mib = 256;
    po.build_egtb = true;
    po.log = &std::cerr;
    po.label = "perfect";
  } else {
    po.solve_s = 0.5 * scale;
    po.solve_share = 0.5;
    po.tt_mib = 64;
    po.build_egtb = false;
    po.label = "solver";
    // Expert: the other half of its second. Hard's budget is in nodes, not seconds.
    if (level == Level::kExpert) inner.time_scale = 0.5 * scale;
  }
  return std::make_unique<PerfectPlayer>(spec, make_expert(wrapped, inner), po);
}

void refuse_perfect_for_togyz(const GameSpec& spec, Level level) {
  if (level == Level::kPerfect && spec.is_togyz())
    throw ParseError(
        "level perfect is for Kalah games only (Togyz Kumalak cannot be solved); use expert");
}

}  // namespace

std::unique_ptr<Player> make_analysis_player(const GameSpec& spec, Level level,
                                             const std::string& model_path, int multipv,
                                             const LevelPlayerOptions& options) {
  refuse_perfect_for_togyz(spec, level);
  if (uses_solver(spec, level, options, /*analysis=*/true))
    return wrap_with_solver(spec, level, options, true, [&](Level l, const LevelPlayerOptions& o) {
      return make_plain_analysis_player(spec, l, model_path, multipv, o);
    });
  return make_plain_analysis_player(spec, level, model_path, multipv, options);
}

std::unique_ptr<Player> make_level_player(const GameSpec& spec, Level level,
                                          const std::string& model_path,
                                          const LevelPlayerOptions& options) {
  refuse_perfect_for_togyz(spec, level);
  if (uses_solver(spec, level, options))
    return wrap_with_solver(spec, level, options, false, [&](Level l, const LevelPlayerOptions& o) {
      return make_plain_level_player(spec, l, model_path, o);
    });
  return make_plain_level_player(spec, level, model_path, options);
}

}  // namespace kz
