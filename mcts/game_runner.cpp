#include "mcts/game_runner.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

#include "core/checksum.h"
#include "mcts/batching_front.h"
#include "mcts/task_thread.h"

namespace kz {

namespace {

// The seed of the temperature's draws in game `index` of a match seeded with `seed`.
// Not derive_seed (core/checksum.h): matches with a temperature have always been seeded
// with this formula, and another one would change every seeded match's games.
uint64_t temperature_seed(uint64_t seed, int index) {
  return seed * kGoldenGamma ^ (uint64_t(index) + 1) * 0xD1B54A32D192ED03ull;
}

}  // namespace

int GameController::on_search_done(RunnerGame& /*g*/, Search& search) {
  std::mt19937_64 unused(0);  // temperature 0 draws nothing
  return search.pick_move(0, unused);
}

GameRunner::GameRunner(std::span<const GameSide> sides, GameController& controller,
                       const GameRunnerOptions& options)
    : sides_(sides.begin(), sides.end()), controller_(controller), options_(options) {
  if (sides_.empty() || sides_.size() > 2)
    throw std::invalid_argument("game runner: one side (both colours) or two sides");
  for (const GameSide& s : sides_)
    if (s.is_mcts() == bool(s.make_player))
      throw std::invalid_argument("game runner: side '" + s.name +
                                  "' needs exactly one of a driver and a player factory");
  if (options_.slots < 1 || options_.threads < 1 || options_.max_plies < 1)
    throw std::invalid_argument("game runner: needs slots, threads and max_plies >= 1");
}

void GameRunner::refill(std::span<RunnerGame> slots) {
  std::vector<RunnerGame*> free;
  for (RunnerGame& g : slots)
    if (!g.active) free.push_back(&g);
  if (free.empty()) return;
  {
    const auto lock = controller_lock();
    controller_.start_games(free);
  }
  for (RunnerGame* g : free)
    if (g->active) begin_game(*g);
}

void GameRunner::begin_game(RunnerGame& g) {
  g.plies = 0;
  g.line_hash = g.pos.hash();
  g.resigned = -1;
  g.verdict_loser = g.verdict_ply = -1;
  for (size_t s = 0; s < sides_.size(); ++s) {
    g.search[s].reset();
    g.player[s].reset();
    if (sides_[s].is_mcts())
      g.search[s] = std::make_unique<Search>(sides_[s].params, g.search_seed[s]);
    else
      g.player[s] = sides_[s].make_player(g.index, int(s));
  }
  // An opening that is already decided (random plies can get there on tiny boards) is
  // over before it starts.
  if (g.pos.is_decided()) {
    finish(g, false);
    return;
  }
  before_move(g);
}

void GameRunner::before_move(RunnerGame& g) {
  const int mover = same_side() ? 0 : g.mover_side();
  if (sides_[mover].is_mcts()) {
    g.target = sides_[mover].visits;
    const auto lock = controller_lock();
    controller_.prepare_move(g, *g.search[mover], g.target);
  }
  // Every tree follows the game, the waiting side's too (its subtree is reused).
  for (auto& search : g.search)
    if (search) search->set_root(g.pos);
  if (g.search[mover]) g.start_visits = g.search[mover]->root_visits();
}

void GameRunner::play(RunnerGame& g, int move) {
  g.pos.play(move);
  ++g.plies;
  // One FNV-1a step over the move as a byte (1-based, so that the line never hashes
  // like the position alone).
  static_assert(kMaxMoves < 255);
  g.line_hash = fnv1a64_value(uint8_t(move + 1), g.line_hash);
  if (g.resigned >= 0 || g.pos.is_decided()) {
    finish(g, false);
  } else if (g.plies >= options_.max_plies) {
    finish(g, true);
  } else {
    before_move(g);
  }
}

void GameRunner::finish(RunnerGame& g, bool adjudicated) {
  GameEnd end;
  // Finished, decided or (at max_plies) adjudicated by the stores; or resigned.
  end.outcome = g.resigned == 0   ? Outcome::kBlackWins
                : g.resigned == 1 ? Outcome::kWhiteWins
                                  : g.pos.outcome_by_stores();
  end.adjudicated = adjudicated;
  g.active = false;
  const auto lock = controller_lock();
  controller_.on_game_end(g, end);
}

void GameRunner::play_player_moves(RunnerGame& g) {
  while (g.active) {
    const int side = g.mover_side();
    const int index = same_side() ? 0 : side;
    if (sides_[index].is_mcts()) return;
    Player& player = *g.player[index];
    const ThinkResult r = player.think(g.pos, sides_[index].limits);
    if (!g.pos.is_legal(r.best_move))
      throw std::runtime_error(player.name() + " answered the illegal move " +
                               std::to_string(r.best_move + 1) + " in " + g.pos.to_string());
    {
      const auto lock = controller_lock();
      controller_.on_player_move(g, side, r);
    }
    play(g, r.best_move);
  }
}

std::unique_lock<std::mutex> GameRunner::controller_lock() {
  std::unique_lock<std::mutex> lock(controller_mutex_, std::defer_lock);
  if (threaded_) lock.lock();
  return lock;
}

int GameRunner::search_done_move(RunnerGame& g, Search& search) {
  const auto lock = controller_lock();
  return controller_.on_search_done(g, search);
}

bool GameRunner::keep_going() {
  if (abort_.load(std::memory_order_relaxed)) return false;
  const auto lock = controller_lock();
  return controller_.keep_going();
}

void GameRunner::run_rounds(Lane& lane) {
  const std::span<RunnerGame> slots = lane.slots;
  refill(slots);
  std::vector<Search*> batch[2];
  std::vector<int64_t> targets[2];
  // Side 0's rounds when both sides search. Declared after the vectors its tasks read:
  // if side 1's round throws, its destructor waits for side 0's round first.
  std::unique_ptr<TaskThread> side_0_thread;
  while (true) {
    bool any = false;
    for (const RunnerGame& g : slots) any |= g.active;
    if (!any || !keep_going()) break;
    // Player moves first (they do not batch), then one batched step per MCTS side.
    for (RunnerGame& g : slots) play_player_moves(g);
    for (size_t s = 0; s < sides_.size(); ++s) {
      batch[s].clear();
      targets[s].clear();
      if (!sides_[s].is_mcts()) continue;
      for (RunnerGame& g : slots) {
        if (!g.active || (!same_side() && g.mover_side() != int(s))) continue;
        batch[s].push_back(g.search[s].get());
        targets[s].push_back(g.target);
      }
    }
    // When both sides have searches to run, side 0's round runs on a second thread while
    // side 1's runs here. The two share nothing (own searches, evaluator, cache and
    // driver; positions change only below, after both rounds), so every game is exactly
    // what taking turns would give, while one side's tree work overlaps the other's
    // network call.
    const bool both = options_.sides_in_parallel && !batch[0].empty() && !batch[1].empty() &&
                      lane.driver[0] != lane.driver[1];
    if (both) {
      if (!side_0_thread) side_0_thread = std::make_unique<TaskThread>();
      side_0_thread->start([&] { lane.driver[0]->step(batch[0], targets[0]); });
    } else if (!batch[0].empty()) {
      lane.driver[0]->step(batch[0], targets[0]);
    }
    if (!batch[1].empty()) lane.driver[1]->step(batch[1], targets[1]);
    if (both) side_0_thread->wait();  // rethrows side 0's error, if any
    for (RunnerGame& g : slots) {
      if (!g.active) continue;
      const int index = same_side() ? 0 : g.mover_side();
      if (!sides_[index].is_mcts()) continue;
      Search& search = *g.search[index];
      if (!search.done(g.target)) continue;
      play(g, search_done_move(g, search));
    }
    refill(slots);
  }
}

void GameRunner::run_pipelined(Lane& lane) {
  SearchDriver* driver = lane.driver[0];
  for (size_t s = 0; s < sides_.size(); ++s)
    if (lane.driver[s] != driver || !driver)
      throw std::invalid_argument("game runner: the pipelined schedule needs one MCTS driver");
  const std::span<RunnerGame> slots = lane.slots;
  refill(slots);
  // Games alternate between two halves (even and odd slots) so that one half's tree work
  // overlaps the network's work on the other (SearchDriver::run_pipelined).
  driver->run_pipelined(
      [&](int half, std::vector<Search*>& list, std::vector<int64_t>& list_targets) {
        for (size_t i = size_t(half); i < slots.size(); i += 2) {
          RunnerGame& g = slots[i];
          if (!g.active) continue;
          list.push_back(g.search[same_side() ? 0 : g.mover_side()].get());
          list_targets.push_back(g.target);
        }
      },
      [&](int half) {
        for (size_t i = size_t(half); i < slots.size(); i += 2) {
          RunnerGame& g = slots[i];
          if (g.active) {
            Search& search = *g.search[same_side() ? 0 : g.mover_side()];
            if (search.done(g.target)) play(g, search_done_move(g, search));
          }
          if (!g.active) refill(std::span<RunnerGame>(&g, 1));
        }
        if (!keep_going()) return false;
        for (const RunnerGame& g : slots)
          if (g.active) return true;
        return false;
      });
}

void GameRunner::run_lane(Lane& lane) {
  if (options_.schedule == GameRunnerOptions::Schedule::kPipelined)
    run_pipelined(lane);
  else
    run_rounds(lane);
}

// Several threads: each plays the games of its own slots (a lane) with drivers of its
// own, and every lane's leaves of one MCTS side go to one BatchingFront over that side's
// evaluator, which forms full batches across the lanes. The controller is called under
// controller_mutex_.
void GameRunner::run_threads() {
  const int threads = options_.threads;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<BatchingFront> fronts[2];
  std::vector<std::unique_ptr<EvalCache>> caches;
  std::vector<std::unique_ptr<SearchDriver>> drivers;
  std::vector<Lane> lanes(static_cast<size_t>(threads));
  for (size_t s = 0; s < sides_.size(); ++s)
    if (sides_[s].is_mcts() && (s == 0 || sides_[1].driver != sides_[0].driver))
      fronts[s] = std::make_unique<BatchingFront>(sides_[s].driver->evaluator(),
                                                  sides_[s].driver->max_batch(), threads);
  for (int t = 0; t < threads; ++t) {
    Lane& lane = lanes[size_t(t)];
    const size_t begin = slots_.size() * size_t(t) / size_t(threads);
    const size_t end = slots_.size() * size_t(t + 1) / size_t(threads);
    lane.slots = std::span<RunnerGame>(slots_).subspan(begin, end - begin);
    for (size_t s = 0; s < sides_.size(); ++s) {
      if (!sides_[s].is_mcts()) continue;
      if (!fronts[s]) {  // the same driver as side 0
        lane.driver[s] = lane.driver[0];
        continue;
      }
      const EvalCache* shared = sides_[s].driver->cache();
      caches.push_back(shared ? std::make_unique<EvalCache>(shared->capacity()) : nullptr);
      drivers.push_back(std::make_unique<SearchDriver>(*fronts[s], caches.back().get(),
                                                       sides_[s].driver->max_batch()));
      lane.driver[s] = drivers.back().get();
    }
  }

  threaded_ = true;
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        if (!lanes[size_t(t)].slots.empty()) run_lane(lanes[size_t(t)]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        abort_ = true;  // the other lanes stop at their next round
      }
      for (auto& front : fronts)
        if (front) front->client_done();
    });
  }
  for (auto& th : pool) th.join();
  threaded_ = false;

  // The sides' drivers report what their lanes did, the batches as the fronts formed them.
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t s = 0; s < sides_.size(); ++s) {
    if (!fronts[s]) continue;
    DriverStats sum;
    for (const Lane& lane : lanes) {
      const DriverStats& ls = lane.driver[s]->stats();
      sum.leaves += ls.leaves;
      sum.cache_hits += ls.cache_hits;
    }
    sum.evaluated = fronts[s]->evaluated();
    sum.batches = fronts[s]->batches();
    sum.eval_seconds = fronts[s]->eval_seconds();
    sum.total_seconds = seconds;
    sides_[s].driver->add_stats(sum);
  }
  if (error) std::rethrow_exception(error);
}

void GameRunner::run() {
  slots_.clear();
  slots_.resize(size_t(options_.slots));
  for (int i = 0; i < options_.slots; ++i) slots_[size_t(i)].slot = i;
  abort_ = false;
  if (options_.threads > 1) {
    run_threads();
  } else {
    Lane lane;
    lane.slots = slots_;
    for (size_t s = 0; s < sides_.size(); ++s) lane.driver[s] = sides_[s].driver;
    run_lane(lane);
  }
}

int default_search_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(int(cores / 2), 1, 64);
}

// --- PairedMatch ---------------------------------------------------------------------

PairedMatch::PairedMatch(Options options)
    : o_(std::move(options)),
      pair_points_(size_t(std::max(0, o_.pairs)), 0),
      pair_games_done_(size_t(std::max(0, o_.pairs)), 0),
      move_rngs_(o_.temperature > 0 ? size_t(std::max(0, o_.pairs)) * 2 : 0),
      streaks_(o_.resign_score > 0 ? size_t(std::max(0, o_.pairs)) * 2 : 0) {
  if (o_.resign_score < 0 || o_.resign_score >= 0.5f || o_.resign_moves < 1)
    throw std::invalid_argument(
        "paired match: resign adjudication needs a score in [0, 0.5) and moves >= 1");
}

void PairedMatch::start_games(std::span<RunnerGame* const> free) {
  size_t k = 0;
  // A pair starts only when two slots are free.
  while (!stop_starting_ && next_pair_ < o_.pairs && free.size() - k >= 2) {
    const Position start = o_.opening(next_pair_);
    for (int g = 0; g < 2; ++g) {
      RunnerGame& m = *free[k++];
      m.index = next_pair_ * 2 + g;
      m.pos = start;
      m.side_of[0] = g;  // game 0: side 0 plays White
      m.side_of[1] = 1 - g;
      m.search_seed[0] = m.search_seed[1] = o_.seed + uint64_t(next_pair_) * 2 + uint64_t(g);
      if (!move_rngs_.empty()) move_rngs_[size_t(m.index)].seed(temperature_seed(o_.seed, m.index));
      if (!streaks_.empty()) streaks_[size_t(m.index)] = ScoreStreaks{};
      m.active = true;
    }
    ++next_pair_;
  }
}

int PairedMatch::on_search_done(RunnerGame& g, Search& search) {
  if (!streaks_.empty()) {
    const ThinkResult r = search.result();
    note_score(g, g.pos.to_move, r.win + 0.5f * r.draw);
  }
  if (move_rngs_.empty() || g.plies >= o_.temperature_plies)
    return GameController::on_search_done(g, search);
  return search.pick_move(o_.temperature, move_rngs_[size_t(g.index)]);
}

void PairedMatch::on_player_move(RunnerGame& g, int side, const ThinkResult& r) {
  if (!streaks_.empty()) note_score(g, g.pos.to_move, r.win + 0.5f * r.draw);
  if (o_.on_player_move) o_.on_player_move(g, side, r);
}

void PairedMatch::note_score(RunnerGame& g, int colour, float score) {
  ScoreStreaks& s = streaks_[size_t(g.index)];
  s.lost[colour] = score <= o_.resign_score ? s.lost[colour] + 1 : 0;
  s.won[colour] = score >= 1 - o_.resign_score ? s.won[colour] + 1 : 0;
  if (g.verdict_loser >= 0) return;  // judged already (verify: playing on)
  const int n = o_.resign_moves;
  for (int loser = 0; loser < 2; ++loser) {
    if (s.lost[loser] < n || s.won[1 - loser] < n) continue;
    g.verdict_loser = loser;
    g.verdict_ply = g.plies + 1;  // the game as it ends: after this move
    if (!o_.resign_verify) g.resigned = loser;
    return;
  }
}

void PairedMatch::on_game_end(RunnerGame& g, const GameEnd& end) {
  const int pair = pair_of(g.index), game = game_in_pair(g.index);
  const int points = half_points(end.outcome, game);  // side 0 plays colour `game`
  pair_points_[size_t(pair)] += points;
  if (o_.on_game) o_.on_game(pair, game, points, g, end);
  if (++pair_games_done_[size_t(pair)] == 2 && o_.on_pair &&
      !o_.on_pair(pair, pair_points_[size_t(pair)]))
    stop_starting_ = true;
}

}  // namespace kz
