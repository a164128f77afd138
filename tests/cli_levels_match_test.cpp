// End-to-end: `kumalak levels-match` on a tiny board plays paired openings between two
// alpha-beta levels and prints the score table with the pentanomial Elo interval and the
// SPRT verdict of train/elo.h.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "tests/test_util.h"

namespace {

TEST(CliLevelsMatch, TinyBoardPairedOpeningsWithIntervalAndSprt) {
  std::string out;
  const int status = kz::test::run_command(
      kz::test::bin("kumalak") +
          " levels-match --game kalah:4,3 --games 6 --threads 1 --alphabeta --only easy --seed 5",
      &out);
  // Exit 0 (every step >= 65 %) or 3 (some step below): a result either way, not a failure.
  ASSERT_TRUE(status == 0 || status == 3) << "status " << status << "\n" << out;
  EXPECT_NE(out.find("6 games per pair (3 openings x 2 colours"), std::string::npos) << out;
  // The easy-vs-beginner row: 6 games, W-D-L adding up to 6, score, Elo [lo, hi], SPRT.
  const std::regex row(
      R"(easy vs beginner\s+6\s+(\d+)-(\d+)-(\d+)\s+[\d.]+%\s+[-+]\S+ \[\S+, \S+\]\s+(continue|H0|H1))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, row)) << out;
  EXPECT_EQ(std::stoi(m[1]) + std::stoi(m[2]) + std::stoi(m[3]), 6) << out;
  // Three pairs are far below the SPRT's 20-pair minimum: it must not decide yet.
  EXPECT_EQ(m[4], "continue") << out;
  EXPECT_NE(out.find("easy: alphabeta-easy vs alphabeta-beginner"), std::string::npos) << out;
}

TEST(CliLevelsMatch, RefusesBadArguments) {
  std::string out;
  EXPECT_EQ(kz::test::run_command(
                kz::test::bin("kumalak") + " levels-match --game kalah:4,3 --games 1", &out, true),
            2)
      << out;
  EXPECT_EQ(
      kz::test::run_command(
          kz::test::bin("kumalak") + " levels-match --game kalah:4,3 --only beginner", &out, true),
      2)
      << out;
}

// Two networks at one level's budget (issue 15's equal-time match): the lower side plays
// --lower-model; a missing one is named.
TEST(CliLevelsMatch, TwoNetworksAtEqualTime) {
  const std::string models = std::string(KZ_SOURCE_DIR) + "/";
  const std::string base = kz::test::bin("kumalak") +
                           " levels-match --game togyz --games 2 --threads 1 --only expert "
                           "--same-level --time-scale 0.01 --max-plies 60 --model " +
                           models + "models/togyz.pt --lower-model ";
  std::string out;
  const int status =
      kz::test::run_command(base + models + "tests/data/togyz-tiny-libtorch-2.6.pt", &out);
  ASSERT_TRUE(status == 0 || status == 3) << "status " << status << "\n" << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(expert vs expert\s+2\s+\d+-\d+-\d+)"))) << out;
  EXPECT_NE(kz::test::run_command(base + "/nonexistent/lower.pt", &out, true), 0);
  EXPECT_NE(out.find("'/nonexistent/lower.pt' does not exist"), std::string::npos) << out;
}

}  // namespace
