#include "mcts/game_runner.h"

#include <exception>
#include <stdexcept>
#include <thread>

#include "mcts/task_thread.h"

namespace kz {

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
    std::unique_lock<std::mutex> lock(controller_mutex_, std::defer_lock);
    if (threaded_) lock.lock();
    controller_.start_games(free);
  }
  for (RunnerGame* g : free)
    if (g->active) begin_game(*g);
}

void GameRunner::begin_game(RunnerGame& g) {
  g.plies = 0;
  g.resigned = -1;
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
  std::unique_lock<std::mutex> lock(controller_mutex_, std::defer_lock);
  if (threaded_) lock.lock();
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
      std::unique_lock<std::mutex> lock(controller_mutex_, std::defer_lock);
      if (threaded_) lock.lock();
      controller_.on_player_move(g, side, r);
    }
    play(g, r.best_move);
  }
}

void GameRunner::run_rounds(std::span<RunnerGame> slots) {
  refill(slots);
  std::vector<Search*> batch[2];
  std::vector<int64_t> targets[2];
  // Side 0's rounds when both sides search. Declared after the vectors its tasks read:
  // if side 1's round throws, its destructor waits for side 0's round first.
  std::unique_ptr<TaskThread> side_0_thread;
  while (true) {
    bool any = false;
    for (const RunnerGame& g : slots) any |= g.active;
    if (!any) break;
    {
      std::unique_lock<std::mutex> lock(controller_mutex_, std::defer_lock);
      if (threaded_) lock.lock();
      if (!controller_.keep_going()) break;
    }
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
                      sides_[0].driver != sides_[1].driver;
    if (both) {
      if (!side_0_thread) side_0_thread = std::make_unique<TaskThread>();
      side_0_thread->start([&] { sides_[0].driver->step(batch[0], targets[0]); });
    } else if (!batch[0].empty()) {
      sides_[0].driver->step(batch[0], targets[0]);
    }
    if (!batch[1].empty()) sides_[1].driver->step(batch[1], targets[1]);
    if (both) side_0_thread->wait();  // rethrows side 0's error, if any
    for (RunnerGame& g : slots) {
      if (!g.active) continue;
      const int index = same_side() ? 0 : g.mover_side();
      if (!sides_[index].is_mcts()) continue;
      Search& search = *g.search[index];
      if (!search.done(g.target)) continue;
      play(g, controller_.on_search_done(g, search));
    }
    refill(slots);
  }
}

void GameRunner::run_pipelined() {
  SearchDriver* driver = sides_[0].driver;
  for (const GameSide& s : sides_)
    if (s.driver != driver || !driver)
      throw std::invalid_argument("game runner: the pipelined schedule needs one MCTS driver");
  refill(slots_);
  // Games alternate between two halves (even and odd slots) so that one half's tree work
  // overlaps the network's work on the other (SearchDriver::run_pipelined).
  driver->run_pipelined(
      [&](int half, std::vector<Search*>& list, std::vector<int64_t>& list_targets) {
        for (size_t i = size_t(half); i < slots_.size(); i += 2) {
          RunnerGame& g = slots_[i];
          if (!g.active) continue;
          list.push_back(g.search[same_side() ? 0 : g.mover_side()].get());
          list_targets.push_back(g.target);
        }
      },
      [&](int half) {
        for (size_t i = size_t(half); i < slots_.size(); i += 2) {
          RunnerGame& g = slots_[i];
          if (g.active) {
            Search& search = *g.search[same_side() ? 0 : g.mover_side()];
            if (search.done(g.target)) play(g, controller_.on_search_done(g, search));
          }
          if (!g.active) refill(std::span<RunnerGame>(&g, 1));
        }
        if (!controller_.keep_going()) return false;
        for (const RunnerGame& g : slots_)
          if (g.active) return true;
        return false;
      });
}

void GameRunner::run_player_threads() {
  for (const GameSide& s : sides_)
    if (s.is_mcts())
      throw std::invalid_argument(
          "game runner: several threads need Player sides (MCTS sides batch on one thread)");
  threaded_ = true;
  const int threads = options_.threads;
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  // Thread t plays the slots [t * per, (t + 1) * per).
  const size_t per = slots_.size() / size_t(threads);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        run_rounds(std::span<RunnerGame>(slots_).subspan(size_t(t) * per, per));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  threaded_ = false;
  if (error) std::rethrow_exception(error);
}

void GameRunner::run() {
  slots_.clear();
  const int slots = options_.threads > 1
                        ? std::max(options_.slots / options_.threads, 1) * options_.threads
                        : options_.slots;
  slots_.resize(size_t(slots));
  for (int i = 0; i < slots; ++i) slots_[size_t(i)].slot = i;
  if (options_.threads > 1)
    run_player_threads();
  else if (options_.schedule == GameRunnerOptions::Schedule::kPipelined)
    run_pipelined();
  else
    run_rounds(slots_);
}

// --- PairedMatch ---------------------------------------------------------------------

PairedMatch::PairedMatch(Options options)
    : o_(std::move(options)),
      pair_points_(size_t(std::max(0, o_.pairs)), 0),
      pair_games_done_(size_t(std::max(0, o_.pairs)), 0) {}

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
      m.active = true;
    }
    ++next_pair_;
  }
}

void PairedMatch::on_player_move(RunnerGame& g, int side, const ThinkResult& r) {
  if (o_.on_player_move) o_.on_player_move(g, side, r);
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
