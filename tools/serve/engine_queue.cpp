#include "tools/serve/engine_queue.h"

#include <algorithm>
#include <iostream>
#include <list>
#include <random>
#include <utility>

#include "tools/command_error.h"
#include "tools/hint_json.h"
#include "tools/serve/game_evidence.h"
#include "tools/serve/views.h"

namespace kz::cli::serve {

// The players one engine worker keeps (a few at most, since an alpha-beta expert holds
// a 64 MiB table), or one session keeps (one per task and level), least recently used
// last.
class EngineQueue::PlayerCache {
 public:
  PlayerCache(const PlayerFactory& make, size_t max_players, RatingLevels* ratings)
      : make_(make), max_players_(max_players), ratings_(ratings) {}

  // `rating` > 0: the engine's move at that rating level, from the human policy.
  Player& get(Task task, const GameSpec& spec, Level level, int rating) {
    const std::string key = std::string(task_name(task)) + "/" + spec.name() + "/" +
                            (rating > 0 ? std::to_string(rating) : level_name(level));
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return *entries_.front().second;
      }
    entries_.emplace_front(key, rating > 0 && ratings_
                                    ? ratings_->player(spec, rating, std::random_device{}())
                                    : make_(task, spec, level));
    while (entries_.size() > max_players_) entries_.pop_back();
    return *entries_.front().second;
  }

 private:
  const PlayerFactory& make_;
  size_t max_players_;
  RatingLevels* ratings_;
  std::list<std::pair<std::string, std::unique_ptr<Player>>> entries_;

 public:
  // A session's (the queue's mutex guards them): a job is using them; when one last did.
  bool busy = false;
  uint64_t last_used = 0;
};

EngineQueue::EngineQueue(SessionTable& sessions, const EngineQueueOptions& options,
                         PlayerFactory players)
    : sessions_(sessions),
      options_(options),
      players_(std::move(players)),
      running_(size_t(options.no_threads ? 1 : std::max(1, options.workers))) {
  options_.workers = int(running_.size());
  if (!options_.network_jobs || options_.no_threads) options_.search_slots = 0;
  options_.search_slots = std::max(0, options_.search_slots);
  running_.resize(size_t(options_.workers + options_.search_slots));
}

EngineQueue::~EngineQueue() {
  stop();
}

void EngineQueue::start() {
  if (options_.no_threads) return;
  for (int i = 0; i < int(running_.size()); ++i)
    threads_.emplace_back([this, i] { worker_loop(i); });
  threads_.emplace_back([this] { watchdog_loop(); });
}

void EngineQueue::stop() {
  {
    std::lock_guard<std::mutex> lock(sessions_.mutex());
    shutting_down_ = true;
    sessions_.stop_all();
  }
  cv_workers_.notify_all();
  cv_slots_.notify_all();
  cv_watch_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void EngineQueue::enqueue(Session& s, Task task) {
  s.task = task;
  s.running = false;
  s.progress.reset();
  if (!s.stop) s.stop = std::make_shared<std::atomic<bool>>(false);
  const Level level = task == Task::kHint       ? s.hint_level
                      : task == Task::kAnalysis ? s.analysis_level
                      : task == Task::kEvidence ? Level::kHard
                                                : s.level;
  // A move at a rating level is one call of the human policy, not a network search.
  const bool human_move = task == Task::kMove && s.rating > 0 && options_.ratings;
  // Without threads the caller runs both kinds, a network search with the session's
  // players as a search slot would.
  const bool network = (options_.search_slots > 0 || options_.no_threads) &&
                       options_.network_jobs && !human_move &&
                       options_.network_jobs(search_task(task), s.spec(), level);
  queue_.push_back({s.id, s.generation, task, s.stop, network});
  ++s.version;
  (network ? cv_slots_ : cv_workers_).notify_one();
}

size_t EngineQueue::ahead_of(const std::string& id) const {
  const auto own =
      std::find_if(queue_.begin(), queue_.end(), [&](const Job& j) { return j.session == id; });
  if (own == queue_.end()) return queue_.size();
  return size_t(std::count_if(queue_.begin(), own, [&](const Job& j) {
    return options_.no_threads || j.network == own->network;
  }));
}

void EngineQueue::forget_least_recent_players() {
  while (session_players_.size() > kMaxKeptSessions) {
    auto oldest = session_players_.end();
    for (auto it = session_players_.begin(); it != session_players_.end(); ++it)
      if (!it->second->busy &&
          (oldest == session_players_.end() || it->second->last_used < oldest->second->last_used))
        oldest = it;
    if (oldest == session_players_.end()) return;  // all running
    session_players_.erase(oldest);
  }
}

bool EngineQueue::players_busy(const std::string& session) const {
  const auto it = session_players_.find(session);
  return it != session_players_.end() && it->second->busy;
}

std::deque<EngineQueue::Job>::iterator EngineQueue::next_job(std::optional<bool> network) {
  for (auto it = queue_.begin(); it != queue_.end();) {
    const Session* s = sessions_.find(it->session);
    if (!s || s->generation != it->generation || it->stop->load()) {
      it = queue_.erase(it);  // the game changed or the session closed since it was queued
      continue;
    }
    // A session's players run one job at a time: a job queued after the game changed
    // waits for the stopped one to end.
    if ((!network || it->network == *network) && !(it->network && players_busy(it->session)))
      return it;
    ++it;
  }
  return queue_.end();
}

std::optional<EngineQueue::JobInput> EngineQueue::take_job(int worker) {
  const bool network = is_search_slot(worker);
  std::unique_lock<std::mutex> lock(sessions_.mutex());
  auto found = queue_.end();
  (network ? cv_slots_ : cv_workers_).wait(lock, [&] {
    return shutting_down_ || (found = next_job(network)) != queue_.end();
  });
  if (shutting_down_) return std::nullopt;
  return begin_job(worker, found);
}

EngineQueue::JobInput EngineQueue::begin_job(int worker, std::deque<Job>::iterator found) {
  // A search slot's job: the session's players (an evidence job brings its own).
  const bool network = found->network && found->task != Task::kEvidence;
  Job job = std::move(*found);
  queue_.erase(found);
  Session* s = sessions_.find(job.session);  // next_job() found it current
  JobInput in{job, s->spec(), s->pos(), s->level, s->game.plies(), -1, nullptr};
  if (job.task == Task::kEvidence) {
    in.evidence = s->evidence;
    in.level = Level::kHard;
    in.ply = s->evidence->judged.size();
    if (s->evidence->judging()) {
      in.pos = s->evidence->at;
      in.move = s->evidence->game.moves[in.ply];
    } else {
      in.judged = s->evidence->judged;  // the last job: the answer
    }
  }
  if (network) {
    auto& players = session_players_[job.session];
    if (!players) {
      players = std::make_shared<PlayerCache>(players_, kPlayersPerSession, options_.ratings.get());
      forget_least_recent_players();
    }
    players->busy = true;
    players->last_used = ++player_uses_;
    in.session_players = players;
  }
  if (job.task == Task::kHint) in.level = s->hint_level;
  if (options_.ratings && job.task != Task::kAnalysis) in.rating = s->rating;
  if (job.task == Task::kAnalysis) {
    in.level = s->analysis_level;
    in.ply = s->judged.size();
    in.move = s->game.moves()[in.ply];
    in.pos = s->game.position_at(in.ply);
    if (options_.ratings && in.ply + 1 == s->game.plies()) in.game = s->game;
  }
  if (job.task == Task::kMove && s->clock) {
    // The engine's time runs while it thinks, not while its job waits in the queue.
    const int side = s->pos().to_move;
    s->clock->start(side);
    in.clock = MoveClock{s->clock->remaining_ms(side), s->clock->control().increment_ms, 0};
  }
  s->running = true;
  ++s->version;
  running_[size_t(worker)] = {
      job.stop, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(options_.max_think_s))};
  return in;
}

EngineQueue::JobOutput EngineQueue::run_job(PlayerCache& worker_players, const JobInput& in) {
  JobOutput out;
  const Job& job = in.job;
  if (job.task == Task::kEvidence) return run_evidence_job(in);
  try {
    PlayerCache& players = in.session_players ? *in.session_players : worker_players;
    Player& player =
        players.get(job.task, in.spec, in.level, job.task == Task::kMove ? in.rating : 0);
    out.engine_name = player.name();
    // A worker's players serve every session: nothing carries over. A session's keep
    // their tree, which the search reuses when the game reached a position below its
    // root (and drops otherwise: after an undo, a new game, a loaded record).
    if (!in.session_players) player.new_game();
    if (job.task != Task::kAnalysis)
      player.set_progress_callback([this, id = job.session, gen = job.generation,
                                    name = out.engine_name](const ThinkResult& r) {
        std::lock_guard<std::mutex> lock(sessions_.mutex());
        Session* s = sessions_.find(id);
        if (!s || s->generation != gen) return;
        s->progress = r;
        s->engine_name = name;
        ++s->version;
      });
    // Under a clock the level's budget is capped by the move's share of the time left,
    // never raised: a level plays no stronger on a clock than without one.
    ThinkLimits limits =
        in.clock ? limits_under_clock(in.pos, *in.clock, player.budget()) : ThinkLimits{};
    limits.stop = job.stop.get();
    if (job.task == Task::kMove)
      out.result = player.think(in.pos, limits);
    else if (job.task == Task::kHint)
      out.hint = make_hint(player, in.pos, limits, 3);
    else
      out.judged = judge_move(player, in.pos, in.move, limits);
    player.set_progress_callback({});
  } catch (const std::exception& e) {
    out.failure = e.what();
    return out;
  }
  // What players of a rating do (one call of the human policy, no search), and how each
  // side played; a human model that fails costs only these, never the engine's answer.
  try {
    if (job.task == Task::kHint && in.rating > 0)
      out.human_moves = options_.ratings->moves(in.spec, in.pos, in.rating);
    if (job.task == Task::kAnalysis && in.game.plies() > 0)
      out.played_like = options_.ratings->played_like(in.spec, in.game.start(), in.game.moves());
  } catch (const std::exception& e) {
    cli::print_command_error("kumalak serve", e, "the human model failed");
  }
  return out;
}

EngineQueue::JobOutput EngineQueue::run_evidence_job(const JobInput& in) {
  JobOutput out;
  EvidenceWork& work = *in.evidence;
  try {
    if (in.move < 0) {  // the moves are judged: the human model's likelihoods, the answer
      work.engine.reset();
      out.evidence = evidence_result(options_.ratings.get(), work.game, in.judged);
      return out;
    }
    // The game's own player, as analyze_game's: new for the game, then each move in turn.
    if (!work.engine) {
      work.engine = players_(Task::kAnalysis, in.spec, Level::kHard);
      work.engine->new_game();
    }
    out.engine_name = work.engine->name();
    ThinkLimits limits;
    limits.nodes = work.visits;
    limits.stop = in.job.stop.get();
    out.judged = judge_move(*work.engine, in.pos, in.move, limits);
  } catch (const std::exception& e) {
    out.failure = e.what();
  }
  return out;
}

bool EngineQueue::run_one() {
  std::optional<JobInput> in;
  {
    std::lock_guard<std::mutex> lock(sessions_.mutex());
    close_idle_sessions(Clock::now());
    if (shutting_down_) return false;
    const auto found = next_job(std::nullopt);
    if (found == queue_.end()) return false;
    in = begin_job(0, found);
  }
  if (!caller_players_)
    caller_players_ = std::make_unique<PlayerCache>(players_, 4, options_.ratings.get());
  finish_job(0, *in, run_job(*caller_players_, *in));
  return true;
}

void EngineQueue::worker_loop(int worker) {
  PlayerCache players(players_, 4, options_.ratings.get());
  while (auto in = take_job(worker)) finish_job(worker, *in, run_job(players, *in));
}

void EngineQueue::finish_job(int worker, const JobInput& in, const JobOutput& out) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  running_[size_t(worker)] = {};
  if (in.session_players) {
    in.session_players->busy = false;
    cv_slots_.notify_all();  // a job of this session may be waiting for its players
  }
  const Job& job = in.job;
  Session* found = sessions_.find(job.session);
  if (!found || found->generation != job.generation) return;
  Session& s = *found;
  s.running = false;
  s.task = Task::kNone;
  s.progress.reset();
  s.engine_name = out.engine_name;
  ++s.version;
  if (job.task == Task::kEvidence) return finish_evidence_job(s, in, out);
  if (!out.failure.empty()) {
    s.message = "the engine failed: " + out.failure;
    s.engine_failure = out.failure;
    s.analysis_active = false;
    if (job.task == Task::kMove && s.clock) s.clock->pause();  // no answer is coming
    return;
  }
  if (job.task == Task::kMove) {
    if (s.play_engine_move(out.result.best_move, out.engine_name) && s.engine_to_move())
      enqueue(s, Task::kMove);  // a Kalah extra turn
  } else if (job.task == Task::kHint) {
    s.hint = nlohmann::json(hint_json(in.spec, in.pos, out.hint, out.engine_name, in.level));
    if (!out.human_moves.empty())
      s.hint["human"] = human_hint_json(in.pos, in.rating, out.human_moves);
    s.hint_ply = in.ply;
    s.hint_solve = out.hint.solve;
    if (job.stop->load())
      s.message = "hint cut short at " + std::to_string(options_.max_think_s) + " s";
  } else {
    if (out.judged.move < 0 || in.ply != s.judged.size()) return;
    s.judged.push_back(out.judged);
    if (in.game.plies() > 0) s.played_like = out.played_like;
    s.analysis_engine = out.engine_name;
    s.analysis_active = s.judged.size() < s.game.plies();
    // The next ply goes to the back of the queue: other sessions' work comes first.
    if (s.analysis_active) enqueue(s, Task::kAnalysis);
  }
}

void EngineQueue::finish_evidence_job(Session& s, const JobInput& in, const JobOutput& out) {
  if (s.evidence != in.evidence) return;
  EvidenceWork& work = *s.evidence;
  if (!out.failure.empty()) {
    work.failure = out.failure;
    work.engine.reset();
    return;
  }
  if (in.move < 0) {
    work.answer = out.evidence;
    work.no_model = !out.evidence;
    return;
  }
  if (in.ply != work.judged.size()) return;
  work.judged.push_back(out.judged);
  work.at.play(in.move);
  // The next move goes to the back of the queue: other sessions' work comes first.
  enqueue(s, Task::kEvidence);
}

void EngineQueue::watchdog_loop() {
  std::unique_lock<std::mutex> lock(sessions_.mutex());
  while (!shutting_down_) {
    cv_watch_.wait_for(lock, std::chrono::milliseconds(50));
    const auto now = Clock::now();
    stop_jobs_past(now);
    close_idle_sessions(now);
  }
}

void EngineQueue::stop_overdue() {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  stop_jobs_past(Clock::now());
}

void EngineQueue::stop_jobs_past(Clock::time_point now) {
  for (auto& r : running_)
    if (r.stop && now >= r.deadline) r.stop->store(true);
}

void EngineQueue::close_idle_sessions(Clock::time_point now) {
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  sessions_.close_idle(now, seconds(options_.idle_minutes * 60), seconds(options_.evidence_idle_s));
  // A closed session's players go (a job still running keeps them until it ends).
  std::erase_if(session_players_, [&](const auto& entry) { return !sessions_.find(entry.first); });
}

}  // namespace kz::cli::serve
