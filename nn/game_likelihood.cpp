#include "nn/game_likelihood.h"

#include <algorithm>
#include <cmath>

#include "nn/search_mixture.h"

namespace kz {

GameLikelihood game_likelihood(const HumanHead& head, const Position& start,
                               std::span<const int> moves, const std::vector<int>& grid,
                               const SearchBestMove& search) {
  GameLikelihood out;
  Position before = start;
  for (size_t ply = 0; ply < moves.size(); ++ply) {
    if (before.is_over() || !before.is_legal(moves[ply])) break;
    out.positions.push_back(before);
    out.played.push_back(moves[ply]);
    out.plies.push_back(int(ply) + 1);
    out.side.push_back(before.to_move);
    before.play(moves[ply]);
  }
  if (out.positions.empty()) return out;
  const HumanHeadInfo& info = head.info();
  auto logprobs = head.move_logprobs(out.positions, out.played, grid);
  if (search && !info.search_mix_weights.empty()) {
    for (size_t i = 0; i < out.positions.size(); ++i)
      out.searched_move.push_back(search(out.positions[i]) == out.played[i]);
    for (size_t g = 0; g < grid.size(); ++g) {
      const double lambda = human_search_mix(info, grid[g]);
      for (size_t i = 0; i < out.positions.size(); ++i)
        logprobs[g][i] = std::log(std::max(
            mix_with_search(std::exp(logprobs[g][i]), lambda, out.searched_move[i] ? 1.0 : 0.0),
            1e-300));
    }
  }
  for (int s : out.side) out.loglik[size_t(s)].assign(grid.size(), 0.0);
  for (size_t g = 0; g < grid.size(); ++g)
    for (size_t i = 0; i < out.positions.size(); ++i)
      out.loglik[size_t(out.side[i])][g] += logprobs[g][i];
  return out;
}

}  // namespace kz
