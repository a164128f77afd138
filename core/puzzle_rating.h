// A player's puzzle rating, per game, kept in a small text file under the user's config
// folder, and the puzzles already tried (a puzzle rates a player once: trying it again
// after seeing the solution would say nothing). `kumalak puzzle` reads and writes it;
// the page keeps the same numbers in the browser (tools/web/puzzles.js) and has the server
// update them (tools/serve/puzzle_api.h).
//
//   kumalak-puzzle-rating 1
//   rating <game> <rating> <deviation> <volatility>
//   tried <game> <puzzle id> <1 solved | 0 failed>
#pragma once

#include <map>
#include <span>
#include <string>

#include "core/glicko2.h"
#include "core/puzzle_file.h"

namespace kz {

// A puzzle is an opponent of its rating with this deviation (its rating comes from a
// measurement, not from games, so it is known about as well as a settled player's).
inline constexpr double kPuzzleDeviation = 80;

struct PuzzleRatings {
  std::map<std::string, Glicko2Rating> rating;              // by game name
  std::map<std::string, std::map<std::string, int>> tried;  // game -> id -> 1/0
};

// $XDG_CONFIG_HOME/kumalak/puzzle-rating.txt, else $HOME/.config/kumalak/..., else
// ./puzzle-rating.txt.
std::string default_puzzle_ratings_path();
// A missing file is a new player (empty); a damaged one is a ParseError "FILE:LINE: ...".
PuzzleRatings read_puzzle_ratings(const std::string& path);
// Writes atomically (a temporary name, then renamed), making the folder when needed.
void write_puzzle_ratings(const std::string& path, const PuzzleRatings& ratings);

// Whether `r` can be a player's puzzle rating: finite numbers, the rating within
// -10000..10000, the deviation in (0, 350], the volatility in (0, 1]. What the rating file
// and the page's request (tools/serve/puzzle_api.h) are checked against.
bool is_sensible_puzzle_rating(const Glicko2Rating& r);

// The player's rating after solving (or failing) one puzzle of `puzzle_rating`.
Glicko2Rating rate_puzzle_attempt(const Glicko2Rating& player, int puzzle_rating, bool solved);

// A new player's deviation. One attempt moves a rating by q * RD'^2 * g(80) * (score - E)
// (Glicko-2 step 7 on the Glicko scale: q = ln 10 / 400, g(80) = 0.969 for the puzzle's
// kPuzzleDeviation, RD'^2 below RD^2 + (173.7 * volatility)^2), so by less than
// q * (RD^2 + 10.4^2) * g(80) whatever the puzzle's rating: 143 points at RD 160, against
// 683 at Glicko-2's own start of 350, which took a new player at 1500 to 1039 on failing
// one of the shipped puzzles. A first answer is then a step of at most about 150 either
// way, and the 95% interval (+-320) still spans the shipped sets' middle half (Togyz
// 702-925, Kalah 1000-1800) around their medians. Tested over the shipped ratings and
// the whole range (tests/core_puzzle_new_player_test.cpp).
inline constexpr double kNewPuzzlePlayerDeviation = 160;

// The median of `ratings` (the mean of the two middle ones for an even count), rounded
// to a whole point. Throws std::invalid_argument when there are none.
int median_puzzle_rating(std::span<const int> ratings);

// A player's puzzle rating in `set`'s game before their first attempt: the median of the
// set's ratings (the shipped puzzles are rated 400-3000 around a median far from
// Glicko-2's 1500, so a new player starts where a puzzle is as likely solved as not),
// kNewPuzzlePlayerDeviation and Glicko-2's starting volatility. Throws
// std::invalid_argument for a set without puzzles.
Glicko2Rating new_puzzle_player(const PuzzleSet& set);

// The largest change of `player`'s rating that one attempt at a puzzle of one of
// `puzzle_ratings` can make, solved or failed (0 for no ratings).
double largest_puzzle_rating_change(const Glicko2Rating& player,
                                    std::span<const int> puzzle_ratings);

// A puzzle's rating from how often players of several ratings find its key move
// (`chances[i]` for `ratings[i]`, e.g. the human policy's probability of the key move,
// nn/puzzle_human_rating.h): the rating P at which the rating updates' own expected
// score, glicko2_expected_score(R, P, kPuzzleDeviation), summed over `ratings`, equals
// the chances summed: the logistic curve of the Glicko scale fitted to the chances, so
// that a player of rating P finds the key move half the time. Fitted with the Glicko
// scale's slope rather than the chances' own because the chances of a human model can
// change too little with the rating to cross one half inside its range (docs/puzzles.md,
// "Rating"). Rounded, clamped to kMinPuzzleRating..kMaxPuzzleRating (core/puzzle_file.h).
// Throws std::invalid_argument when the spans are empty or differ in length, or a chance
// is outside 0..1 or not a number.
int puzzle_rating_from_chances(std::span<const int> ratings, std::span<const double> chances);

// How the human model's puzzle ratings above translate to what rated players do: a
// player's chance of finding a key move varies less from puzzle to puzzle than the human
// policy's chance of playing it, and the puzzles are easier for players than for the
// policy, so the shipped ratings are centre + spread * (model's rating - 1500), fitted by
// maximum likelihood on the real attempts of train-fold games (`kumalak puzzles
// calibrate --fit-scale`, docs/puzzles.md "Rating") and checked on held-out ones.
struct PuzzleRatingScale {
  double centre = 1500;
  double spread = 1;
  // Rounded and clamped to kMinPuzzleRating..kMaxPuzzleRating.
  int apply(int model_rating) const;
};
inline constexpr PuzzleRatingScale kHumanPuzzleRatingScale{1080, 0.42};

// One real attempt at a puzzle: a player of `player_rating` found its key move or not.
struct PuzzleAttempt {
  int player_rating = 0;
  int puzzle_rating = 0;
  bool found = false;
};
// The mean negative log-likelihood of the attempts under the rating updates' expected
// score (glicko2_expected_score with kPuzzleDeviation), each puzzle's rating put
// through `scale`.
double attempts_log_loss(std::span<const PuzzleAttempt> attempts,
                         const PuzzleRatingScale& scale = {});
// The scale of the least log_loss on a grid of centres 0..2500 and spreads 0..1.5: every
// 50 points and 0.05 first, then every 5 points and 0.01 within one coarse step of the
// best (the answer is read by people, so a grid's round numbers).
// Throws std::invalid_argument for no attempts.
PuzzleRatingScale fit_puzzle_rating_scale(std::span<const PuzzleAttempt> attempts);

}  // namespace kz
