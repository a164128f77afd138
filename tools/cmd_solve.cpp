// kumalak solve / egtb / perfect-check: perfect play for Kalah (mcts/kalah_solver.h).
//   solve          the exact final margin of a position, its perfect move and line, with
//                  time, nodes and peak memory (the benchmark of docs/levels.md)
//   egtb build     builds an endgame database into the cache folder; egtb info checks one
//   perfect-check  how often a level's moves keep the perfect-play margin, on positions
//                  from the level's own games, and whole games against perfect play
//                  (computed by tools/perfect_check.h)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>

#include "core/notation.h"
#include "core/numbers.h"
#include "mcts/advice.h"
#include "mcts/levels.h"
#include "mcts/perfect_player.h"
#include "nn/model_evaluator.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/exact_result_words.h"
#include "tools/perfect_check.h"

namespace kz::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // Linux: KiB
}

// The table a command asked for: --egtb-seeds N (0 = none, -1 = the largest cached or the default).
std::shared_ptr<const KalahEndgameDb> command_db(const GameSpec& spec, int seeds,
                                                 const std::string& dir, double& seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const KalahEndgameDb> db;
  const std::string folder = dir.empty() ? default_egtb_dir() : dir;
  if (seeds < 0) seeds = cached_or_default_egtb_seeds(spec, folder);
  if (seeds > 0) db = load_or_build_egtb(spec, seeds, folder, &std::cerr);
  seconds = seconds_since(t0);
  return db;
}

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
    if (!opt.position.empty() && !opt.moves.empty())
      throw ParseError("give --position or --moves, not both");
    pos = !opt.moves.empty()
              ? replay_moves(parse_move_list(opt.moves), Position::start(spec)).final_position
          : !opt.position.empty() ? Position::parse(opt.position, spec)
                                  : Position::start(spec);
  } catch (const ParseError& e) {
    print_command_error("kumalak solve", e);
    return 2;
  }
  double db_s = 0;
  std::shared_ptr<const KalahEndgameDb> db;
  try {
    db = command_db(spec, opt.egtb_seeds, opt.egtb_dir, db_s);
  } catch (const std::exception& e) {
    print_command_error("kumalak solve", e);
    return 1;
  }
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
              db_s);
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
  const int seeds = opt.seeds < 0 ? default_egtb_seeds(spec) : opt.seeds;
  const std::string dir = opt.dir.empty() ? default_egtb_dir() : opt.dir;
  const std::string path =
      (std::filesystem::path(dir) / egtb_file_name(spec.variant, spec.pits, seeds)).string();
  try {
    const auto t0 = std::chrono::steady_clock::now();
    if (build) {
      const KalahEndgameDb db =
          KalahEndgameDb::build(spec.variant, spec.pits, seeds, [](int level, double s) {
            std::fprintf(stderr, "  %2d seeds done, %.1f s\n", level, s);
          });
      const double built_s = seconds_since(t0);
      std::filesystem::create_directories(dir);
      db.save(path);
      std::printf("built %s: %llu positions, %llu bytes, crc32 %08x, %.1f s, peak_rss_mib %.0f\n",
                  path.c_str(), (unsigned long long)db.size(), (unsigned long long)db.size(),
                  db.checksum(), built_s, peak_rss_mib());
    } else {
      const KalahEndgameDb db = KalahEndgameDb::load(path, spec.variant, spec.pits, seeds);
      std::printf("%s: %d pits, %s capture, up to %d seeds, %llu positions, crc32 %08x (checked)\n",
                  path.c_str(), db.pits(),
                  db.variant() == Variant::kKalahEmpty ? "empty" : "standard", db.max_seeds(),
                  (unsigned long long)db.size(), db.checksum());
    }
  } catch (const std::exception& e) {
    print_command_error(who, e);
    return 1;
  }
  return 0;
}

struct CheckOptions {
  std::string game = "kalah";
  std::string level = "expert";
  std::string model;
  int positions = 300;
  int games = 0;  // whole games against perfect play, each colour
  uint64_t seed = 1;
  double time_scale = 1.0;
  double solve_s = 120;  // the reference solver's limit per position
  int egtb_seeds = -1;
  std::string egtb_dir;
  int hash_mib = 256;
};

int run_check(const CheckOptions& opt) {
  GameSpec spec;
  Level level;
  try {
    spec = GameSpec::parse(opt.game);  // a Kalah game: add_kalah_game_option
    level = parse_level(opt.level);
  } catch (const ParseError& e) {
    print_command_error("kumalak perfect-check", e);
    return 2;
  }
  double db_s = 0;
  std::shared_ptr<const KalahEndgameDb> db;
  std::unique_ptr<Player> player;
  try {
    db = command_db(spec, opt.egtb_seeds, opt.egtb_dir, db_s);
    LevelPlayerOptions lo;
    lo.time_scale = opt.time_scale;
    lo.seed = opt.seed;
    lo.network = load_model_evaluator;
    player = make_level_player(spec, level, opt.model, lo);
  } catch (const std::exception& e) {
    print_command_error("kumalak perfect-check", e);
    return 2;
  }
  KalahSolver referee(opt.hash_mib, db);
  SolveLimits sl;
  sl.movetime_s = opt.solve_s;
  std::printf("%s, level %s (%s), reference solver: egtb %d seeds, %.0f s limit a position\n",
              spec.name().c_str(), level_name(level), player->name().c_str(),
              db ? db->max_seeds() : 0, opt.solve_s);
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  // Running totals after each game, so that a run stopped early still tells what it found.
  const PositionsCheck check = check_positions(
      spec, *player, referee, sl, opt.positions, opt.seed, [&](const PositionsCheck& c) {
        std::fprintf(stderr,
                     "  game %d: %d positions judged (result kept %d, margin kept %d, worst loss "
                     "%d), %d left out, %.0f s\n",
                     c.games, c.all.n, c.all.keep_result, c.all.keep_margin, c.all.worst,
                     c.unsolved, seconds_since(t0));
      });
  std::fputs(check.all.text("all positions").c_str(), stdout);
  std::fputs(check.decided.text("positions where a store holds more than half").c_str(), stdout);
  std::printf("unsolved by the reference (left out): %d; %d games; level %.2f s a move\n",
              check.unsolved, check.games, check.think_n ? check.think_s / check.think_n : 0.0);
  // Whole games from the start against perfect play, the level on each side.
  if (opt.games > 0) {
    const std::optional<int> start = perfect_start_margin(spec, referee, sl);
    if (!start) {
      std::printf("whole games: the start is not solved within %.0f s\n", opt.solve_s);
      return 1;
    }
    for (int g = 0; g < opt.games; ++g)
      for (int side = 0; side < 2; ++side) {
        const int got = play_against_perfect(spec, *player, referee, side);
        const int perfect = side == 0 ? *start : -*start;
        std::printf("whole game %d as %s: %+d (perfect play %+d)%s\n", g + 1,
                    side == 0 ? "first player" : "second player", got, perfect,
                    got == perfect ? "" : "  <- differs");
        std::fflush(stdout);
      }
  }
  std::printf("time %.0f s, peak_rss_mib %.0f\n", seconds_since(t0), peak_rss_mib());
  return 0;
}

// The most seeds on the pits an endgame database covers (mcts/kalah_solver.cpp).
constexpr int kMaxEgtbSeeds = 40;

// The endgame database and the transposition table of the solver, in solve and in
// perfect-check's reference solver.
void add_solver_options(CLI::App* cmd, int& egtb_seeds, std::string& egtb_dir, int& hash_mib) {
  cmd->add_option("--egtb-seeds", egtb_seeds,
                  "endgame database size in seeds on the pits (0: none; default: the largest in "
                  "the folder, else by size)")
      ->check(in_range(-1, kMaxEgtbSeeds));
  cmd->add_option("--egtb-dir", egtb_dir, "endgame database folder (default: the cache)");
  cmd->add_option("--hash", hash_mib, "transposition table MiB")->check(in_range(1, 65536));
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
  {
    auto opt = std::make_shared<CheckOptions>();
    auto* cmd = app.add_subcommand(
        "perfect-check", "Kalah: how often a level keeps the perfect-play margin (benchmark)");
    add_kalah_game_option(cmd, opt->game);
    add_level_option(cmd, opt->level);  // the level to judge
    add_model_option(cmd, opt->model);
    cmd->add_option("--positions", opt->positions, "positions to judge")
        ->check(in_range(1, 100000));
    cmd->add_option("--games", opt->games, "whole games against perfect play, per colour")
        ->check(in_range(0, 100000));
    add_seed_option(cmd, opt->seed);
    add_time_scale_option(cmd, opt->time_scale);
    cmd->add_option("--solve-seconds", opt->solve_s, "reference solver's limit per position")
        ->check(in_range(0.0, kMaxMoveTimeSeconds));
    add_solver_options(cmd, opt->egtb_seeds, opt->egtb_dir, opt->hash_mib);
    cmd->callback([opt, &exit_code] { exit_code = run_check(*opt); });
  }
}

}  // namespace kz::cli
