#include "tools/serve/engine_queue.h"

#include <iostream>
#include <list>
#include <random>
#include <utility>

#include "tools/hint_json.h"
#include "tools/serve/views.h"

namespace kz::cli::serve {

PlayerFactory level_player_factory(EvaluatorFactory network) {
  return [network](Task task, const GameSpec& spec, Level level) -> std::unique_ptr<Player> {
    LevelPlayerOptions lo;
    lo.seed = std::random_device{}();  // the low levels' noise differs from game to game
    lo.network = network;
    if (task == Task::kMove) return make_level_player(spec, level, "", lo);
    return make_analysis_player(spec, level, "", task == Task::kHint ? 3 : 0, lo);
  };
}

// The players one engine worker keeps, least recently used last; a few at most, since
// an alpha-beta expert holds a 64 MiB table.
class EngineQueue::PlayerCache {
 public:
  PlayerCache(const PlayerFactory& make, RatingLevels* ratings) : make_(make), ratings_(ratings) {}

  // `rating` > 0: the engine's move at that rating level, from the human policy.
  Player& get(Task task, const GameSpec& spec, Level level, int rating) {
    const std::string key = std::string(task_name(task)) + "/" + spec.name() + "/" +
                            (rating > 0 ? std::to_string(rating) : level_name(level));
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return *entries_.front().second;
      }
    entries_.emplace_front(key, rating > 0 ? ratings_->player(spec, rating, std::random_device{}())
                                           : make_(task, spec, level));
    while (entries_.size() > kMaxPlayers) entries_.pop_back();
    return *entries_.front().second;
  }

 private:
  static constexpr size_t kMaxPlayers = 4;
  const PlayerFactory& make_;
  RatingLevels* ratings_;
  std::list<std::pair<std::string, std::unique_ptr<Player>>> entries_;
};

EngineQueue::EngineQueue(SessionTable& sessions, const EngineQueueOptions& options,
                         PlayerFactory players)
    : sessions_(sessions),
      options_(options),
      players_(std::move(players)),
      running_(size_t(std::max(1, options.workers))) {
  options_.workers = int(running_.size());
}

EngineQueue::~EngineQueue() {
  stop();
}

void EngineQueue::start() {
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this, i] { worker_loop(i); });
  threads_.emplace_back([this] { watchdog_loop(); });
}

void EngineQueue::stop() {
  {
    std::lock_guard<std::mutex> lock(sessions_.mutex());
    shutting_down_ = true;
    sessions_.stop_all();
  }
  cv_.notify_all();
  cv_watch_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void EngineQueue::enqueue(Session& s, Task task) {
  s.task = task;
  s.running = false;
  s.progress.reset();
  if (!s.stop) s.stop = std::make_shared<std::atomic<bool>>(false);
  queue_.push_back({s.id, s.generation, task, s.stop});
  ++s.version;
  cv_.notify_one();
}

size_t EngineQueue::ahead_of(const std::string& id) const {
  size_t ahead = 0;
  for (const auto& j : queue_) {
    if (j.session == id) break;
    ++ahead;
  }
  return ahead;
}

std::optional<EngineQueue::JobInput> EngineQueue::take_job(int worker) {
  std::unique_lock<std::mutex> lock(sessions_.mutex());
  for (;;) {
    cv_.wait(lock, [&] { return shutting_down_ || !queue_.empty(); });
    if (shutting_down_) return std::nullopt;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    Session* s = sessions_.find(job.session);
    if (!s || s->generation != job.generation || job.stop->load())
      continue;  // the game changed or the session closed since it was queued
    JobInput in{job, s->spec(), s->pos(), s->level, s->game.plies()};
    if (job.task == Task::kHint) in.level = s->hint_level;
    if (options_.ratings && job.task != Task::kAnalysis) in.rating = s->rating;
    if (job.task == Task::kAnalysis) {
      in.level = s->analysis_level;
      in.ply = s->judged.size();
      in.move = s->game.moves()[in.ply];
      in.pos = s->game.position_at(in.ply);
      if (options_.ratings && in.ply + 1 == s->game.plies()) in.game = s->game;
    }
    s->running = true;
    ++s->version;
    running_[size_t(worker)] = {
        job.stop, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options_.max_think_s))};
    return in;
  }
}

EngineQueue::JobOutput EngineQueue::run_job(PlayerCache& players, const JobInput& in) {
  JobOutput out;
  const Job& job = in.job;
  try {
    Player& player =
        players.get(job.task, in.spec, in.level, job.task == Task::kMove ? in.rating : 0);
    out.engine_name = player.name();
    player.new_game();  // players serve every session: nothing carries over
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
    ThinkLimits limits;
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
      for (int side = 0; side < 2; ++side)
        out.played_like[size_t(side)] =
            options_.ratings->played_like(in.spec, in.game.start(), in.game.moves(), side);
  } catch (const std::exception& e) {
    std::cerr << "kumalak serve: the human model failed: " << e.what() << std::endl;
  }
  return out;
}

void EngineQueue::worker_loop(int worker) {
  PlayerCache players(players_, options_.ratings.get());
  while (auto in = take_job(worker)) finish_job(worker, *in, run_job(players, *in));
}

void EngineQueue::finish_job(int worker, const JobInput& in, const JobOutput& out) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  running_[size_t(worker)] = {};
  const Job& job = in.job;
  Session* found = sessions_.find(job.session);
  if (!found || found->generation != job.generation) return;
  Session& s = *found;
  s.running = false;
  s.task = Task::kNone;
  s.progress.reset();
  s.engine_name = out.engine_name;
  ++s.version;
  if (!out.failure.empty()) {
    s.message = "the engine failed: " + out.failure;
    s.analysis_active = false;
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

void EngineQueue::watchdog_loop() {
  std::unique_lock<std::mutex> lock(sessions_.mutex());
  while (!shutting_down_) {
    cv_watch_.wait_for(lock, std::chrono::milliseconds(50));
    const auto now = Clock::now();
    for (auto& r : running_)
      if (r.stop && now >= r.deadline) r.stop->store(true);
    sessions_.close_idle(now, std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(options_.idle_minutes * 60)));
  }
}

}  // namespace kz::cli::serve
