#include "nn/puzzle_human_rating.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kz {

std::vector<int> human_puzzle_rating_grid(const HumanHeadInfo& info) {
  std::vector<int> grid;
  for (int r = info.rating_min; r < info.rating_max; r += 100) grid.push_back(r);
  grid.push_back(info.rating_max);
  return grid;
}

std::vector<std::vector<double>> key_move_chances(HumanHead& policy,
                                                  std::span<const Puzzle> puzzles,
                                                  const std::vector<int>& grid) {
  constexpr size_t kBatch = 256;
  const GameSpec spec = GameSpec::parse(policy.game());
  std::vector<std::vector<double>> chances(puzzles.size());
  for (size_t start = 0; start < puzzles.size(); start += kBatch) {
    const size_t end = std::min(puzzles.size(), start + kBatch);
    std::vector<Position> positions;
    std::vector<int> moves;
    for (size_t i = start; i < end; ++i) {
      const Puzzle& z = puzzles[i];
      if (z.position.is_togyz() != spec.is_togyz() || z.position.npits != spec.pits)
        throw std::invalid_argument("puzzle " + z.id + " is not of the human model's game");
      if (!z.position.is_legal(z.key_move()))
        throw std::invalid_argument("puzzle " + z.id + "'s key move is not legal");
      positions.push_back(z.position);
      moves.push_back(z.key_move());
    }
    const auto logp = policy.move_logprobs(positions, moves, grid);  // [grid][puzzle]
    for (size_t i = start; i < end; ++i)
      for (size_t g = 0; g < grid.size(); ++g)
        chances[i].push_back(std::clamp(std::exp(logp[g][i - start]), 0.0, 1.0));
  }
  return chances;
}

std::vector<int> human_puzzle_ratings(HumanHead& policy, std::span<const Puzzle> puzzles,
                                      const PuzzleRatingScale& scale) {
  const std::vector<int> grid = human_puzzle_rating_grid(policy.info());
  std::vector<int> ratings;
  for (const auto& chances : key_move_chances(policy, puzzles, grid))
    ratings.push_back(scale.apply(puzzle_rating_from_chances(grid, chances)));
  return ratings;
}

}  // namespace kz
