// What human-train does to a model around the training (train/human_head_setup.h): the
// head's range from the train fold, the head with the rating estimate's priors, the terms
// training makes stale, and the epochs' progress lines.
#include <gtest/gtest.h>

#include <sstream>

#include "nn_test_util.h"
#include "train/human_head_setup.h"

namespace kz {
namespace {

// Two games of the start position: 1234 (White) against 1456, and 1610 against a titled
// player, with a sample per side.
HumanData two_games() {
  const Position start = Position::start(GameSpec::togyz());
  HumanData d;
  d.games = 2;
  d.sides = {{1234, false, 1, 1, 0, 0},
             {1456, false, 1, 0, 0, 1},
             {1610, false, 1, 1, 1, 0},
             {0, true, 1, 0, 1, 1}};
  d.samples = {{start, 0, 1234, false, 0},
               {start, 1, 1456, false, 1},
               {start, 2, 1610, false, 2},
               {start, 3, 0, true, 3}};
  return d;
}

TEST(HumanHeadSetup, TheRangeIsTheRatedPlayersWidenedToWholeBins) {
  const HumanData d = two_games();
  const std::optional<HumanHeadInfo> range = human_head_range(d.samples);
  ASSERT_TRUE(range);
  EXPECT_EQ(range->rating_min, 1200);
  EXPECT_EQ(range->rating_max, 1700);
  EXPECT_EQ(range->rating_mean, mean_rating(d.samples));
  EXPECT_FALSE(human_head_range({d.samples[3]})) << "a titled player alone has no rating";
  EXPECT_FALSE(human_head_range({}));
}

TEST(HumanHeadSetup, TheHeadAndItsPriors) {
  const GameSpec spec = GameSpec::togyz();
  const HumanData d = two_games();
  const HumanHeadInfo range = *human_head_range(d.samples);
  Model model = make_random_model(spec, test::tiny_net_config(), 1);
  const HumanHeadSetup with_pairs = set_up_human_head(model, d, range, true, false);
  EXPECT_TRUE(model.meta.network.human_policy_head);
  EXPECT_EQ(model.meta.human.rating_min, 1200);
  EXPECT_EQ(with_pairs.paired_games, 1) << "one game of two rated sides";
  EXPECT_EQ(with_pairs.titled_positions, 1);
  EXPECT_EQ(model.meta.human.rating_prior, with_pairs.info.rating_prior);
  EXPECT_EQ(model.meta.human.rating_pair_prior, with_pairs.info.rating_pair_prior);
  int prior_sides = 0;
  for (int c : with_pairs.info.rating_prior) prior_sides += c;
  EXPECT_EQ(prior_sides, 3) << "the rated sides, once each";

  // A model that has a head keeps its range; no pair prior asked, none written.
  HumanHeadInfo other = range;
  other.rating_min = 800;
  const HumanHeadSetup kept = set_up_human_head(model, d, other, false, false);
  EXPECT_EQ(kept.info.rating_min, 1200);
  EXPECT_EQ(kept.paired_games, 0);
  EXPECT_TRUE(model.meta.human.rating_pair_prior.empty());

  // No game of two rated sides: no pair prior, not an all-zero one.
  HumanData lone = d;
  lone.sides[1].rating = 0;
  lone.sides[1].titled = true;
  Model fresh = make_random_model(spec, test::tiny_net_config(), 1);
  const HumanHeadSetup unpaired = set_up_human_head(fresh, lone, range, true, true);
  EXPECT_EQ(unpaired.paired_games, 0);
  EXPECT_TRUE(fresh.meta.human.rating_pair_prior.empty());
  EXPECT_TRUE(fresh.meta.network.human_rating_temperature);
}

TEST(HumanHeadSetup, TrainingDropsTheTermsFittedToTheOldHead) {
  HumanHeadInfo info = test::human_range(1000, 2000, 1500);
  EXPECT_FALSE(drop_stale_human_terms(info).search_mix);
  info.value_weights = {0.1f, 0.2f};
  info.search_mix_weights = {0.3f};
  info.search_mix_visits = 32;
  const StaleHumanTerms dropped = drop_stale_human_terms(info);
  EXPECT_TRUE(dropped.search_mix);
  EXPECT_TRUE(dropped.value_weights);
  EXPECT_TRUE(info.value_weights.empty());
  EXPECT_TRUE(info.search_mix_weights.empty());
  EXPECT_EQ(info.search_mix_visits, 0);
}

TEST(HumanHeadSetup, AProgressLineAnEpoch) {
  std::ostringstream out;
  Progress::Options po;
  po.mode = Progress::Mode::kLines;
  po.out = &out;
  po.clock = [] { return 0.0; };
  {
    HumanTrainProgress progress(2, 100, 40, po);
    progress.after_batch(0, 100, 0);  // the tower's output: all the positions
    progress.after_batch(1, 20, 0.5);
    progress.finish_epoch();
    progress.after_batch(2, 40, 0.25);
    progress.finish_epoch();
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("human-train: the tower's output: 100/100"), std::string::npos) << text;
  EXPECT_NE(text.find("human-train epoch 1/2: 20/40"), std::string::npos) << text;
  EXPECT_NE(text.find("loss=0.5"), std::string::npos) << text;
  EXPECT_NE(text.find("human-train epoch 2/2: 40/40"), std::string::npos) << text;
  EXPECT_NE(text.find("positions"), std::string::npos) << text;
}

}  // namespace
}  // namespace kz
