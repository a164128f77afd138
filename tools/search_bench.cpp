#include "tools/search_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <span>

#include "mcts/constant_evaluator.h"
#include "mcts/game_runner.h"

namespace kz::cli {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The games of a measurement: random positions, each searched until its visits and
// played on, until the time is up.
class BenchGames : public GameController {
 public:
  BenchGames(const GameSpec& spec, std::mt19937_64& rng, SearchFigures& f, double seconds)
      : spec_(spec), rng_(rng), f_(f), seconds_(seconds) {}
  void start_games(std::span<RunnerGame* const> free) override {
    for (RunnerGame* g : free) {
      g->pos = random_bench_position(spec_, rng_);
      g->side_of[0] = g->side_of[1] = 0;
      g->search_seed[0] = 100 + uint64_t(g->slot);
      g->active = true;
    }
  }
  int on_search_done(RunnerGame& g, Search& s) override {
    f_.visits += s.root_visits() - g.start_visits;
    if (s.node_count() > f_.peak_nodes) {
      f_.peak_nodes = s.node_count();
      f_.visits_at_peak = size_t(s.root_visits());
    }
    return s.pick_move(0, rng_);
  }
  void on_game_end(RunnerGame&, const GameEnd&) override {}
  bool keep_going() override { return since(t0_) < seconds_; }

 private:
  const GameSpec& spec_;
  std::mt19937_64& rng_;
  SearchFigures& f_;
  double seconds_;
  Clock::time_point t0_ = Clock::now();
};

// `x` to `decimals` decimals.
double rounded(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(x * scale) / scale;
}

}  // namespace

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

Position random_bench_position(const GameSpec& spec, std::mt19937_64& rng) {
  while (true) {
    const int plies = int(rng() % 41);
    const Position p = random_opening(Position::start(spec), plies, rng);
    if (!p.is_decided()) return p;
  }
}

SearchFigures measure_search(const GameSpec& spec, Evaluator& evaluator, const SearchParams& params,
                             const SearchBenchSettings& settings, bool pipelined, double seconds,
                             int search_threads, std::mt19937_64& rng) {
  const int games_per_batch = std::max(1, settings.batch / std::max(1, settings.leaves_per_search));
  SearchFigures f;
  EvalCache cache(1 << 18);
  SearchDriver driver(evaluator, &cache, settings.batch);
  GameSide side;
  side.name = "bench";
  side.driver = &driver;
  side.params = params;
  side.visits = settings.visits;
  GameRunnerOptions ro;
  ro.schedule =
      pipelined ? GameRunnerOptions::Schedule::kPipelined : GameRunnerOptions::Schedule::kRounds;
  ro.slots = pipelined ? 2 * games_per_batch : games_per_batch;
  ro.max_plies = 1 << 20;  // games end by being decided
  // The serial measurement stays one thread: the network waits while the tree works.
  if (pipelined) ro.threads = std::min(search_threads, ro.slots);
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_seconds();
  BenchGames games(spec, rng, f, seconds);
  GameRunner runner(std::span<const GameSide>(&side, 1), games, ro);
  runner.run();
  // The searches the clock stopped count too, in the visits and in the largest tree (on a
  // busy machine a short measurement may stop before any search is done).
  for (const RunnerGame& g : runner.games()) {
    if (!g.active) continue;
    const Search& s = *g.search[0];
    f.visits += s.root_visits() - g.start_visits;
    if (s.node_count() > f.peak_nodes) {
      f.peak_nodes = s.node_count();
      f.visits_at_peak = size_t(s.root_visits());
    }
  }
  f.seconds = since(t0);
  f.cpu_seconds = process_cpu_seconds() - cpu0;
  f.stats = driver.stats();
  return f;
}

nlohmann::ordered_json tree_bench(const GameSpec& spec, const SearchBenchSettings& settings,
                                  bool score_bounds, double seconds) {
  std::mt19937_64 rng(7);
  ConstantEvaluator evaluator;
  SearchParams params;
  params.leaves_per_batch = settings.leaves_per_search;
  params.score_bounds = score_bounds;
  const SearchFigures f = measure_search(spec, evaluator, params, settings, false, seconds, 1, rng);
  nlohmann::ordered_json j;
  j["game"] = spec.name();
  j["evaluator"] = evaluator.describe();
  j["batch"] = settings.batch;
  j["leaves_per_search"] = settings.leaves_per_search;
  j["visits"] = settings.visits;
  j["score_bounds"] = score_bounds;
  j["tree_visits_per_s"] = std::round(double(f.visits) / f.seconds);
  j["tree_ns_per_visit"] = f.visits ? rounded(f.seconds * 1e9 / double(f.visits), 1) : 0.0;
  j["tree_leaves_per_s"] = std::round(double(f.stats.evaluated) / f.seconds);
  j["cache_hit_rate"] = std::round(f.stats.cache_hit_rate() * 1000) / 1000;
  j["tree_eval_time_share"] = std::round(f.stats.eval_seconds / f.seconds * 1000) / 1000;
  j["bytes_per_node"] = Search::bytes_per_node();
  return j;
}

nlohmann::ordered_json bench_json(const GameSpec& spec, const BenchRun& run,
                                  const BenchNetwork& network, const NetFigures& net,
                                  const SearchFigures& serial, const SearchFigures& piped) {
  const int games_per_batch =
      std::max(1, run.settings.batch / std::max(1, run.settings.leaves_per_search));
  const double net_rate = double(net.evals) / net.seconds;
  const DriverStats& st = piped.stats;
  const double elapsed = piped.seconds;
  const double serial_rate = double(serial.stats.evaluated) / serial.seconds;
  const size_t peak_nodes = std::max(piped.peak_nodes, serial.peak_nodes);
  const size_t node_visits_at_peak =
      piped.peak_nodes >= serial.peak_nodes ? piped.visits_at_peak : serial.visits_at_peak;
  const int games = 2 * games_per_batch;
  const int64_t visits = piped.visits;
  nlohmann::ordered_json j;
  j["game"] = spec.name();
  j["evaluator"] = network.evaluator;
  j["parameters"] = network.parameters;
  j["batch"] = run.settings.batch;
  j["threads"] = run.threads;
  j["search_threads"] = std::min(run.search_threads, 2 * games_per_batch);
  j["games_in_parallel"] = games;
  j["leaves_per_search"] = run.settings.leaves_per_search;
  j["score_bounds"] = run.score_bounds;
  j["net_evals_per_s"] = std::round(net_rate);
  j["search_evals_per_s"] = std::round(double(st.evaluated) / elapsed);
  j["search_visits_per_s"] = std::round(double(visits) / elapsed);
  j["busy_ratio"] = std::round(double(st.evaluated) / elapsed / net_rate * 1000) / 1000;
  // The same per CPU second (robust to other processes' load): the network alone on its
  // one thread, and the pipelined search's evaluations per CPU second of the whole
  // process (tree and network threads together); cpu_share is that process's CPU
  // seconds per wall second (up to the core count).
  j["net_evals_per_cpu_s"] =
      net.cpu_seconds > 0 ? std::round(double(net.evals) / net.cpu_seconds) : 0;
  j["search_evals_per_cpu_s"] =
      piped.cpu_seconds > 0 ? std::round(double(st.evaluated) / piped.cpu_seconds) : 0;
  j["search_cpu_share"] = rounded(piped.cpu_seconds / elapsed, 2);
  j["avg_batch"] = st.batches ? std::round(double(st.evaluated) / double(st.batches) * 10) / 10 : 0;
  j["cache_hit_rate"] = std::round(st.cache_hit_rate() * 1000) / 1000;
  j["eval_time_share"] = std::round(st.eval_seconds / elapsed * 1000) / 1000;
  j["serial_search_evals_per_s"] = std::round(serial_rate);
  j["serial_busy_ratio"] = std::round(serial_rate / net_rate * 1000) / 1000;
  j["serial_eval_time_share"] =
      std::round(serial.stats.eval_seconds / serial.seconds * 1000) / 1000;
  j["bytes_per_node"] = Search::bytes_per_node();
  j["bytes_per_visit"] =
      node_visits_at_peak
          ? std::round(double(peak_nodes * Search::bytes_per_node()) / double(node_visits_at_peak))
          : 0;
  j["nodes_per_gib"] = (1ull << 30) / Search::bytes_per_node();
  const double flops = double(network.flops_per_position);
  j["fold_batch_norm"] = network.folded;
  j["inference"] = network.inference;
  j["precision"] = network.precision;
  j["net_flops_per_position"] = int64_t(flops);
  j["net_gflops"] = rounded(net_rate * flops / 1e9, 2);
  return j;
}

}  // namespace kz::cli
