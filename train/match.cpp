#include "train/match.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <random>
#include <set>

#include "mcts/alphabeta.h"
#include "mcts/driver.h"
#include "mcts/game_runner.h"
#include "mcts/rollout_evaluator.h"
#include "nn/nn_evaluator.h"
#include "train/progress.h"

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

// What one side of the match is built from: batched MCTS (evaluator + cache + driver)
// or the alpha-beta Player at a fixed depth.
struct SideEngine {
  std::string spec;
  std::shared_ptr<Evaluator> evaluator;
  std::unique_ptr<EvalCache> cache;
  std::unique_ptr<SearchDriver> driver;
  int ab_depth = 0;
};

SideEngine make_engine(const std::string& spec, const RunConfig& cfg, const torch::Device& device,
                       int max_batch) {
  SideEngine s;
  s.spec = spec;
  if (spec.rfind("ab:", 0) == 0) {
    try {
      s.ab_depth = std::stoi(spec.substr(3));
    } catch (...) {
      s.ab_depth = 0;
    }
    if (s.ab_depth < 1 || s.ab_depth > 64)
      throw std::invalid_argument("player '" + spec + "': expected ab:DEPTH, 1..64");
    return s;
  }
  if (spec == "rollout") {
    s.evaluator = std::make_shared<RolloutEvaluator>(8);
  } else {
    // "model.pt@fp32", "@bf16", "@int8" or "@auto": that model with the oneDNN path's precision
    // (nn/inference_network.h), to match one precision against the other.
    std::string path = spec;
    InferenceOptions inference;
    for (const char* precision : {"fp32", "bf16", "int8", "auto"})
      if (const std::string suffix = std::string("@") + precision;
          path.size() > suffix.size() && path.ends_with(suffix)) {
        inference.precision = parse_inference_precision(precision);
        path.resize(path.size() - suffix.size());
      }
    Model m =
        load_or_init_model(path == "init" ? "" : path, cfg.game, cfg.network, cfg.seed, device);
    s.evaluator = std::make_shared<NnEvaluator>(std::move(m), device, inference);
  }
  s.cache = std::make_unique<EvalCache>(1 << 18);
  s.driver = std::make_unique<SearchDriver>(*s.evaluator, s.cache.get(), max_batch);
  return s;
}

}  // namespace

MatchResult play_match(const MatchOptions& o) {
  const RunConfig& cfg = o.config;
  const int visits = o.visits > 0 ? o.visits : cfg.gate.visits;
  const int games = o.games > 0 ? o.games : cfg.gate.games;
  const int pairs_total = (games + 1) / 2;
  const int parallel = std::max(2, o.parallel > 0 ? o.parallel : cfg.gate.games_in_parallel);
  const int opening_plies = o.opening_plies >= 0 ? o.opening_plies : cfg.gate.opening_plies;
  const torch::Device device = parse_device(cfg.device);
  SideEngine engines[2] = {make_engine(o.a, cfg, device, 512), make_engine(o.b, cfg, device, 512)};
  SearchParams params = cfg.search;
  params.dirichlet_alpha = 0;
  GameSide sides[2];
  for (int s = 0; s < 2; ++s) {
    sides[s].name = engines[s].spec;
    if (engines[s].driver) {
      sides[s].driver = engines[s].driver.get();
      sides[s].params = params;
      sides[s].visits = visits;
    } else {
      const int depth = engines[s].ab_depth;
      sides[s].limits.depth = depth;
      sides[s].make_player = [depth](int, int) {
        AlphaBetaOptions ao;
        ao.depth = depth;
        ao.tt_mib = 8;
        return std::make_unique<AlphaBetaPlayer>(ao);
      };
    }
  }

  MatchResult result;
  std::ostream no_output(nullptr);  // discards everything (show_progress = false)
  Progress::Options progress_options;
  if (!o.show_progress) progress_options.out = &no_output;
  Progress progress("match " + o.a + " vs " + o.b, 2 * pairs_total, progress_options);
  const auto t0 = Clock::now();

  PairedMatch::Options po;
  po.pairs = pairs_total;
  po.seed = cfg.seed;
  po.opening = [&](int pair) {
    std::mt19937_64 rng(cfg.seed * 1000003 + uint64_t(pair));
    return random_opening(Position::start(cfg.game), opening_plies, rng, 1000);
  };
  po.temperature = cfg.gate.opening_temperature;
  po.temperature_plies = cfg.gate.temperature_plies;
  int pairs_done = 0;
  std::set<uint64_t> lines;  // every game's start and moves (RunnerGame::line_hash)
  po.on_game = [&](int, int, int a_points, const RunnerGame& g, const GameEnd&) {
    lines.insert(g.line_hash);
    result.distinct_games = int64_t(lines.size());
    result.wdl.wins += a_points == 2;
    result.wdl.draws += a_points == 1;
    result.wdl.losses += a_points == 0;
    result.plies += g.plies;
    progress.add(1);
    const auto e = estimate_elo(result.pairs);
    progress.set_field("W-D-L", std::to_string(result.wdl.wins) + "-" +
                                    std::to_string(result.wdl.draws) + "-" +
                                    std::to_string(result.wdl.losses));
    progress.set_field("elo", std::round(e.elo), 5);
  };
  po.on_pair = [&](int, int points) {
    result.pairs.counts[size_t(points)]++;
    ++pairs_done;
    if (o.on_pair) o.on_pair(result.wdl);
    if (o.use_sprt) {
      result.sprt = sprt(result.pairs,
                         SprtParams{cfg.gate.elo0, cfg.gate.elo1, cfg.gate.alpha, cfg.gate.beta});
      if (result.sprt.decision != SprtDecision::kContinue) {
        result.stopped_early = pairs_done < pairs_total;
        return false;
      }
    }
    return true;
  };
  PairedMatch match(std::move(po));
  GameRunnerOptions ro;
  ro.schedule = GameRunnerOptions::Schedule::kRounds;
  ro.slots = std::min(parallel, 2 * pairs_total);
  ro.max_plies = o.max_plies;
  ro.sides_in_parallel = o.sides_in_parallel;
  // A pair needs two free slots in one thread's share.
  ro.threads =
      std::clamp(search_threads_or_default(cfg.search_threads), 1, std::max(1, ro.slots / 2));
  GameRunner(sides, match, ro).run();

  progress.finish();
  result.elo = estimate_elo(result.pairs);
  if (o.use_sprt && !result.stopped_early)
    result.sprt =
        sprt(result.pairs, SprtParams{cfg.gate.elo0, cfg.gate.elo1, cfg.gate.alpha, cfg.gate.beta});
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

std::string describe_match(const MatchResult& r) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "W %lld D %lld L %lld  score %.3f  Elo %+.0f [%+.0f, %+.0f]  LOS %.1f%%",
                (long long)r.wdl.wins, (long long)r.wdl.draws, (long long)r.wdl.losses, r.elo.score,
                r.elo.elo, r.elo.elo_lo, r.elo.elo_hi, r.elo.los * 100);
  const int64_t games = r.wdl.wins + r.wdl.draws + r.wdl.losses;
  // Repeated games say the players are deterministic ([gate] opening_temperature).
  if (r.distinct_games > 0 && r.distinct_games < games)
    return std::string(buf) + "  distinct games " + std::to_string(r.distinct_games) + "/" +
           std::to_string(games);
  return buf;
}

}  // namespace kz
