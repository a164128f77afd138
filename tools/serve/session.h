// The games of `kumalak serve`: one Session per browser game (its GameSession, who plays
// which side, the engine's task and what it found), kept in a SessionTable. Everything
// here is guarded by the table's one mutex, which the engine queue (engine_queue.h) and
// the API (api.h) hold while they look at or change a session.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/game_clock.h"
#include "core/game_session.h"
#include "mcts/analysis.h"
#include "mcts/kalah_solver.h"
#include "mcts/levels.h"
#include "mcts/player.h"
#include "tools/rating_levels.h"

namespace kz::cli::serve {

using Clock = std::chrono::steady_clock;

inline constexpr size_t kMaxPlies = 1000;  // longest game a session holds
inline constexpr int kHumanBoth = 2;       // `human` when people play both sides

// What the engine is asked to do for a session (kEvidence: a game's rating evidence,
// game_evidence.h, in a session of its own).
enum class Task { kNone, kMove, kHint, kAnalysis, kEvidence };
const char* task_name(Task t);  // "", "move", "hint", "analysis", "evidence"

struct EvidenceWork;  // game_evidence.h

// A side's name in `spec`: white/black (Togyz), south/north (Kalah).
const char* side_word(const GameSpec& spec, int player);

struct Session {
  std::string id;
  GameSession game;  // the position, the moves and a loaded record's tags
  Level level = Level::kMedium;
  int rating = 0;  // > 0: the engine plays like a player of this rating (tools/rating_levels.h)
  int human = 0;   // 0 / 1: the person's side, the engine plays the other; kHumanBoth: people
  // Bumped whenever the game changes; a job's result for an older generation is dropped.
  uint64_t generation = 0;
  uint64_t version = 0;  // bumped on every change the page should redraw
  Clock::time_point last_seen = Clock::now();

  // The engine's current task (at most one, queued or running).
  Task task = Task::kNone;
  bool running = false;
  std::shared_ptr<std::atomic<bool>> stop;
  std::optional<ThinkResult> progress;
  std::string engine_name;
  std::string message;  // the last thing worth telling (engine's move, a stopped search)
  // The error of the engine's last failed job, kept to be said in each request's
  // language while `message` is still the failure's (tools/serve/views.cpp).
  std::string engine_failure;
  // Set when the engine did something it must never do (an illegal move): every call on
  // the session answers HTTP 500 with it until the game is changed (new, undo, load).
  std::string internal_error;

  nlohmann::json hint;  // null or the hint for ply `hint_ply` (tools/hint_json.h)
  size_t hint_ply = 0;
  SolveResult hint_solve;  // the hint's exact solve (Kalah), said in each request's language
  Level hint_level = Level::kHard;

  bool analysis_active = false;  // more plies to judge
  Level analysis_level = Level::kHard;
  std::string analysis_engine;
  std::vector<MoveJudgement> judged;  // plies judged so far, from the first
  // Each side's estimated rating, made with the analysis' last ply (none without a human
  // model for the game).
  std::array<std::optional<PlayedLike>, 2> played_like;

  // The rating evidence this session works out (POST /api/games/evidence), or null.
  std::shared_ptr<EvidenceWork> evidence;

  // The game's clock (POST /api/new's `clock`; docs/serve.md), none without one. The
  // person's time runs while the game waits for their move (from the game's start or the
  // engine's move on), the engine's only while its move job runs (engine_queue.cpp); a
  // game people play both sides of is a board clock: the side to move's runs.
  std::optional<GameClock> clock;
  int flagged = -1;                       // the side whose time ran out (game over on time), or -1
  Outcome time_outcome = Outcome::kDraw;  // the result then (core/game_clock.h's flag rule)
  // An undo or a loaded record switched the game's clock off (the game goes on untimed).
  bool clock_dropped = false;

  const GameSpec& spec() const { return game.spec(); }
  const Position& pos() const { return game.position(); }
  // The game has ended: on the board, or on time.
  bool over() const { return pos().is_decided() || flagged >= 0; }
  bool engine_to_move() const { return human != kHumanBoth && !over() && pos().to_move != human; }
  // Ends the game on time when the running clock's flag has fallen (the engine's move
  // job, if it runs, is stopped and its answer dropped); returns whether the game is
  // over on time.
  bool check_flag();
  // The side to move has moved: stops its clock and adds the increment. Returns false,
  // ending the game on time, when its flag had fallen before the move came (the move
  // must then not be played). Without a clock: true.
  bool stop_mover_clock();
  // Starts the side to move's clock when it is a person's turn (the engine's starts with
  // its job); nothing when the game is over or has no clock.
  void start_turn_clock();
  // Switches the clock off (an undo, a loaded record): the game goes on untimed.
  void drop_clock();
  // The game changed: drop what was computed for the old one (and a stale error).
  void changed();
  // Throws ApiError 500 with the internal error, if the session holds one.
  void check_healthy() const;
  // Plays the engine's move `move`, found by `engine`. An illegal move is an internal
  // error: logged on stderr, kept in internal_error, and the game is left as it was;
  // returns whether the move was played.
  bool play_engine_move(int move, const std::string& engine);
  // The ply to undo back to: `ply` when given (400 beyond the game), else one ply when
  // people play both sides, else to before the person's last move (409 when none).
  size_t undo_target(std::optional<long> ply) const;
  // The game as a record: tags, moves, and the analysis as comments when complete.
  std::string record() const;
};

class SessionTable {
 public:
  // `now`: the milliseconds the games' clocks run by (empty: the steady clock; a test's
  // own, so that it moves time without sleeping).
  explicit SessionTable(int max_sessions, GameClock::Now now = {})
      : max_sessions_(max_sessions), now_(now ? std::move(now) : GameClock::steady_now()) {}

  // What a game's clock reads the time from.
  const GameClock::Now& now() const { return now_; }

  // Guards every session, the table, and the engine queue (engine_queue.h).
  std::mutex& mutex() { return mutex_; }

  // The rest: with mutex() held.
  Session* find(const std::string& id);
  // The session named in a request's `session`; 400 when missing, 404 when unknown.
  // Marks it as seen now.
  Session& get(const std::string& id);
  // A new session with a fresh random id; 503 when max_sessions are open.
  Session& open();
  bool close(const std::string& id);
  // Closes the sessions nobody looked at for `idle`, and those working out a game's
  // rating evidence that nobody asked about for `evidence_idle`: their page asks several
  // times a second while it waits, so a shorter silence already means that it has gone
  // (reloaded or closed), and the session would hold one of max_sessions for nothing.
  void close_idle(Clock::time_point now, Clock::duration idle, Clock::duration evidence_idle);
  // Raises every session's stop flag (shutting down).
  void stop_all();
  size_t size() const { return sessions_.size(); }
  int max_sessions() const { return max_sessions_; }

 private:
  int max_sessions_;
  GameClock::Now now_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Session>> sessions_;
};

}  // namespace kz::cli::serve
