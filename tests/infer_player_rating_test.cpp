// A player's rating from many games at once (nn/player_rating.h): every move of every
// game in one likelihood, each opponent's rating summed out through the pair prior.
// Synthetic players whose move choice depends on a known rating.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "nn/player_rating.h"
#include "tests/synthetic_ratings.h"

namespace kz {
namespace {

// A head's range 800..2200 with priors from 4,000 made-up games between players rated
// 1,000-1,999 and opponents within 150 points of them.
HumanHeadInfo paired_info() {
  HumanHeadInfo info;
  info.rating_min = 800;
  info.rating_max = 2200;
  info.rating_mean = 1500;
  return test::with_paired_rating_priors(info);
}

using test::synthetic_loglik;

// A player's games of `moves` moves each, opponents within 100 points of them.
std::vector<GameRatingEvidence> synthetic_games(const std::vector<int>& grid, int truth, int games,
                                                int moves, std::mt19937_64& rng) {
  std::vector<GameRatingEvidence> out;
  for (int k = 0; k < games; ++k) {
    const int opponent = truth + std::uniform_int_distribution<int>(-100, 100)(rng);
    out.push_back(
        {synthetic_loglik(grid, truth, moves, rng), synthetic_loglik(grid, opponent, moves, rng)});
  }
  return out;
}

TEST(PlayerRating, RecoversTheRatingFromManyGamesAndNarrowsWithThem) {
  const HumanHeadInfo info = paired_info();
  ASSERT_EQ(human_head_problem(info), "");
  const std::vector<int> grid = human_rating_grid(info, 25);
  std::mt19937_64 rng(11);
  for (int truth : {1100, 1500, 1900}) {
    const auto games = synthetic_games(grid, truth, 20, 50, rng);
    const PlayerRatingEstimate all = estimate_player_rating(grid, games, info);
    EXPECT_EQ(all.games, 20);
    EXPECT_NEAR(all.estimate.rating, truth, 80) << truth;
    EXPECT_LE(all.estimate.low, truth);
    EXPECT_GE(all.estimate.high, truth);
    const PlayerRatingEstimate one = estimate_player_rating(grid, std::span(games).first(1), info);
    EXPECT_LT(all.estimate.high - all.estimate.low, 0.5 * (one.estimate.high - one.estimate.low))
        << truth;
  }
}

// The prior pulls every one-game estimate towards the population's middle; averaging
// them keeps the pull, one likelihood over all the games does not.
TEST(PlayerRating, BeatsTheAverageOfOneGameEstimatesAtTheEnds) {
  const HumanHeadInfo info = paired_info();
  const std::vector<int> grid = human_rating_grid(info, 25);
  std::mt19937_64 rng(12);
  double joint_error = 0, average_error = 0;
  for (int truth : {1100, 1900})
    for (int player = 0; player < 8; ++player) {
      const auto games = synthetic_games(grid, truth, 20, 10, rng);  // short games: wide ones
      std::vector<RatingEstimate> singles;
      for (const GameRatingEvidence& g : games)
        singles.push_back(estimate_ratings_jointly(grid, g.player, g.opponent, info)[0]);
      average_error += std::abs(mean_of_game_estimates(singles, false) - truth);
      joint_error += std::abs(estimate_player_rating(grid, games, info).estimate.rating - truth);
    }
  EXPECT_LT(joint_error, 0.6 * average_error)
      << "mean errors over 16 players: joint " << joint_error / 16 << ", average "
      << average_error / 16;
}

// The opponents' moves speak through PlayOK's pairing: a player whose own moves say
// nothing (a flat likelihood) is estimated near their opponents when the pair prior says
// opponents are close, and at the prior alone without a pair prior.
TEST(PlayerRating, OpponentsMovesPullThroughThePairPrior) {
  const HumanHeadInfo info = paired_info();
  const std::vector<int> grid = human_rating_grid(info, 25);
  std::mt19937_64 rng(13);
  std::vector<GameRatingEvidence> games;
  for (int k = 0; k < 10; ++k)
    games.push_back({std::vector<double>(grid.size(), 0.0), synthetic_loglik(grid, 1850, 60, rng)});
  const RatingEstimate with_pairs = estimate_player_rating(grid, games, info).estimate;
  EXPECT_NEAR(with_pairs.rating, 1850, 120);

  HumanHeadInfo no_pairs = info;
  no_pairs.rating_pair_prior.clear();
  const RatingEstimate alone = estimate_player_rating(grid, games, no_pairs).estimate;
  const RatingEstimate prior_only = estimate_rating_posterior(
      grid, std::vector<double>(grid.size(), 0.0), rating_log_prior(info, grid));
  EXPECT_NEAR(alone.rating, prior_only.rating, 1e-9);
  EXPECT_NEAR(alone.low, prior_only.low, 1e-9);
  EXPECT_LT(with_pairs.high - with_pairs.low, alone.high - alone.low);
}

// One game without an opponent and an untempered likelihood is the one-sided posterior of
// `kumalak analyze`, exactly; no game at all is the prior.
TEST(PlayerRating, OneGameAloneIsTheOneSidedPosterior) {
  const HumanHeadInfo info = paired_info();
  const std::vector<int> grid = human_rating_grid(info, 25);
  std::mt19937_64 rng(14);
  const std::vector<double> ll = synthetic_loglik(grid, 1300, 50, rng);
  const std::vector<GameRatingEvidence> one = {{ll, {}}};
  const RatingEstimate a = estimate_player_rating(grid, one, info, {1.0, true}).estimate;
  const RatingEstimate b = estimate_rating_posterior(grid, ll, rating_log_prior(info, grid));
  EXPECT_NEAR(a.rating, b.rating, 1e-9);
  EXPECT_NEAR(a.low, b.low, 1e-9);
  EXPECT_NEAR(a.high, b.high, 1e-9);
  EXPECT_NEAR(a.loglik, b.loglik, 1e-9);

  const PlayerRatingEstimate none = estimate_player_rating(grid, {}, info);
  EXPECT_EQ(none.games, 0);
  EXPECT_GT(none.estimate.rating, 1300);
  EXPECT_LT(none.estimate.rating, 1700);
}

// The tempered likelihood is the plain one with every move's log-probability scaled:
// 0.25 of 400 moves is 100 moves' worth of evidence, so a wider interval around the same
// place.
TEST(PlayerRating, TheLikelihoodScaleWeighsEveryMove) {
  HumanHeadInfo info = paired_info();
  info.rating_pair_prior.clear();
  const std::vector<int> grid = human_rating_grid(info, 25);
  std::mt19937_64 rng(15);
  const std::vector<double> ll = synthetic_loglik(grid, 1600, 400, rng);
  std::vector<double> quarter = ll;
  for (double& v : quarter) v *= 0.25;
  const std::vector<GameRatingEvidence> full = {{ll, {}}}, scaled = {{quarter, {}}};
  const RatingEstimate tempered = estimate_player_rating(grid, full, info, {0.25, true}).estimate;
  const RatingEstimate by_hand = estimate_player_rating(grid, scaled, info, {1.0, true}).estimate;
  EXPECT_NEAR(tempered.rating, by_hand.rating, 1e-9);
  EXPECT_NEAR(tempered.low, by_hand.low, 1e-9);
  EXPECT_NEAR(tempered.high, by_hand.high, 1e-9);
  const RatingEstimate plain = estimate_player_rating(grid, full, info, {1.0, true}).estimate;
  EXPECT_GT(tempered.high - tempered.low, 1.5 * (plain.high - plain.low));
  EXPECT_NEAR(tempered.rating, plain.rating, 100);
  // The default is the chosen scale.
  const RatingEstimate by_default = estimate_player_rating(grid, full, info).estimate;
  const RatingEstimate chosen =
      estimate_player_rating(grid, full, info, {kPlayerLikelihoodScale, true}).estimate;
  EXPECT_EQ(by_default.rating, chosen.rating);
  for (double bad : {0.0, -0.5, 1.5, std::nan("")})
    EXPECT_THROW(estimate_player_rating(grid, full, info, {bad, true}), std::invalid_argument)
        << bad;
}

TEST(PlayerRating, RefusesLikelihoodsOffTheGrid) {
  const HumanHeadInfo info = paired_info();
  const std::vector<int> grid = human_rating_grid(info, 25);
  const std::vector<GameRatingEvidence> short_player = {{std::vector<double>(3, 0.0), {}}};
  EXPECT_THROW(estimate_player_rating(grid, short_player, info), std::invalid_argument);
  const std::vector<GameRatingEvidence> short_opponent = {
      {std::vector<double>(grid.size(), 0.0), std::vector<double>(grid.size() + 1, 0.0)}};
  EXPECT_THROW(estimate_player_rating(grid, short_opponent, info), std::invalid_argument);
  EXPECT_THROW(estimate_player_rating({}, {}, info), std::invalid_argument);
}

TEST(PlayerRating, AveragesOfOneGameEstimates) {
  std::vector<RatingEstimate> e(2);
  e[0].rating = 1000, e[0].low = 900, e[0].high = 1100;   // width 200
  e[1].rating = 1600, e[1].low = 1200, e[1].high = 2000;  // width 800: 1/16 the weight
  EXPECT_NEAR(mean_of_game_estimates(e, false), 1300, 1e-9);
  EXPECT_NEAR(mean_of_game_estimates(e, true), (16 * 1000 + 1600) / 17.0, 1e-9);
  EXPECT_EQ(mean_of_game_estimates({}, true), 0);
}

}  // namespace
}  // namespace kz
