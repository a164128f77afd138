// End-to-end: runs the built `kumalak replay` and `kumalak perft` and checks what they
// print and their exit status.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace {

using nlohmann::json;

struct CliRun {
  int status = -1;
  std::string out, err;
};

// One scratch directory for this test process, removed at exit.
const std::string& scratch() {
  struct Dir {
    std::string path = kz::test::temp_dir("kz-cli");
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

// Runs `kumalak <args>` with stdout and stderr captured separately.
CliRun kumalak(const std::string& args) {
  static int counter = 0;
  const std::string err_file = scratch() + "/stderr" + std::to_string(counter++);
  CliRun r;
  r.status =
      kz::test::run_command(kz::test::bin("kumalak") + " " + args + " 2>" + err_file, &r.out);
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

std::vector<json> json_lines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) lines.push_back(json::parse(line));
  return lines;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = scratch() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CliReplay, MovesPrintOneJsonObject) {
  const CliRun r = kumalak("replay --moves '1 3 2 1'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  const json& j = lines[0];
  EXPECT_EQ(j["variant"], "togyz");
  EXPECT_EQ(j["position"], "x,1,11,11,11,11,11,11,11/1,11,1,11,11,11,11,11,11 2 3 w");
  EXPECT_EQ(j["over"], false);
  EXPECT_EQ(j["decided"], false);
  EXPECT_EQ(j["result"], "*");
  EXPECT_EQ(j["plies"], 4);
  EXPECT_EQ(j["kazans"], json::array({2, 3}));
  EXPECT_FALSE(j.contains("game"));  // only records have a game number
}

TEST(CliReplay, MovesToTheEndFromAPosition) {
  const CliRun r =
      kumalak("replay --position '2,0,0,0,0,0,0,0,5/0,0,0,0,0,0,0,0,0 80 75 w' --moves 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["position"], "0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 87 75 b");
  EXPECT_EQ(lines[0]["over"], true);
  EXPECT_EQ(lines[0]["result"], "1-0");
  EXPECT_EQ(lines[0]["plies"], 1);
}

TEST(CliReplay, BadMovesFailWithTheirPly) {
  const CliRun r = kumalak("replay --moves '1 3 2 3'");  // Black's hole 3 is empty at ply 4
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "ply 4")) << r.err;
  EXPECT_TRUE(contains(r.err, "empty")) << r.err;

  const CliRun junk = kumalak("replay --moves '1 x'");
  EXPECT_EQ(junk.status, 1);
  EXPECT_EQ(junk.out, "");
  EXPECT_TRUE(contains(junk.err, "'x'")) << junk.err;
}

TEST(CliReplay, KalahMoves) {
  CliRun r = kumalak("replay --game kalah --moves '3 6 1'");
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["variant"], "kalah:6,4");
  EXPECT_EQ(lines[0]["position"], "4,4,0,5,5,0/0,6,6,6,5,5 2 0 s");
  EXPECT_EQ(lines[0]["plies"], 3);
  EXPECT_EQ(lines[0]["over"], false);

  // A finished Bantumi game (empty-capture rule): South sows its last seeds away.
  r = kumalak("replay --game bantumi --position '0,0,0,0,1/4,4,4,4,4 10 9 s' --moves 5");
  ASSERT_EQ(r.status, 0) << r.err;
  lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["variant"], "kalah:5,4,empty");
  EXPECT_EQ(lines[0]["position"], "0,0,0,0,0/0,0,0,0,0 11 29 s");
  EXPECT_EQ(lines[0]["over"], true);
  EXPECT_EQ(lines[0]["result"], "0-1");

  r = kumalak("replay --game kalah:4,3 --moves 5");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "pit must be 1..4")) << r.err;
}

TEST(CliReplay, PgnWithABadGame) {
  const std::string path = write_file("games.pgn",
                                      "[White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n"
                                      "1. 19 32 2. 23(2) 11x 0-1\n\n"
                                      "[White \"Carol\"]\n[Black \"Dan\"]\n\n"
                                      "1. 19 32 2. 24 11x *\n\n"  // ply 3 lands on 3, not 4
                                      "[White \"E\"]\n[Black \"F\"]\n\n"
                                      "1. 76(10) 98 *\n");
  const CliRun r = kumalak("replay " + path);
  EXPECT_NE(r.status, 0);
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0]["game"], 1);
  EXPECT_EQ(lines[0]["source"], path);
  EXPECT_EQ(lines[0]["plies"], 4);
  EXPECT_EQ(lines[0]["recorded_result"], "0-1");
  EXPECT_EQ(lines[0]["position"], "x,1,11,11,11,11,11,11,11/1,11,1,11,11,11,11,11,11 2 3 w");
  EXPECT_EQ(lines[1]["game"], 3);
  EXPECT_EQ(lines[1]["plies"], 2);
  EXPECT_EQ(lines[1]["recorded_result"], "*");
  // stderr names the bad game (number, players, file, line) and the ply.
  EXPECT_TRUE(contains(r.err, "game 2 (Carol vs Dan, " + path + ":line 7)")) << r.err;
  EXPECT_TRUE(contains(r.err, "ply 3")) << r.err;
  EXPECT_TRUE(contains(r.err, "hole 4")) << r.err;
  EXPECT_FALSE(contains(r.err, "game 1 ")) << r.err;
  EXPECT_FALSE(contains(r.err, "game 3 ")) << r.err;

  // Several files: the good file's games are all printed, a missing file is reported.
  const std::string good = write_file("good.pgn", "1. 76 *\n1. 19 *\n");
  const CliRun two = kumalak("replay " + good + " /nonexistent/file.pgn");
  EXPECT_EQ(two.status, 1);
  EXPECT_EQ(json_lines(two.out).size(), 2u);
  EXPECT_TRUE(contains(two.err, "cannot open '/nonexistent/file.pgn'")) << two.err;
}

// A file whose name is not UTF-8 (a name of another encoding) is replayed and named in
// its JSON with U+FFFD for the bytes it cannot write; writing the raw bytes into JSON
// threw and ended the command.
TEST(CliReplay, AFileNameThatIsNotUtf8) {
  const std::string path = write_file("games-\xff\xfe.pgn", "1. 76 98 *\n");
  const CliRun r = kumalak("replay '" + path + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0]["source"], scratch() + "/games-\xef\xbf\xbd\xef\xbf\xbd.pgn");
  EXPECT_EQ(lines[0]["plies"], 2);
}

TEST(CliReplay, UsageErrors) {
  CliRun r = kumalak("replay");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "either --moves or PGN files")) << r.err;
  r = kumalak("replay --game chess --moves 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "unknown game 'chess'")) << r.err;
  r = kumalak("replay --position '9,9/9,9 0 0 w' --moves 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "holes")) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliPerft, TogyzDepth5) {
  const CliRun r = kumalak("perft --game togyz --depth 5");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::regex line_re(R"(depth (\d+) nodes (\d+) time_ms (\d+) nps (\d+))");
  const unsigned long long expected[] = {9, 73, 613, 5199, 43184};
  std::istringstream in(r.out);
  std::string line;
  int d = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, line_re)) << "'" << line << "'";
    ASSERT_LT(d, 5) << r.out;
    EXPECT_EQ(std::stoi(m[1]), d + 1);
    EXPECT_EQ(std::stoull(m[2]), expected[d]);
    ++d;
  }
  EXPECT_EQ(d, 5) << r.out;
}

TEST(CliPerft, KalahAndPositions) {
  CliRun r = kumalak("perft --game kalah --depth 2");
  ASSERT_EQ(r.status, 0) << r.err;
  // From the start every one of South's 6 pits is legal; pit 3 earns another turn.
  EXPECT_TRUE(contains(r.out, "depth 1 nodes 6 ")) << r.out;
  r = kumalak("perft --game togyz --position '2,0,0,0,0,0,0,0,5/0,0,0,0,0,0,0,0,0 80 75 w' -d 3");
  ASSERT_EQ(r.status, 0) << r.err;
  // Hole 1 ends the game at once; hole 9 (5 stones) reaches Black's 1..4.
  EXPECT_TRUE(contains(r.out, "depth 1 nodes 2 ")) << r.out;
  r = kumalak("perft --game kalah:10,4 --depth 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "1..9")) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
