// Levels named by a PlayOK rating (`--level 1200`): the engine plays like a human player
// of that rating, its move drawn from the human policy head (nn/human_policy.h) at that
// rating with temperature 1. docs/levels.md says how they are chosen and what they cost.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "mcts/evaluator.h"
#include "mcts/human_search.h"
#include "mcts/mcts_player.h"
#include "mcts/player.h"
#include "nn/human_head.h"
#include "tools/rating_levels.h"

namespace kz {

// The human model shipped for a game: <dir>/<stem>-human.pt next to the game's model
// (dir: $KZ_MODELS_DIR or "models", stem: model_file_stem()). "" when it does not exist.
std::string shipped_human_model_path(const GameSpec& spec);

// The human policy of `spec`'s game from `path`, else the shipped model, for the
// commands that measure with it (puzzle ratings). Throws std::runtime_error when there is
// neither, ModelError for a file that does not load or has no human head.
std::unique_ptr<HumanHead> load_human_policy(const GameSpec& spec, const std::string& path);

// The human policy for a level at `rating` in `spec`'s game, from `human_model` ("" = the
// shipped one). Throws ParseError (a bad level, as the command line's other mistakes)
// naming the missing model, or the model's range when `rating` lies outside it.
std::shared_ptr<HumanHead> load_human_level(const GameSpec& spec, int rating,
                                            const std::string& human_model);

class HumanSearch;

// Which lambda(R) of the search mixture a call wants: what players of R do (the fit, for
// hints and estimates), or how a level at R plays (the calibrated play weights where the
// model has them: HumanHeadInfo::search_mix_play_weights).
enum class MixUse { kDescribe, kPlay };

// Every legal move of `pos` at `rating`, most likely first (ties: the lower pit). With
// `search` (the policy's model has a search mixture, human_level_search for the same
// `use`), the mixture
// (1 - lambda(R)) p(m | R) + lambda(R) [m = the search's move], lambda as `use` says, or
// for MixUse::kPlay in a model with a search filter, the policy filtered by the search
// (human_play_filter_apply at human_play_filter(R)); without, the policy alone.
std::vector<HumanMove> human_moves(HumanHead& policy, const Position& pos, int rating,
                                   HumanSearch* search = nullptr, MixUse use = MixUse::kDescribe);

// The levels' search filter at tau (HumanHeadInfo::search_filter_play_weights): every
// move whose share of `answer`'s visits is below tau times the largest share keeps
// kHumanFilterFloor of its probability, then `p` (one game's pits) sums to 1 again. tau 0
// leaves `p` as it is; tau 1 keeps only the most visited moves at full weight.
void human_play_filter_apply(std::array<float, kMaxPits>& p, const SearchAnswer& answer,
                             double tau);

// The evaluator of `spec`'s shipped engine network for `policy`'s search mixture; null
// when the model has no mixture. Throws ParseError naming the missing engine model.
// Loading it is most of a search's set-up; one evaluator serves any number of searches
// on any threads.
std::shared_ptr<Evaluator> human_level_engine(const GameSpec& spec, const HumanHead& policy);

// The search of `policy`'s search mixture for `use`: a search over `engine` (by default
// human_level_engine's) of the visits the levels play with (MixUse::kPlay) or of the
// fit's (MixUse::kDescribe: hints, estimates; human_search_visits); null when the model
// has no mixture. Each player needs its own (a search is not thread-safe).
std::shared_ptr<HumanSearch> human_level_search(const GameSpec& spec, const HumanHead& policy,
                                                MixUse use,
                                                std::shared_ptr<Evaluator> engine = nullptr);

// A Player whose move is drawn from the human policy at its rating (temperature 1), the
// search mixture's lambda the play weights' (MixUse::kPlay), with its own random
// generator seeded by `seed`, so a seeded game replays exactly. One network call per
// move, plus the mixture's fixed search where the model has one; the thinking limits
// are ignored.
class HumanLevelPlayer : public Player {
 public:
  // `search`: the policy's search mixture (human_level_search; null: none).
  HumanLevelPlayer(std::shared_ptr<HumanHead> policy, int rating, uint64_t seed,
                   std::shared_ptr<HumanSearch> search = nullptr);
  std::string name() const override;
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override;

 private:
  std::shared_ptr<HumanHead> policy_;
  int rating_;
  std::mt19937_64 rng_;
  std::shared_ptr<HumanSearch> search_;
};

// How each side (White's first) played the game `moves` from `start`
// (tools/rating_levels.h PlayedLike): its rating estimated over the head's range in steps
// of 25, and each of its moves' probability at that rating; nullopt for a side that made
// no move. Where the model has the two-sided prior (HumanHeadInfo::rating_pair_prior) and
// both sides moved, the two are estimated jointly (estimate_ratings_jointly: PlayOK pairs
// players of similar ratings, so each side's moves also tell about the other's); else
// each from its own moves with the one-sided prior. `kumalak analyze` says it.
// With `search` (human_level_search), every probability is the search mixture's.
std::array<std::optional<PlayedLike>, 2> played_like_both(HumanHead& policy, const Position& start,
                                                          std::span<const int> moves,
                                                          HumanSearch* search = nullptr);

// The rating levels of the shipped human models (shipped_human_model_path), each loaded
// on first use and kept; for the engine protocol and `kumalak serve`. Thread-safe: the
// policy's calls are inference only.
class ShippedRatingLevels : public RatingLevels {
 public:
  std::optional<RatingRange> range(const GameSpec& spec) override;
  std::string expected_model(const GameSpec& spec) override;
  std::unique_ptr<Player> player(const GameSpec& spec, int rating, uint64_t seed) override;
  std::vector<HumanMove> moves(const GameSpec& spec, const Position& pos, int rating) override;
  std::array<std::optional<PlayedLike>, 2> played_like(const GameSpec& spec, const Position& start,
                                                       std::span<const int> moves) override;
  std::optional<GameRatingLikelihoods> game_likelihoods(const GameSpec& spec, const Position& start,
                                                        std::span<const int> moves) override;
  std::optional<ManyGamesRating> rating_over_games(
      const GameSpec& spec, std::span<const PlayerGameLikelihoods> games) override;

 private:
  // The loaded policy of `spec`'s game, or null when it has none (loaded once).
  std::shared_ptr<HumanHead> policy(const GameSpec& spec);
  // A fresh search of `policy`'s mixture for `use` over the game's engine network, loaded
  // once (a search is per caller, the evaluator is shared); null without a mixture.
  std::shared_ptr<HumanSearch> search(const GameSpec& spec, const HumanHead& policy, MixUse use);
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<HumanHead>> policies_;  // by game name
  std::map<std::string, std::shared_ptr<Evaluator>> engines_;   // by game name
  std::map<std::string, std::optional<RatingRange>> ranges_;    // by game name
};

}  // namespace kz
