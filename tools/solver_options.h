// The options of the Kalah solver that `kumalak solve` (tools/cmd_solve.cpp) and
// `kumalak perfect-check`'s reference solver (tools/cmd_perfect_check.cpp) share.
// Header-only: the tools directory builds only cmd_*.cpp into the executable.
#pragma once

#include <string>

#include "tools/cli_options.h"

namespace kz::cli {

// The most seeds on the pits an endgame database covers (mcts/kalah_solver.cpp).
inline constexpr int kMaxEgtbSeeds = 40;

// --egtb-seeds, --egtb-dir and --hash: the endgame database and the transposition table
// of the solver.
//   cmd: the command that takes them
//   egtb_seeds: the table's seeds on the pits (0: none; -1, the default: the largest in
//     the folder, else by size)
//   egtb_dir: the tables' folder ("" = the cache)
//   hash_mib: the transposition table's MiB
inline void add_solver_options(CLI::App* cmd, int& egtb_seeds, std::string& egtb_dir,
                               int& hash_mib) {
  cmd->add_option("--egtb-seeds", egtb_seeds,
                  "endgame database size in seeds on the pits (0: none; default: the largest in "
                  "the folder, else by size)")
      ->check(in_range(-1, kMaxEgtbSeeds));
  cmd->add_option("--egtb-dir", egtb_dir, "endgame database folder (default: the cache)");
  cmd->add_option("--hash", hash_mib, "transposition table MiB")->check(in_range(1, 65536));
}

}  // namespace kz::cli
