// kumalak perfect-check: how often a Kalah level's moves keep the perfect-play margin, on
// positions from the level's own games, and whole games against perfect play (the
// benchmark of docs/levels.md). What it computes is tools/perfect_check.h's, its
// reference solver's table tools/solver_tables.h's; this file keeps the options and the
// printing.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "core/numbers.h"
#include "mcts/levels.h"
#include "mcts/perfect_player.h"
#include "nn/model_evaluator.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/perfect_check.h"
#include "tools/solver_options.h"
#include "tools/solver_tables.h"

namespace kz::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  std::shared_ptr<const KalahEndgameDb> db;
  std::unique_ptr<Player> player;
  try {
    db = command_egtb(spec, opt.egtb_seeds, opt.egtb_dir, &std::cerr).db;
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

}  // namespace

// Registered by register_solve (tools/cmd_solve.cpp) after solve and egtb.
void register_perfect_check(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand(
      "perfect-check", "Kalah: how often a level keeps the perfect-play margin (benchmark)");
  add_kalah_game_option(cmd, opt->game);
  add_level_option(cmd, opt->level);  // the level to judge
  add_model_option(cmd, opt->model);
  cmd->add_option("--positions", opt->positions, "positions to judge")->check(in_range(1, 100000));
  cmd->add_option("--games", opt->games, "whole games against perfect play, per colour")
      ->check(in_range(0, 100000));
  add_seed_option(cmd, opt->seed);
  add_time_scale_option(cmd, opt->time_scale);
  cmd->add_option("--solve-seconds", opt->solve_s, "reference solver's limit per position")
      ->check(in_range(0.0, kMaxMoveTimeSeconds));
  add_solver_options(cmd, opt->egtb_seeds, opt->egtb_dir, opt->hash_mib);
  cmd->callback([opt, &exit_code] { exit_code = run_check(*opt); });
}

}  // namespace kz::cli
