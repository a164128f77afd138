// Glicko-2 against the worked example of Glickman's paper ("Example of the Glicko-2
// system"): a player of 1500, RD 200, volatility 0.06 beats 1400/30, loses to 1550/100
// and to 1700/300, with tau 0.5 -> 1464.06, RD 151.52, volatility 0.05999.
#include <gtest/gtest.h>

#include "core/glicko2.h"

namespace kz {

TEST(Glicko2, PaperWorkedExample) {
  const Glicko2Rating player{1500, 200, 0.06};
  const std::vector<Glicko2Game> games = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
  const Glicko2Rating r = glicko2_update(player, games, 0.5);
  EXPECT_NEAR(r.rating, 1464.06, 0.01);
  EXPECT_NEAR(r.deviation, 151.52, 0.01);
  EXPECT_NEAR(r.volatility, 0.05999, 0.00001);
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

}  // namespace kz
