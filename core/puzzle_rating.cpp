#include "core/puzzle_rating.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "core/position.h"
#include "core/puzzle_file.h"

namespace kz {

namespace {
constexpr const char* kMagic = "kumalak-puzzle-rating";
}

std::string default_puzzle_ratings_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/kumalak/puzzle-rating.txt";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.config/kumalak/puzzle-rating.txt";
  return "puzzle-rating.txt";
}

PuzzleRatings read_puzzle_ratings(const std::string& path) {
  PuzzleRatings r;
  if (!std::filesystem::exists(path)) return r;
  std::ifstream in(path);
  if (!in) throw ParseError(path + ":0: cannot open the rating file");
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    throw ParseError(path + ":" + std::to_string(line_no) + ": " + what);
  };
  bool header = false;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream ss(line);
    std::string kind, game, extra;
    if (!header) {
      int version = 0;
      if (!(ss >> kind >> version) || kind != kMagic || version != 1 || (ss >> extra))
        fail(std::string("not a puzzle rating file: expected '") + kMagic + " 1'");
      header = true;
      continue;
    }
    if (!(ss >> kind >> game)) fail("expected 'rating GAME ...' or 'tried GAME ...'");
    if (kind == "rating") {
      Glicko2Rating g;
      if (!(ss >> g.rating >> g.deviation >> g.volatility) || (ss >> extra) ||
          !is_sensible_puzzle_rating(g))
        fail("expected 'rating GAME RATING DEVIATION VOLATILITY' with sensible numbers");
      r.rating[game] = g;
    } else if (kind == "tried") {
      std::string id;
      int solved = -1;
      if (!(ss >> id >> solved) || (ss >> extra) || (solved != 0 && solved != 1))
        fail("expected 'tried GAME ID 0|1'");
      r.tried[game][id] = solved;
    } else {
      fail("unknown line '" + kind + "'");
    }
  }
  if (!header) fail("empty: not a puzzle rating file");
  return r;
}

void write_puzzle_ratings(const std::string& path, const PuzzleRatings& ratings) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomically(path, [&](std::ostream& o) {
    o << kMagic << " 1\n";
    char buf[160];
    for (const auto& [game, g] : ratings.rating) {
      std::snprintf(buf, sizeof buf, "rating %s %.2f %.2f %.6f\n", game.c_str(), g.rating,
                    g.deviation, g.volatility);
      o << buf;
    }
    for (const auto& [game, ids] : ratings.tried)
      for (const auto& [id, solved] : ids)
        o << "tried " << game << " " << id << " " << solved << "\n";
  });
}

bool is_sensible_puzzle_rating(const Glicko2Rating& r) {
  return std::isfinite(r.rating) && r.rating >= -10000 && r.rating <= 10000 && r.deviation > 0 &&
         r.deviation <= 350 && r.volatility > 0 && r.volatility <= 1;
}

Glicko2Rating rate_puzzle_attempt(const Glicko2Rating& player, int puzzle_rating, bool solved) {
  return glicko2_update(player, {{double(puzzle_rating), kPuzzleDeviation, solved ? 1.0 : 0.0}});
}

int median_puzzle_rating(std::span<const int> ratings) {
  if (ratings.empty()) throw std::invalid_argument("a median of no puzzle ratings");
  std::vector<int> sorted(ratings.begin(), ratings.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t middle = sorted.size() / 2;
  if (sorted.size() % 2) return sorted[middle];
  return int(std::lround(0.5 * (sorted[middle - 1] + sorted[middle])));
}

Glicko2Rating new_puzzle_player(const PuzzleSet& set) {
  if (set.puzzles.empty()) throw std::invalid_argument("a new puzzle player of no puzzles");
  std::vector<int> ratings;
  ratings.reserve(set.puzzles.size());
  for (const Puzzle& z : set.puzzles) ratings.push_back(z.rating);
  Glicko2Rating start;
  start.rating = median_puzzle_rating(ratings);
  start.deviation = kNewPuzzlePlayerDeviation;
  return start;
}

double largest_puzzle_rating_change(const Glicko2Rating& player,
                                    std::span<const int> puzzle_ratings) {
  double largest = 0;
  for (int rating : puzzle_ratings)
    for (bool solved : {false, true})
      largest = std::max(
          largest, std::abs(rate_puzzle_attempt(player, rating, solved).rating - player.rating));
  return largest;
}

int puzzle_rating_from_chances(std::span<const int> ratings, std::span<const double> chances) {
  if (ratings.empty() || ratings.size() != chances.size())
    throw std::invalid_argument("a puzzle rating needs one chance per rating, and at least one");
  double chance_sum = 0;
  for (size_t i = 0; i < chances.size(); ++i) {
    if (!(chances[i] >= 0.0 && chances[i] <= 1.0))
      throw std::invalid_argument("the chance at rating " + std::to_string(ratings[i]) +
                                  " is not a probability");
    chance_sum += chances[i];
  }
  // The expected solves fall as the puzzle's rating rises, so the root is bracketed by
  // the clamp range or lies outside it.
  auto excess = [&](double puzzle_rating) {
    double sum = 0;
    for (int r : ratings) sum += glicko2_expected_score(r, puzzle_rating, kPuzzleDeviation);
    return sum - chance_sum;
  };
  double low = kMinPuzzleRating, high = kMaxPuzzleRating;
  if (excess(low) <= 0) return kMinPuzzleRating;
  if (excess(high) >= 0) return kMaxPuzzleRating;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (low + high);
    (excess(mid) > 0 ? low : high) = mid;
  }
  return int(std::lround(0.5 * (low + high)));
}

int PuzzleRatingScale::apply(int model_rating) const {
  const long rating = std::lround(centre + spread * (model_rating - 1500.0));
  return int(std::clamp<long>(rating, kMinPuzzleRating, kMaxPuzzleRating));
}

double attempts_log_loss(std::span<const PuzzleAttempt> attempts, const PuzzleRatingScale& scale) {
  if (attempts.empty()) return 0;
  double loss = 0;
  for (const PuzzleAttempt& a : attempts) {
    const double p = std::clamp(
        glicko2_expected_score(a.player_rating, scale.apply(a.puzzle_rating), kPuzzleDeviation),
        1e-6, 1 - 1e-6);
    loss -= std::log(a.found ? p : 1 - p);
  }
  return loss / double(attempts.size());
}

PuzzleRatingScale fit_puzzle_rating_scale(std::span<const PuzzleAttempt> attempts) {
  if (attempts.empty()) throw std::invalid_argument("no puzzle attempts to fit a scale to");
  PuzzleRatingScale best;
  double best_loss = attempts_log_loss(attempts, best);
  auto search = [&](int centre_from, int centre_to, int centre_step, int spread_from, int spread_to,
                    int spread_step) {
    for (int centre = centre_from; centre <= centre_to; centre += centre_step)
      for (int spread = spread_from; spread <= spread_to; spread += spread_step) {
        const PuzzleRatingScale scale{double(centre), spread / 100.0};
        const double loss = attempts_log_loss(attempts, scale);
        if (loss < best_loss) {
          best_loss = loss;
          best = scale;
        }
      }
  };
  // Coarse over the whole grid, then every point within one coarse step of the best.
  search(0, 2500, 50, 0, 150, 5);
  const int centre = int(best.centre), spread = int(std::lround(best.spread * 100));
  search(std::max(0, centre - 50), std::min(2500, centre + 50), 5, std::max(0, spread - 5),
         std::min(150, spread + 5), 1);
  return best;
}

}  // namespace kz
