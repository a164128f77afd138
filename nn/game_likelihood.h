// How likely the human model (nn/human_head.h) finds each side's moves of one game at
// every rating of a grid: the input of the rating estimates, one game's
// (estimate_ratings_jointly, `kumalak analyze`'s "Played like") and many games'
// (nn/player_rating.h). The value term is the head's; the search mixture's search is the
// caller's (tools/human_level.h has it), passed in as its best move.
#pragma once

#include <array>
#include <functional>
#include <span>
#include <vector>

#include "core/position.h"
#include "nn/human_head.h"

namespace kz {

// The best move of the search mixture's search in a position (HumanHeadInfo::
// search_mix_visits visits of the engine network); must be deterministic.
using SearchBestMove = std::function<int(const Position&)>;

struct GameLikelihood {
  // Each side's (White's first) summed log-probability of its moves at each rating of the
  // grid; empty for a side that made no move.
  std::array<std::vector<double>, 2> loglik;
  // The moves that entered, in order: the position before, the pit played, the 1-based
  // ply, the mover, and whether the search chose the same move (empty without a search).
  std::vector<Position> positions;
  std::vector<int> played, plies, side;
  std::vector<char> searched_move;
};

// The moves `moves` from `start`, up to the first illegal one or the end of the game,
// under `head` at every rating of `grid`, with the search mixture
// (1 - lambda(R)) p(m | R) + lambda(R) [m = search's move] where `search` is given and
// the model has one (human_search_mix). One network call for the whole game.
GameLikelihood game_likelihood(const HumanHead& head, const Position& start,
                               std::span<const int> moves, const std::vector<int>& grid,
                               const SearchBestMove& search = nullptr);

}  // namespace kz
