// Glicko-2 against the worked example of Glickman's paper ("Example of the Glicko-2
// system"): a player of 1500, RD 200, volatility 0.06 beats 1400/30, loses to 1550/100
// and to 1700/300, with tau 0.5 -> 1464.06, RD 151.52, volatility 0.05999.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/glicko2.h"
#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"

namespace kz {

TEST(Glicko2, PaperWorkedExample) {
  const Glicko2Rating player{1500, 200, 0.06};
  const std::vector<Glicko2Game> games = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
  const Glicko2Rating r = glicko2_update(player, games, 0.5);
  EXPECT_NEAR(r.rating, 1464.06, 0.01);
  EXPECT_NEAR(r.deviation, 151.52, 0.01);
  EXPECT_NEAR(r.volatility, 0.05999, 0.00001);
}

// What a rating file's line and the page's request (tools/serve/puzzle_api.h) may hold.
TEST(Glicko2, SensiblePuzzleRatings) {
  EXPECT_TRUE(is_sensible_puzzle_rating({1500, 350, 0.06}));
  EXPECT_TRUE(is_sensible_puzzle_rating({-200, 30, 1}));
  EXPECT_FALSE(is_sensible_puzzle_rating({1500, 0, 0.06}));    // no deviation
  EXPECT_FALSE(is_sensible_puzzle_rating({1500, 351, 0.06}));  // above a new player's
  EXPECT_FALSE(is_sensible_puzzle_rating({1500, 350, 0}));     // no volatility
  EXPECT_FALSE(is_sensible_puzzle_rating({1500, 350, 1.5}));
  EXPECT_FALSE(is_sensible_puzzle_rating({20000, 350, 0.06}));
  EXPECT_FALSE(is_sensible_puzzle_rating({NAN, 350, 0.06}));
  EXPECT_FALSE(is_sensible_puzzle_rating({1500, NAN, 0.06}));
  EXPECT_FALSE(is_sensible_puzzle_rating({1500, 350, NAN}));
  EXPECT_FALSE(is_sensible_puzzle_rating({INFINITY, 350, 0.06}));
}

TEST(Glicko2, NoGamesOnlyWidensTheDeviation) {
  const Glicko2Rating player{1500, 200, 0.06};
  const Glicko2Rating r = glicko2_update(player, {});
  EXPECT_EQ(r.rating, 1500);
  EXPECT_NEAR(r.deviation, 200.2714, 0.001);  // sqrt(phi^2 + sigma^2), the paper's step 6
  EXPECT_EQ(r.volatility, 0.06);
  EXPECT_EQ(glicko2_update({1500, 350, 0.06}, {}).deviation, 350);  // capped
}

TEST(Glicko2, SolvingAHardPuzzleGainsMoreThanAnEasyOne) {
  const Glicko2Rating player{1500, 100, 0.06};
  const double hard = glicko2_update(player, {{2000, 60, 1}}).rating;
  const double easy = glicko2_update(player, {{1000, 60, 1}}).rating;
  EXPECT_GT(hard, easy);
  EXPECT_GT(easy, 1500);
  EXPECT_LT(glicko2_update(player, {{1000, 60, 0}}).rating, 1500);
}

TEST(Glicko2, ExpectedScoreIsTheUpdatesOwn) {
  EXPECT_NEAR(glicko2_expected_score(1500, 1500, 80), 0.5, 1e-12);
  // 400 points above an opponent known exactly: 10 to 1, Elo's and Glicko's scale.
  EXPECT_NEAR(glicko2_expected_score(1900, 1500, 0), 10.0 / 11.0, 1e-4);
  // The opponent's deviation pulls the expectation towards one half.
  EXPECT_LT(glicko2_expected_score(1900, 1500, 300), glicko2_expected_score(1900, 1500, 0));
  // The update moves a win and a loss in the ratio of the misses, (1 - E) to E (up to
  // the volatility, which a win and a loss change a little differently).
  const Glicko2Rating player{1500, 100, 0.06};
  const double e = glicko2_expected_score(1500, 1700, 80);
  const double won = glicko2_update(player, {{1700, 80, 1}}).rating - 1500;
  const double lost = glicko2_update(player, {{1700, 80, 0}}).rating - 1500;
  EXPECT_NEAR(won / -lost, (1 - e) / e, 1e-4);
}

TEST(PuzzleRatingFromChances, APuzzleSolvedHalfTheTimeEverywhereIsRatedAtTheMiddle) {
  const std::vector<int> ratings = {800, 1000, 1200, 1400, 1600, 1800, 2000, 2200};
  EXPECT_EQ(puzzle_rating_from_chances(ratings, std::vector<double>(8, 0.5)), 1500);
}

TEST(PuzzleRatingFromChances, ChancesOnTheGlickoCurveGiveItsMidpointBack) {
  const std::vector<int> ratings = {800, 1000, 1200, 1400, 1600, 1800, 2000, 2200};
  for (int puzzle : {700, 1150, 1500, 1930, 2600}) {
    std::vector<double> chances;
    for (int r : ratings) chances.push_back(glicko2_expected_score(r, puzzle, kPuzzleDeviation));
    EXPECT_EQ(puzzle_rating_from_chances(ratings, chances), puzzle) << puzzle;
  }
}

TEST(PuzzleRatingFromChances, HigherChancesMakeAnEasierPuzzleAndTheRangeIsKept) {
  const std::vector<int> ratings = {800, 1500, 2200};
  int previous = kMaxPuzzleRating + 1;
  for (double c : {0.0, 0.01, 0.2, 0.5, 0.76, 0.9, 0.99, 1.0}) {
    const int r = puzzle_rating_from_chances(ratings, std::vector<double>(3, c));
    EXPECT_LE(r, previous) << c;
    EXPECT_GE(r, kMinPuzzleRating);
    EXPECT_LE(r, kMaxPuzzleRating);
    previous = r;
  }
  // Three in four at 1500 is about 200 points below it (Elo's 76 % for 200 points).
  const int r = puzzle_rating_from_chances(std::vector<int>{1500}, std::vector<double>{0.76});
  EXPECT_NEAR(r, 1300, 10);
  EXPECT_EQ(puzzle_rating_from_chances(ratings, std::vector<double>(3, 1.0)), kMinPuzzleRating);
  EXPECT_EQ(puzzle_rating_from_chances(ratings, std::vector<double>(3, 0.0)), kMaxPuzzleRating);
}

TEST(PuzzleRatingFromChances, RefusesWhatIsNoChance) {
  const std::vector<int> two = {1000, 2000};
  EXPECT_THROW(puzzle_rating_from_chances(two, std::vector<double>{0.5}), std::invalid_argument);
  EXPECT_THROW(puzzle_rating_from_chances({}, {}), std::invalid_argument);
  EXPECT_THROW(puzzle_rating_from_chances(two, std::vector<double>{0.5, 1.5}),
               std::invalid_argument);
  EXPECT_THROW(puzzle_rating_from_chances(two, std::vector<double>{0.5, std::nan("")}),
               std::invalid_argument);
}

TEST(PuzzleRatingScale, MapsAroundTheCentreAndKeepsTheRange) {
  const PuzzleRatingScale scale{1100, 0.5};
  EXPECT_EQ(scale.apply(1500), 1100);
  EXPECT_EQ(scale.apply(1900), 1300);
  EXPECT_EQ(scale.apply(kMaxPuzzleRating), 1850);
  EXPECT_EQ(PuzzleRatingScale{}.apply(1234), 1234);
  EXPECT_EQ((PuzzleRatingScale{3000, 2}).apply(2900), kMaxPuzzleRating);
  EXPECT_EQ((PuzzleRatingScale{0, 1}).apply(400), kMinPuzzleRating);
}

// Attempts drawn from the Glicko expectation with puzzles rated by a known scale: the
// fit finds that scale back, and its loss is below the unscaled ratings'.
TEST(PuzzleRatingScale, TheFitRecoversTheScaleAttemptsWereDrawnWith) {
  const PuzzleRatingScale truth{1100, 0.4};
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> player(900, 2000), puzzle(400, 3000);
  std::vector<PuzzleAttempt> attempts;
  for (int i = 0; i < 8000; ++i) {
    PuzzleAttempt a{player(rng), puzzle(rng), false};
    const double p =
        glicko2_expected_score(a.player_rating, truth.apply(a.puzzle_rating), kPuzzleDeviation);
    a.found = std::uniform_real_distribution<double>(0, 1)(rng) < p;
    attempts.push_back(a);
  }
  const PuzzleRatingScale fit = fit_puzzle_rating_scale(attempts);
  EXPECT_NEAR(fit.centre, 1100, 40);
  EXPECT_NEAR(fit.spread, 0.4, 0.06);
  EXPECT_LT(attempts_log_loss(attempts, fit), attempts_log_loss(attempts));
  EXPECT_THROW(fit_puzzle_rating_scale({}), std::invalid_argument);
}

}  // namespace kz
