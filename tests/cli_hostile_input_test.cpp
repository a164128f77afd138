// Hostile but fair use of `kumalak`, end to end: directories given as files,
// budgets that never end, options that analyze and hint must judge alike, empty files,
// and a real-world record whose last move's (n) was refused.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/notation.h"
#include "tests/test_util.h"

namespace kz {
namespace {

struct CliRun {
  int status = -1;
  std::string out, err;
  double seconds = 0;
};

CliRun kumalak(const std::string& args, const std::string& dir) {
  static int counter = 0;
  const std::string err_file = dir + "/stderr" + std::to_string(counter++);
  CliRun r;
  const auto t0 = std::chrono::steady_clock::now();
  r.status = test::run_command("timeout 60 " + test::bin("kumalak") + " " + args + " 2>" + err_file,
                               &r.out);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CliHostile, ADirectoryGivenAsAPgnFileIsRefusedNotACrash) {
  const std::string dir = test::temp_dir("kz-hostile");
  std::filesystem::create_directories(dir + "/d.pgn");
  for (const std::string cmd : {"replay", "analyze --depth 1"}) {
    const CliRun r = kumalak(cmd + " " + dir + "/d.pgn", dir);
    EXPECT_EQ(r.status, 1) << cmd << ": " << r.err;
    EXPECT_TRUE(has(r.err, "d.pgn': it is a directory, not a file")) << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
}

TEST(CliHostile, BudgetsThatNeverEndAreRefused) {
  const std::string dir = test::temp_dir("kz-hostile");
  for (const std::string value : {"nan", "inf", "1e300", "-1"}) {
    const CliRun r = kumalak("hint --moves 7 --movetime " + value, dir);
    EXPECT_EQ(r.status, 2) << value << ": " << r.err;
    EXPECT_TRUE(has(r.err, "--movetime")) << r.err;
    EXPECT_LT(r.seconds, 20) << value;
  }
}

TEST(CliHostile, AnalyzeRefusesWhatHintRefusesBeforePrintingAnything) {
  const std::string dir = test::temp_dir("kz-hostile");
  const std::string pgn = dir + "/one.pgn";
  std::ofstream(pgn) << "[White \"a\"]\n[Black \"b\"]\n\n1. 77 *\n";
  for (const std::string opt : {"--depth -1", "--movetime nan", "--depth 65"}) {
    const CliRun a = kumalak("analyze " + pgn + " " + opt, dir);
    const CliRun h = kumalak("hint --moves 7 " + opt, dir);
    EXPECT_EQ(a.status, 2) << opt << ": " << a.err;
    EXPECT_EQ(h.status, 2) << opt << ": " << h.err;
    EXPECT_EQ(a.out, "") << opt;
  }
  // A file with no game: both commands say so and fail, nothing on stdout.
  const std::string empty = dir + "/empty.pgn";
  std::ofstream(empty) << "";
  for (const std::string cmd : {"replay", "analyze --depth 1"}) {
    const CliRun r = kumalak(cmd + " " + empty, dir);
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_TRUE(has(r.err, "holds no game")) << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
}

// Defect 8: an online room writes the last move's (n) before the end-of-game sweep.
TEST(CliHostile, ReplayAcceptsTheRoomsKazanOnAGameEndingCapture) {
  const std::string dir = test::temp_dir("kz-hostile");
  std::mt19937_64 rng(8);
  for (int attempt = 0; attempt < 100000; ++attempt) {
    Position pos = Position::start(GameSpec::togyz());
    std::string moves;
    int ply = 0;
    while (!pos.is_over()) {
      const int m = random_legal_move(pos, rng);
      const int mover = pos.to_move;
      std::string token = format_move(pos, m);
      const auto info = pos.play(m);
      if (ply % 2 == 0) moves += std::to_string(ply / 2 + 1) + ". ";
      ++ply;
      if (info.ended_game && info.captured > 0 && !info.made_tuzdyk &&
          pos.store[mover] > info.mover_store_before_sweep) {
        moves += token + "(" + std::to_string(info.mover_store_before_sweep) + ")";
        const std::string pgn = dir + "/room.pgn";
        std::ofstream(pgn) << "[White \"a\"]\n[Black \"b\"]\n\n"
                           << moves << " " << outcome_string(pos.outcome()) << "\n";
        const CliRun r = kumalak("replay " + pgn, dir);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(has(r.out, "\"over\":true")) << r.out;
        return;
      }
      moves += token + " ";
    }
  }
  FAIL() << "no random game ended with a capture";
}

// Found by tests/fuzz/fuzz_protocol: a `go` that arrived while the previous search was
// between marking itself done and printing bestmove assigned over a joinable thread
// (std::terminate). Many back-to-back searches give that window many chances.
TEST(CliHostile, BackToBackSearchesNeverAbort) {
  const std::string dir = test::temp_dir("kz-hostile");
  std::string out;
  const int status = test::run_command(
      "(echo 'setoption name Engine value ab'; for i in $(seq 20000); do echo 'go depth 1'; done; "
      "echo quit) | timeout 120 " +
          test::bin("kumalak") + " engine --game kalah:3,2",
      &out, true);
  EXPECT_EQ(status, 0) << out.substr(0, 2000);
  int bestmoves = 0;
  for (size_t at = out.find("bestmove"); at != std::string::npos; at = out.find("bestmove", at + 1))
    ++bestmoves;
  EXPECT_GE(bestmoves, 1);
  EXPECT_EQ(out.find("terminate"), std::string::npos);
}

}  // namespace
}  // namespace kz
