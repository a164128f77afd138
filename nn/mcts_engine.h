// Plugs the neural MCTS engine into the level system (mcts/levels.h): after
// register_mcts_engine(), hard and expert levels (and the protocol's `Engine mcts`)
// play with MCTS over a model file instead of alpha-beta. Executables that link the
// network code call it once at start-up; nothing else needs LibTorch.
#pragma once

#include <memory>
#include <string>

#include "mcts/levels.h"
#include "mcts/mcts_player.h"

namespace kz {

// The search settings of an MCTS level: visits and time per move.
MctsPlayerOptions mcts_level_options(const GameSpec& spec, Level level, double time_scale,
                                     uint64_t seed);

// Loads `model_path` (checked against the game) and makes the MCTS player for `level`.
std::unique_ptr<Player> make_mcts_level_player(const MctsRequest& request);

// Registers make_mcts_level_player with set_mcts_player_factory().
void register_mcts_engine();

}  // namespace kz
