// End-to-end: `kumalak levels-match` on a tiny board plays paired openings between two
// alpha-beta levels and prints the score table with the pentanomial Elo interval and the
// SPRT verdict of train/elo.h.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// --record: every game is appended as it ends; a stopped match started again with the
// same file plays only the openings not finished in both colours and ends with the same
// table; a record of other settings or a corrupt line is refused, naming the problem.
TEST(CliLevelsMatch, ResumesFromItsRecord) {
  const std::string dir = kz::test::temp_dir("kz-levels-record");
  const std::string record = dir + "/match.jsonl";
  const std::string cmd = kz::test::bin("kumalak") +
                          " levels-match --game kalah:4,3 --games 6 --threads 1 --alphabeta "
                          "--only easy --record " +
                          record + " --seed ";
  const std::regex row(R"(easy vs beginner\s+6\s+\d+-\d+-\d+\s+[\d.]+%\s+\S+ \[\S+, \S+\])");
  std::string out;
  int status = kz::test::run_command(cmd + "1", &out, true);
  ASSERT_TRUE(status == 0 || status == 3) << out;
  std::smatch whole;
  ASSERT_TRUE(std::regex_search(out, whole, row)) << out;
  const std::string whole_row = whole[0];
  EXPECT_NE(whole_row.find("4-1-1"), std::string::npos) << out;  // mixed: seeds matter
  const auto lines = lines_of(record);
  ASSERT_EQ(lines.size(), 1u + 6u);  // the settings, then one line per game
  EXPECT_NE(lines[0].find("\"seed\":1"), std::string::npos) << lines[0];

  // Stopped after opening 0: its two games, one game of another opening, a cut-off line.
  {
    std::ofstream f(record, std::ios::trunc);
    f << lines[0] << "\n";
    int kept_other = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].find("\"opening\":0,") != std::string::npos) {
        f << lines[i] << "\n";
      } else if (kept_other++ == 0) {
        f << lines[i] << "\n";  // half an opening: played again
      }
    }
    f << "{\"upper\":\"easy\",\"open";  // the kill came mid-line
  }
  status = kz::test::run_command(cmd + "1", &out, true);
  ASSERT_TRUE(status == 0 || status == 3) << out;
  EXPECT_NE(out.find("2 games already played, resuming"), std::string::npos) << out;
  EXPECT_NE(out.find("unfinished last line"), std::string::npos) << out;
  std::smatch resumed;
  ASSERT_TRUE(std::regex_search(out, resumed, row)) << out;
  EXPECT_EQ(resumed[0], whole_row) << out;  // the same games, the same table
  EXPECT_EQ(lines_of(record).size(), 1u + 6u);

  // Finished: nothing left to play, the same table again.
  status = kz::test::run_command(cmd + "1", &out, true);
  ASSERT_TRUE(status == 0 || status == 3) << out;
  EXPECT_NE(out.find("6 games already played"), std::string::npos) << out;
  ASSERT_TRUE(std::regex_search(out, resumed, row)) << out;
  EXPECT_EQ(resumed[0], whole_row);

  // Other settings, a corrupt line: refused, the record left as it was.
  EXPECT_EQ(kz::test::run_command(cmd + "2", &out, true), 2);
  EXPECT_NE(out.find("recorded with seed = 1, not 2"), std::string::npos) << out;
  {
    auto corrupt = lines_of(record);
    corrupt[2] = "not json";
    std::ofstream f(record, std::ios::trunc);
    for (const auto& l : corrupt) f << l << "\n";
  }
  EXPECT_EQ(kz::test::run_command(cmd + "1", &out, true), 2);
  EXPECT_NE(out.find("match.jsonl:3: not a JSON line"), std::string::npos) << out;
  EXPECT_EQ(lines_of(record)[2], "not json");
}

// --resign-score with --resign-verify: the verdicts are noted in the record and counted
// against the played-out results in the summary; a record made with adjudication is not
// resumed without it, nor one made without it with it.
TEST(CliLevelsMatch, ResignAdjudicationVerifiedAndRecorded) {
  const std::string dir = kz::test::temp_dir("kz-levels-resign");
  const std::string record = dir + "/match.jsonl";
  const std::string base = kz::test::bin("kumalak") +
                           " levels-match --game kalah:4,3 --games 20 --threads 1 --alphabeta "
                           "--only medium --seed 3 --record " +
                           record;
  std::string out;
  int status = kz::test::run_command(base + " --resign-score 0.2 --resign-moves 1 --resign-verify",
                                     &out, true);
  ASSERT_TRUE(status == 0 || status == 3) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m,
      std::regex(
          R"(medium: resign adjudication judged (\d+) of 20 games, at ply ([\d.]+) on )"
          R"(average; played on, they lasted ([\d.]+) plies and (\d+) verdicts were wrong)")))
      << out;
  const int judged = std::stoi(m[1]);
  EXPECT_GT(judged, 0) << out;
  EXPECT_LE(std::stod(m[2]), std::stod(m[3])) << out;  // judged before the end
  EXPECT_LE(std::stoi(m[4]), judged);
  const auto lines = lines_of(record);
  ASSERT_EQ(lines.size(), 1u + 20u);
  EXPECT_NE(lines[0].find("\"resign_score\":0.2"), std::string::npos) << lines[0];
  int with_verdict = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_NE(lines[i].find("\"verdict_ply\":"), std::string::npos) << lines[i];
    with_verdict += lines[i].find("\"verdict_ply\":-1") == std::string::npos;
  }
  EXPECT_EQ(with_verdict, judged);

  // Resumed: the same summary from the record alone.
  const std::string summary = m[0];
  status = kz::test::run_command(base + " --resign-score 0.2 --resign-moves 1 --resign-verify",
                                 &out, true);
  ASSERT_TRUE(status == 0 || status == 3) << out;
  EXPECT_NE(out.find("20 games already played"), std::string::npos) << out;
  EXPECT_NE(out.find(summary), std::string::npos) << out;
  // Without adjudication, or with other thresholds: refused.
  EXPECT_EQ(kz::test::run_command(base, &out, true), 2);
  EXPECT_NE(out.find("recorded with resign_moves = 1, which this run does not set"),
            std::string::npos)
      << out;
  EXPECT_EQ(kz::test::run_command(base + " --resign-score 0.1 --resign-moves 1 --resign-verify",
                                  &out, true),
            2);
  EXPECT_NE(out.find("recorded with resign_score = 0.2, not 0.1"), std::string::npos) << out;
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
  const std::pair<const char*, const char*> refusals[] = {
      {"--resign-score 0.5", "--resign-score: '0.5' is not a number in 0..0.5 (0.5 excluded)"},
      {"--resign-score -0.1", "--resign-score: '-0.1' is not a number in 0..0.5 (0.5 excluded)"},
      {"--resign-moves 0", "--resign-moves: '0' is not a whole number in 1..1000"}};
  for (const auto& [bad, message] : refusals) {
    out.clear();
    EXPECT_EQ(kz::test::run_command(
                  kz::test::bin("kumalak") + " levels-match --game kalah:4,3 " + bad, &out, true),
              2)
        << bad << "\n"
        << out;
    EXPECT_NE(out.find(message), std::string::npos) << out;
  }
}

// A record in a folder that is not there is said, before any game, not a crash.
TEST(CliLevelsMatch, ARecordThatCannotBeWrittenIsSaid) {
  std::string out;
  EXPECT_EQ(kz::test::run_command(kz::test::bin("kumalak") +
                                      " levels-match --game kalah:4,3 --games 2 --only easy "
                                      "--record /nonexistent-kz-folder/match.jsonl",
                                  &out, true),
            1)
      << out;
  EXPECT_NE(out.find("kumalak levels-match: cannot create '/nonexistent-kz-folder/match.jsonl"),
            std::string::npos)
      << out;
}

// Two networks at one level's budget (a match at equal time): the lower side plays
// --lower-model; a missing one is named.
TEST(CliLevelsMatch, TwoNetworksAtEqualTime) {
  const std::string models = kz::test::source_dir() + "/";
  const std::string base = kz::test::bin("kumalak") +
                           " levels-match --game togyz --games 2 --threads 1 --only expert "
                           "--same-level --time-scale 0.01 --max-plies 60 --model " +
                           models + "models/togyz.pt --lower-model ";
  std::string out;
  const int status =
      kz::test::run_command(base + models + "models/candidates/togyz-pool2-32x4.pt", &out);
  ASSERT_TRUE(status == 0 || status == 3) << "status " << status << "\n" << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(expert vs expert\s+2\s+\d+-\d+-\d+)"))) << out;
  EXPECT_NE(kz::test::run_command(base + "/nonexistent/lower.pt", &out, true), 0);
  EXPECT_NE(out.find("'/nonexistent/lower.pt' does not exist"), std::string::npos) << out;
}

}  // namespace

namespace {

// --a/--b with PlayOK ratings: the human model plays both sides (tools/human_level.h),
// over the same paired openings as the named levels, the row named by the ratings and
// judged against the 60 % goal of a 200-point step; the same seed replays the same games;
// a rating outside the model's range, a lone --a, or a game without a human model are
// refused before any game is played.
TEST(CliLevelsMatch, RatingLevelsPlayPairedOpenings) {
  const std::string human = kz::test::source_dir() + "/models/togyz-human.pt";
  const std::string dir = kz::test::temp_dir("kz-levels-rating");
  const std::string record = dir + "/match.jsonl";
  // The shipped folder: the human model's search mixture finds its engine network there.
  const std::string base = "KZ_MODELS_DIR=" + kz::test::source_dir() + "/models " +
                           kz::test::bin("kumalak") +
                           " levels-match --game togyz --games 4 --threads 1 --max-plies 40 "
                           "--seed 11 --human-model " +
                           human;
  std::string out;
  int status = kz::test::run_command(base + " --a 2200 --b 800 --record " + record, &out);
  ASSERT_TRUE(status == 0 || status == 3) << "status " << status << "\n" << out;
  EXPECT_NE(out.find("4 games per pair (2 openings x 2 colours"), std::string::npos) << out;
  const std::regex row(
      R"(2200 vs 800\s+4\s+(\d+)-(\d+)-(\d+)\s+([\d.]+)%\s+[-+]\S+ \[\S+, \S+\]\s+(continue|H0|H1))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, row)) << out;
  EXPECT_EQ(std::stoi(m[1]) + std::stoi(m[2]) + std::stoi(m[3]), 4) << out;
  // The exit status follows the 60 % goal of a rating step.
  EXPECT_EQ(status, std::stod(m[4]) < 60.0 ? 3 : 0) << out;
  EXPECT_NE(out.find("H1 = the step is worth 70 Elo (60 %), H0 = 0 Elo (50 %)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("2200: human-2200 vs human-800"), std::string::npos) << out;
  const auto lines = lines_of(record);
  ASSERT_EQ(lines.size(), 1u + 4u);
  EXPECT_NE(lines[0].find("\"a\":\"2200\",\"b\":\"800\""), std::string::npos) << lines[0];
  for (size_t i = 1; i < lines.size(); ++i)
    EXPECT_NE(lines[i].find("\"upper\":\"2200\""), std::string::npos) << lines[i];

  // The same seed without a record: the same games, the same row.
  const std::string first_row = m[0];
  status = kz::test::run_command(base + " --a 2200 --b 800", &out);
  ASSERT_TRUE(status == 0 || status == 3) << out;
  EXPECT_NE(out.find(first_row), std::string::npos) << out;

  // A rating level against a named level.
  status = kz::test::run_command(base + " --a 1200 --b beginner", &out);
  ASSERT_TRUE(status == 0 || status == 3) << out;
  EXPECT_NE(out.find("1200: human-1200 vs alphabeta-beginner"), std::string::npos) << out;

  const std::pair<std::string, std::string> refusals[] = {
      {base + " --a 2300 --b 1200", "must lie in the human model's range 800..2200"},
      {base + " --a 1400", "--a and --b go together"},
      {base + " --a 1400 --b 1200 --only hard", "no --only or --same-level"},
      {base + " --a 1400 --b tsar", "tsar"},
      {kz::test::bin("kumalak") +
           " levels-match --game kalah --games 2 --a 1400 --b 1200 --human-model /nonexistent.pt",
       "'/nonexistent.pt' does not exist"}};
  for (const auto& [command, message] : refusals) {
    out.clear();
    EXPECT_EQ(kz::test::run_command(command, &out, true), 2) << command << "\n" << out;
    EXPECT_NE(out.find(message), std::string::npos) << command << "\n" << out;
  }
}

}  // namespace
