// The puzzle calls of `kumalak serve` (tools/serve/puzzle_api.h) in-process, over a
// puzzle file in a temporary models folder: a puzzle by id, by date, at random, an answer
// checked, and every bad request answered 4xx with a message.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/puzzle_title.h"
#include "tests/serve_test_util.h"
#include "tests/test_util.h"
#include "tools/serve/http.h"
#include "tools/serve/puzzle_api.h"

namespace kz::cli::serve {
namespace {

const char* kPuzzleFile =
    "kumalak-puzzles 1 togyz\n"
    "t-test0001\t0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w\t9\twinning-line\t1500\t0.900\t"
    "hand-made\n"
    "t-test0002\t9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w\t7 5\tonly-move\t900\t0.400\t"
    "hand-made too\n"
    "end 2\n";

const char* kStart = "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w";

// The puzzle routes on a local server, reading the puzzle file above through
// KZ_MODELS_DIR (set for the server's lifetime).
class PuzzleServer {
 public:
  PuzzleServer()
      : dir_(models_dir()), http_(2, [](ApiRouter& router) { add_puzzle_routes(router); }) {}
  ~PuzzleServer() { unsetenv("KZ_MODELS_DIR"); }
  int port() const { return http_.port(); }
  std::pair<int, json> call(const std::string& method, const std::string& path,
                            const json& body = json::object()) {
    return http_.call(method, path, body);
  }

 private:
  static std::string models_dir() {
    const std::string dir = test::temp_dir("serve-puzzles");
    std::filesystem::create_directories(dir + "/puzzles");
    test::write_bytes(dir + "/puzzles/togyz.txt", kPuzzleFile);
    setenv("KZ_MODELS_DIR", dir.c_str(), 1);
    return dir;
  }
  std::string dir_;
  LocalHttpServer http_;
};

}  // namespace

TEST(ServePuzzles, PuzzleByIdDateAndRandom) {
  PuzzleServer server;
  auto [status, z] = server.call("GET", "/api/puzzle?game=togyz&id=t-test0001");
  ASSERT_EQ(status, 200) << z.dump();
  EXPECT_EQ(z["id"], "t-test0001");
  EXPECT_EQ(z["theme"], "winning-line");
  EXPECT_EQ(z["rating"], 1500);
  EXPECT_EQ(z["count"], 2);
  EXPECT_EQ(z["board"]["legal"], json::array({8, 9}));
  // The title is a player's words: which puzzle of the set, never its id or its source.
  EXPECT_EQ(z["title"], "Puzzle 1 of 2");
  // A new player starts at the middle of the set's ratings (1500 and 900), with the
  // deviation that keeps a first step small (core/puzzle_rating.h).
  EXPECT_EQ(z["new_player"]["rating"], 1200);
  EXPECT_EQ(z["new_player"]["deviation"], kNewPuzzlePlayerDeviation);
  EXPECT_EQ(z["new_player"]["volatility"], Glicko2Rating{}.volatility);
  auto [s2, d] = server.call("GET", "/api/puzzle?game=togyz&date=2026-12-02");
  ASSERT_EQ(s2, 200) << d.dump();
  EXPECT_EQ(d["date"], "2026-12-02");
  EXPECT_EQ(d["title"], "Puzzle of the day, 2 December");
  EXPECT_EQ(d["index"], daily_puzzle_index("2026-12-02", 2));
  auto [s3, r] = server.call("GET", "/api/puzzle?random=7");
  EXPECT_EQ(s3, 200) << r.dump();
  auto [s4, today] = server.call("GET", "/api/puzzle");
  EXPECT_EQ(s4, 200) << today.dump();
  EXPECT_TRUE(today.contains("date"));
}

TEST(ServePuzzles, CheckJudgesTheAnswer) {
  PuzzleServer server;
  auto [status, right] = server.call("POST", "/api/puzzle/check",
                                     {{"game", "togyz"}, {"id", "t-test0001"}, {"move", 9}});
  ASSERT_EQ(status, 200) << right.dump();
  EXPECT_EQ(right["correct"], true);
  EXPECT_EQ(right["solution"], 9);
  EXPECT_EQ(right["line"], json::array({9}));
  EXPECT_FALSE(right["reason"].get<std::string>().empty());
  auto [s2, wrong] = server.call("POST", "/api/puzzle/check",
                                 {{"game", "togyz"}, {"id", "t-test0001"}, {"move", 8}});
  ASSERT_EQ(s2, 200) << wrong.dump();
  EXPECT_EQ(wrong["correct"], false);
  EXPECT_EQ(wrong["played"], 8);
}

// The page sends the rating it keeps for its player; the server answers the rating after
// the attempt, the same update as `kumalak puzzle` (core/puzzle_rating.h).
TEST(ServePuzzles, CheckRatesThePlayerItIsGiven) {
  PuzzleServer server;
  const Glicko2Rating before{1400, 200, 0.06};
  const json player = {{"rating", before.rating},
                       {"deviation", before.deviation},
                       {"volatility", before.volatility}};
  for (const bool solved : {true, false}) {
    auto [status, r] = server.call(
        "POST", "/api/puzzle/check",
        {{"game", "togyz"}, {"id", "t-test0001"}, {"move", solved ? 9 : 8}, {"player", player}});
    ASSERT_EQ(status, 200) << r.dump();
    ASSERT_EQ(r["correct"], solved);
    ASSERT_TRUE(r["player_after"].is_object()) << r.dump();
    const Glicko2Rating expected = rate_puzzle_attempt(before, 1500, solved);
    EXPECT_DOUBLE_EQ(r["player_after"]["rating"].get<double>(), expected.rating);
    EXPECT_DOUBLE_EQ(r["player_after"]["deviation"].get<double>(), expected.deviation);
    EXPECT_DOUBLE_EQ(r["player_after"]["volatility"].get<double>(), expected.volatility);
    if (solved)
      EXPECT_GT(expected.rating, before.rating);
    else
      EXPECT_LT(expected.rating, before.rating);
    EXPECT_LT(expected.deviation, before.deviation);
  }
  // Without a rating (a puzzle tried before) nothing is rated.
  auto [status, r] = server.call("POST", "/api/puzzle/check",
                                 {{"game", "togyz"}, {"id", "t-test0001"}, {"move", 9}});
  ASSERT_EQ(status, 200) << r.dump();
  EXPECT_FALSE(r.contains("player_after")) << r.dump();
}

TEST(ServePuzzles, TryJudgesAMoveOfTheAnalysedGame) {
  PuzzleServer server;
  auto [status, r] =
      server.call("POST", "/api/puzzle/try",
                  {{"game", "togyz"}, {"position", kStart}, {"best", "98"}, {"move", 9}});
  ASSERT_EQ(status, 200) << r.dump();
  EXPECT_EQ(r["correct"], true);
  auto [s2, w] =
      server.call("POST", "/api/puzzle/try",
                  {{"game", "togyz"}, {"position", kStart}, {"best", "98"}, {"move", 1}});
  ASSERT_EQ(s2, 200) << w.dump();
  EXPECT_EQ(w["correct"], false);
  EXPECT_EQ(w["solution"], 9);
}

TEST(ServePuzzles, BadRequestsAre4xxWithAMessage) {
  PuzzleServer server;
  const std::vector<std::tuple<std::string, std::string, json, int, std::string>> cases = {
      {"GET", "/api/puzzle?game=chess", {}, 400, "unknown game"},
      {"GET", "/api/puzzle?id=nope", {}, 404, "no puzzle 'nope'"},
      {"GET", "/api/puzzle?date=2026-02-30", {}, 400, "not a calendar date"},
      {"GET", "/api/puzzle?date=yesterday", {}, 400, "YYYY-MM-DD"},
      {"GET", "/api/puzzle?random=x", {}, 400, "random"},
      {"GET", "/api/puzzle?id=t-test0001&random=1", {}, 400, "one of them"},
      {"GET", "/api/puzzle?game=bantumi", {}, 404, "no puzzles for"},
      {"POST", "/api/puzzle/check", {{"id", "t-test0001"}}, 400, "move"},
      {"POST", "/api/puzzle/check", {{"id", "t-test0001"}, {"move", 1}}, 400, ""},
      {"POST", "/api/puzzle/check", {{"id", "t-test0001"}, {"move", 10}}, 400, ""},
      {"POST", "/api/puzzle/check", {{"id", "t-nope"}, {"move", 9}}, 404, "no puzzle"},
      {"POST", "/api/puzzle/check", {{"move", 9}}, 400, "id"},
      {"POST",
       "/api/puzzle/check",
       {{"id", "t-test0001"}, {"move", 9}, {"player", 1500}},
       400,
       "player"},
      {"POST",
       "/api/puzzle/check",
       {{"id", "t-test0001"}, {"move", 9}, {"player", {{"rating", 1500}}}},
       400,
       "player"},
      {"POST",
       "/api/puzzle/check",
       {{"id", "t-test0001"},
        {"move", 9},
        {"player", {{"rating", 1500}, {"deviation", 400}, {"volatility", 0.06}}}},
       400,
       "player"},
      {"POST",
       "/api/puzzle/check",
       {{"id", "t-test0001"},
        {"move", 9},
        {"player", {{"rating", "1500"}, {"deviation", 350}, {"volatility", 0.06}}}},
       400,
       "player"},
      {"POST", "/api/puzzle/try", {{"best", 9}, {"move", 9}}, 400, "position"},
      {"POST", "/api/puzzle/try", {{"position", "9,9"}, {"best", 9}, {"move", 9}}, 400, ""},
      {"POST", "/api/puzzle/try", {{"position", kStart}, {"move", 9}}, 400, "best"},
      {"POST", "/api/puzzle/try", {{"position", kStart}, {"best", 9}, {"move", 12}}, 400, ""},
  };
  for (const auto& [method, path, body, expected, words] : cases) {
    auto [status, answer] = server.call(method, path, body);
    EXPECT_EQ(status, expected) << path << " " << body.dump() << " -> " << answer.dump();
    ASSERT_TRUE(answer.is_object() && answer.contains("error")) << path << " " << answer.dump();
    EXPECT_NE(answer["error"].get<std::string>().find(words), std::string::npos)
        << path << " " << body.dump() << " -> " << answer.dump();
  }
  // The page shows the error in its language (the request's Accept-Language).
  httplib::Client cli("127.0.0.1", server.port());
  auto ru = cli.Get("/api/puzzle?id=nope", {{"Accept-Language", "ru"}});
  ASSERT_TRUE(ru);
  EXPECT_EQ(ru->status, 404);
  EXPECT_EQ(json::parse(ru->body).value("error", ""), "задачи 'nope' нет") << ru->body;
  // The title too, with no id or file name in any language.
  for (const char* lang : {"ru", "kk", "ky"}) {
    auto titled = cli.Get("/api/puzzle?id=t-test0002", {{"Accept-Language", lang}});
    ASSERT_TRUE(titled);
    const std::string title = json::parse(titled->body).value("title", "");
    EXPECT_NE(title.find("2"), std::string::npos) << lang << ": " << title;
    EXPECT_EQ(title.find("Puzzle"), std::string::npos) << lang << ": " << title;
    EXPECT_EQ(title.find("t-test"), std::string::npos) << lang << ": " << title;
    EXPECT_EQ(title.find("hand-made"), std::string::npos) << lang << ": " << title;
  }
}

// The title is said in the request's language; the terminal's source, read back into its
// numbers, is left as written in English.
TEST(ServePuzzles, TitleInTheRequestsLanguage) {
  PuzzleServer server;
  httplib::Client cli("127.0.0.1", server.port());
  auto ru = cli.Get("/api/puzzle?id=t-test0001", {{"Accept-Language", "ru"}});
  ASSERT_TRUE(ru);
  ASSERT_EQ(ru->status, 200) << ru->body;
  const std::string title = json::parse(ru->body).value("title", "");
  EXPECT_EQ(title, "Задача 1 из 2");
  auto daily = cli.Get("/api/puzzle?date=2026-12-06", {{"Accept-Language", "kk"}});
  ASSERT_TRUE(daily);
  EXPECT_EQ(json::parse(daily->body).value("title", ""), "6 желтоқсанның есебі") << daily->body;
  EXPECT_EQ(puzzle_source_text("playok-2025.pgn game 1219 (2026.02.06) ply 14"),
            "playok-2025.pgn game 1219 (2026.02.06) ply 14");  // English: as written
  EXPECT_EQ(puzzle_source_text("anything else"), "anything else");
}

}  // namespace kz::cli::serve
