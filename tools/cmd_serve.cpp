// kumalak serve: the engine behind a board in the browser. One single-page app (the
// files of tools/web/, compiled into the executable) and a JSON API over the same
// engine code as `play`, `hint` and `analyze` (mcts/levels.h, mcts/advice.h,
// mcts/analysis.h, core/notation.h). docs/serve.md describes the API.
//
// How the work is shared: HTTP handlers never think. Every engine task (the engine's
// move, a hint, the analysis of one ply) is a job in one FIFO queue served by a few
// engine workers, each with its own players; a session has at most one job queued or
// running, and a game analysis is cut into one job per ply that goes back to the end
// of the queue, so one long analysis cannot starve the others. A watchdog stops any
// job that runs past --max-think seconds and closes sessions left idle. The page polls
// /api/state while the engine works and shows its progress (the Player progress
// callback) as it comes.
//
// Why cpp-httplib (Debian's libcpp-httplib-dev): one small, widely used library with a
// thread-pool server, request size limits and timeouts, packaged by Debian; Boost.Beast
// would mean writing the HTTP server loop, parsing and limits ourselves.
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "core/game_session.h"
#include "core/notation.h"
#include "mcts/advice.h"
#include "mcts/analysis.h"
#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "tools/commands.h"
#include "tools/hint_json.h"
#include "web_assets.h"  // generated from tools/web/ by tools/embed_web.cmake

namespace kz::cli {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  int workers = 0;  // 0 = one per two cores, at least 1, at most 4
  int max_sessions = 64;
  double idle_minutes = 30;
  double max_think_s = 10;
  int http_threads = 24;
};

// A request the API refuses: the HTTP status and a message that says what is wrong.
struct ApiError : std::runtime_error {
  ApiError(int status, const std::string& message) : std::runtime_error(message), status(status) {}
  int status;
};

constexpr size_t kMaxBodyBytes = 256 * 1024;  // a long game record is about 4 KiB
constexpr size_t kMaxPlies = 1000;            // longest game a session holds
constexpr int kHuman2 = 2;                    // `human` when people play both sides

enum class Task { kNone, kMove, kHint, kAnalysis };

const char* task_name(Task t) {
  switch (t) {
    case Task::kNone:
      return "";
    case Task::kMove:
      return "move";
    case Task::kHint:
      return "hint";
    case Task::kAnalysis:
      return "analysis";
  }
  return "";
}

const char* side_word(const GameSpec& spec, int player) {
  if (spec.is_togyz()) return player == 0 ? "white" : "black";
  return player == 0 ? "south" : "north";
}

std::string random_id() {
  static std::mutex m;
  static std::mt19937_64 rng{std::random_device{}() ^
                             uint64_t(Clock::now().time_since_epoch().count())};
  std::lock_guard<std::mutex> lock(m);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)rng(),
                (unsigned long long)rng());
  return buf;
}

struct Session {
  std::string id;
  GameSession game;  // the position, the moves and a loaded record's tags
  Level level = Level::kMedium;
  int human = 0;  // 0 / 1: the person's side, the engine plays the other; kHuman2: both people
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

  json hint;  // null or the hint for ply `hint_ply`
  size_t hint_ply = 0;
  Level hint_level = Level::kHard;

  bool analysis_active = false;  // more plies to judge
  Level analysis_level = Level::kHard;
  std::string analysis_engine;
  std::vector<MoveJudgement> judged;  // plies judged so far, from the first

  const GameSpec& spec() const { return game.spec(); }
  const Position& pos() const { return game.position(); }
  bool engine_to_move() const {
    return human != kHuman2 && !pos().is_decided() && pos().to_move != human;
  }
  // The game changed: drop what was computed for the old one.
  void changed() {
    ++generation;
    ++version;
    if (stop) stop->store(true);
    stop.reset();
    task = Task::kNone;
    running = false;
    progress.reset();
    hint = nullptr;
    analysis_active = false;
    judged.clear();
  }
};

struct Job {
  std::string session;
  uint64_t generation = 0;
  Task task = Task::kNone;
  std::shared_ptr<std::atomic<bool>> stop;
};

// The players one engine worker keeps, least recently used last; a few at most, since
// an alpha-beta expert holds a 64 MiB table.
class PlayerCache {
 public:
  Player& get(Task task, const GameSpec& spec, Level level) {
    const std::string key =
        std::string(task_name(task)) + "/" + spec.name() + "/" + level_name(level);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return *entries_.front().second;
      }
    LevelPlayerOptions lo;
    lo.seed = std::random_device{}();  // the low levels' noise differs from game to game
    lo.network = load_model_evaluator;
    std::unique_ptr<Player> p = task == Task::kMove ? make_level_player(spec, level, "", lo)
                                : task == Task::kHint
                                    ? make_analysis_player(spec, level, "", 3, lo)
                                    : make_analysis_player(spec, level, "", 0, lo);
    entries_.emplace_front(key, std::move(p));
    while (entries_.size() > kMaxPlayers) entries_.pop_back();
    return *entries_.front().second;
  }

 private:
  static constexpr size_t kMaxPlayers = 4;
  std::list<std::pair<std::string, std::unique_ptr<Player>>> entries_;
};

json board_json(const Position& p) {
  json rows = json::array();
  for (int player = 0; player < 2; ++player) {
    json row = json::array();
    for (int i = 0; i < p.npits; ++i) row.push_back(p.pit(player, i));
    rows.push_back(row);
  }
  json legal = json::array();
  for (uint32_t m = p.legal_mask(); m; m &= m - 1) legal.push_back(__builtin_ctz(m) + 1);
  return {{"position", p.to_string()},
          {"pits", rows},
          {"stores", {p.store[0], p.store[1]}},
          // tuzdyk[p]: 1-based hole in the other player's row that belongs to p (0 = none)
          {"tuzdyk", {p.tuzdyk[0] + 1, p.tuzdyk[1] + 1}},
          {"to_move", p.to_move},
          {"legal", legal},
          {"over", p.is_over()},
          {"decided", p.is_decided()},
          {"result", p.is_decided() ? outcome_string(p.outcome()) : "*"}};
}

json progress_json(const Position& pos, const ThinkResult& r) {
  json pv = json::array();
  std::istringstream ss(line_notation(pos, r.pv));
  for (std::string w; ss >> w;) pv.push_back(w);
  return {{"depth", r.depth},
          {"nodes", r.nodes},
          {"seconds", r.seconds},
          {"win", r.win},
          {"draw", r.draw},
          {"loss", r.loss},
          {"margin", r.margin},
          {"proven", r.proven},
          {"margin_exact", r.margin_exact},
          {"pv", pv},
          {"best", r.best_move >= 0 ? r.best_move + 1 : 0}};
}

class Server {
 public:
  explicit Server(const ServeOptions& opt) : opt_(opt) {
    const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
    workers_ = opt.workers > 0 ? opt.workers : std::clamp(hw / 2, 1, 4);
  }

  int workers() const { return workers_; }

  void start_threads() {
    for (int i = 0; i < workers_; ++i) threads_.emplace_back([this, i] { worker_loop(i); });
    threads_.emplace_back([this] { watchdog_loop(); });
  }

  void stop_threads() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shutting_down_ = true;
      for (auto& [id, s] : sessions_)
        if (s->stop) s->stop->store(true);
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void routes(httplib::Server& http) {
    auto asset = [](const char* type, std::string_view body) {
      return [type, body](const httplib::Request&, httplib::Response& res) {
        res.set_content(body.data(), body.size(), type);
        res.set_header("Cache-Control", "no-cache");
      };
    };
    http.Get("/", asset("text/html; charset=utf-8", web::kIndexHtml));
    http.Get("/index.html", asset("text/html; charset=utf-8", web::kIndexHtml));
    http.Get("/app.js", asset("text/javascript; charset=utf-8", web::kAppJs));
    http.Get("/style.css", asset("text/css; charset=utf-8", web::kStyleCss));

    api(http, "GET", "/api/info", [this](const json&) { return info(); });
    api(http, "POST", "/api/new", [this](const json& b) { return new_game(b); });
    api(http, "GET", "/api/state", [this](const json& b) { return locked(b, [](Session&) {}); });
    api(http, "POST", "/api/move", [this](const json& b) { return move(b); });
    api(http, "POST", "/api/undo", [this](const json& b) { return undo(b); });
    api(http, "POST", "/api/hint", [this](const json& b) { return hint(b); });
    api(http, "POST", "/api/analyze", [this](const json& b) { return analyze(b); });
    api(http, "POST", "/api/stop", [this](const json& b) { return stop(b); });
    api(http, "POST", "/api/load", [this](const json& b) { return load(b); });
    api(http, "GET", "/api/board", [this](const json& b) { return board_at(b); });
    api(http, "POST", "/api/close", [this](const json& b) { return close(b); });
    http.Get("/api/record", [this](const httplib::Request& req, httplib::Response& res) {
      guarded(res, [&] {
        const std::string text = record(params_of(req));
        res.set_content(text, "application/x-chess-pgn; charset=utf-8");
        res.set_header("Content-Disposition", "attachment; filename=\"kumalak-game.pgn\"");
      });
    });
  }

 private:
  // --- HTTP plumbing -----------------------------------------------------------------

  static void error_reply(httplib::Response& res, int status, const std::string& message) {
    res.status = status;
    res.set_content(json{{"error", message}}.dump(), "application/json");
  }

  template <class F>
  static void guarded(httplib::Response& res, F&& f) {
    try {
      f();
    } catch (const ApiError& e) {
      error_reply(res, e.status, e.what());
    } catch (const ParseError& e) {
      error_reply(res, 400, e.what());
    } catch (const json::exception& e) {
      error_reply(res, 400, std::string("malformed JSON: ") + e.what());
    } catch (const std::exception& e) {
      error_reply(res, 500, std::string("internal error: ") + e.what());
    }
  }

  // GET parameters as a JSON object of strings (session=..., ply=...).
  static json params_of(const httplib::Request& req) {
    json j = json::object();
    for (const auto& [k, v] : req.params) {
      if (v.size() > 200) throw ApiError(400, "parameter '" + k + "' is too long");
      j[k] = v;
    }
    return j;
  }

  template <class F>
  void api(httplib::Server& http, const std::string& method, const std::string& path, F fn) {
    auto handler = [fn](const httplib::Request& req, httplib::Response& res) {
      guarded(res, [&] {
        json body;
        if (req.method == "GET") {
          body = params_of(req);
        } else {
          body = req.body.empty() ? json::object() : json::parse(req.body);
          if (!body.is_object()) throw ApiError(400, "the request body must be a JSON object");
        }
        res.set_content(fn(body).dump(), "application/json");
      });
    };
    if (method == "GET")
      http.Get(path, handler);
    else
      http.Post(path, handler);
  }

  // --- Request fields ----------------------------------------------------------------

  static std::string str_field(const json& b, const char* name, const std::string& fallback,
                               size_t max_len = 200) {
    if (!b.contains(name) || b[name].is_null()) return fallback;
    if (!b[name].is_string()) throw ApiError(400, std::string("'") + name + "' must be a string");
    const std::string v = b[name].get<std::string>();
    if (v.size() > max_len)
      throw ApiError(400, std::string("'") + name + "' is too long (at most " +
                              std::to_string(max_len) + " characters)");
    return v;
  }

  // An integer given as a JSON number or, in GET parameters, as a string of digits.
  static std::optional<long> int_field(const json& b, const char* name) {
    if (!b.contains(name) || b[name].is_null()) return std::nullopt;
    const json& v = b[name];
    if (v.is_number_integer()) return v.get<long>();
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (!s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), ::isdigit))
        return std::stol(s);
    }
    throw ApiError(400, std::string("'") + name + "' must be a whole number");
  }

  static Level level_field(const json& b, const char* name, Level fallback) {
    const std::string v = str_field(b, name, "");
    return v.empty() ? fallback : parse_level(v);
  }

  static int side_field(const json& b, const GameSpec& spec, int fallback) {
    const std::string v = str_field(b, "human", "");
    if (v.empty()) return fallback;
    if (v == "white" || v == "south") return 0;
    if (v == "black" || v == "north") return 1;
    if (v == "both") return kHuman2;
    throw ApiError(400, "'human' is " + std::string(side_word(spec, 0)) + ", " +
                            side_word(spec, 1) + " or both, not '" + v + "'");
  }

  // --- Sessions ------------------------------------------------------------------------

  Session& session_of(const json& b) {
    const std::string id = str_field(b, "session", "", 64);
    if (id.empty()) throw ApiError(400, "'session' is missing");
    auto it = sessions_.find(id);
    if (it == sessions_.end())
      throw ApiError(404, "no session '" + id + "' (it may have expired: start a new game)");
    it->second->last_seen = Clock::now();
    return *it->second;
  }

  template <class F>
  json locked(const json& b, F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    f(s);
    return state(s);
  }

  json info() {
    std::lock_guard<std::mutex> lock(mutex_);
    json levels = json::array();
    for (int i = 0; i < kLevelCount; ++i) levels.push_back(level_name(Level(i)));
    json networks = json::object();
    for (const char* g : {"togyz", "kalah", "bantumi"})
      networks[g] = !shipped_model_path(GameSpec::parse(g)).empty();
    return {{"engine", "KumalakZero"},      {"levels", levels},
            {"networks", networks},         {"workers", workers_},
            {"sessions", sessions_.size()}, {"max_sessions", opt_.max_sessions},
            {"queued", queue_.size()},      {"max_think_s", opt_.max_think_s}};
  }

  // The position and settings of a new game from a request; throws ApiError/ParseError.
  static void setup_from(const json& b, Session& s) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", s.spec().name()));
    s.level = level_field(b, "level", s.level);
    s.human = side_field(b, spec, s.human);
    const std::string pos = str_field(b, "position", "");
    const Position start = pos.empty() ? Position::start(spec) : Position::parse(pos, spec);
    if (start.is_over()) throw ApiError(400, "the game in that position is already over");
    s.game = GameSession(spec, start);
  }

  json new_game(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session fresh;
    const std::string id = str_field(b, "session", "", 64);
    Session* existing = nullptr;
    if (!id.empty()) {
      auto it = sessions_.find(id);
      if (it != sessions_.end()) existing = it->second.get();
    }
    if (existing) {
      fresh.game = GameSession(existing->spec());
      fresh.level = existing->level;
      fresh.human = existing->human;
    }
    setup_from(b, fresh);  // validate before touching the session
    Session* s = existing;
    if (!s) {
      if (int(sessions_.size()) >= opt_.max_sessions)
        throw ApiError(503, "the server has its maximum of " + std::to_string(opt_.max_sessions) +
                                " games open; try again when one has ended or expired");
      auto made = std::make_unique<Session>();
      made->id = random_id();
      s = made.get();
      sessions_[made->id] = std::move(made);
    }
    s->changed();
    s->game = fresh.game;
    s->level = fresh.level;
    s->human = fresh.human;
    s->message.clear();
    s->last_seen = Clock::now();
    if (s->engine_to_move()) enqueue(*s, Task::kMove);
    return state(*s);
  }

  json move(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    if (!b.contains("move")) throw ApiError(400, "'move' is missing");
    if (s.pos().is_decided()) throw ApiError(409, "the game is over: undo or start a new game");
    if (s.engine_to_move() || (s.task == Task::kMove))
      throw ApiError(409, "it is the engine's move: wait for it");
    if (s.game.plies() >= kMaxPlies)
      throw ApiError(400, "the game is " + std::to_string(kMaxPlies) + " plies long already");
    int move = -1;
    const json& m = b["move"];
    const Position& pos = s.pos();
    const int n = pos.npits;
    if (m.is_number_integer()) {
      const long v = m.get<long>();
      if (v < 1 || v > n)
        throw ApiError(400, "there is no pit " + std::to_string(v) + ": they are numbered 1-" +
                                std::to_string(n));
      move = int(v) - 1;
    } else if (m.is_string()) {
      const std::string t = str_field(b, "move", "", 20);
      const MoveToken tok = parse_move_token(t, s.spec());
      if (tok.from < 1 || tok.from > n)
        throw ApiError(400, "there is no pit " + std::to_string(tok.from));
      move = tok.from - 1;
      if (pos.is_legal(move) && tok.landing) {
        Position q = pos;
        const auto info = q.play(move);
        if (*tok.landing != info.landing_index + 1)
          throw ApiError(400, "from " + std::to_string(tok.from) + " the last stone lands on " +
                                  std::to_string(info.landing_index + 1) + ", not " +
                                  std::to_string(*tok.landing));
      }
    } else {
      throw ApiError(400, "'move' must be a pit number or a move in notation");
    }
    if (!pos.is_legal(move))
      throw ApiError(
          400, std::string(pos.is_togyz() ? "hole " : "pit ") + std::to_string(move + 1) + " of " +
                   side_word(s.spec(), pos.to_move) + " is " +
                   (pos.is_togyz() && pos.tuzdyk[pos.to_move ^ 1] == move ? "a tuzdyk" : "empty"));
    s.changed();
    s.game.play(move);
    s.message.clear();
    if (s.engine_to_move()) enqueue(s, Task::kMove);
    return state(s);
  }

  json undo(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    size_t keep;
    if (auto ply = int_field(b, "ply")) {
      if (*ply < 0 || size_t(*ply) > s.game.plies())
        throw ApiError(400, "'ply' must be 0.." + std::to_string(s.game.plies()));
      keep = size_t(*ply);
    } else if (s.human == kHuman2) {
      if (s.game.plies() == 0) throw ApiError(409, "nothing to undo");
      keep = s.game.plies() - 1;
    } else {
      // Back to before the person's last move (with the engine's replies after it).
      const std::optional<size_t> last = s.game.last_move_of(s.human);
      if (!last) throw ApiError(409, "nothing to undo: you have not moved yet");
      keep = *last;
    }
    s.changed();
    s.game.undo_to(keep);
    s.message.clear();
    if (s.engine_to_move()) enqueue(s, Task::kMove);
    return state(s);
  }

  json hint(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    const Level level = level_field(b, "level", Level::kHard);
    if (s.pos().is_decided()) throw ApiError(409, "the game is over");
    if (s.task != Task::kNone)
      throw ApiError(409, std::string("the engine is busy (") + task_name(s.task) + ")");
    s.hint_level = level;
    s.hint = nullptr;
    enqueue(s, Task::kHint);
    return state(s);
  }

  json analyze(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    const Level level = level_field(b, "level", Level::kHard);
    if (s.game.plies() == 0) throw ApiError(409, "no moves to analyse yet");
    if (s.task != Task::kNone)
      throw ApiError(409, std::string("the engine is busy (") + task_name(s.task) + ")");
    if (s.analysis_level != level || s.judged.size() > s.game.plies()) s.judged.clear();
    s.analysis_level = level;
    s.analysis_active = s.judged.size() < s.game.plies();
    if (s.analysis_active) enqueue(s, Task::kAnalysis);
    ++s.version;
    return state(s);
  }

  json stop(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
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
    return state(s);
  }

  json load(const json& b) {
    const std::string text = str_field(b, "pgn", "", kMaxBodyBytes);
    if (text.empty()) throw ApiError(400, "'pgn' is missing: give the text of a game record");
    std::istringstream in(text);
    const std::vector<GameRecord> games = read_pgn(in, "the uploaded record");
    if (games.empty()) throw ApiError(400, "the record holds no game");
    const long index = int_field(b, "index").value_or(1);
    if (index < 1 || size_t(index) > games.size())
      throw ApiError(400, "'index' must be 1.." + std::to_string(games.size()));
    const GameRecord& g = games[size_t(index) - 1];
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    std::string game = str_field(b, "game", "");
    if (game.empty()) game = g.tag("Variant");
    const GameSpec spec = game.empty() ? s.spec() : GameSpec::parse(game);
    Position start = Position::start(spec);
    if (auto fen = g.tag("FEN"); !fen.empty()) start = Position::parse(fen, spec);
    const ReplayResult rr = replay_record(g, start);
    if (rr.moves.size() > kMaxPlies)
      throw ApiError(400, "the game is longer than " + std::to_string(kMaxPlies) + " plies");
    const int human = side_field(b, spec, kHuman2);  // a loaded game is reviewed by default
    const Level level = level_field(b, "level", s.level);
    s.changed();
    s.game = GameSession(spec, start);
    for (int m : rr.moves) s.game.play(m);
    s.game.set_tags(g.tags);
    s.human = human;
    s.level = level;
    s.message = "loaded " + std::to_string(rr.moves.size()) + " plies";
    if (s.engine_to_move()) enqueue(s, Task::kMove);
    return state(s);
  }

  json board_at(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    const long ply = int_field(b, "ply").value_or(long(s.game.plies()));
    if (ply < 0 || size_t(ply) > s.game.plies())
      throw ApiError(400, "'ply' must be 0.." + std::to_string(s.game.plies()));
    json out = {{"ply", ply}, {"board", board_json(s.game.position_at(size_t(ply)))}};
    if (ply > 0)
      out["last"] = move_json(s.game.position_at(size_t(ply) - 1), s.game.moves()[size_t(ply) - 1],
                              size_t(ply));
    return out;
  }

  json close(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string id = str_field(b, "session", "", 64);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) throw ApiError(404, "no session '" + id + "'");
    it->second->changed();
    sessions_.erase(it);
    return {{"closed", id}};
  }

  std::string record(const json& b) {
    std::lock_guard<std::mutex> lock(mutex_);
    Session& s = session_of(b);
    const std::string engine = std::string("KumalakZero ") + level_name(s.level);
    RecordHeader header{.site = "kumalak serve",
                        .white = s.human == 0 || s.human == kHuman2 ? "Human" : engine,
                        .black = s.human == 1 || s.human == kHuman2 ? "Human" : engine,
                        .annotator = ""};
    std::vector<std::string> comments;
    if (s.judged.size() == s.game.plies() && s.game.plies() > 0) {
      for (const auto& j : s.judged) comments.push_back(j.comment);
      header.annotator = "KumalakZero " + s.analysis_engine;
    }
    return s.game.record(header, comments);
  }

  // --- State sent to the page ----------------------------------------------------------

  static json move_json(const Position& before, int move, size_t ply) {
    Position after = before;
    const auto info = after.play(move);
    return {{"ply", ply},
            {"pit", move + 1},
            {"mover", before.to_move},
            {"notation", format_move(before, move)},
            {"captured", info.captured},
            {"tuzdyk", info.made_tuzdyk},
            {"extra_turn", info.extra_turn && !info.ended_game},
            {"landing", {info.landing_player, info.landing_index + 1}}};
  }

  json state(const Session& s) const {
    json moves = json::array();
    for (size_t i = 0; i < s.game.plies(); ++i)
      moves.push_back(move_json(s.game.position_at(i), s.game.moves()[i], i + 1));
    json engine = {{"task", task_name(s.task)},
                   {"running", s.running},
                   {"name", s.engine_name},
                   {"progress", s.progress ? progress_json(s.pos(), *s.progress) : json()}};
    if (s.task != Task::kNone && !s.running) {
      size_t ahead = 0;
      for (const auto& j : queue_) {
        if (j.session == s.id) break;
        ++ahead;
      }
      engine["queue_ahead"] = ahead;
    }
    json out = {{"session", s.id},
                {"version", s.version},
                {"game", s.spec().name()},
                {"togyz", s.spec().is_togyz()},
                {"npits", s.spec().pits},
                {"level", level_name(s.level)},
                {"human", s.human == kHuman2 ? "both" : side_word(s.spec(), s.human)},
                {"sides", {side_word(s.spec(), 0), side_word(s.spec(), 1)}},
                {"names", {s.game.tag("White"), s.game.tag("Black")}},
                {"start", s.game.start().to_string()},
                {"board", board_json(s.pos())},
                {"moves", moves},
                {"engine", engine},
                {"message", s.message},
                {"hint", s.hint.is_null() || s.hint_ply != s.game.plies() ? json() : s.hint}};
    if (!s.judged.empty() || s.analysis_active) {
      json plies = json::array();
      AnalysisStats side[2];
      for (size_t i = 0; i < s.judged.size(); ++i) {
        const Position& q = s.game.position_at(i);
        const MoveJudgement& j = s.judged[i];
        side[j.mover].add(j);
        plies.push_back({{"ply", i + 1},
                         {"notation", format_move(q, j.move)},
                         {"mover", j.mover},
                         {"judged", j.judged},
                         {"white_score", j.white_score()},
                         {"white_margin", j.white_margin()},
                         {"drop", j.drop},
                         {"mark", move_mark_name(j.mark)},
                         {"best", j.agrees || j.best_move < 0 ? "" : format_move(q, j.best_move)},
                         {"comment", j.comment}});
      }
      out["analysis"] = {{"level", level_name(s.analysis_level)},
                         {"engine", s.analysis_engine},
                         {"done", s.judged.size()},
                         {"total", s.game.plies()},
                         {"complete", s.judged.size() == s.game.plies()},
                         {"plies", plies},
                         {"summary", {side[0].line(), side[1].line()}},
                         {"thresholds", analysis_thresholds_text()}};
    } else {
      out["analysis"] = nullptr;
    }
    return out;
  }

  // --- Engine work ---------------------------------------------------------------------

  // Queues a task for `s` (mutex_ held). One task per session at a time.
  void enqueue(Session& s, Task task) {
    s.task = task;
    s.running = false;
    s.progress.reset();
    if (!s.stop) s.stop = std::make_shared<std::atomic<bool>>(false);
    queue_.push_back({s.id, s.generation, task, s.stop});
    ++s.version;
    cv_.notify_one();
  }

  // What a worker needs to run a job, copied under the lock.
  struct JobInput {
    Job job;
    GameSpec spec;
    Position pos;
    Level level;
    size_t ply = 0;  // analysis: the ply to judge (0-based); hint: the ply it is for
    int move = -1;   // analysis: the move played there
  };

  std::optional<JobInput> take_job(int worker) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return shutting_down_ || !queue_.empty(); });
      if (shutting_down_) return std::nullopt;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      auto it = sessions_.find(job.session);
      if (it == sessions_.end() || it->second->generation != job.generation || job.stop->load())
        continue;  // the game changed or the session closed since it was queued
      Session& s = *it->second;
      JobInput in{job, s.spec(), s.pos(), s.level, s.game.plies()};
      if (job.task == Task::kHint) in.level = s.hint_level;
      if (job.task == Task::kAnalysis) {
        in.level = s.analysis_level;
        in.ply = s.judged.size();
        in.move = s.game.moves()[in.ply];
        in.pos = s.game.position_at(in.ply);
      }
      s.running = true;
      ++s.version;
      running_[size_t(worker)] = {
          job.stop, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(opt_.max_think_s))};
      return in;
    }
  }

  void worker_loop(int worker) {
    PlayerCache players;
    while (auto in = take_job(worker)) {
      const Job& job = in->job;
      std::string failure;
      std::string engine_name;
      ThinkResult result;
      Hint hint;
      MoveJudgement judged;
      try {
        Player& player = players.get(job.task, in->spec, in->level);
        engine_name = player.name();
        player.new_game();  // players serve every session: nothing carries over
        const std::string id = job.session;
        const uint64_t gen = job.generation;
        const Position root = in->pos;
        if (job.task != Task::kAnalysis)
          player.set_progress_callback([this, id, gen, engine_name](const ThinkResult& r) {
            std::lock_guard<std::mutex> lock(mutex_);
            auto it = sessions_.find(id);
            if (it == sessions_.end() || it->second->generation != gen) return;
            it->second->progress = r;
            it->second->engine_name = engine_name;
            ++it->second->version;
          });
        ThinkLimits limits;
        limits.stop = job.stop.get();
        if (job.task == Task::kMove) {
          result = player.think(root, limits);
        } else if (job.task == Task::kHint) {
          hint = make_hint(player, root, limits, 3);
        } else {
          judged = judge_move(player, root, in->move, limits);
        }
        player.set_progress_callback({});
      } catch (const std::exception& e) {
        failure = e.what();
      }
      finish_job(worker, *in, engine_name, failure, result, hint, judged);
    }
  }

  void finish_job(int worker, const JobInput& in, const std::string& engine_name,
                  const std::string& failure, const ThinkResult& result, const Hint& hint,
                  const MoveJudgement& judged) {
    std::lock_guard<std::mutex> lock(mutex_);
    running_[size_t(worker)] = {};
    const Job& job = in.job;
    auto it = sessions_.find(job.session);
    if (it == sessions_.end() || it->second->generation != job.generation) return;
    Session& s = *it->second;
    s.running = false;
    s.task = Task::kNone;
    s.progress.reset();
    s.engine_name = engine_name;
    ++s.version;
    if (!failure.empty()) {
      s.message = "the engine failed: " + failure;
      s.analysis_active = false;
      return;
    }
    if (job.task == Task::kMove) {
      int move = result.best_move;
      if (!s.pos().is_legal(move)) move = __builtin_ctz(s.pos().legal_mask());
      s.message = "engine played " + format_move(s.pos(), move);
      ++s.generation;  // results for the position before the move are stale
      s.hint = nullptr;
      s.judged.clear();
      s.analysis_active = false;
      s.stop.reset();
      s.game.play(move);
      if (s.engine_to_move()) enqueue(s, Task::kMove);  // a Kalah extra turn
    } else if (job.task == Task::kHint) {
      s.hint = json(hint_json(in.spec, in.pos, hint, engine_name, in.level));
      s.hint_ply = in.ply;
      if (job.stop->load())
        s.message = "hint cut short at " + std::to_string(opt_.max_think_s) + " s";
    } else {
      if (judged.move < 0 || in.ply != s.judged.size()) return;
      s.judged.push_back(judged);
      s.analysis_engine = engine_name;
      s.analysis_active = s.judged.size() < s.game.plies();
      // The next ply goes to the back of the queue: other sessions' work comes first.
      if (s.analysis_active) enqueue(s, Task::kAnalysis);
    }
  }

  // Stops jobs that run too long and closes sessions left idle.
  void watchdog_loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!shutting_down_) {
      cv_watch_.wait_for(lock, std::chrono::milliseconds(50));
      const auto now = Clock::now();
      for (auto& r : running_)
        if (r.stop && now >= r.deadline) r.stop->store(true);
      const auto idle = std::chrono::duration<double>(opt_.idle_minutes * 60);
      for (auto it = sessions_.begin(); it != sessions_.end();) {
        if (now - it->second->last_seen > idle) {
          it->second->changed();
          it = sessions_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }

  struct Running {
    std::shared_ptr<std::atomic<bool>> stop;
    Clock::time_point deadline;
  };

  ServeOptions opt_;
  int workers_ = 1;
  std::mutex mutex_;  // guards everything below
  std::condition_variable cv_, cv_watch_;
  std::map<std::string, std::unique_ptr<Session>> sessions_;
  std::deque<Job> queue_;
  std::vector<Running> running_ = std::vector<Running>(8);
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
};

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

int run_serve(const ServeOptions& opt) {
  if (opt.port < 0 || opt.port > 65535) {
    std::cerr << "kumalak serve: --port must be 0..65535 (0: any free port)\n";
    return 2;
  }
  if (opt.workers < 0 || opt.workers > 8 || opt.max_sessions < 1 || opt.max_sessions > 10000 ||
      opt.idle_minutes <= 0 || opt.max_think_s <= 0 || opt.http_threads < 2) {
    std::cerr << "kumalak serve: --workers 0..8, --max-sessions 1..10000, --idle-minutes > 0, "
                 "--max-think > 0, --http-threads >= 2\n";
    return 2;
  }
  // SIGINT/SIGTERM are taken by one thread (sigwait) that stops the server cleanly; every
  // thread started from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Server server(opt);
  httplib::Server http;
  const int http_threads = opt.http_threads;
  http.new_task_queue = [http_threads] { return new httplib::ThreadPool(size_t(http_threads)); };
  http.set_payload_max_length(kMaxBodyBytes);
  http.set_read_timeout(5, 0);
  http.set_write_timeout(5, 0);
  http.set_keep_alive_timeout(2);
  http.set_keep_alive_max_count(100);
  const bool local = is_loopback(opt.host);
  http.set_pre_routing_handler([local](const httplib::Request& req, httplib::Response& res) {
    // A page on another site must not reach a server bound to localhost through a name
    // that resolves here (DNS rebinding): requests must name a local host.
    if (local) {
      std::string host = req.get_header_value("Host");
      if (host.rfind("[::1]", 0) == 0)
        host = "::1";
      else
        host = host.substr(0, host.find(':'));
      if (!is_loopback(host)) {
        res.status = 403;
        res.set_content(json{{"error", "this server answers to localhost only"}}.dump(),
                        "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string msg = res.status == 404   ? "no such page or API call: " + req.path
                      : res.status == 413 ? "request too large (at most 256 KiB)"
                                          : "request refused";
    res.set_content(json{{"error", msg}}.dump(), "application/json");
  });
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        res.status = 500;
        res.set_content(json{{"error", "internal error: " + what}}.dump(), "application/json");
      });
  server.routes(http);

  // cpp-httplib listens with a backlog of 5 (compiled into Debian's library), and a burst
  // of new connections beyond that is reset; the socket is taken here, as it is made,
  // and its backlog raised after the bind.
  int listen_fd = -1;
  http.set_socket_options([&listen_fd](int fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd = fd;
  });
  int port = opt.port;
  if (port == 0) {
    port = http.bind_to_any_port(opt.host);
    if (port < 0) port = 0;
  } else if (!http.bind_to_port(opt.host, port)) {
    port = 0;
  }
  if (port <= 0) {
    std::cerr << "kumalak serve: cannot listen on " << opt.host << ":" << opt.port
              << " (in use, or not an address of this machine)\n";
    return 1;
  }
  if (listen_fd >= 0) ::listen(listen_fd, SOMAXCONN);
  server.start_threads();
  const std::string shown =
      opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  std::cout << "kumalak serve: open http://" << (opt.host == "0.0.0.0" ? "127.0.0.1" : shown) << ":"
            << port << "/ in a browser (" << server.workers() << " engine worker"
            << (server.workers() == 1 ? "" : "s") << ", at most " << opt.max_sessions
            << " games; Ctrl-C stops)" << std::endl;
  if (!local)
    std::cout << "kumalak serve: listening on " << opt.host
              << ", not only localhost: anyone who can reach this machine on port " << port
              << " can use the engine" << std::endl;
  std::atomic<bool> listen_returned{false};
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    // A stop() before listen_after_bind() has started is forgotten by cpp-httplib (the
    // loop then runs for ever): a SIGTERM right after the banner hung the server. Wait
    // until it listens, or until it has returned on its own.
    while (!http.is_running() && !listen_returned.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    http.stop();
  });
  http.listen_after_bind();
  listen_returned = true;
  // listen_after_bind returns when stopped by the signal thread; if it returned for any
  // other reason, wake that thread so it can end.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  server.stop_threads();
  std::cout << "kumalak serve: stopped" << std::endl;
  return 0;
}

}  // namespace

void register_serve(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ServeOptions>();
  auto* cmd = app.add_subcommand("serve", "Play, hints and analysis on a board in the browser");
  cmd->add_option("--host", opt->host,
                  "address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: all)");
  cmd->add_option("--port", opt->port, "port (default 8080; 0 picks a free one)");
  cmd->add_option("--workers", opt->workers, "engine threads (default: one per two cores, 1-4)");
  cmd->add_option("--max-sessions", opt->max_sessions, "games open at once (default 64)");
  cmd->add_option("--idle-minutes", opt->idle_minutes,
                  "close a game nobody looked at for this long (default 30)");
  cmd->add_option("--max-think", opt->max_think_s,
                  "seconds one engine task may take at most (default 10)");
  cmd->add_option("--http-threads", opt->http_threads, "threads answering requests (default 24)");
  cmd->callback([opt, &exit_code] { exit_code = run_serve(*opt); });
}

}  // namespace kz::cli
