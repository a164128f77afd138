// kumalak serve's server parts (tools/serve/) in-process, with stub players: what the
// real engines never do (answer an illegal move) and how the queue is sized.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "tests/serve_test_util.h"
#include "tools/serve/api.h"
#include "tools/serve/engine_queue.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {
namespace {

// Answers `move` (0-based) whatever the position: -1 or an empty pit is illegal.
class FixedMovePlayer : public Player {
 public:
  explicit FixedMovePlayer(int move, std::atomic<int>* thinking = nullptr,
                           std::atomic<int>* most = nullptr)
      : move_(move), thinking_(thinking), most_(most) {}
  std::string name() const override { return "stub"; }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    if (thinking_) {
      const int now = ++*thinking_;
      for (int seen = most_->load(); now > seen && !most_->compare_exchange_weak(seen, now);) {
      }
      // Hold the worker until stopped (the watchdog) or a while has passed.
      for (int i = 0; i < 200 && !(limits.stop && limits.stop->load()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      --*thinking_;
    }
    ThinkResult r;
    r.best_move = move_ >= 0 ? move_ : -1;
    if (move_ == kFirstLegal) r.best_move = __builtin_ctz(pos.legal_mask());
    r.depth = 1;
    r.nodes = 1;
    return r;
  }
  static constexpr int kFirstLegal = 100;

 private:
  int move_;
  std::atomic<int>* thinking_;
  std::atomic<int>* most_;
};

// Holds its worker until `release` is set (or the job is stopped), then answers the first
// legal move: a task that is still running whenever the test asks.
class HeldPlayer : public Player {
 public:
  HeldPlayer(std::atomic<bool>* release, std::atomic<int>* started)
      : release_(release), started_(started) {}
  std::string name() const override { return "held"; }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    ++*started_;
    while (!release_->load() && !(limits.stop && limits.stop->load()))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ThinkResult r;
    r.best_move = __builtin_ctz(pos.legal_mask());
    r.depth = 1;
    r.nodes = 1;
    return r;
  }

 private:
  std::atomic<bool>* release_;
  std::atomic<int>* started_;
};

// The API on an ephemeral port of this process, its engine answering with `players`.
InProcessApi in_process_server(PlayerFactory players, int workers = 1) {
  ServeApiOptions o;
  o.max_sessions = 16;
  o.engine.workers = workers;
  o.engine.max_think_s = 5;
  return InProcessApi(o, std::move(players));
}

// The status and body of a GET in the language `lang` (the page's Accept-Language).
std::pair<int, json> get_in(const InProcessApi& server, const std::string& path,
                            const std::string& lang) {
  httplib::Client cli("127.0.0.1", server.port());
  cli.set_read_timeout(10, 0);
  auto r = cli.Get(path.c_str(), {{"Accept-Language", lang}});
  if (!r) return {0, json()};
  return {r->status, json::parse(r->body, nullptr, false)};
}

// A path of bytes that are not UTF-8 (GET /%FF) is answered 404 in JSON, and the server
// goes on: writing them into the answer's JSON once threw in the HTTP library's error
// handler and ended `kumalak serve`.
TEST(ServeHttp, APathThatIsNotUtf8IsA404AndTheServerGoesOn) {
  InProcessApi server = in_process_server(
      [](Task, const GameSpec&, Level) { return std::make_unique<FixedMovePlayer>(0); });
  ASSERT_GT(server.port(), 0);
  auto [status, body] = get_in(server, "/%FF%FE", "en");
  EXPECT_EQ(status, 404);
  ASSERT_TRUE(body.is_object()) << body;
  EXPECT_NE(body.value("error", "").find("no such page"), std::string::npos) << body;
  std::tie(status, body) = get_in(server, "/api/%FF", "en");
  EXPECT_EQ(status, 404) << body;
  httplib::Client cli("127.0.0.1", server.port());
  auto cut = cli.Post("/api/new", std::string("{\"game\": \"\xd0"), "application/json");
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->status, 400) << cut->body;
  EXPECT_EQ(server.call("GET", "/api/info").first, 200);
}

TEST(ServeEngineMove, AnIllegalMoveIsAnInternalErrorAnsweredWith500) {
  // Togyz, Black to move with hole 1 empty: the stub's hole 1 is illegal.
  InProcessApi server = in_process_server(
      [](Task, const GameSpec&, Level) { return std::make_unique<FixedMovePlayer>(0); });
  ASSERT_GT(server.port(), 0);
  auto [status, s] =
      server.call("POST", "/api/new",
                  {{"game", "togyz"},
                   {"human", "white"},
                   {"position", "9,9,9,9,9,9,9,9,9/0,10,10,10,10,10,10,10,10 0 1 b"}});
  ASSERT_EQ(status, 200) << s.dump();
  const std::string id = s["session"];
  const std::string state = "/api/state?session=" + id;
  // Polls until the engine's job has ended.
  std::pair<int, json> r = server.settled_state(id, 400);
  ASSERT_EQ(r.first, 500) << r.second.dump();
  const std::string error = r.second.value("error", "");
  EXPECT_NE(error.find("internal error"), std::string::npos) << error;
  EXPECT_NE(error.find("pit 1"), std::string::npos) << error;
  EXPECT_NE(error.find("not a legal move"), std::string::npos) << error;
  // It stays until the game changes, and nothing was played in its place.
  EXPECT_EQ(server.call("GET", state).first, 500);
  EXPECT_EQ(server.call("POST", "/api/hint", {{"session", id}}).first, 500);
  auto [new_status, fresh] =
      server.call("POST", "/api/new", {{"session", id}, {"game", "togyz"}, {"human", "both"}});
  ASSERT_EQ(new_status, 200) << fresh.dump();
  EXPECT_EQ(fresh["moves"].size(), 0u);
  EXPECT_EQ(server.call("GET", state).first, 200);
}

TEST(ServeEngineMove, ALegalMoveIsPlayed) {
  InProcessApi server = in_process_server([](Task, const GameSpec&, Level) {
    return std::make_unique<FixedMovePlayer>(FixedMovePlayer::kFirstLegal);
  });
  auto [status, s] = server.call("POST", "/api/new", {{"game", "kalah"}, {"human", "north"}});
  ASSERT_EQ(status, 200) << s.dump();
  std::pair<int, json> r = server.settled_state(s["session"].get<std::string>(), 400);
  ASSERT_EQ(r.first, 200) << r.second.dump();
  // South's pit 1 (4 seeds) ends in pit 5: North's turn.
  ASSERT_EQ(r.second["moves"].size(), 1u) << r.second.dump();
  EXPECT_EQ(r.second["moves"][0]["pit"], 1);
  EXPECT_EQ(r.second["message"], "engine played 1");
}

// Throws whatever it is asked: an engine that fails (a model that cannot be read, ...).
class FailingPlayer : public Player {
 public:
  std::string name() const override { return "failing"; }
  ThinkResult think(const Position&, const ThinkLimits&) override {
    throw std::runtime_error("boom");
  }
};

// The failure is said in the language of the request that reads the state, the engine's
// own error after the colon, until another message replaces it.
TEST(ServeEngineMove, AFailedEngineIsSaidInTheRequestsLanguage) {
  InProcessApi server = in_process_server(
      [](Task, const GameSpec&, Level) { return std::make_unique<FailingPlayer>(); });
  auto [status, s] = server.call("POST", "/api/new", {{"game", "kalah"}, {"human", "north"}});
  ASSERT_EQ(status, 200) << s.dump();
  const std::string session = s["session"].get<std::string>();
  const std::string state = "/api/state?session=" + session;
  std::pair<int, json> r = server.settled_state(session, 400);
  ASSERT_EQ(r.first, 200) << r.second.dump();
  EXPECT_EQ(r.second["engine_failed"], true) << r.second.dump();
  EXPECT_EQ(r.second["message"], "the engine failed: boom");
  r = get_in(server, state, "ru");
  EXPECT_EQ(r.second["engine_failed"], true) << r.second.dump();
  EXPECT_EQ(r.second["message"], "сбой программы: boom");
  r = get_in(server, state, "kk");
  EXPECT_EQ(r.second["message"], "бағдарлама істен шықты: boom");
  // A new game's (the player moving first) is no failure.
  r = server.call("POST", "/api/new",
                  {{"session", s["session"]}, {"game", "kalah"}, {"human", "south"}});
  ASSERT_EQ(r.first, 200) << r.second.dump();
  EXPECT_EQ(r.second["engine_failed"], false) << r.second.dump();
}

// More workers than the protocol's old fixed table of 8: every one runs a job at once.
TEST(ServeEngineQueue, CapacityFollowsTheWorkers) {
  constexpr int kWorkers = 10;
  std::atomic<int> thinking{0}, most{0};
  InProcessApi server = in_process_server(
      [&](Task, const GameSpec&, Level) {
        return std::make_unique<FixedMovePlayer>(FixedMovePlayer::kFirstLegal, &thinking, &most);
      },
      kWorkers);
  EXPECT_EQ(server.api().workers(), kWorkers);
  for (int i = 0; i < kWorkers; ++i) {
    auto [status, s] = server.call("POST", "/api/new", {{"game", "kalah"}, {"human", "north"}});
    ASSERT_EQ(status, 200) << s.dump();
  }
  for (int i = 0; i < 400 && most.load() < kWorkers; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(most.load(), kWorkers);
}

// A game has one engine task at a time: a second hint is refused with 409 while the
// first is queued or running, and accepted once it has ended.
TEST(ServeEngineQueue, OneTaskPerGameAtATime) {
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
  InProcessApi server = in_process_server([&](Task, const GameSpec&, Level) {
    return std::make_unique<HeldPlayer>(&release, &started);
  });
  auto [status, s] = server.call("POST", "/api/new", {{"game", "togyz"}, {"human", "both"}});
  ASSERT_EQ(status, 200) << s.dump();
  const json id = s["session"];
  ASSERT_EQ(server.call("POST", "/api/hint", {{"session", id}, {"level", "medium"}}).first, 200);
  EXPECT_EQ(server.call("POST", "/api/hint", {{"session", id}}).first, 409) << "queued or running";
  for (int i = 0; i < 2000 && started.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(started.load(), 1);
  auto [busy, refused] = server.call("POST", "/api/hint", {{"session", id}});
  EXPECT_EQ(busy, 409) << "running";
  EXPECT_NE(refused.value("error", "").find("hint"), std::string::npos) << refused.dump();
  release = true;
  std::pair<int, json> r = server.settled_state(id.get<std::string>(), 400);
  ASSERT_EQ(r.second["engine"]["task"], "") << r.second.dump();
  EXPECT_EQ(server.call("POST", "/api/hint", {{"session", id}}).first, 200) << "idle again";
}

}  // namespace
}  // namespace kz::cli::serve
