// The page's Rules guide (tools/web/guide.js) shows each step's move on hand-set boards
// read from tools/web/guide_positions.json; the page itself computes nothing. Here every
// step is played through the rules core, so that the guide teaches exactly the engine's
// rules: the position after, where the last stone landed, what was captured, a tuzdyk, an
// extra turn, the end, and the move's notation must all be what the file says. A serve
// test because it reads JSON (nlohmann, which kz_serve links) and the file is the page's.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/notation.h"
#include "core/position.h"
#include "tests/test_util.h"

namespace kz {
namespace {

using nlohmann::json;

json guide_positions() {
  const std::string path = test::source_dir() + "/tools/web/guide_positions.json";
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  return json::parse(in);
}

// One step: the move from `position` and what the file says it does.
struct Step {
  std::string id;
  Position before, after;
  int move = 0;  // 1-based hole
  Position::MoveInfo info;
  json expected;
};

std::vector<Step> play_steps(const std::string& game, const GameSpec& spec) {
  const json all = guide_positions();
  EXPECT_TRUE(all.contains(game)) << "no \"" << game << "\" steps";
  std::vector<Step> steps;
  for (const json& s : all.value(game, json::array())) {
    Step step;
    step.id = s.at("id").get<std::string>();
    step.expected = s;
    step.before = Position::parse(s.at("position").get<std::string>(), spec);
    step.move = s.at("move").get<int>();
    EXPECT_TRUE(step.before.is_legal(step.move - 1)) << game << " " << step.id;
    EXPECT_EQ(step.before.to_move, 0)
        << game << " " << step.id << ": the reader plays the bottom row, White or South";
    step.after = step.before;
    step.info = step.after.play(step.move - 1);
    steps.push_back(step);
  }
  return steps;
}

// Every field the page reads agrees with the rules core.
void expect_as_the_file_says(const std::string& game, const Step& s) {
  const json& e = s.expected;
  const std::string where = game + " step " + s.id;
  EXPECT_EQ(s.after.to_string(), e.at("after").get<std::string>()) << where;
  EXPECT_EQ(format_move(s.before, s.move - 1), e.at("notation").get<std::string>()) << where;
  const json landing = {s.info.landing_player, s.info.landing_index + 1};
  EXPECT_EQ(landing, e.at("landing")) << where;
  EXPECT_EQ(s.info.captured, e.at("captured").get<int>()) << where;
  EXPECT_EQ(s.info.made_tuzdyk, e.at("tuzdyk").get<bool>()) << where;
  // As the server's move JSON says it: another turn only while the game goes on.
  EXPECT_EQ(s.info.extra_turn && !s.info.ended_game, e.at("extra_turn").get<bool>()) << where;
  EXPECT_EQ(s.info.ended_game, e.at("ended").get<bool>()) << where;
}

const Step& step_named(const std::vector<Step>& steps, const std::string& id) {
  for (const Step& s : steps)
    if (s.id == id) return s;
  ADD_FAILURE() << "no step " << id;
  static const Step none;
  return none;
}

TEST(GuidePositions, TogyzStepsFollowTheRules) {
  const auto steps = play_steps("togyz", GameSpec::togyz());
  ASSERT_EQ(steps.size(), 8u);
  for (const Step& s : steps) expect_as_the_file_says("togyz", s);

  // Each step shows what its text says.
  const Step& sow = step_named(steps, "sow");
  EXPECT_GE(sow.before.pit(0, sow.move - 1), 2) << "sowing: several stones, the first back";
  EXPECT_EQ(sow.after.pit(0, sow.move - 1), 1);
  EXPECT_EQ(sow.info.landing_player, 1) << "the sowing goes on into the opponent's row";
  const Step& single = step_named(steps, "single");
  EXPECT_EQ(single.before.pit(0, single.move - 1), 1);
  EXPECT_EQ(single.after.pit(0, single.move - 1), 0);
  const Step& even = step_named(steps, "even");
  EXPECT_GT(even.info.captured, 0);
  EXPECT_EQ(even.info.captured % 2, 0);
  EXPECT_TRUE(step_named(steps, "tuzdyk").info.made_tuzdyk);
  // The two refused tuzdyks: 3 stones stay in the landing hole, for the reason told.
  const Step& hole9 = step_named(steps, "not-hole-9");
  EXPECT_EQ(hole9.info.landing_player, 1);
  EXPECT_EQ(hole9.info.landing_index, 8);
  EXPECT_EQ(hole9.after.pit(1, 8), 3);
  EXPECT_EQ(hole9.after.tuzdyk[0], kNoTuzdyk);
  const Step& same = step_named(steps, "same-number");
  EXPECT_EQ(same.info.landing_player, 1);
  EXPECT_EQ(same.after.pit(1, same.info.landing_index), 3);
  EXPECT_EQ(same.before.tuzdyk[0], kNoTuzdyk) << "only the same-number rule may refuse it";
  EXPECT_EQ(same.before.tuzdyk[1], same.info.landing_index)
      << "Black's tuzdyk is White's hole of the landing hole's number";
  // A stone sown past the mover's tuzdyk lands in the mover's kazan.
  const Step& into = step_named(steps, "into-tuzdyk");
  EXPECT_NE(into.before.tuzdyk[0], kNoTuzdyk);
  EXPECT_EQ(into.info.captured, 0);
  EXPECT_EQ(into.after.store[0], into.before.store[0] + 1);
  const Step& end = step_named(steps, "end");
  EXPECT_TRUE(end.after.is_over());
  EXPECT_EQ(end.after.store[0], 82);
  EXPECT_EQ(end.after.outcome(), Outcome::kWhiteWins);
}

TEST(GuidePositions, KalahStepsFollowTheRules) {
  const auto steps = play_steps("kalah", GameSpec::parse("kalah"));
  ASSERT_EQ(steps.size(), 5u);
  for (const Step& s : steps) expect_as_the_file_says("kalah", s);

  EXPECT_EQ(step_named(steps, "sow").after.store[0], step_named(steps, "sow").before.store[0] + 1);
  // Round the board: past the opponent's store, which gains nothing.
  const Step& round = step_named(steps, "round");
  EXPECT_EQ(round.info.landing_player, 0);
  EXPECT_EQ(round.after.store[1], round.before.store[1]);
  EXPECT_TRUE(step_named(steps, "store").info.extra_turn);
  const Step& capture = step_named(steps, "capture");
  EXPECT_EQ(capture.before.pit(0, capture.info.landing_index), 0) << "an empty pit";
  EXPECT_GT(capture.info.captured, 1);
  const Step& end = step_named(steps, "end");
  EXPECT_TRUE(end.info.extra_turn) << "the last seed in the store, and still the end";
  EXPECT_TRUE(end.after.is_over());
  EXPECT_EQ(end.after.outcome(), Outcome::kWhiteWins);
}

}  // namespace
}  // namespace kz
