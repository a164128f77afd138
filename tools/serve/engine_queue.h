// The engine work of `kumalak serve`. HTTP handlers never think: every engine task (the
// engine's move, a hint, the analysis of one ply) is a job in one FIFO queue served by
// a few engine workers, each with its own players; a session has at most one job queued
// or running, and a game analysis is cut into one job per ply that goes back to the end
// of the queue, so one long analysis cannot starve the others. A watchdog stops any job
// that runs past its time and closes sessions left idle. Progress reports (the Player
// progress callback) reach the session as they come, for the page's polls.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mcts/advice.h"
#include "mcts/analysis.h"
#include "mcts/levels.h"
#include "mcts/player.h"
#include "tools/rating_levels.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {

// Makes the player a worker uses for `task` (a move, a hint with 3 lines, an analysis)
// in game `spec` at `level`.
using PlayerFactory =
    std::function<std::unique_ptr<Player>(Task task, const GameSpec& spec, Level level)>;
// The levels' players (mcts/levels.h), the MCTS levels' network from `network`; the low
// levels' noise is seeded afresh for every player, so it differs from game to game.
PlayerFactory level_player_factory(EvaluatorFactory network);

struct EngineQueueOptions {
  int workers = 1;           // engine threads, each with its own players (at least 1)
  double max_think_s = 10;   // a job running longer is stopped
  double idle_minutes = 30;  // a session nobody looked at for this long is closed
  // The levels named by a rating (tools/rating_levels.h): a session's rating plays from
  // the human policy, its hints add the rating's likeliest move, its analysis ends with
  // each side's estimated rating. nullptr: no human model.
  std::shared_ptr<RatingLevels> ratings{};
};

class EngineQueue {
 public:
  EngineQueue(SessionTable& sessions, const EngineQueueOptions& options, PlayerFactory players);
  ~EngineQueue();  // stop()

  int workers() const { return options_.workers; }
  // Starts the workers and the watchdog.
  void start();
  // Stops every search and joins the threads; queued jobs are dropped.
  void stop();

  // With the session table's mutex held:
  // Queues `task` for `s` (one task per session at a time).
  void enqueue(Session& s, Task task);
  size_t queued() const { return queue_.size(); }
  // The jobs ahead of session `id`'s queued job (all of them when it has none queued).
  size_t ahead_of(const std::string& id) const;

 private:
  struct Job {
    std::string session;
    uint64_t generation = 0;
    Task task = Task::kNone;
    std::shared_ptr<std::atomic<bool>> stop;
  };
  // What a worker needs to run a job, copied under the lock.
  struct JobInput {
    Job job;
    GameSpec spec;
    Position pos;
    Level level = Level::kMedium;
    size_t ply = 0;  // analysis: the ply to judge (0-based); hint: the ply it is for
    int move = -1;   // analysis: the move played there
    int rating = 0;  // move and hint: the session's rating level (0: none)
    GameSession game{GameSpec::togyz()};  // the last ply of an analysis: the whole game
  };
  struct JobOutput {
    std::string engine_name;
    std::string failure;  // what the engine threw, if it did
    ThinkResult result;
    Hint hint;
    std::vector<HumanMove> human_moves;  // a hint at a rating: the rating's moves
    MoveJudgement judged;
    std::array<std::optional<PlayedLike>, 2> played_like;  // the analysis' last ply
  };
  // The job a worker is running: its stop flag and when the watchdog raises it.
  struct Running {
    std::shared_ptr<std::atomic<bool>> stop;
    Clock::time_point deadline;
  };

  class PlayerCache;  // a worker's players

  std::optional<JobInput> take_job(int worker);
  void worker_loop(int worker);
  JobOutput run_job(PlayerCache& players, const JobInput& in);
  void finish_job(int worker, const JobInput& in, const JobOutput& out);
  void watchdog_loop();

  SessionTable& sessions_;
  EngineQueueOptions options_;
  PlayerFactory players_;
  // Guarded by the session table's mutex:
  std::condition_variable cv_, cv_watch_;
  std::deque<Job> queue_;
  std::vector<Running> running_;  // one per worker
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kz::cli::serve
