#include "mcts/levels.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "core/i18n.h"
#include "mcts/perfect_player.h"

namespace kz {

Level parse_level(std::string_view name) {
  static const char* names[kLevelCount] = {"beginner", "easy", "medium", "hard", "expert"};
  for (int i = 0; i < kLevelCount; ++i)
    if (name == names[i] || (name.size() == 1 && name[0] == char('1' + i))) return Level(i);
  if (name == "perfect") return Level::kPerfect;
  throw ParseError(
      i18n::tr("unknown level '{level}' (expected beginner, easy, medium, hard, expert or perfect)",
               {{"level", std::string(name)}}));
}

std::optional<int> parse_rating_level(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  const int value = std::stoi(std::string(text));
  if (value >= 1 && value <= kLevelCount) return std::nullopt;
  return value;
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

// The level table (docs/levels.md shows the matches that calibrate it): what every level
// is, for Togyz and for Kalah (any size). Low levels search shallow with root noise so
// they vary and slip, yet still see a big capture or a win in one; the upper ones differ
// in budget only. Kalah stakes are smaller (48 seeds against 162 stones), so its noise
// is smaller too. Below expert the MCTS budgets are visits, so strength does not depend
// on the machine.
//   - Togyz medium: depth 4 came within a few points of hard in the level matches, and
//     noise 0.4 beat easy 92 %, leaving too small a step up to hard.
//   - hard (alpha-beta): a node budget keeps it the same on any machine (a few
//     hundredths of a second here); the time cap only guards a very slow one. Kalah
//     needs a smaller budget than Togyz to stay clearly below expert: its searches
//     solve endgames.
//   - hard (MCTS), Togyz: at 400 visits the network scored only 62 % against alpha-beta
//     medium (docs/levels.md); 1000 visits is still a tenth of expert's.
//   - beginner..medium never play the network: a weak network is not a weaker player in
//     a predictable way, and the low levels need their calibrated noise. Their MCTS rows
//     are for the protocol's `Engine mcts` only.
namespace {

//                      depth qd  nodes  time  noise tt  network visits min mcts_time
constexpr LevelSpec kTogyzLevels[kLevelCount] = {
    /* beginner */ {1, 1, 0, 0.0, 3.0, 4, false, 24, 4, 0.0},
    /* easy     */ {2, 4, 0, 0.0, 1.5, 4, false, 24, 4, 0.0},
    /* medium   */ {3, 8, 0, 0.0, 0.8, 4, false, 100, 8, 0.0},
    /* hard     */ {0, 8, 60000, 0.5, 0.0, 16, true, 1000, 16, 0.0},
    /* expert   */ {0, 8, 0, 1.0, 0.0, 64, true, 0, 1, 1.0},
};
constexpr LevelSpec kKalahLevels[kLevelCount] = {
    /* beginner */ {1, 1, 0, 0.0, 1.5, 4, false, 24, 4, 0.0},
    /* easy     */ {2, 4, 0, 0.0, 0.8, 4, false, 24, 4, 0.0},
    /* medium   */ {4, 8, 0, 0.0, 0.2, 4, false, 100, 8, 0.0},
    /* hard     */ {0, 8, 15000, 0.5, 0.0, 16, true, 400, 16, 0.0},
    /* expert   */ {0, 8, 0, 1.0, 0.0, 64, true, 0, 1, 1.0},
};

}  // namespace

const LevelSpec& level_spec(const GameSpec& spec, Level level) {
  const int row = level == Level::kPerfect ? int(Level::kExpert) : int(level);
  return spec.is_togyz() ? kTogyzLevels[row] : kKalahLevels[row];
}

AlphaBetaOptions level_alphabeta_options(const GameSpec& spec, Level level, double time_scale,
                                         uint64_t seed) {
  const LevelSpec& l = level_spec(spec, level);
  const double scale = std::max(time_scale, 1e-3);
  AlphaBetaOptions o;
  o.seed = seed;
  o.label = std::string("alphabeta-") + level_name(level);
  o.depth = l.ab_depth;
  o.max_qdepth = l.ab_max_qdepth;
  o.nodes = int64_t(double(l.ab_nodes) * scale);
  o.movetime_s = l.ab_movetime_s * scale;
  o.randomness = l.ab_randomness;
  o.tt_mib = l.ab_tt_mib;
  return o;
}

MctsPlayerOptions mcts_level_options(const GameSpec& spec, Level level, double time_scale,
                                     uint64_t seed) {
  const LevelSpec& l = level_spec(spec, level);
  MctsPlayerOptions o;
  o.seed = seed;
  o.params = game_search_params(spec);
  o.params.leaves_per_batch = 16;
  o.max_batch = 64;
  o.cache_entries = 1 << 18;
  // Time-limited levels (expert) search until their time is up.
  o.visits = l.mcts_visits == 0 ? int64_t(1) << 40
                                : std::max<int64_t>(l.mcts_min_visits,
                                                    int64_t(double(l.mcts_visits) * time_scale));
  o.label = std::string("mcts-") + level_name(level);
  return o;
}

namespace {

// A Player that forwards to an MctsPlayer but fills in the level's default limit when
// the caller gives none (the play loop asks without limits).
class LevelMctsPlayer : public Player {
 public:
  LevelMctsPlayer(std::shared_ptr<Evaluator> eval, const MctsPlayerOptions& o, double movetime)
      : inner_(std::move(eval), o), movetime_(movetime), label_(o.label) {}
  std::string name() const override { return label_; }
  void new_game() override { inner_.new_game(); }
  void set_progress_callback(ProgressCallback cb) override {
    inner_.set_progress_callback(std::move(cb));
  }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    ThinkLimits l = limits;
    if (l.nodes <= 0 && l.movetime_s <= 0 && movetime_ > 0) l.movetime_s = movetime_;
    return inner_.think(pos, l);
  }
  ThinkLimits budget() const override {
    if (movetime_ > 0) {
      ThinkLimits l;
      l.movetime_s = movetime_;
      return l;
    }
    return inner_.budget();
  }

 private:
  MctsPlayer inner_;
  double movetime_;
  std::string label_;
};

}  // namespace

std::unique_ptr<Player> make_mcts_level_player(const GameSpec& spec, Level level,
                                               const std::string& model_path,
                                               const LevelPlayerOptions& options) {
  if (!options.network)
    throw std::runtime_error("the MCTS engine needs a network (no EvaluatorFactory given)");
  // Threads T >= 2: T threads share the one tree, each evaluating its own batch with one
  // LibTorch thread, so T network calls run at once (MctsPlayerOptions::threads). Giving
  // LibTorch T intra-op threads instead made one search 48x slower on two cores as soon
  // as another process ran: those threads wait on each other at every layer, while the
  // search threads never wait for a core that is not theirs.
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::clamp(options.threads, 1, cores);
  std::shared_ptr<Evaluator> eval = options.network(spec, model_path, 1);
  MctsPlayerOptions o = mcts_level_options(spec, level, options.time_scale, options.seed);
  o.threads = threads;
  o.params.score_bounds = options.score_bounds;
  return std::make_unique<LevelMctsPlayer>(
      std::move(eval), o, level_spec(spec, level).mcts_movetime_s * options.time_scale);
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
  if (options.force_alphabeta || !level_spec(spec, level).network || !options.network)
    return nullptr;
  const std::string model = model_path.empty() ? shipped_model_path(spec) : model_path;
  if (model.empty()) return nullptr;
  return make_mcts_level_player(spec, level, model, options);
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
    // A minute: Kalah(6,4)'s first plies take tens of seconds to solve (docs/levels.md),
    // and where they fail the expert's opening move can give stones away (a whole game
    // from the start with 10 s ended +4 instead of +8). Once they are solved, the kept
    // table answers the rest of the game in moments.
    po.solve_s = 60.0 * scale;
    po.solve_share = 1.0;
    po.tt_mib = 256;
    po.build_egtb = true;
    po.log = &std::cerr;
    po.label = "perfect";
  } else {
    // Playing, the expert gives the solver a fifth of its second: with half, the search
    // of every position not solved (the opening and middle game) had only half its
    // time, and the expert scored 55.5 % against hard (docs/levels.md). Hints and
    // analysis, where exact margins matter most, keep half.
    const double share = all_moves ? 0.5 : 0.2;
    po.solve_s = share * scale;
    po.solve_share = share;
    po.tt_mib = 64;
    po.build_egtb = false;
    po.label = "solver";
    // Expert: the rest of its second. Hard's budget is in nodes, not seconds.
    if (level == Level::kExpert) inner.time_scale = (1 - share) * scale;
  }
  return std::make_unique<PerfectPlayer>(spec, make_expert(wrapped, inner), po);
}

void refuse_perfect_for_togyz(const GameSpec& spec, Level level) {
  if (level == Level::kPerfect && spec.is_togyz())
    throw ParseError(i18n::tr(
        "level perfect is for Kalah games only (Togyz Kumalak cannot be solved); use expert"));
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
