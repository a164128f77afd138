// The gatekeeper's rules (train/gate.h): promotion, the gate record, a run's gate
// history, the ladder schedule, ladder match files and promotion itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_util.h"
#include "train/gate.h"

namespace kz {
namespace {

MatchResult result_with(double score, SprtDecision sprt) {
  MatchResult r;
  r.wdl = {6, 2, 2};
  r.elo.score = score;
  r.elo.elo = 120;
  r.elo.elo_lo = 10;
  r.elo.elo_hi = 250;
  r.elo.los = 0.97;
  r.sprt.llr = 1.5;
  r.sprt.decision = sprt;
  r.seconds = 12.5;
  return r;
}

TEST(Gate, PromotionRule) {
  GateConfig gate;
  gate.promote_min_score = 0.55;
  // Without an SPRT only the score counts; exactly the threshold passes (11 of 20 points
  // is 0.55: a float threshold, 0.55000001, once made that fail).
  EXPECT_TRUE(decide_gate(result_with(11.0 / 20, SprtDecision::kContinue), gate, false).pass);
  EXPECT_FALSE(decide_gate(result_with(0.54, SprtDecision::kContinue), gate, false).pass);
  // ... even when the match carries an SPRT verdict it did not ask for.
  EXPECT_FALSE(decide_gate(result_with(0.40, SprtDecision::kAcceptH1), gate, false).pass);
  // With an SPRT: H1 passes whatever the score, H0 fails whatever the score, undecided
  // falls back to the score.
  const GateDecision h1 = decide_gate(result_with(0.40, SprtDecision::kAcceptH1), gate, true);
  EXPECT_TRUE(h1.pass);
  EXPECT_TRUE(h1.sprt_pass);
  const GateDecision h0 = decide_gate(result_with(0.90, SprtDecision::kAcceptH0), gate, true);
  EXPECT_FALSE(h0.pass);
  EXPECT_TRUE(h0.sprt_fail);
  EXPECT_TRUE(decide_gate(result_with(0.60, SprtDecision::kContinue), gate, true).pass);
  EXPECT_FALSE(decide_gate(result_with(0.50, SprtDecision::kContinue), gate, true).pass);
}

TEST(Gate, RecordRoundTripsIncludingInfiniteElo) {
  const std::string dir = test::temp_dir("gate_record");
  MatchResult r = result_with(1.0, SprtDecision::kAcceptH1);
  r.elo.elo = std::numeric_limits<double>::infinity();
  r.elo.elo_hi = std::numeric_limits<double>::infinity();
  const GateRecord g = make_gate_record("runs/x/models/gen0003.pt", "runs/x/models/best.pt", r,
                                        GateDecision{true, false, true});
  write_gate_record(dir + "/gen0003.json", g);
  const GateRecord back = read_gate_record(dir + "/gen0003.json");
  EXPECT_EQ(back.candidate, g.candidate);
  EXPECT_EQ(back.baseline, g.baseline);
  EXPECT_EQ(back.wins, 6);
  EXPECT_EQ(back.draws, 2);
  EXPECT_EQ(back.losses, 2);
  EXPECT_TRUE(std::isinf(back.elo) && back.elo > 0);
  EXPECT_TRUE(std::isinf(back.elo_hi) && back.elo_hi > 0);
  EXPECT_DOUBLE_EQ(back.elo_lo, 10);
  EXPECT_EQ(back.sprt, "H1");
  EXPECT_TRUE(back.pass);
  EXPECT_DOUBLE_EQ(back.seconds, 12.5);
  // The keys and their order are the file format (docs/training.md); the first ones:
  EXPECT_EQ(gate_record_json(g).dump().rfind(R"({"candidate":"runs/x/models/gen0003.pt",)", 0), 0u);
}

TEST(Gate, BadRecordsNameTheFileAndTheField) {
  const std::string dir = test::temp_dir("gate_bad");
  { std::ofstream(dir + "/gen0001.json") << R"({"candidate":"a","baseline":"b","wins":1})"; }
  try {
    read_gate_record(dir + "/gen0001.json");
    FAIL() << "a record without draws was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("gen0001.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("draws"), std::string::npos) << e.what();
  }
  { std::ofstream(dir + "/gen0002.json") << "{ not json"; }
  EXPECT_THROW(read_gate_record(dir + "/gen0002.json"), std::runtime_error);
  EXPECT_THROW(read_gate_record(dir + "/missing.json"), std::runtime_error);
  EXPECT_THROW(read_gate_history(dir + "/missing"), std::runtime_error);
}

TEST(Gate, HistoryReplaysThePromotions) {
  const std::string dir = test::temp_dir("gate_history");
  auto write = [&](int gen, int wins, int losses, bool pass) {
    MatchResult r = result_with(0.5, SprtDecision::kContinue);
    r.wdl = {wins, 0, losses};
    char name[32];
    std::snprintf(name, sizeof name, "/gen%04d.json", gen);
    write_gate_record(dir + name, make_gate_record("c", "b", r, GateDecision{false, false, pass}));
  };
  // Written out of order: the history is in generation order.
  write(3, 7, 3, true);
  write(1, 8, 2, true);
  write(2, 4, 6, false);
  { std::ofstream(dir + "/notes.txt") << "not a gate"; }
  const auto h = read_gate_history(dir);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].match.a, "gen0001");
  EXPECT_EQ(h[0].match.b, "gen0000");
  EXPECT_TRUE(h[0].promoted);
  EXPECT_EQ(h[1].match.a, "gen0002");
  EXPECT_EQ(h[1].match.b, "gen0001");  // gen0001 was promoted
  EXPECT_FALSE(h[1].promoted);
  EXPECT_EQ(h[2].match.a, "gen0003");
  EXPECT_EQ(h[2].match.b, "gen0001");  // gen0002 was not
  EXPECT_EQ(h[2].match.wins, 7);
  EXPECT_EQ(h[2].match.losses, 3);
}

TEST(Gate, LadderSchedule) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  const std::vector<std::string> m = {"g0", "g1", "g2", "g3"};
  EXPECT_EQ(ladder_schedule(m, 1, 0),
            (Pairs{{"g1", "g0"}, {"g2", "g1"}, {"g3", "g2"}, {"g2", "g0"}, {"g3", "g0"}}));
  EXPECT_EQ(
      ladder_schedule(m, 2, 0),
      (Pairs{{"g1", "g0"}, {"g2", "g0"}, {"g2", "g1"}, {"g3", "g1"}, {"g3", "g2"}, {"g3", "g0"}}));
  EXPECT_EQ(ladder_schedule({"g0", "g1"}, 1, 4),
            (Pairs{{"g1", "g0"}, {"g0", "ab:4"}, {"g1", "ab:4"}}));
  EXPECT_TRUE(ladder_schedule({}, 1, 4).empty());
}

TEST(Gate, LadderMatchesReadBackAndBadLinesAreNamed) {
  const std::string dir = test::temp_dir("gate_ladder");
  const std::string path = dir + "/matches.jsonl";
  {
    std::ofstream out(path);
    out << ladder_match_line({"gen0005", "gen0000", 30, 2, 8}, 210.5) << "\n\n";
    out << ladder_match_line({"gen0005", "ab:4", 10, 0, 30}, -190) << "\n";
  }
  std::string raw;
  const auto matches = read_ladder_matches(path, &raw);
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches[1].b, "ab:4");
  EXPECT_EQ(matches[1].losses, 30);
  EXPECT_EQ(std::count(raw.begin(), raw.end(), '\n'), 2);
  {
    std::ofstream(path, std::ios::app) << R"({"a":"x","b":"y","wins":"three"})"
                                       << "\n";
  }
  try {
    read_ladder_matches(path);
    FAIL() << "a malformed line was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("matches.jsonl:4"), std::string::npos) << e.what();
  }
}

TEST(Gate, PromotionReplacesTheBestAtomically) {
  const std::string dir = test::temp_dir("gate_promote");
  { std::ofstream(dir + "/gen0002.pt") << "new weights"; }
  { std::ofstream(dir + "/best.pt") << "old"; }
  promote_model(dir + "/gen0002.pt", dir + "/best.pt");
  std::ifstream in(dir + "/best.pt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "new weights");
  // Nothing else is left beside it (no temporary file).
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 2);
  EXPECT_EQ(player_display_name(dir + "/gen0002.pt"), "gen0002");
  EXPECT_EQ(player_display_name("ab:4"), "ab:4");
  EXPECT_EQ(player_display_name("rollout"), "rollout");
}

}  // namespace
}  // namespace kz
