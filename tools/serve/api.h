// The JSON API of `kumalak serve` (docs/serve.md): one handler per call, each reading its
// request (request.h), changing a session (session.h) under the table's mutex, queueing
// engine work (engine_queue.h) and answering the session's state (views.h).
#pragma once

#include "tools/serve/api_router.h"
#include "tools/serve/engine_queue.h"
#include "tools/serve/openings_api.h"
#include "tools/serve/run_api.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {

struct ServeApiOptions {
  int max_sessions = 64;  // games open at once; more are refused with 503
  EngineQueueOptions engine;
  // Training runs shown in the Run view (tools/serve/run_api.h) and what reads them.
  std::vector<WatchedRun> runs{};
  RunReader run_reader{};
  // The milliseconds the games' clocks run by; empty: the steady clock (SessionTable).
  GameClock::Now now{};
};

class ServeApi {
 public:
  // `players` makes the engine workers' players (level_player_factory, or a test's).
  ServeApi(const ServeApiOptions& options, PlayerFactory players);

  int workers() const { return queue_.workers(); }
  int search_slots() const { return queue_.search_slots(); }
  // Starts and stops the engine workers and the watchdog.
  void start() { queue_.start(); }
  void stop() { queue_.stop(); }
  // With EngineQueueOptions::no_threads: runs the next queued engine job on the calling
  // thread (EngineQueue::run_one); false when there was none.
  bool work() { return queue_.run_one(); }
  // With no_threads, while work()'s job pauses (the page's one-thread engine): the
  // watchdog's check, stopping the job once it has run past its time.
  void stop_overdue_jobs() { queue_.stop_overdue(); }
  // Adds every API call to `router` (the page's files are the transport's: http.h).
  void routes(ApiRouter& router);

 private:
  json info();
  json new_game(const json& b);
  json state(const json& b);
  json move(const json& b);
  json undo(const json& b);
  json hint(const json& b);
  json analyze(const json& b);
  json stop(const json& b);
  json load(const json& b);
  json board_at(const json& b);
  json close(const json& b);
  // A game's rating evidence (docs/serve.md): POST /api/games/evidence opens a session
  // that works it out in the engine queue, GET polls it; the session closes once the
  // answer (or its error) has been given.
  json start_evidence(const json& b);
  json evidence(const json& b);
  // The state of `s`'s evidence, or its answer (the mutex held; closes `s` when done).
  json evidence_of(Session& s);
  std::string record(const json& b);
  // What the Openings view's engine columns search with (openings_api.h).
  OpeningsEngine openings_engine() const;
  // The state of `s` (the mutex held).
  json state_of(const Session& s) const;

  ServeApiOptions options_;
  // The engine's players: the queue's and the Openings view's short searches.
  PlayerFactory players_;
  SessionTable sessions_;
  EngineQueue queue_;
  RunApi runs_;
};

}  // namespace kz::cli::serve
