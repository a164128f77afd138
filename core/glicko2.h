// The Glicko-2 rating system (Mark Glickman, "Example of the Glicko-2 system", 2013,
// http://www.glicko.net/glicko/glicko2.pdf), for a player's puzzle rating: each solved
// or failed puzzle is a game against an opponent of the puzzle's rating. Debian ships
// no C++ implementation, so this is the paper's algorithm, step by step (steps 1-8,
// the volatility by the Illinois algorithm of step 5), tested against the paper's
// worked example (tests/core_glicko2_test.cpp).
#pragma once

#include <vector>

namespace kz {

struct Glicko2Rating {
  double rating = 1500;      // on the Glicko scale
  double deviation = 350;    // RD: the uncertainty of the rating
  double volatility = 0.06;  // sigma: how erratic the player's results are
};

struct Glicko2Game {
  double opponent_rating = 1500;
  double opponent_deviation = 350;
  double score = 0;  // 1 win, 0.5 draw, 0 loss
};

// tau, the system constant that limits how fast the volatility changes (the paper
// suggests 0.3 to 1.2; 0.5 is its example's).
inline constexpr double kGlicko2Tau = 0.5;

// The expected score of a player of `rating` against an opponent of `opponent_rating`
// known to within `opponent_deviation` (step 3's E, on the Glicko scale): the chance
// that a player of `rating` solves a puzzle of `opponent_rating` in the rating updates.
double glicko2_expected_score(double rating, double opponent_rating, double opponent_deviation);

// The player's rating after one rating period with `games` (none: only the deviation
// grows, step 6 alone). The deviation never exceeds 350 (the new player's).
Glicko2Rating glicko2_update(const Glicko2Rating& player, const std::vector<Glicko2Game>& games,
                             double tau = kGlicko2Tau);

}  // namespace kz
