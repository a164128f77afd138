// The engine work of `kumalak serve`. HTTP handlers never think: every engine task (the
// engine's move, a hint, the analysis of one ply) is a job in one FIFO queue; a session
// has at most one job queued or running, and a game analysis is cut into one job per ply
// (a game's rating evidence into one per move, game_evidence.h) that goes back to the end
// of the queue, so one long analysis cannot starve the others.
// Two kinds of engine threads take the jobs, each kind in queue order:
// - workers run the jobs whose engine computes on its own thread (alpha-beta, the
//   solver), one at a time each, with players of their own shared by every session;
// - search slots run the jobs whose engine is the network MCTS, many at once: their
//   searches evaluate through one batching front per network (network_fronts.h), so
//   the network sees batches across sessions and the slots cost little but waiting.
//   Their players are kept per session, so a game keeps its search tree between moves.
// A watchdog stops any job that runs past its time and closes sessions left idle.
// A host without threads (the page's one-thread WebAssembly engine) sets `no_threads`:
// then nothing runs on its own, the host calls run_one() for each job, which runs to its
// level's budget on the host's thread, a network search with the session's players as on
// a search slot; a host whose job pauses (the page's engine: tools/wasm/worker_yield.h)
// calls stop_overdue() meanwhile, the watchdog's check.
// Progress reports (the Player progress callback) reach the session as they come, for
// the page's polls.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mcts/advice.h"
#include "mcts/analysis.h"
#include "mcts/levels.h"
#include "mcts/player.h"
#include "mcts/time_manager.h"
#include "tools/rating_levels.h"
#include "tools/serve/game_evidence.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {

// Makes the player a worker uses for `task` (a move, a hint with 3 lines, an analysis)
// in game `spec` at `level`.
using PlayerFactory =
    std::function<std::unique_ptr<Player>(Task task, const GameSpec& spec, Level level)>;
// Whether the player for `task` at `level` in game `spec` searches with the network.
// Neither this nor the PlayerFactory is asked about Task::kEvidence: a game's evidence is
// judged by the analysis player (search_task).
using NetworkJobs = std::function<bool(Task task, const GameSpec& spec, Level level)>;

// The task whose player a job of `task` searches with: a game's evidence judges its
// moves as an analysis does.
inline Task search_task(Task task) {
  return task == Task::kEvidence ? Task::kAnalysis : task;
}

struct EngineQueueOptions {
  int workers = 1;           // engine threads, each with its own players (at least 1)
  double max_think_s = 10;   // a job running longer is stopped
  double idle_minutes = 30;  // a session nobody looked at for this long is closed
  // A game's rating evidence nobody asked about for this long is dropped, its session
  // closed (SessionTable::close_idle). Its page asks every 100 ms while it waits; the
  // one-thread page engine answers between jobs, the longest of which (Kalah's perfect
  // level) may take a minute.
  double evidence_idle_s = 120;
  // Jobs that `network_jobs` names run on `search_slots` threads of their own, at most
  // that many at once, with players kept per session; 0 or no `network_jobs`: every job
  // runs on the workers.
  int search_slots = 0;
  NetworkJobs network_jobs{};
  // The levels named by a rating (tools/rating_levels.h): a session's rating plays from
  // the human policy, its hints add the rating's likeliest move, its analysis ends with
  // each side's estimated rating. nullptr: no human model.
  std::shared_ptr<RatingLevels> ratings{};
  // No threads of the queue's own: start() starts none and the caller runs each job with
  // run_one(); `workers` and `search_slots` are then 1 and 0.
  bool no_threads = false;
};

class EngineQueue {
 public:
  EngineQueue(SessionTable& sessions, const EngineQueueOptions& options, PlayerFactory players);
  ~EngineQueue();  // stop()

  int workers() const { return options_.workers; }
  int search_slots() const { return options_.search_slots; }
  // Starts the workers and the watchdog (none with `no_threads`).
  void start();
  // With `no_threads`: closes the sessions left idle, then runs the first queued job on
  // the calling thread to its end. Returns whether there was one (the host calls again
  // while it returns true). Must not be called with the session table's mutex held.
  bool run_one();
  // The watchdog's check, for a host without threads to call while run_one()'s job
  // pauses: raises the stop flag of a job that has run past max_think_s. Must not be
  // called with the session table's mutex held.
  void stop_overdue();
  // Stops every search and joins the threads; queued jobs are dropped.
  void stop();

  // With the session table's mutex held:
  // Queues `task` for `s` (one task per session at a time).
  void enqueue(Session& s, Task task);
  size_t queued() const { return queue_.size(); }
  // The jobs ahead of session `id`'s queued job that its engine threads take first
  // (all of them when it has none queued).
  size_t ahead_of(const std::string& id) const;
  // Sessions whose players (search trees) are kept.
  size_t sessions_with_players() const { return session_players_.size(); }

 private:
  struct Job {
    std::string session;
    uint64_t generation = 0;
    Task task = Task::kNone;
    std::shared_ptr<std::atomic<bool>> stop;
    bool network = false;  // runs on a search slot
  };
  class PlayerCache;  // a worker's players, or a session's
  // What a worker needs to run a job, copied under the lock.
  struct JobInput {
    Job job;
    GameSpec spec;
    Position pos;
    Level level = Level::kMedium;
    size_t ply = 0;  // analysis: the ply to judge (0-based); hint: the ply it is for
    int move = -1;   // analysis: the move played there
    // A search slot's job: the session's own players (null: the worker's).
    std::shared_ptr<PlayerCache> session_players;
    int rating = 0;                       // move and hint: the session's rating level (0: none)
    GameSession game{GameSpec::togyz()};  // the last ply of an analysis: the whole game
    // A move in a game on a clock: the engine's clock as its job starts; the move thinks
    // for the level's own budget capped by the time manager's share (mcts/time_manager.h).
    std::optional<MoveClock> clock{};
    // A game's evidence: its work, and when `move` is -1 (the last job) the moves judged.
    std::shared_ptr<EvidenceWork> evidence{};
    std::vector<MoveJudgement> judged{};
  };
  struct JobOutput {
    std::string engine_name;
    std::string failure;  // what the engine threw, if it did
    ThinkResult result;
    Hint hint;
    std::vector<HumanMove> human_moves;  // a hint at a rating: the rating's moves
    MoveJudgement judged;
    std::array<std::optional<PlayedLike>, 2> played_like;  // the analysis' last ply
    std::optional<json> evidence;  // the evidence's last job: its answer (none: no model)
  };
  // The job a worker is running: its stop flag and when the watchdog raises it.
  struct Running {
    std::shared_ptr<std::atomic<bool>> stop;
    Clock::time_point deadline;
  };

  bool is_search_slot(int thread) const { return thread >= options_.workers; }
  // The first queued job of `network`'s kind (either kind: nullopt); drops stale jobs
  // on the way.
  std::deque<Job>::iterator next_job(std::optional<bool> network);
  bool players_busy(const std::string& session) const;
  // Keeps the players of at most kMaxKeptSessions sessions: an MCTS player holds a 16 MiB
  // evaluation cache, so these are at most 1.5 GiB; a session whose players were dropped
  // starts its next search without a tree.
  void forget_least_recent_players();
  static constexpr size_t kPlayersPerSession = 2;
  static constexpr size_t kMaxKeptSessions = 48;
  std::optional<JobInput> take_job(int worker);
  // With the mutex held: takes `found` off the queue for thread `worker` (a search slot
  // when `found` is a network job).
  JobInput begin_job(int worker, std::deque<Job>::iterator found);
  // With the mutex held: closes the sessions nobody looked at for idle_minutes.
  void close_idle_sessions(Clock::time_point now);
  void worker_loop(int worker);
  JobOutput run_job(PlayerCache& players, const JobInput& in);
  // One job of a game's evidence: a move judged with the game's own player, or the answer.
  JobOutput run_evidence_job(const JobInput& in);
  void finish_job(int worker, const JobInput& in, const JobOutput& out);
  // With the mutex held, `s` the job's session: keeps what the job found, queues the next.
  void finish_evidence_job(Session& s, const JobInput& in, const JobOutput& out);
  void watchdog_loop();
  // With the mutex held: raises the stop flags of the jobs past their deadline.
  void stop_jobs_past(Clock::time_point now);

  SessionTable& sessions_;
  EngineQueueOptions options_;
  PlayerFactory players_;
  // Guarded by the session table's mutex:
  std::condition_variable cv_workers_, cv_slots_, cv_watch_;
  std::deque<Job> queue_;
  std::vector<Running> running_;  // one per worker, then one per search slot
  std::map<std::string, std::shared_ptr<PlayerCache>> session_players_;
  uint64_t player_uses_ = 0;
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
  std::unique_ptr<PlayerCache> caller_players_;  // run_one()'s (no_threads)
};

}  // namespace kz::cli::serve
