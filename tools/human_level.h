// Levels named by a PlayOK rating (`--level 1200`): the engine plays like a human player
// of that rating, its move drawn from the human policy head (nn/human_policy.h) at that
// rating with temperature 1. docs/levels.md says how they are chosen and what they cost.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mcts/player.h"
#include "nn/human_policy.h"

namespace kz {

// The human model shipped for a game: <dir>/<stem>-human.pt next to the game's model
// (dir: $KZ_MODELS_DIR or "models", stem: model_file_stem()). "" when it does not exist.
std::string shipped_human_model_path(const GameSpec& spec);

// The human policy for a level at `rating` in `spec`'s game, from `human_model` ("" = the
// shipped one). Throws ParseError (a bad level, as the command line's other mistakes)
// naming the missing model, or the model's range when `rating` lies outside it.
std::shared_ptr<HumanPolicy> load_human_level(const GameSpec& spec, int rating,
                                              const std::string& human_model);

// One legal move with the probability that a player of the rating plays it.
struct HumanMove {
  int move = -1;
  float probability = 0;
};
// Every legal move of `pos` at `rating`, most likely first (ties: the lower pit).
std::vector<HumanMove> human_moves(HumanPolicy& policy, const Position& pos, int rating);

// A Player whose move is drawn from the human policy at its rating (temperature 1), with
// its own random generator seeded by `seed`, so a seeded game replays exactly. One
// network call per move; limits are ignored (it does not search).
class HumanLevelPlayer : public Player {
 public:
  HumanLevelPlayer(std::shared_ptr<HumanPolicy> policy, int rating, uint64_t seed);
  std::string name() const override;
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override;

 private:
  std::shared_ptr<HumanPolicy> policy_;
  int rating_;
  std::mt19937_64 rng_;
};

}  // namespace kz
