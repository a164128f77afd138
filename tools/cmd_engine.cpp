// `kumalak engine`: the engine protocol (tools/engine_protocol.cpp) on stdin/stdout, with
// the network for the MCTS levels (nn/model_evaluator.h) and the shipped human models for
// the levels named by a rating (tools/human_level.h).
#include <iostream>
#include <memory>

#include "nn/model_evaluator.h"
#include "tools/command_input.h"
#include "tools/commands.h"
#include "tools/engine_control.h"
#include "tools/human_level.h"

namespace kz::cli {

void register_engine(CLI::App& app, int& exit_code) {
  struct Args {
    std::string game = "togyz";
    std::string level = "expert";
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("engine", "Speak the engine protocol on stdin/stdout");
  add_game_option(cmd, args->game);
  add_level_option(cmd, args->level, /*ratings=*/true);
  cmd->footer(
      "--game and --level are the start's; the protocol's `newgame GAME` and "
      "`setoption name Level value L` change them (docs/protocol.md).");
  cmd->callback([args, &exit_code] {
    exit_code = run_engine_protocol(command_input(), args->game, args->level, load_model_evaluator,
                                    std::make_shared<ShippedRatingLevels>());
  });
}

}  // namespace kz::cli
