#include "train/match.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <random>

#include "mcts/alphabeta.h"
#include "mcts/driver.h"
#include "mcts/rollout_evaluator.h"
#include "mcts/task_thread.h"
#include "nn/nn_evaluator.h"
#include "train/progress.h"

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

// One side of the match: either batched MCTS (evaluator + cache + driver) or a Player
// that thinks on its own (alpha-beta).
struct Side {
  std::string spec;
  std::shared_ptr<Evaluator> evaluator;
  std::unique_ptr<EvalCache> cache;
  std::unique_ptr<SearchDriver> driver;
  int ab_depth = 0;
  bool is_mcts() const { return driver != nullptr; }
};

Side make_side(const std::string& spec, const RunConfig& cfg, const torch::Device& device,
               int max_batch) {
  Side s;
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
    Model m =
        load_or_init_model(spec == "init" ? "" : spec, cfg.game, cfg.network, cfg.seed, device);
    s.evaluator = std::make_shared<NnEvaluator>(std::move(m), device);
  }
  s.cache = std::make_unique<EvalCache>(1 << 18);
  s.driver = std::make_unique<SearchDriver>(*s.evaluator, s.cache.get(), max_batch);
  return s;
}

struct MatchGame {
  int pair = -1;
  int a_color = 0;  // 0: a plays White/South
  Position pos;
  std::unique_ptr<Search> search[2];       // per side (index 0 = a, 1 = b), MCTS sides only
  std::unique_ptr<AlphaBetaPlayer> ab[2];  // per side, alpha-beta sides only
  int plies = 0;
  bool active = false;
};

}  // namespace

MatchResult play_match(const MatchOptions& o) {
  const RunConfig& cfg = o.config;
  const int visits = o.visits > 0 ? o.visits : cfg.gate.visits;
  const int games = o.games > 0 ? o.games : cfg.gate.games;
  const int pairs_total = (games + 1) / 2;
  const int parallel = std::max(2, o.parallel > 0 ? o.parallel : cfg.gate.games_in_parallel);
  const int opening_plies = o.opening_plies >= 0 ? o.opening_plies : cfg.gate.opening_plies;
  const torch::Device device = parse_device(cfg.device);
  Side sides[2] = {make_side(o.a, cfg, device, 512), make_side(o.b, cfg, device, 512)};
  SearchParams params = cfg.search;
  params.dirichlet_alpha = 0;

  MatchResult result;
  std::vector<int> pair_points(pairs_total, 0);  // half points of a, per pair
  std::vector<int> pair_games_done(pairs_total, 0);
  int next_pair = 0, pairs_done = 0;
  bool stop_starting = false;
  std::vector<MatchGame> slots(std::min(parallel, 2 * pairs_total));
  std::ostream no_output(nullptr);  // discards everything (show_progress = false)
  Progress::Options progress_options;
  if (!o.show_progress) progress_options.out = &no_output;
  Progress progress("match " + o.a + " vs " + o.b, 2 * pairs_total, progress_options);
  const auto t0 = Clock::now();

  auto opening_for = [&](int pair) {
    std::mt19937_64 rng(cfg.seed * 1000003 + uint64_t(pair));
    return random_opening(Position::start(cfg.game), opening_plies, rng, 1000);
  };
  // Fills free slots with the two games of the next pairs.
  auto refill = [&]() {
    while (!stop_starting && next_pair < pairs_total) {
      // Start a pair only when two slots are free.
      std::vector<size_t> free_slots;
      for (size_t k = 0; k < slots.size() && free_slots.size() < 2; ++k)
        if (!slots[k].active) free_slots.push_back(k);
      if (free_slots.size() < 2) return;
      const Position start = opening_for(next_pair);
      for (int g = 0; g < 2; ++g) {
        MatchGame& m = slots[free_slots[g]];
        m = MatchGame{};
        m.pair = next_pair;
        m.a_color = g;
        m.pos = start;
        m.active = true;
        for (int s = 0; s < 2; ++s) {
          if (sides[s].is_mcts()) {
            m.search[s] = std::make_unique<Search>(params, cfg.seed + uint64_t(next_pair) * 2 + g);
            m.search[s]->set_root(start);
          } else {
            AlphaBetaOptions ao;
            ao.depth = sides[s].ab_depth;
            ao.tt_mib = 8;
            m.ab[s] = std::make_unique<AlphaBetaPlayer>(ao);
          }
        }
      }
      ++next_pair;
    }
  };
  auto side_to_move = [](const MatchGame& m) { return m.pos.to_move == m.a_color ? 0 : 1; };
  auto finish = [&](MatchGame& m) {
    const Outcome out = m.pos.outcome_by_stores();  // at max_plies: adjudicated
    int a_points;                                   // half points
    if (out == Outcome::kDraw)
      a_points = 1;
    else
      a_points = ((out == Outcome::kWhiteWins) == (m.a_color == 0)) ? 2 : 0;
    result.wdl.wins += a_points == 2;
    result.wdl.draws += a_points == 1;
    result.wdl.losses += a_points == 0;
    result.plies += m.plies;
    pair_points[m.pair] += a_points;
    m.active = false;
    progress.add(1);
    if (++pair_games_done[m.pair] == 2) {
      result.pairs.counts[pair_points[m.pair]]++;
      ++pairs_done;
      if (o.on_pair) o.on_pair(result.wdl);
      if (o.use_sprt) {
        result.sprt = sprt(result.pairs,
                           SprtParams{cfg.gate.elo0, cfg.gate.elo1, cfg.gate.alpha, cfg.gate.beta});
        if (result.sprt.decision != SprtDecision::kContinue) {
          stop_starting = true;
          result.stopped_early = pairs_done < pairs_total;
        }
      }
    }
    const auto e = estimate_elo(result.pairs);
    progress.set_field("W-D-L", std::to_string(result.wdl.wins) + "-" +
                                    std::to_string(result.wdl.draws) + "-" +
                                    std::to_string(result.wdl.losses));
    progress.set_field("elo", std::round(e.elo), 5);
  };
  auto play_move = [&](MatchGame& m, int move) {
    m.pos.play(move);
    ++m.plies;
    if (m.pos.is_decided() || m.plies >= o.max_plies) {
      finish(m);
      return;
    }
    for (int s = 0; s < 2; ++s)
      if (m.search[s]) m.search[s]->set_root(m.pos);
  };

  refill();
  std::vector<Search*> batch[2];
  std::vector<int64_t> targets[2];
  // Side a's rounds when both sides search (see below). Declared after the vectors its
  // tasks read: if side b's round throws, its destructor waits for side a's round first.
  TaskThread side_a_thread;
  while (true) {
    bool any = false;
    for (auto& m : slots) any |= m.active;
    if (!any) break;
    // Alpha-beta moves first (they do not batch), then one batched step per MCTS side.
    for (auto& m : slots) {
      while (m.active && !sides[side_to_move(m)].is_mcts()) {
        ThinkLimits lim;
        lim.depth = sides[side_to_move(m)].ab_depth;
        play_move(m, m.ab[side_to_move(m)]->think(m.pos, lim).best_move);
      }
    }
    for (int s = 0; s < 2; ++s) {
      batch[s].clear();
      targets[s].clear();
      if (!sides[s].is_mcts()) continue;
      for (auto& m : slots) {
        if (!m.active || side_to_move(m) != s) continue;
        batch[s].push_back(m.search[s].get());
        targets[s].push_back(visits);
      }
    }
    // When both sides have searches to run, side a's round runs on a second thread while
    // side b's runs here. The two share nothing (own searches, evaluator, cache and
    // driver; positions are only changed below, after both rounds), so every game is
    // exactly what taking turns would give, while one side's tree work overlaps the other
    // side's network call: a gating match keeps two cores busy instead of one.
    const bool both = o.sides_in_parallel && !batch[0].empty() && !batch[1].empty();
    if (both)
      side_a_thread.start([&] { sides[0].driver->step(batch[0], targets[0]); });
    else if (!batch[0].empty())
      sides[0].driver->step(batch[0], targets[0]);
    if (!batch[1].empty()) sides[1].driver->step(batch[1], targets[1]);
    if (both) side_a_thread.wait();  // rethrows side a's error, if any
    for (auto& m : slots) {
      if (!m.active) continue;
      const int s = side_to_move(m);
      if (!sides[s].is_mcts()) continue;
      Search& search = *m.search[s];
      if (!search.done(visits)) continue;
      std::mt19937_64 unused(0);
      play_move(m, search.pick_move(0, unused));
    }
    refill();
  }
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
  return buf;
}

}  // namespace kz
