#include "tools/serve/api.h"

#include <optional>
#include <sstream>

#include "core/clock_control.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "tools/serve/game_evidence.h"
#include "tools/serve/games_api.h"
#include "tools/serve/lang_api.h"
#include "tools/serve/openings_api.h"
#include "tools/serve/puzzle_api.h"
#include "tools/serve/record_api.h"
#include "tools/serve/request.h"
#include "tools/serve/views.h"

namespace kz::cli::serve {

// The errors a player reads in the page's toasts, in the language of the request.
using i18n::tr;

namespace {

// Why the engine cannot take another job now, one whole sentence for each job it may be on.
std::string busy_message(Task task) {
  switch (task) {
    case Task::kMove:
      return tr("the engine is busy (move)");
    case Task::kHint:
      return tr("the engine is busy (hint)");
    case Task::kAnalysis:
      return tr("the engine is busy (analysis)");
    case Task::kNone:
    case Task::kEvidence:  // a session of its own, which takes no other task
      break;
  }
  return tr("the engine is busy");
}

// The time control in `b`'s `clock` ("5+3", a PlayOK preset's name), none when absent or "".
std::optional<ClockControl> clock_field(const json& b) {
  const std::string text = str_field(b, "clock", "");
  if (text.empty()) return std::nullopt;
  try {
    return parse_clock_control(text);
  } catch (const std::exception& e) {
    throw ApiError(400, tr("'{clock}' is not a time control: give minutes and seconds such as "
                           "5+3, or a PlayOK preset ({error})",
                           {{"clock", text}, {"error", e.what()}}));
  }
}

}  // namespace

ServeApi::ServeApi(const ServeApiOptions& options, PlayerFactory players)
    : options_(options),
      players_(players),
      sessions_(options.max_sessions, options.now),
      queue_(sessions_, options.engine, std::move(players)),
      runs_(options.runs, options.run_reader) {}

void ServeApi::routes(ApiRouter& router) {
  add_language_routes(router);
  router.add("GET", "/api/info", [this](const json&) { return info(); });
  runs_.routes(router);
  router.add("POST", "/api/new", [this](const json& b) { return new_game(b); });
  router.add("GET", "/api/state", [this](const json& b) { return state(b); });
  router.add("POST", "/api/move", [this](const json& b) { return move(b); });
  router.add("POST", "/api/undo", [this](const json& b) { return undo(b); });
  router.add("POST", "/api/hint", [this](const json& b) { return hint(b); });
  router.add("POST", "/api/analyze", [this](const json& b) { return analyze(b); });
  router.add("POST", "/api/stop", [this](const json& b) { return stop(b); });
  router.add("POST", "/api/load", [this](const json& b) { return load(b); });
  router.add("GET", "/api/board", [this](const json& b) { return board_at(b); });
  router.add("POST", "/api/close", [this](const json& b) { return close(b); });
  add_puzzle_routes(router);                          // tools/serve/puzzle_api.h
  add_record_routes(router);                          // tools/serve/record_api.h
  add_games_routes(router, options_.engine.ratings);  // tools/serve/games_api.h
  router.add("POST", "/api/games/evidence", [this](const json& b) { return start_evidence(b); });
  router.add("GET", "/api/games/evidence", [this](const json& b) { return evidence(b); });
  add_openings_routes(router, openings_engine());  // tools/serve/openings_api.h
  router.add_raw("GET", "/api/record", [this](const ApiRequest& request, ApiResponse& response) {
    response.body = record(checked_params(request.params));
    response.content_type = "application/x-chess-pgn; charset=utf-8";
    response.headers.emplace_back("Content-Disposition",
                                  "attachment; filename=\"kumalak-game.pgn\"");
  });
}

OpeningsEngine ServeApi::openings_engine() const {
  OpeningsEngine engine;
  // The hard level's engine for analysis (the network MCTS where the game has a model),
  // a fresh one per search: the view's positions are each searched once and kept.
  engine.search = [players = players_](const GameSpec& spec, const Position& pos) {
    const std::unique_ptr<Player> player = players(Task::kAnalysis, spec, Level::kHard);
    ThinkLimits limits;
    limits.nodes = kOpeningsEngineVisits;
    limits.movetime_s = kOpeningsEngineSeconds;
    return player->think(pos, limits);
  };
  engine.ratings = options_.engine.ratings;
  engine.search_in_call = options_.engine.no_threads;
  return engine;
}

json ServeApi::state_of(const Session& s) const {
  s.check_healthy();
  return state_json(s, queue_.ahead_of(s.id));
}

json ServeApi::info() {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  json levels = json::array();
  for (int i = 0; i < kLevelCount; ++i) levels.push_back(level_name(Level(i)));
  json networks = json::object();
  // The levels named by a rating, per game: the human model's range, null without one.
  json ratings = json::object();
  for (const char* g : {"togyz", "kalah", "bantumi"}) {
    const GameSpec spec = GameSpec::parse(g);
    networks[g] = !shipped_model_path(spec).empty();
    const auto range =
        options_.engine.ratings ? options_.engine.ratings->range(spec) : std::nullopt;
    ratings[g] = range ? json{{"min", range->min}, {"max", range->max}} : json();
  }
  return {{"engine", "KumalakZero"},      {"levels", levels},
          {"networks", networks},         {"ratings", ratings},
          {"workers", queue_.workers()},  {"search_slots", queue_.search_slots()},
          {"sessions", sessions_.size()}, {"max_sessions", sessions_.max_sessions()},
          {"queued", queue_.queued()},    {"max_think_s", options_.engine.max_think_s},
          {"runs", runs_.size()}};
}

json ServeApi::new_game(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  const std::string id = session_field(b);
  Session* existing = id.empty() ? nullptr : sessions_.find(id);
  // The settings not given are the existing session's; all are checked before it changes.
  const GameSpec spec =
      GameSpec::parse(str_field(b, "game", existing ? existing->spec().name() : "togyz"));
  // A rating kept from the existing game only while the game stays one that has it.
  LevelChoice fallback{existing ? existing->level : Level::kMedium,
                       existing ? existing->rating : 0};
  if (fallback.rating > 0 && !(existing && existing->spec() == spec)) fallback.rating = 0;
  const LevelChoice level =
      rated_level_field(b, "level", fallback, spec, options_.engine.ratings.get());
  const int human = side_field(b, spec, existing ? existing->human : 0);
  const std::string pos = str_field(b, "position", "");
  const Position start = pos.empty() ? Position::start(spec) : Position::parse(pos, spec);
  if (start.is_over()) throw ApiError(400, tr("the game in that position is already over"));
  const std::optional<ClockControl> clock = clock_field(b);
  Session& s = existing ? *existing : sessions_.open();
  s.changed();
  s.clock.reset();
  if (clock) s.clock.emplace(*clock, sessions_.now());
  s.flagged = -1;
  s.clock_dropped = false;
  s.game = GameSession(spec, start);
  if (clock) s.game.set_tag("TimeControl", clock->pgn_text());  // the record says the clock
  s.level = level.level;
  s.rating = level.rating;
  s.human = human;
  s.message.clear();
  s.last_seen = Clock::now();
  s.start_turn_clock();  // the person's time runs from the start; the engine's with its job
  if (s.engine_to_move()) queue_.enqueue(s, Task::kMove);
  return state_of(s);
}

json ServeApi::state(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  s.check_flag();
  return state_of(s);
}

json ServeApi::move(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  s.check_healthy();
  if (!b.contains("move")) throw ApiError(400, tr("'move' is missing"));
  if (s.check_flag())
    throw ApiError(409, tr("the time ran out before that move: the game is over on time"));
  if (s.pos().is_decided()) throw ApiError(409, tr("the game is over: undo or start a new game"));
  if (s.engine_to_move() || s.task == Task::kMove)
    throw ApiError(409, tr("it is the engine's move: wait for it"));
  if (s.game.plies() >= kMaxPlies)
    throw ApiError(400, tr("the game is {n} plies long already", {{"n", kMaxPlies}}));
  const int move = move_field(b, s.spec(), s.pos());
  s.changed();
  // The flag may fall between the check above and this moment (a real clock moves on).
  if (!s.stop_mover_clock())
    throw ApiError(409, tr("the time ran out before that move: the game is over on time"));
  s.game.play(move);
  s.start_turn_clock();
  s.message.clear();
  if (s.engine_to_move()) queue_.enqueue(s, Task::kMove);
  return state_of(s);
}

json ServeApi::undo(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  const size_t keep = s.undo_target(int_field(b, "ply"));
  s.changed();
  s.drop_clock();  // a game with moves taken back is no longer a timed game
  s.game.undo_to(keep);
  s.message.clear();
  if (s.engine_to_move()) queue_.enqueue(s, Task::kMove);
  return state_of(s);
}

json ServeApi::hint(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  s.check_healthy();
  const Level level = level_field(b, "level", Level::kHard);
  if (s.check_flag() || s.pos().is_decided()) throw ApiError(409, tr("the game is over"));
  if (s.task != Task::kNone) throw ApiError(409, busy_message(s.task));
  s.hint_level = level;
  s.hint = nullptr;
  queue_.enqueue(s, Task::kHint);
  return state_of(s);
}

json ServeApi::analyze(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  s.check_healthy();
  const Level level = level_field(b, "level", Level::kHard);
  if (s.game.plies() == 0) throw ApiError(409, tr("no moves to analyse yet"));
  if (s.task != Task::kNone) throw ApiError(409, busy_message(s.task));
  if (s.analysis_level != level || s.judged.size() > s.game.plies()) {
    s.judged.clear();
    s.played_like = {};
  }
  s.analysis_level = level;
  s.analysis_active = s.judged.size() < s.game.plies();
  if (s.analysis_active) queue_.enqueue(s, Task::kAnalysis);
  ++s.version;
  return state_of(s);
}

json ServeApi::stop(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  if (s.task == Task::kHint || s.task == Task::kAnalysis) {
    // A queued job finds its flag set and does nothing; a running one ends now.
    if (s.stop) s.stop->store(true);
    s.stop.reset();
    ++s.generation;
    s.task = Task::kNone;
    s.running = false;
    s.progress.reset();
    s.analysis_active = false;
    s.message = "stopped";
    ++s.version;
  }
  return state_of(s);
}

json ServeApi::load(const json& b) {
  const std::string text = str_field(b, "pgn", "", kMaxBodyBytes);
  if (text.empty()) throw ApiError(400, tr("'pgn' is missing: give the text of a game record"));
  std::istringstream in(text);
  const std::vector<GameRecord> games = read_pgn(in, tr("the uploaded record"));
  if (games.empty()) throw ApiError(400, tr("the record holds no game"));
  const long index = int_field(b, "index").value_or(1);
  if (index < 1 || size_t(index) > games.size())
    throw ApiError(400, tr("'index' must be 1..{count}", {{"count", games.size()}}));
  const GameRecord& g = games[size_t(index) - 1];
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  std::string game = str_field(b, "game", "");
  if (game.empty()) game = g.tag("Variant");
  const GameSpec spec = game.empty() ? s.spec() : GameSpec::parse(game);
  const Position start = record_start(g, spec);
  const ReplayResult rr = replay_record(g, start);
  if (rr.moves.size() > kMaxPlies)
    throw ApiError(400, tr("the game is longer than {n} plies", {{"n", kMaxPlies}}));
  const int human = side_field(b, spec, kHumanBoth);  // a loaded game is reviewed by default
  const LevelChoice level = rated_level_field(
      b, "level", {s.level, s.spec() == spec ? s.rating : 0}, spec, options_.engine.ratings.get());
  s.changed();
  s.drop_clock();  // a record is reviewed or played on without a clock
  s.game = GameSession(spec, start);
  for (int m : rr.moves) s.game.play(m);
  s.game.set_tags(g.tags);
  s.human = human;
  s.level = level.level;
  s.rating = level.rating;
  s.message = "loaded " + std::to_string(rr.moves.size()) + " plies";
  if (s.engine_to_move()) queue_.enqueue(s, Task::kMove);
  return state_of(s);
}

json ServeApi::board_at(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  const Session& s = sessions_.get(session_field(b));
  s.check_healthy();
  const long ply = int_field(b, "ply").value_or(long(s.game.plies()));
  if (ply < 0 || size_t(ply) > s.game.plies())
    throw ApiError(400, tr("'ply' must be 0..{count}", {{"count", s.game.plies()}}));
  json out = {{"ply", ply}, {"board", board_json(s.game.position_at(size_t(ply)))}};
  if (ply > 0)
    out["last"] = move_json(s.game.position_at(size_t(ply) - 1), s.game.moves()[size_t(ply) - 1],
                            size_t(ply));
  return out;
}

json ServeApi::start_evidence(const json& b) {
  const std::string text = str_field(b, "pgn", "", kMaxBodyBytes);
  if (text.empty()) throw ApiError(400, tr("'pgn' is missing: give the text of a game record"));
  const long visits = int_field(b, "visits").value_or(kEvidenceVisits);
  if (visits < 0 || visits > kMaxEvidenceVisits)
    throw ApiError(400, tr("'visits' must be 0..{max}", {{"max", kMaxEvidenceVisits}}));
  auto work = std::make_shared<EvidenceWork>();
  work->game = read_evidence_game(text, str_field(b, "game", ""), str_field(b, "player", ""));
  const GameSpec& spec = work->game.spec;
  if (!options_.engine.ratings || !options_.engine.ratings->range(spec)) no_human_model(spec);
  work->visits = int(visits);
  work->judge = players_ && visits > 0 && !work->game.moves.empty();
  work->at = work->game.start;
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.open();
  s.game = GameSession(spec, work->game.start);
  s.human = kHumanBoth;  // the engine plays no side
  s.evidence = std::move(work);
  queue_.enqueue(s, Task::kEvidence);
  return evidence_of(s);
}

json ServeApi::evidence(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  Session& s = sessions_.get(session_field(b));
  return evidence_of(s);
}

json ServeApi::evidence_of(Session& s) {
  if (!s.evidence)
    throw ApiError(
        409, tr("session '{id}' is not working out a game's rating evidence", {{"id", s.id}}));
  const EvidenceWork& work = *s.evidence;
  if (!work.done())
    return {{"session", s.id},
            {"done", false},
            {"judged", work.judged.size()},
            {"moves", work.judge ? work.game.moves.size() : 0},
            {"queue_ahead", queue_.ahead_of(s.id)}};
  // The answer is given once: the session closes with it.
  const std::shared_ptr<EvidenceWork> done = s.evidence;
  const std::string id = s.id;
  sessions_.close(id);
  if (!done->failure.empty()) throw ApiError(500, "the engine failed: " + done->failure);
  if (!done->answer) no_human_model(done->game.spec);
  json out = *done->answer;
  out["session"] = id;
  out["done"] = true;
  return out;
}

json ServeApi::close(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  const std::string id = session_field(b);
  if (!sessions_.close(id)) throw ApiError(404, tr("no session '{id}'", {{"id", id}}));
  return {{"closed", id}};
}

std::string ServeApi::record(const json& b) {
  std::lock_guard<std::mutex> lock(sessions_.mutex());
  const Session& s = sessions_.get(session_field(b));
  s.check_healthy();
  return s.record();
}

}  // namespace kz::cli::serve
