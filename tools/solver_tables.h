// What `kumalak solve`, `egtb` (tools/cmd_solve.cpp) and `perfect-check`
// (tools/cmd_perfect_check.cpp) do before and around the solving, apart from their
// options and printing: the position asked about, the endgame database a command asked
// for (loaded or built, and how long that took), an endgame database file built or read
// back by its seeds, and the process's peak memory that the benchmark lines report.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "core/position.h"
#include "mcts/kalah_solver.h"

namespace kz::cli {

// The position to solve: after `moves` (the mover's pit numbers from the start) when
// given, else `position` ("" = the start). Throws ParseError when both are given or
// either does not read.
Position position_to_solve(const GameSpec& spec, const std::string& moves,
                           const std::string& position);

// The endgame database a command asked for and the seconds it took to load or build.
struct CommandEgtb {
  std::shared_ptr<const KalahEndgameDb> db;  // null: none asked for
  double seconds = 0;
};

// The table of --egtb-seeds `seeds` (0: none; -1: the largest cached in the folder, else
// the default) in `dir` ("" = default_egtb_dir()), loaded or built and saved there.
//   log: where a build's note goes (null: nowhere)
// Throws what load_or_build_egtb throws.
CommandEgtb command_egtb(const GameSpec& spec, int seeds, const std::string& dir,
                         std::ostream* log);

// An endgame database file of `egtb build` or `egtb info`.
struct EgtbFile {
  std::string path;  // the folder's file for the game and the seeds
  KalahEndgameDb db;
  double seconds = 0;  // the build's time (0 when read)
};

// The file `egtb build` and `egtb info` mean: `seeds` (-1: default_egtb_seeds) in `dir`
// ("" = default_egtb_dir()).
std::string egtb_file_path(const GameSpec& spec, int seeds, const std::string& dir);

// Builds the table of `seeds` (-1: the default) for `spec` and saves it into `dir` ("" =
// the default folder, made when missing).
//   progress: called after each seed level with the level and the seconds so far (may be
//     empty)
// Throws std::runtime_error (or a filesystem error) when the file cannot be written.
EgtbFile build_egtb_file(const GameSpec& spec, int seeds, const std::string& dir,
                         const std::function<void(int level, double seconds)>& progress);

// Reads back the table of `seeds` (-1: the default) for `spec` from `dir` ("" = the
// default folder), checking its checksum and that it is the table asked for. Throws
// std::runtime_error naming the file and what is wrong.
EgtbFile read_egtb_file(const GameSpec& spec, int seeds, const std::string& dir);

// The process's peak resident memory so far, in MiB (Linux's getrusage).
double peak_rss_mib();

}  // namespace kz::cli
