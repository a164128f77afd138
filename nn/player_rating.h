// A player's rating from many of their games at once (docs/human.md, "A player's rating
// from many games"), LibTorch-free so that the player's build and the browser build have
// it. One game's "played like" (estimate_ratings_jointly) is wide: a side makes 40-60
// moves and the human model tells players 200 points apart only by a little per move.
// Averaging such estimates keeps each one's pull towards the prior and its noise; here
// every move of every game enters one likelihood instead:
//
//   posterior(R) ~ prior(R) x prod over games k of
//                  L_k(R) x sum over R' of P(R' | R) M_k(R')
//
// where L_k(R) is the probability of the player's moves in game k at rating R (the human
// model, its value term and search mixture included: the caller computes it), M_k(R') the
// probability of the opponent's moves at R', and P(R' | R) the train fold's two-sided
// prior read as the chance that PlayOK pairs a player of R with an opponent of R'
// (rating_pair_log_density, normalised over R' for each R). Each opponent's rating is
// summed out game by game, so that the opponents' moves say how strong the player's
// opponents were, and through PlayOK's pairing how strong the player is. prior(R) is the
// one-sided prior (rating_log_prior). Without a pair prior the opponents are left out;
// without a one-sided prior too, the prior is flat.
//
// The player's rating is assumed the same in every game (a player whose rating moved
// during the games gets one rating in between).
#pragma once

#include <span>
#include <vector>

#include "nn/human_rating.h"

namespace kz {

// What one game says about a player's rating, over a grid of ratings (human_rating_grid).
struct GameRatingEvidence {
  // The natural log of the probability of the player's moves at each rating of the grid
  // (the sum over those moves); empty: the player made no move.
  std::vector<double> player;
  // The same for the opponent's moves; empty: not used (the opponent made no move).
  std::vector<double> opponent;
};

// The likelihood scale the estimate uses by default (PlayerRatingOptions), chosen on the
// train fold's players (docs/human.md).
inline constexpr double kPlayerLikelihoodScale = 0.25;

// How the evidence is weighed.
struct PlayerRatingOptions {
  // Every move's log-probability is multiplied by this (a tempered likelihood, 0..1]: the
  // human model treats a player's moves as independent given the rating, while a
  // player's style makes them agree with each other beyond it, so over hundreds of moves
  // the plain likelihood (1) is sure of a rating too soon. Chosen on the train fold
  // (docs/human.md, "A player's rating from many games").
  double likelihood_scale = kPlayerLikelihoodScale;
  // Whether the opponents' moves speak through the pair prior (false: the player's own
  // moves and the one-sided prior only).
  bool opponents = true;
};

struct PlayerRatingEstimate {
  RatingEstimate estimate;  // the posterior median and its 95 % credible interval
  int games = 0;            // games whose player or opponent moves entered the estimate
};

// The estimate over `games` (each game's vectors empty or grid.size() long;
// std::invalid_argument otherwise, and for an empty grid). With no game that says
// anything, the prior's median and interval. `estimate.loglik` is the player's own
// summed log-likelihood at the grid point of highest posterior.
// std::invalid_argument too for a likelihood scale outside (0, 1].
PlayerRatingEstimate estimate_player_rating(const std::vector<int>& grid,
                                            std::span<const GameRatingEvidence> games,
                                            const HumanHeadInfo& info,
                                            const PlayerRatingOptions& options = {});

// The baselines the estimate is measured against (docs/human.md): the plain mean of
// one-game estimates, or (`weight_by_interval`) their mean weighted by the inverse square
// of each 95 % interval's width (an estimate's variance, were it normal). 0 when empty.
double mean_of_game_estimates(std::span<const RatingEstimate> estimates, bool weight_by_interval);

}  // namespace kz
