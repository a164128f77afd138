// `kumalak serve` end to end: the built executable listens on an ephemeral port and
// the tests talk to its JSON API (docs/serve.md) with an HTTP client, as the page does.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "tests/test_util.h"

namespace kz {
namespace {

using json = nlohmann::json;

// Starts `kumalak serve --port 0 ...` and reads the address it prints; stops it (SIGTERM)
// when destroyed and records how it ended.
class ServerProcess {
 public:
  // `cwd`: the folder it runs in ("" = the test's own).
  explicit ServerProcess(const std::string& extra_args = "", const std::string& cwd = "") {
    int fds[2];
    if (pipe(fds) != 0) return;
    const std::string cmd = (cwd.empty() ? "" : "cd '" + cwd + "' && ") +
                            "exec env KZ_MODELS_DIR='" + test::source_dir() + "/models' " +
                            test::bin("kumalak") + " serve --port 0 --workers 1 " + extra_args;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    out_ = fdopen(fds[0], "r");
    char line[512];
    if (out_ && std::fgets(line, sizeof line, out_)) {
      banner_ = line;
      const auto at = banner_.find("http://127.0.0.1:");
      if (at != std::string::npos) port_ = std::atoi(banner_.c_str() + at + 17);
    }
  }
  ~ServerProcess() { stop(); }

  // Stops the server; returns its exit status (-1 if it had to be killed or crashed).
  int stop() {
    if (pid_ <= 0) return status_;
    kill(pid_, SIGTERM);
    int st = 0;
    // Up to 20 s: a clean stop takes milliseconds, but under a loaded test run (ctest -j
    // beside other builds) 5 s was seen to run out.
    for (int i = 0; i < 400; ++i) {
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        pid_ = 0;
        if (out_) fclose(out_);
        out_ = nullptr;
        return status_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &st, 0);
    pid_ = 0;
    return status_ = -1;
  }
  // The next line the server prints (after the address).
  std::string next_line() {
    char line[512];
    return out_ && std::fgets(line, sizeof line, out_) ? line : "";
  }
  bool alive() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }
  int port() const { return port_; }
  const std::string& banner() const { return banner_; }

 private:
  pid_t pid_ = 0;
  FILE* out_ = nullptr;
  int port_ = 0;
  int status_ = -1;
  std::string banner_;
};

struct Reply {
  int status = 0;
  json body;
};

Reply call(int port, const std::string& method, const std::string& path, const std::string& body,
           const char* type = "application/json") {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(30, 0);
  httplib::Result r = method == "GET" ? cli.Get(path.c_str()) : cli.Post(path.c_str(), body, type);
  Reply out;
  if (!r) return out;
  out.status = r->status;
  out.body = json::parse(r->body, nullptr, false);
  return out;
}

Reply post(int port, const std::string& path, const json& body) {
  return call(port, "POST", path, body.dump());
}

Reply get_state(int port, const std::string& session) {
  return call(port, "GET", "/api/state?session=" + session, "");
}

// Polls until the engine has nothing queued or running; returns the last state.
json wait_idle(int port, const std::string& session, double seconds = 60) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  json s;
  while (std::chrono::steady_clock::now() < end) {
    s = get_state(port, session).body;
    if (s.is_object() && s["engine"]["task"] == "") return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "the engine did not finish in " << seconds << " s: " << s.dump();
  return s;
}

class ServeApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess("--max-sessions 40"); }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->stop(), 0) << "the server stops cleanly on SIGTERM";
    delete server_;
  }
  int port() const { return server_->port(); }
  std::string new_game(const json& settings) {
    const Reply r = post(port(), "/api/new", settings);
    EXPECT_EQ(r.status, 200) << r.body.dump();
    return r.body.value("session", "");
  }
  static ServerProcess* server_;
};
ServerProcess* ServeApi::server_ = nullptr;

TEST_F(ServeApi, PrintsItsAddressAndServesThePage) {
  ASSERT_GT(port(), 0) << server_->banner();
  EXPECT_NE(server_->banner().find("kumalak serve: open http://127.0.0.1:"), std::string::npos);
  httplib::Client cli("127.0.0.1", port());
  auto page = cli.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<script type=\"module\" src=\"app.js\">"), std::string::npos);
  // The page's scripts are ES modules: the board page's and the Run view's, and every
  // module they import, transitively, is served as JavaScript (a browser refuses a module
  // of any other type).
  const std::regex import_from(R"re((?:^|\n)import\s[^;]*?from\s+"\./([\w.-]+\.js)";)re");
  std::set<std::string> served, pending = {"app.js", "run.js"};
  while (!pending.empty()) {
    const std::string name = *pending.begin();
    pending.erase(pending.begin());
    served.insert(name);
    auto js = cli.Get("/" + name);
    ASSERT_TRUE(js) << name;
    EXPECT_EQ(js->status, 200) << name;
    EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8") << name;
    for (std::sregex_iterator m(js->body.begin(), js->body.end(), import_from), end; m != end; ++m)
      if (!served.count((*m)[1])) pending.insert((*m)[1]);
  }
  for (const char* module :
       {"api.js", "i18n.js", "board.js", "game.js", "puzzles.js", "guide.js", "openings.js"})
    EXPECT_TRUE(served.count(module)) << module << " is not imported by the page";
  // The Rules guide's boards (guide.js fetches them), as JSON.
  auto guide = cli.Get("/guide_positions.json");
  ASSERT_TRUE(guide);
  EXPECT_EQ(guide->status, 200);
  EXPECT_EQ(guide->get_header_value("Content-Type"), "application/json");
  EXPECT_TRUE(nlohmann::json::accept(guide->body));
  // Only the page's own files: no other path reaches the disk.
  for (const char* path : {"/../../etc/passwd", "/etc/passwd", "/%2e%2e/CMakeLists.txt",
                           "/tools/web/app.js", "/README.md"}) {
    auto r = cli.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
  }
  const Reply info = call(port(), "GET", "/api/info", "");
  EXPECT_EQ(info.status, 200);
  EXPECT_EQ(info.body["levels"].size(), 5u);
}

TEST_F(ServeApi, NewGameMoveAndTheEngineReplies) {
  const std::string id = new_game({{"game", "togyz"}, {"level", "beginner"}, {"human", "white"}});
  ASSERT_EQ(id.size(), 32u);
  json s = get_state(port(), id).body;
  EXPECT_EQ(s["board"]["position"], "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w");
  EXPECT_EQ(s["board"]["legal"].size(), 9u);
  const Reply r = post(port(), "/api/move", {{"session", id}, {"move", 9}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["moves"][0]["notation"], "98");
  EXPECT_EQ(r.body["moves"][0]["captured"], 10);
  s = wait_idle(port(), id);
  ASSERT_EQ(s["moves"].size(), 2u) << "the engine answered";
  EXPECT_EQ(s["moves"][1]["mover"], 1);
  EXPECT_EQ(s["board"]["to_move"], 0);
  // Undo takes back the person's move and the engine's reply.
  const Reply u = post(port(), "/api/undo", {{"session", id}});
  ASSERT_EQ(u.status, 200);
  EXPECT_EQ(u.body["moves"].size(), 0u);
  // A move in notation, checked against the rules.
  EXPECT_EQ(post(port(), "/api/move", {{"session", id}, {"move", "97"}}).status, 400);
  EXPECT_EQ(post(port(), "/api/move", {{"session", id}, {"move", "98"}}).status, 200);
}

TEST_F(ServeApi, IllegalMovesAreRefusedWithAReason) {
  const std::string id = new_game({{"game", "kalah"},
                                   {"level", "beginner"},
                                   {"human", "both"},
                                   {"position", "0,4,4,4,4,8/4,4,4,4,4,4 0 0 s"}});
  for (const json& bad : {json(0), json(7), json(-1), json("abc"), json(1.5), json::array()}) {
    const Reply r = post(port(), "/api/move", {{"session", id}, {"move", bad}});
    EXPECT_EQ(r.status, 400) << bad.dump();
    EXPECT_TRUE(r.body.contains("error")) << bad.dump();
  }
  const Reply empty = post(port(), "/api/move", {{"session", id}, {"move", 1}});
  EXPECT_EQ(empty.status, 400);
  EXPECT_NE(empty.body["error"].get<std::string>().find("empty"), std::string::npos);
  EXPECT_EQ(post(port(), "/api/move", {{"session", id}}).status, 400);
  // Togyz's holes are holes, Kalah's pits pits.
  EXPECT_NE(post(port(), "/api/move", {{"session", id}, {"move", 7}})
                .body["error"]
                .get<std::string>()
                .find("there is no pit 7: they are numbered 1-6"),
            std::string::npos);
  const std::string t = new_game({{"game", "togyz"}, {"level", "beginner"}, {"human", "both"}});
  EXPECT_EQ(post(port(), "/api/move", {{"session", t}, {"move", 10}}).body["error"],
            "there is no hole 10: they are numbered 1-9");
  EXPECT_EQ(post(port(), "/api/move", {{"session", t}, {"move", 1.5}}).body["error"],
            "'move' must be a hole number or a move in notation");
  EXPECT_EQ(post(port(), "/api/close", {{"session", t}}).status, 200);
  // Both sides are people: a move and a reply, no engine.
  EXPECT_EQ(post(port(), "/api/move", {{"session", id}, {"move", 3}}).status, 200);  // extra turn
  json s = get_state(port(), id).body;
  EXPECT_EQ(s["moves"][0]["extra_turn"], true);
  EXPECT_EQ(s["engine"]["task"], "");
  // The engine's turn: the person must wait. Expert thinks for a second; on a machine so
  // loaded that the move comes after the engine's (then it is legal), try a new game.
  Reply early;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string e = new_game({{"game", "togyz"}, {"level", "expert"}, {"human", "black"}});
    early = post(port(), "/api/move", {{"session", e}, {"move", 1}});
    const json moves = get_state(port(), e).body["moves"];
    EXPECT_EQ(post(port(), "/api/close", {{"session", e}}).status, 200);
    if (early.status == 409) break;
    // Accepted: only as Black's answer to the engine's move, already made.
    ASSERT_EQ(early.status, 200) << early.body.dump();
    ASSERT_GE(moves.size(), 2u) << moves.dump();
  }
  EXPECT_EQ(early.status, 409) << early.body.dump();
}

TEST_F(ServeApi, ServesTheCatalogsAndSaysReasonsInTheAskedLanguage) {
  const Reply list = call(port(), "GET", "/api/lang", "");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["languages"], json({"en", "kk", "ky", "ru"}));
  const Reply ru = call(port(), "GET", "/api/lang/ru", "");
  ASSERT_EQ(ru.status, 200) << ru.body.dump();
  EXPECT_EQ(ru.body["nplurals"], 3);
  EXPECT_EQ(ru.body["messages"]["Undo"], "Отменить");
  EXPECT_EQ(ru.body["messages"]["sows {n} stone"],
            json({"раскладывает {n} кумалак", "раскладывает {n} кумалака",
                  "раскладывает {n} кумалаков"}));
  EXPECT_EQ(call(port(), "GET", "/api/lang/en", "").body["messages"], json::object());
  const Reply unknown = call(port(), "GET", "/api/lang/de", "");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.value("error", "").find("no translation for language 'de'"),
            std::string::npos)
      << unknown.body.dump();
  EXPECT_EQ(call(port(), "GET", "/api/lang/k%3Bk", "").status, 400);
  EXPECT_EQ(call(port(), "GET", "/api/lang/" + std::string(40, 'k'), "").status, 400);

  // The hint's reasons follow the Accept-Language of the request that reads them.
  const std::string id =
      new_game({{"game", "togyz"},
                {"human", "white"},
                {"position", "1,1,1,1,1,1,1,1,1/15,14,14,14,14,14,14,14,0 20 20 w"}});
  ASSERT_EQ(post(port(), "/api/hint", {{"session", id}, {"level", "medium"}}).status, 200);
  wait_idle(port(), id);
  httplib::Client cli("127.0.0.1", port());
  for (const auto& [lang, words] : {std::pair{"kk", "қарсыластың 1-отауынан 16 құмалақ алады"},
                                    {"ky", "атаандаштын 1-үйүнөн 16 коргоол утуп алат"},
                                    {"ru, en;q=0.5", "берёт 16 кумалаков в лунке 1 соперника"},
                                    {"de, en", "captures 16 stones on their hole 1"}}) {
    auto r = cli.Get(("/api/state?session=" + id).c_str(), {{"Accept-Language", lang}});
    ASSERT_TRUE(r);
    const json s = json::parse(r->body);
    EXPECT_NE(s["hint"]["moves"][0]["reason"].get<std::string>().find(words), std::string::npos)
        << lang << ": " << s["hint"]["moves"][0]["reason"];
  }
  // So do the errors the page shows in its toasts.
  for (const auto& [lang, words] : {std::pair{"ru", "не указано 'move'"},
                                    {"ky", "'move' берилген жок"},
                                    {"kk", "'move' берілмеген"},
                                    {"de", "'move' is missing"}}) {
    auto r = cli.Post("/api/move", {{"Accept-Language", lang}}, json{{"session", id}}.dump(),
                      "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
    EXPECT_EQ(json::parse(r->body).value("error", ""), words) << lang;
  }
  auto gone = cli.Get("/api/state?session=nosuchgame", {{"Accept-Language", "ru"}});
  ASSERT_TRUE(gone);
  EXPECT_EQ(json::parse(gone->body).value("error", ""),
            "сеанса 'nosuchgame' нет (возможно, он истёк: начните новую партию)");
  EXPECT_EQ(post(port(), "/api/close", {{"session", id}}).status, 200);
}

TEST_F(ServeApi, HintGivesThreeMovesWithReasonsAndLines) {
  // White's hole 9 captures 16 on Black's hole 1 (the CLI hint test's position).
  const std::string id =
      new_game({{"game", "togyz"},
                {"human", "white"},
                {"position", "1,1,1,1,1,1,1,1,1/15,14,14,14,14,14,14,14,0 20 20 w"}});
  const Reply r = post(port(), "/api/hint", {{"session", id}, {"level", "medium"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["engine"]["task"], "hint");
  // "One task per game" is ServeEngineQueue.OneTaskPerGameAtATime's (a stub engine that
  // holds its task): a real depth-3 hint can end before a second request arrives.
  const json s = wait_idle(port(), id);
  ASSERT_TRUE(s["hint"].is_object()) << s.dump();
  ASSERT_EQ(s["hint"]["moves"].size(), 3u);
  const json& best = s["hint"]["moves"][0];
  EXPECT_EQ(best["move"], 9);
  EXPECT_EQ(best["notation"], "91");
  EXPECT_NE(best["reason"].get<std::string>().find("captures 16 stones"), std::string::npos);
  EXPECT_EQ(best["line"][0], "91");
  EXPECT_GE(best["win"].get<double>(), s["hint"]["moves"][1]["win"].get<double>());
  // A move makes the hint stale.
  ASSERT_EQ(post(port(), "/api/move", {{"session", id}, {"move", 9}}).status, 200);
  EXPECT_TRUE(get_state(port(), id).body["hint"].is_null());
}

TEST_F(ServeApi, LoadAnalyseAndSaveARecord) {
  const std::string id = new_game({{"game", "togyz"}});
  const std::string pgn =
      "[White \"Ann\"]\n[Black \"Bob\"]\n[Result \"*\"]\n\n1. 98(10) 98(10) 2. 11 12 3. 89 *\n";
  const Reply l = post(port(), "/api/load", {{"session", id}, {"pgn", pgn}});
  ASSERT_EQ(l.status, 200) << l.body.dump();
  EXPECT_EQ(l.body["moves"].size(), 5u);
  EXPECT_EQ(l.body["human"], "both");
  EXPECT_EQ(l.body["names"][0], "Ann");
  ASSERT_EQ(post(port(), "/api/analyze", {{"session", id}, {"level", "medium"}}).status, 200);
  const json s = wait_idle(port(), id);
  const json& a = s["analysis"];
  ASSERT_TRUE(a.is_object()) << s.dump();
  EXPECT_EQ(a["complete"], true);
  ASSERT_EQ(a["plies"].size(), 5u);
  for (const auto& p : a["plies"]) {
    const double w = p["white_score"].get<double>();
    EXPECT_GE(w, 0.0);
    EXPECT_LE(w, 1.0);
    const std::string mark = p["mark"];
    EXPECT_TRUE(mark == "" || mark == "inaccuracy" || mark == "mistake" || mark == "blunder");
    EXPECT_EQ(p["comment"].get<std::string>().rfind("W ", 0), 0u) << p.dump();
  }
  EXPECT_NE(a["summary"][0].get<std::string>().find("moves: inaccuracies"), std::string::npos);
  // Any earlier position, for the chart's clicks.
  const Reply b = call(port(), "GET", "/api/board?session=" + id + "&ply=2", "");
  ASSERT_EQ(b.status, 200);
  EXPECT_EQ(b.body["last"]["notation"], "98");
  EXPECT_EQ(call(port(), "GET", "/api/board?session=" + id + "&ply=6", "").status, 400);
  // The record comes back with the analysis as comments.
  httplib::Client cli("127.0.0.1", port());
  auto rec = cli.Get(("/api/record?session=" + id).c_str());
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->status, 200);
  EXPECT_NE(rec->body.find("[White \"Ann\"]"), std::string::npos) << rec->body;
  EXPECT_NE(rec->body.find("[Date \""), std::string::npos) << "the shared tags: " << rec->body;
  EXPECT_NE(rec->body.find("1. 98(10) {W "), std::string::npos) << rec->body;
  // The comments follow the Accept-Language of the request that reads them, in the
  // analysis and in the record, whatever language the engine's thread judged them in.
  auto ru = cli.Get(("/api/state?session=" + id).c_str(), {{"Accept-Language", "ru"}});
  ASSERT_TRUE(ru);
  for (const auto& p : json::parse(ru->body)["analysis"]["plies"])
    EXPECT_EQ(p["comment"].get<std::string>().rfind("Б ", 0), 0u) << p.dump();
  auto rec_kk = cli.Get(("/api/record?session=" + id).c_str(), {{"Accept-Language", "kk"}});
  ASSERT_TRUE(rec_kk);
  EXPECT_NE(rec_kk->body.find("1. 98(10) {Ақ "), std::string::npos) << rec_kk->body;
  // Play on from ply 3.
  const Reply u = post(port(), "/api/undo", {{"session", id}, {"ply", 3}});
  ASSERT_EQ(u.status, 200);
  EXPECT_EQ(u.body["moves"].size(), 3u);
  EXPECT_TRUE(u.body["analysis"].is_null());
}

TEST_F(ServeApi, MalformedRequestsGetA4xxWithAMessage) {
  const std::string id = new_game({{"game", "kalah"}});
  struct Case {
    const char* method;
    std::string path, body;
    int status;
  };
  const std::string big(5 * 1024 * 1024, 'x');  // over the 4 MiB body limit
  const std::vector<Case> cases = {
      {"POST", "/api/new", "{not json", 400},
      {"POST", "/api/new", "[1,2]", 400},
      {"POST", "/api/new", R"({"game":"chess"})", 400},
      {"POST", "/api/new", R"({"game":"kalah:12,4"})", 400},
      {"POST", "/api/new", R"({"game":7})", 400},
      {"POST", "/api/new", R"({"level":"grandmaster"})", 400},
      {"POST", "/api/new", R"({"human":"green"})", 400},
      {"POST", "/api/new", R"({"game":"togyz","position":"9,9,9/9 0 0 w"})", 400},
      {"POST", "/api/new",
       R"({"game":"togyz","position":"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 q"})", 400},
      {"POST", "/api/new", "{\"game\":\"togyz\",\"position\":\"" + std::string(500, '9') + "\"}",
       400},
      {"POST", "/api/move", R"({"session":"nope","move":1})", 404},
      {"POST", "/api/move", R"({"move":1})", 400},
      {"POST", "/api/move", R"({"session":")" + id + R"(","move":"99999999999999999999"})", 400},
      {"POST", "/api/hint", R"({"session":")" + id + R"(","level":"x"})", 400},
      {"POST", "/api/analyze", R"({"session":")" + id + R"("})", 409},  // no moves yet
      {"POST", "/api/undo", R"({"session":")" + id + R"(","ply":-1})", 400},
      {"POST", "/api/undo", R"({"session":")" + id + R"(","ply":"x"})", 400},
      {"POST", "/api/load", R"({"session":")" + id + R"("})", 400},
      {"POST", "/api/load", R"({"session":")" + id + R"(","pgn":"1. 11 {unclosed"})", 400},
      {"POST", "/api/load", R"({"session":")" + id + R"(","pgn":"1. 7 *","game":"kalah"})", 400},
      {"POST", "/api/load", R"({"session":")" + id + R"(","pgn":"[Variant \"togyz\"]\n\n1. 97 *"})",
       400},
      {"GET", "/api/board?session=" + id + "&ply=abc", "", 400},
      {"GET", "/api/state?session=" + std::string(100, 'a'), "", 400},
      {"GET", "/api/nothing", "", 404},
      {"POST", "/api/new", big, 413},
  };
  for (const auto& c : cases) {
    const Reply r = call(port(), c.method, c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.path << " " << c.body.substr(0, 80);
    if (c.status != 413) {
      EXPECT_TRUE(r.body.is_object() && r.body.contains("error")) << c.path << " " << c.body;
    }
  }
  // A bad record names the ply.
  const Reply bad = post(port(), "/api/load",
                         {{"session", id}, {"pgn", "[Variant \"togyz\"]\n\n1. 98 98 2. 97 *"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body["error"].get<std::string>().find("ply 3"), std::string::npos) << bad.body;
  // Another site's page cannot reach it through a name that points here.
  httplib::Client cli("127.0.0.1", port());
  auto rebinding = cli.Get("/api/info", {{"Host", "evil.example:8080"}});
  ASSERT_TRUE(rebinding);
  EXPECT_EQ(rebinding->status, 403);
  EXPECT_TRUE(server_->alive());
  EXPECT_EQ(call(port(), "GET", "/api/info", "").status, 200);
}

// Many games at once, each asking for a hint: all answered, none dropped.
TEST_F(ServeApi, ManySessionsAtOnce) {
  constexpr int kSessions = 24;
  std::vector<std::string> ids(kSessions);
  for (auto& id : ids) id = new_game({{"game", "kalah"}, {"human", "south"}});
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kSessions; ++i)
    clients.emplace_back([&, i] {
      const Reply r = post(port(), "/api/hint", {{"session", ids[size_t(i)]}, {"level", "medium"}});
      if (r.status != 200) return;
      const json s = wait_idle(port(), ids[size_t(i)], 120);
      if (s["hint"].is_object() && s["hint"]["moves"].size() == 3u) ++answered;
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(answered.load(), kSessions);
  // The cap: more games than --max-sessions are refused (503), not crashed.
  std::vector<std::string> extra;
  int refused = 0;
  for (int i = 0; i < 40; ++i) {
    const Reply r = post(port(), "/api/new", {{"game", "kalah"}});
    if (r.status == 503)
      ++refused;
    else if (r.status == 200)
      extra.push_back(r.body["session"]);
  }
  EXPECT_GT(refused, 0);
  for (const auto& id : extra) post(port(), "/api/close", {{"session", id}});
  for (const auto& id : ids) post(port(), "/api/close", {{"session", id}});
  EXPECT_TRUE(server_->alive());
}

// `kumalak hint --json` and the server's hint are one view (docs/hint-json.md): the same
// position at the same level gives the same object, but for the time it took.
TEST_F(ServeApi, HintIsTheSameJsonAsTheCli) {
  struct Case {
    const char* game;
    const char* human;
    const char* position;
  };
  for (const Case& c :
       {Case{"togyz", "white", "1,1,1,1,1,1,1,1,1/15,14,14,14,14,14,14,14,0 20 20 w"},
        Case{"kalah", "north", "4,4,0,5,5,5/4,4,4,4,4,4 1 0 n"}}) {
    std::string out;
    ASSERT_EQ(test::run_command(test::bin("kumalak") + " hint --json --level medium --game " +
                                    c.game + " --position '" + c.position + "'",
                                &out),
              0)
        << out;
    json cli = json::parse(out);
    const std::string id =
        new_game({{"game", c.game}, {"human", c.human}, {"position", c.position}});
    ASSERT_EQ(post(port(), "/api/hint", {{"session", id}, {"level", "medium"}}).status, 200);
    json served = wait_idle(port(), id)["hint"];
    ASSERT_TRUE(served.is_object()) << c.game;
    for (const char* field : {"game", "position", "side", "engine", "level", "depth", "nodes",
                              "seconds", "value", "exact", "moves"}) {
      EXPECT_TRUE(cli.contains(field)) << c.game << ": the CLI lacks " << field;
      EXPECT_TRUE(served.contains(field)) << c.game << ": the server lacks " << field;
    }
    EXPECT_TRUE(served["side"].is_string());
    EXPECT_EQ(served["moves"][0].size(), 11u) << served["moves"][0].dump();
    cli.erase("seconds");
    served.erase("seconds");
    EXPECT_EQ(cli, served) << c.game;
    post(port(), "/api/close", {{"session", id}});
  }
}

// `--site DIR`: the folder's files, isolated, in place of the page built in, but for the
// Run view's, which the static site leaves out and the server sends from its own page.
TEST(ServeCli, ServesASiteWithTheRunViewBesideIt) {
  const std::string site = test::temp_dir("serve-site");
  const std::map<std::string, std::string> files = {{"/", "<p>the site's own page</p>"},
                                                    {"/api.js", "export const sitesOwn = true;"}};
  test::write_bytes(site + "/index.html", files.at("/"));
  test::write_bytes(site + "/api.js", files.at("/api.js"));
  ServerProcess server("--site '" + site + "'");
  ASSERT_GT(server.port(), 0) << server.banner();
  httplib::Client cli("127.0.0.1", server.port());
  for (const auto& [path, body] : files) {
    auto r = cli.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->body, body) << path << " is not the site's";
    EXPECT_EQ(r->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp") << path;
  }
  for (const char* path : {"/run.html", "/run.js", "/run.css"}) {
    auto r = cli.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp") << path;
  }
  auto run_view = cli.Get("/run.html");
  ASSERT_TRUE(run_view);
  EXPECT_NE(run_view->body.find("run.js"), std::string::npos);
  // No other file of the page built in: the site's page is the only one.
  for (const char* path : {"/app.js", "/game.js", "/../../etc/passwd", "/%2e%2e/CMakeLists.txt"}) {
    auto r = cli.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
  }
  EXPECT_EQ(call(server.port(), "GET", "/api/runs", "").status, 200);
  EXPECT_EQ(server.stop(), 0);
}

// Run where a WebAssembly site has been built (the repository root after the web-site
// target), `serve` serves it without being told, and says which page it serves;
// `--builtin-page` keeps the page built in.
TEST(ServeCli, ServesTheWebAssemblySiteFoundWhereItRuns) {
  const std::string root = test::temp_dir("serve-root");
  const std::string site = root + "/build-wasm/web-site";
  std::filesystem::create_directories(site);
  test::write_bytes(site + "/index.html", "<p>the site's own page</p>");
  // `serve ARGS` run in `root` sends the page built in, and says so.
  const auto expect_builtin_page = [&](const std::string& args) {
    ServerProcess server(args, root);
    ASSERT_GT(server.port(), 0) << server.banner();
    EXPECT_NE(server.next_line().find("the page built in asks this server"), std::string::npos);
    httplib::Client cli("127.0.0.1", server.port());
    auto r = cli.Get("/app.js");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(server.stop(), 0);
  };
  // A folder without its service worker is a build not finished: the page built in.
  expect_builtin_page("");
  test::write_bytes(site + "/sw.js", "// the site's service worker");
  {
    ServerProcess server("", root);
    ASSERT_GT(server.port(), 0) << server.banner();
    const std::string said = server.next_line();
    EXPECT_NE(said.find("its own engine in WebAssembly, from build-wasm/web-site"),
              std::string::npos)
        << said;
    httplib::Client cli("127.0.0.1", server.port());
    auto r = cli.Get("/");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "<p>the site's own page</p>");
    EXPECT_EQ(r->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp");
    r = cli.Get("/app.js");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404) << "a file of the page built in";
    EXPECT_EQ(server.stop(), 0);
  }
  expect_builtin_page("--builtin-page");
  std::string out;
  EXPECT_NE(test::run_command("cd '" + root + "' && " + test::bin("kumalak") +
                                  " serve --builtin-page --site build-wasm/web-site",
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("--builtin-page"), std::string::npos) << out;
  std::filesystem::remove_all(root);
}

TEST(ServeCli, RefusesBadOptionsAndWarnsWhenOpen) {
  std::string out;
  EXPECT_EQ(test::run_command(test::bin("kumalak") + " serve --port 70000", &out, true), 2) << out;
  EXPECT_NE(out.find("--port"), std::string::npos);
  ServerProcess open("--host 0.0.0.0");
  ASSERT_GT(open.port(), 0) << open.banner();
  EXPECT_NE(open.next_line().find("not only localhost"), std::string::npos);
  EXPECT_EQ(open.stop(), 0);
}

}  // namespace
}  // namespace kz
