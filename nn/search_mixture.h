// The rating levels' search mixture (HumanHeadInfo::search_mix_weights): the probability
// that a player of rating R plays move m is
//   (1 - lambda(R)) p(m | R) + lambda(R) s(m)
// where p is the human head's policy, s the search's (1 for its best move and 0 for the
// others, or m's share of its visits) and lambda(R) human_search_mix's or
// human_play_mix's (nn/human_rating.h). The levels play it, hints and the rating estimate
// describe with it, human-eval scores it and the fits (nn/human_training.h) maximise its
// likelihood: one formula for all of them, so that they never drift apart.
#pragma once

#include <array>
#include <cstddef>

#include "core/position.h"

namespace kz {

// The mixture's probability of one move.
//   human: p(m | R), the human policy's probability of the move
//   lambda: the search's weight lambda(R), 0..1
//   search: s(m), the search's probability of the move (1 or 0 for its best move alone)
constexpr double mix_with_search(double human, double lambda, double search) {
  return (1 - lambda) * human + lambda * search;
}

// The mixture with the search's best move alone, for every pit of one position.
//   p: the human policy's probabilities (illegal moves and pits past the game's 0),
//      replaced by the mixture's
//   lambda: the search's weight lambda(R), 0..1
//   best: the search's best move (-1: none, which leaves (1 - lambda) p)
inline void mix_with_best_move(std::array<float, kMaxPits>& p, double lambda, int best) {
  for (size_t k = 0; k < p.size(); ++k)
    p[k] = float(mix_with_search(p[k], lambda, int(k) == best ? 1.0 : 0.0));
}

}  // namespace kz
