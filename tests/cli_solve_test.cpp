// `kumalak solve`, `kumalak egtb`, `kumalak perfect-check`, the perfect level and exact
// hints, end to end, on boards small enough to solve in a blink.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace kz {
namespace {

std::string kumalak() {
  return test::bin("kumalak");
}

TEST(CliSolve, PublishedMarginAndPerfectLine) {
  const std::string dir = test::temp_dir("solve");
  std::string out;
  ASSERT_EQ(test::run_command(kumalak() + " solve --game kalah:4,3 --egtb-seeds 8 --egtb-dir " +
                                  dir + " --all --hash 8",
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("value +6 for the side to move (south), South +6"), std::string::npos) << out;
  EXPECT_NE(out.find("best pit 2"), std::string::npos) << out;
  EXPECT_NE(out.find("solved: you win by 6 with perfect play; pit 2 keeps +6"), std::string::npos)
      << out;
  EXPECT_NE(out.find("peak_rss_mib"), std::string::npos) << out;
  // The database was built into the folder asked for, and reads back with its checksum.
  EXPECT_TRUE(std::filesystem::exists(dir + "/kalah-4-standard-8.egtb"));
  ASSERT_EQ(test::run_command(kumalak() + " egtb info --game kalah:4,3 --seeds 8 --dir " + dir,
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("(checked)"), std::string::npos) << out;
  // A table under another table's name, and one in the old format, are refused.
  const std::string bytes = test::read_bytes(dir + "/kalah-4-standard-8.egtb");
  test::write_bytes(dir + "/kalah-4-empty-8.egtb", bytes);
  EXPECT_EQ(test::run_command(
                kumalak() + " egtb info --game kalah:4,3,empty --seeds 8 --dir " + dir, &out, true),
            1);
  EXPECT_NE(out.find("kalah-4-empty-8.egtb': holds the table kalah-4-standard-8, not "
                     "kalah-4-empty-8 (another game)"),
            std::string::npos)
      << out;
  test::write_bytes(dir + "/kalah-4-standard-8.egtb", "KZEGTB01" + bytes.substr(8));
  EXPECT_EQ(test::run_command(kumalak() + " egtb info --game kalah:4,3 --seeds 8 --dir " + dir,
                              &out, true),
            1);
  EXPECT_NE(out.find("rebuild it with `kumalak egtb build`"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

TEST(CliSolve, BadInputIsRefused) {
  std::string out;
  EXPECT_EQ(test::run_command(kumalak() + " solve --game togyz", &out, true), 2);
  EXPECT_NE(out.find("Kalah"), std::string::npos) << out;
  EXPECT_EQ(
      test::run_command(kumalak() + " solve --game kalah --position '1,2/3 0 0 s'", &out, true), 2);
  EXPECT_EQ(test::run_command(
                kumalak() + " egtb info --game kalah:4,3 --seeds 5 --dir /nonexistent", &out, true),
            1);
  EXPECT_NE(out.find("cannot be opened"), std::string::npos) << out;
  // Kalah(6,4) from the start is not solved in a hundredth of a second.
  EXPECT_EQ(
      test::run_command(kumalak() + " solve --game kalah --egtb-seeds 0 --movetime 0.01 --hash 8",
                        &out, true),
      1);
  EXPECT_NE(out.find("not solved"), std::string::npos) << out;
}

TEST(CliSolve, ExactHint) {
  const std::string dir = test::temp_dir("hint");
  std::string out;
  // Kalah's expert tries the solver first: the start of Kalah(4,3) takes it 0.01 s.
  ASSERT_EQ(
      test::run_command("KZ_EGTB_DIR=" + dir + " " + kumalak() +
                            " hint --game kalah:4,3 --position '3,3,3,3/3,3,3,3 0 0 s' --json",
                        &out),
      0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["exact"].get<std::string>().rfind("solved: you win by 6 with perfect play", 0), 0u)
      << out;
  EXPECT_EQ(j["value"]["margin"], 6);
  EXPECT_EQ(j["value"]["proven"], true);
  EXPECT_EQ(j["moves"][0]["move"], 2);
  // The perfect level builds its endgame database into the cache folder on first use
  // (all 18 seeds of Kalah(3,3): 134,596 positions).
  ASSERT_EQ(test::run_command("KZ_EGTB_DIR=" + dir + " " + kumalak() +
                                  " hint --game kalah:3,3 --level perfect --position "
                                  "'3,3,3/3,3,3 0 0 s'",
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("building the endgame database"), std::string::npos) << out;
  EXPECT_NE(out.find("solved: you "), std::string::npos) << out;
  EXPECT_NE(out.find(" keeps "), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/kalah-3-standard-18.egtb"));
  EXPECT_EQ(test::run_command(kumalak() + " hint --game togyz --level perfect --position "
                                          "'9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w'",
                              &out, true),
            2);
  EXPECT_NE(out.find("level perfect is for Kalah games only"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

TEST(CliSolve, PerfectCheckOfTheSolverItself) {
  const std::string dir = test::temp_dir("check");
  std::string out;
  ASSERT_EQ(test::run_command("KZ_EGTB_DIR=" + dir + " " + kumalak() +
                                  " perfect-check --game kalah:4,3 --level expert --positions 20 "
                                  "--games 1 --egtb-seeds 8 --hash 8",
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("all positions: 20 positions, result kept 100.0 %, margin kept 100.0 %"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("whole game 1 as first player: +6 (perfect play +6)\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("whole game 1 as second player: -6 (perfect play -6)\n"), std::string::npos)
      << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
