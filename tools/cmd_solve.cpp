// kumalak solve / egtb: perfect play for Kalah (mcts/kalah_solver.h).
//   solve          the exact final margin of a position, its perfect move and line, with
//                  time, nodes and peak memory (the benchmark of docs/levels.md)
//   egtb build     builds an endgame database into the cache folder; egtb info checks one
// The position, the tables and the peak memory are tools/solver_tables.h's. perfect-check
// (tools/cmd_perfect_check.cpp) is registered after them, as before.
#include <cstdio>
#include <iostream>

#include "core/notation.h"
#include "core/numbers.h"
#include "mcts/advice.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/exact_result_words.h"
#include "tools/solver_options.h"
#include "tools/solver_tables.h"

namespace kz::cli {

namespace {

struct SolveOptions {
  std::string game = "kalah";
  std::string position, moves;
  int egtb_seeds = -1;
  std::string egtb_dir;
  int hash_mib = 256;
  double movetime = 0;
  bool all_moves = false;
};

int run_solve(const SolveOptions& opt) {
  GameSpec spec;
  Position pos;
  try {
    spec = GameSpec::parse(opt.game);  // a Kalah game: add_kalah_game_option
    pos = position_to_solve(spec, opt.moves, opt.position);
  } catch (const ParseError& e) {
    print_command_error("kumalak solve", e);
    return 2;
  }
  CommandEgtb egtb;
  try {
    egtb = command_egtb(spec, opt.egtb_seeds, opt.egtb_dir, &std::cerr);
  } catch (const std::exception& e) {
    print_command_error("kumalak solve", e);
    return 1;
  }
  const std::shared_ptr<const KalahEndgameDb>& db = egtb.db;
  KalahSolver solver(opt.hash_mib, db);
  SolveLimits limits;
  limits.movetime_s = opt.movetime;
  const SolveResult r = solver.solve(pos, limits, opt.all_moves);
  std::printf("position %s\n", pos.to_string().c_str());
  std::printf("egtb %s (%.1f s to load or build)\n",
              db ? (std::to_string(db->max_seeds()) + " seeds, " + std::to_string(db->size()) +
                    " positions")
                       .c_str()
                 : "none",
              egtb.seconds);
  if (!r.solved) {
    std::printf("not solved within %.1f s (%lld nodes)\n", opt.movetime, (long long)r.nodes);
    return 1;
  }
  const int south = pos.to_move == 0 ? r.margin : -r.margin;
  std::printf("value %+d for the side to move (%s), South %+d\n", r.margin,
              pos.to_move == 0 ? "south" : "north", south);
  if (r.best_move >= 0) std::printf("best pit %d\n", r.best_move + 1);
  std::printf("line %s\n", line_notation(pos, r.pv).c_str());
  if (opt.all_moves) std::printf("%s\n", describe_exact_result(pos, r).c_str());
  std::printf("nodes %lld time_s %.2f hash_mib %lld peak_rss_mib %.0f\n", (long long)r.nodes,
              r.seconds, (long long)(solver.tt_bytes() >> 20), peak_rss_mib());
  return 0;
}

struct EgtbOptions {
  std::string game = "kalah";
  int seeds = -1;
  std::string dir;
};

int run_egtb(const EgtbOptions& opt, bool build) {
  const char* who = build ? "kumalak egtb build" : "kumalak egtb info";
  GameSpec spec;
  try {
    spec = GameSpec::parse(opt.game);  // a Kalah game: add_kalah_game_option
  } catch (const ParseError& e) {
    print_command_error(who, e);
    return 2;
  }
  try {
    if (build) {
      const EgtbFile built = build_egtb_file(spec, opt.seeds, opt.dir, [](int level, double s) {
        std::fprintf(stderr, "  %2d seeds done, %.1f s\n", level, s);
      });
      const KalahEndgameDb& db = built.db;
      std::printf("built %s: %llu positions, %llu bytes, crc32 %08x, %.1f s, peak_rss_mib %.0f\n",
                  built.path.c_str(), (unsigned long long)db.size(), (unsigned long long)db.size(),
                  db.checksum(), built.seconds, peak_rss_mib());
    } else {
      const EgtbFile read = read_egtb_file(spec, opt.seeds, opt.dir);
      const KalahEndgameDb& db = read.db;
      std::printf("%s: %d pits, %s capture, up to %d seeds, %llu positions, crc32 %08x (checked)\n",
                  read.path.c_str(), db.pits(),
                  db.variant() == Variant::kKalahEmpty ? "empty" : "standard", db.max_seeds(),
                  (unsigned long long)db.size(), db.checksum());
    }
  } catch (const std::exception& e) {
    print_command_error(who, e);
    return 1;
  }
  return 0;
}

}  // namespace

void register_solve(CLI::App& app, int& exit_code) {
  {
    auto opt = std::make_shared<SolveOptions>();
    auto* cmd = app.add_subcommand("solve", "Kalah: the exact perfect-play margin of a position");
    add_kalah_game_option(cmd, opt->game);
    cmd->add_option("--position", opt->position, "position string (default: the start)");
    cmd->add_option("--moves", opt->moves, "moves from the start: the mover's pit numbers");
    add_solver_options(cmd, opt->egtb_seeds, opt->egtb_dir, opt->hash_mib);
    cmd->add_option("--movetime", opt->movetime, "give up after this many seconds (0: never)")
        ->check(in_range(0.0, kMaxMoveTimeSeconds));
    cmd->add_flag("--all", opt->all_moves, "the exact margin of every move");
    cmd->callback([opt, &exit_code] { exit_code = run_solve(*opt); });
  }
  {
    auto opt = std::make_shared<EgtbOptions>();
    auto* cmd = app.add_subcommand("egtb", "Kalah endgame databases");
    cmd->require_subcommand(1);
    auto* build = cmd->add_subcommand("build", "build one into the cache folder");
    auto* info = cmd->add_subcommand("info", "read one back and check its checksum");
    for (auto* c : {build, info}) {
      add_kalah_game_option(c, opt->game);
      c->add_option("--seeds", opt->seeds, "seeds on the pits it covers (default by size)")
          ->check(in_range(0, kMaxEgtbSeeds));
      c->add_option("--dir", opt->dir, "folder (default $KZ_EGTB_DIR or ~/.cache/kumalak/egtb)");
    }
    build->callback([opt, &exit_code] { exit_code = run_egtb(*opt, true); });
    info->callback([opt, &exit_code] { exit_code = run_egtb(*opt, false); });
  }
  register_perfect_check(app, exit_code);
}

}  // namespace kz::cli
