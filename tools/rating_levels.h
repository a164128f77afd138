// Levels named by a PlayOK rating, as the engine protocol and `kumalak serve` reach them:
// an interface free of LibTorch, so that the protocol's fuzz build and the server library
// (both without the network) link without it. The implementation that reads the human
// model (tools/human_level.h, ShippedRatingLevels) is handed in by the commands that
// start them (tools/cmd_engine.cpp, tools/cmd_serve.cpp).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/position.h"
#include "mcts/player.h"

namespace kz {

// The ratings a human model was trained on (its head's rating_min..rating_max).
struct RatingRange {
  int min = 0, max = 0;
  bool contains(int rating) const { return rating >= min && rating <= max; }
};

// One legal move with the probability that a player of the rating plays it.
struct HumanMove {
  int move = -1;
  float probability = 0;
};

// How one side of a game played, in the human model's eyes: the rating estimated from its
// moves with the 95 % interval (nn/human_rating.h: the posterior with the model's priors,
// both sides jointly where it has the two-sided one; the maximum likelihood without a
// prior), and for each of its moves the probability that a player of that rating plays
// it.
struct PlayedLike {
  int rating = 0, low = 0, high = 0;
  struct Move {
    int ply = 0;  // 1-based
    int move = -1;
    float probability = 0;
  };
  std::vector<Move> moves;
};

// What one game says of each side's rating in the human model's eyes: the natural log of
// the probability of each side's moves (White's first) at every rating of `grid` (the
// model's range, kRatingGridStep apart; empty for a side that made no move), the input of
// the estimate over many games (nn/player_rating.h), and each side's rating from this
// game alone (PlayedLike without its moves; nullopt for a side that made no move).
struct GameRatingLikelihoods {
  std::vector<int> grid;
  std::array<std::vector<double>, 2> loglik;
  std::array<std::optional<PlayedLike>, 2> played_like;
};

// One game's part in a player's estimate over many games: the log-likelihoods of the
// player's own moves and of the opponent's, on the grid GameRatingLikelihoods gives
// (either may be empty: that side made no move).
struct PlayerGameLikelihoods {
  std::vector<double> player, opponent;
};

// A player's rating estimated from many games at once: the posterior median, its 95 %
// interval, and how many games said something.
struct ManyGamesRating {
  int rating = 0, low = 0, high = 0;
  int games = 0;
};

// The grid step of GameRatingLikelihoods, in rating points (as `kumalak analyze`'s).
inline constexpr int kRatingGridStep = 25;

class RatingLevels {
 public:
  virtual ~RatingLevels() = default;
  // The range of the human model for `spec`'s game; nullopt when there is none.
  virtual std::optional<RatingRange> range(const GameSpec& spec) = 0;
  // Where the human model for `spec`'s game would be, for the message that it is missing.
  virtual std::string expected_model(const GameSpec& spec) = 0;
  // A player drawing its moves from the human policy at `rating` (checked first with
  // rating_level_problem). `seed`: its random generator's.
  virtual std::unique_ptr<Player> player(const GameSpec& spec, int rating, uint64_t seed) = 0;
  // Every legal move of `pos` at `rating`, most likely first (ties: the lower pit).
  virtual std::vector<HumanMove> moves(const GameSpec& spec, const Position& pos, int rating) = 0;
  // How each side (White's first) played the game `moves` from `start`, estimated
  // together (one side's moves also tell about the other's rating); nullopt without a
  // human model or for a side that made no move.
  virtual std::array<std::optional<PlayedLike>, 2> played_like(const GameSpec& spec,
                                                               const Position& start,
                                                               std::span<const int> moves) = 0;
  // What the game `moves` from `start` says of each side's rating (one network call, the
  // search mixture's search included where the model has one); nullopt without a human
  // model for `spec`'s game. The default: no human model.
  virtual std::optional<GameRatingLikelihoods> game_likelihoods(const GameSpec& spec,
                                                                const Position& start,
                                                                std::span<const int> moves) {
    (void)spec, (void)start, (void)moves;
    return std::nullopt;
  }
  // A player's rating from all of `games` (nn/player_rating.h's estimate_player_rating
  // with its default weighing); nullopt without a human model. Throws
  // std::invalid_argument when a game's vectors are neither empty nor as long as the
  // grid. The default: no human model.
  virtual std::optional<ManyGamesRating> rating_over_games(
      const GameSpec& spec, std::span<const PlayerGameLikelihoods> games) {
    (void)spec, (void)games;
    return std::nullopt;
  }
};

// "" when `rating` is a level of `spec`'s game, else why not: the range it must lie in,
// or the human model that is missing (`levels` may be null: no human model anywhere).
inline std::string rating_level_problem(RatingLevels* levels, const GameSpec& spec, int rating) {
  const std::optional<RatingRange> range = levels ? levels->range(spec) : std::nullopt;
  if (!range)
    return "a rating level needs a human model for " + spec.name() + " (" +
           (levels ? levels->expected_model(spec) : std::string("none was loaded")) +
           "), and there is none";
  if (!range->contains(rating))
    return "a rating level must lie in the human model's range " + std::to_string(range->min) +
           ".." + std::to_string(range->max);
  return "";
}

}  // namespace kz
