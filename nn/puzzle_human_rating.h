// Puzzle ratings from a human policy (nn/human_policy.h): how often a player of each
// rating of the human model's range plays a puzzle's key move, and the puzzle rating
// those chances give on the players' Glicko scale (puzzle_rating_from_chances,
// core/puzzle_rating.h). docs/puzzles.md, "Rating", says why and how well it predicts
// what rated players did.
#pragma once

#include <span>
#include <vector>

#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "nn/human_head.h"

namespace kz {

// The ratings a puzzle is asked at: the head's range from its minimum in steps of 100,
// its maximum included.
std::vector<int> human_puzzle_rating_grid(const HumanHeadInfo& info);

// The human policy's probability of each puzzle's key move at each rating of `grid`:
// result[puzzle][i] for grid[i]. Batched, one tower call per 256 puzzles. Throws
// std::invalid_argument naming the puzzle whose position is of another game than the
// model's or whose key move is not legal.
std::vector<std::vector<double>> key_move_chances(HumanHead& policy,
                                                  std::span<const Puzzle> puzzles,
                                                  const std::vector<int>& grid);

// Every puzzle's rating from the human policy: puzzle_rating_from_chances over the
// grid above, put through `scale` (the shipped one: kHumanPuzzleRatingScale, fitted to
// what rated players did; {} leaves the model's own rating).
std::vector<int> human_puzzle_ratings(HumanHead& policy, std::span<const Puzzle> puzzles,
                                      const PuzzleRatingScale& scale = kHumanPuzzleRatingScale);

}  // namespace kz
