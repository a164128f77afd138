// Checks shared by several kumalak subcommands (tools/commands.h).
#include "core/numbers.h"
#include "mcts/alphabeta.h"
#include "tools/commands.h"

namespace kz::cli {

void check_think_options(double movetime_s, int depth) {
  require_in_range(movetime_s, 0, kMaxMoveTimeSeconds, "--movetime");
  require_in_range(depth, 0, kMaxSearchDepth, "--depth");
}

}  // namespace kz::cli
