// What the rating levels play, set at the knots of a human model's rating inputs
// (tools/human_play_knots.h, `human-train --play-mix / --play-filter`): the values named
// are set, the others kept, and a malformed option is refused naming what is wrong.
#include <gtest/gtest.h>

#include "core/position.h"
#include "tools/human_play_knots.h"

namespace kz::cli {
namespace {

// A model's head over 1000..1700 (knots every 100 points) with a search mixture.
HumanHeadInfo head_with_mixture() {
  HumanHeadInfo info;
  info.rating_min = 1000;
  info.rating_max = 1700;
  info.search_mix_weights.assign(size_t(kHumanRatingInputs), 0.f);
  return info;
}

// The message of the ParseError `spec` gets, "" when it is accepted.
std::string refusal(const std::string& spec, const PlayKnots& kind) {
  HumanHeadInfo info = head_with_mixture();
  try {
    set_play_knots(info, spec, kind);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(HumanPlayKnots, NamedKnotsAreSetAndTheOthersKept) {
  HumanHeadInfo info = head_with_mixture();
  ASSERT_EQ(human_rating_knots(info),
            (std::vector<int>{1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700}));
  set_play_knots(info, "1200:0.25,1600:1", kPlayMix);
  EXPECT_NEAR(human_play_mix(info, 1200), 0.25, 1e-6);
  EXPECT_NEAR(human_play_mix(info, 1600), 1.0, 1e-6);
  EXPECT_NEAR(human_play_mix(info, 1400), 0.0, 1e-6) << "the fitted lambda, 0 here";
  set_play_knots(info, "1400:0.5", kPlayMix);
  EXPECT_NEAR(human_play_mix(info, 1200), 0.25, 1e-6) << "kept from before";
  set_play_knots(info, "1000:0.1", kPlayFilter);
  EXPECT_NEAR(human_play_filter(info, 1000), 0.1, 1e-6);
  EXPECT_NEAR(human_play_filter(info, 1700), 0.0, 1e-6);
  EXPECT_EQ(play_knots_line(info, kPlayFilter),
            "the levels play tau 1000: 0.1000 1100: 0.0000 1200: 0.0000 1300: 0.0000 1400: 0.0000 "
            "1500: 0.0000 1600: 0.0000 1700: 0.0000");
  EXPECT_EQ(play_knots_line(info, kPlayMix).rfind("the levels play lambda 1000: 0.0000 1100: ", 0),
            0u);
}

TEST(HumanPlayKnots, MalformedOptionsAreRefused) {
  EXPECT_EQ(refusal("1200:0.25", kPlayMix), "");
  EXPECT_EQ(refusal("1200=0.25", kPlayMix),
            "--play-mix: '1200=0.25' is not RATING:LAMBDA (e.g. 1400:0.2)");
  EXPECT_EQ(refusal("1250:0.1", kPlayFilter),
            "--play-filter: 1250 is not a knot of the model's rating inputs (1000, 1100, 1200, "
            "1300, 1400, 1500, 1600, 1700)");
  EXPECT_EQ(refusal("1200:1.5", kPlayMix), "--play-mix: lambda at 1200 is 1.5, not 0..1");
  HumanHeadInfo no_mixture;
  EXPECT_THROW(set_play_knots(no_mixture, "1200:0.2", kPlayMix), ParseError);
}

TEST(HumanPlayKnots, BothOptionsSetInTurnAndSaid) {
  HumanHeadInfo info = head_with_mixture();
  std::vector<std::string> said;
  const auto say = [&](const std::string& line) { said.push_back(line); };
  set_play_knots_saying(info, "1200:0.25", "", say);
  ASSERT_EQ(said.size(), 1u) << "no filter: the levels play the mixture";
  EXPECT_EQ(said[0], play_knots_line(info, kPlayMix));
  said.clear();
  set_play_knots_saying(info, "", "1000:0.1", say);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[0], play_knots_line(info, kPlayFilter));
  EXPECT_EQ(said[1], "the levels play the search filter (its tau), not the mixture");
  // The mixture's knots are set and said before the filter's malformed ones are refused.
  said.clear();
  EXPECT_THROW(set_play_knots_saying(info, "1400:0.5", "1400=1", say), ParseError);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NEAR(human_play_mix(info, 1400), 0.5, 1e-6);
}

}  // namespace
}  // namespace kz::cli
