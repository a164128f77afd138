// kumalak puzzles build: mines puzzles (positions where one move is clearly best) from
// recorded games and self-play and writes a puzzle file (core/puzzle_file.h). How the
// positions are filtered, confirmed and rated is mcts/puzzle_miner.h; docs/puzzles.md
// has the format, the themes and the commands that built the shipped sets. What it
// computes is tools/puzzle_build.h. `kumalak puzzle` is tools/cmd_puzzle.cpp.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <random>

#include "core/puzzle_file.h"
#include "core/rated_games.h"
#include "mcts/kalah_solver.h"
#include "mcts/levels.h"
#include "mcts/puzzle_miner.h"
#include "nn/model_evaluator.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_level.h"
#include "tools/puzzle_build.h"

namespace kz::cli {

namespace {

struct PuzzlesBuildOptions {
  std::string game = "togyz";
  std::string model;                    // "" = the shipped model
  std::vector<std::string> games_dirs;  // folders of *.pgn records to mine
  int selfplay_games = 0;               // games of network self-play to mine as well
  int count = 500;                      // stop once this many puzzles are found
  int max_per_game = 2;                 // puzzles from one game at most
  int min_ply = 4;                      // positions before this ply are skipped
  int batch = 256;                      // positions per filter batch
  std::string out;                      // "" = the shipped puzzle file
  uint64_t seed = 1;
  // What rates the puzzles: "human" (the human model's policy, nn/puzzle_human_rating.h),
  // "search" (the search effort, PuzzleMiner) or "auto" (human where the game has a
  // human model, search elsewhere).
  std::string rated_by = "auto";
  std::string human_model;   // "" = the shipped one
  std::string fold = "all";  // the recorded games mined: train, validation or all
  PuzzleMinerOptions miner;
};

int run_puzzles_build(const PuzzlesBuildOptions& opt) {
  GameSpec spec;
  try {
    spec = GameSpec::parse(opt.game);
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzles build", e);
    return 2;
  }
  const std::string model = opt.model.empty() ? shipped_model_path(spec) : opt.model;
  const std::string out_path = opt.out.empty() ? shipped_puzzle_path(spec) : opt.out;
  if (model.empty()) {
    print_command_error("kumalak puzzles build", "no model for " + spec.name() + ": give --model");
    return 2;
  }
  if (opt.games_dirs.empty() && opt.selfplay_games == 0) {
    print_command_error("kumalak puzzles build", "give --games-dir and/or --selfplay-games");
    return 2;
  }
  FoldSelection fold;
  try {
    fold = parse_fold_selection(opt.fold);
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzles build", e, "--fold");
    return 2;
  }
  // The human model that rates the puzzles, loaded before the mining so that a missing
  // or broken one is said at once.
  std::unique_ptr<HumanHead> human;
  const bool by_human = rates_by_human(opt.rated_by, opt.human_model, spec);
  if (by_human) {
    try {
      human = load_human_policy(spec, opt.human_model);
    } catch (const std::exception& e) {
      print_command_error("kumalak puzzles build", e, "--rated-by human");
      return 2;
    }
  }
  PuzzleMinerOptions miner_options = opt.miner;
  miner_options.rate_by_search = !by_human;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::shared_ptr<Evaluator> evaluator;
  std::vector<PuzzleCandidate> positions;
  int game_number = 0;
  try {
    evaluator = load_model_evaluator(spec, model, 1);
    for (const auto& dir : opt.games_dirs)
      add_recorded_positions(dir, spec, opt.min_ply, fold, positions, game_number, std::cerr);
    if (opt.selfplay_games > 0)
      add_selfplay_positions(*evaluator, spec, opt.selfplay_games, opt.min_ply, opt.seed, positions,
                             game_number);
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzles build", e);
    return 1;
  }
  std::cerr << "kumalak puzzles build: " << positions.size() << " positions from " << game_number
            << " games (" << minutes_text(elapsed()) << ")\n";
  std::shuffle(positions.begin(), positions.end(), std::mt19937_64(opt.seed));

  std::unique_ptr<KalahSolver> solver;
  if (!spec.is_togyz()) {
    try {
      auto db = load_or_build_egtb(spec, default_egtb_seeds(spec), default_egtb_dir(), &std::cerr);
      solver = std::make_unique<KalahSolver>(256, db);
    } catch (const std::exception& e) {
      print_command_error("kumalak puzzles build", e);
      return 1;
    }
  }
  PuzzleMiner miner(spec, evaluator, miner_options, solver.get());
  double next_report = 0;
  const double mine_start = elapsed();
  const PuzzleMiningLimits limits{opt.count, opt.max_per_game, opt.batch};
  MinedPuzzles mined = mine_puzzles(miner, positions, limits, [&](const PuzzleMiningProgress& p) {
    if (elapsed() < next_report) return;
    std::cerr << mining_line(p, opt.count, elapsed() - mine_start, elapsed(), false);
    next_report = elapsed() + 10;
  });
  PuzzleSet set;
  set.spec = spec;
  set.puzzles = std::move(mined.puzzles);
  try {
    rate_and_sort_puzzles(set.puzzles, human.get());
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzles build", e, "rating by the human model");
    return 1;
  }
  try {
    write_puzzle_set(out_path, set);
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzles build", e);
    return 1;
  }
  std::cerr << mining_line(mined.progress, opt.count, elapsed() - mine_start, elapsed(), true);
  std::cout << written_puzzles_text(set, out_path);
  return int(set.puzzles.size()) < opt.count ? 3 : 0;
}

}  // namespace

void register_puzzles(CLI::App& app, int& exit_code) {
  auto* puzzles = app.add_subcommand("puzzles", "Build puzzle files from games");
  puzzles->require_subcommand(1);
  auto opt = std::make_shared<PuzzlesBuildOptions>();
  auto* build = puzzles->add_subcommand(
      "build", "Mine positions where one move is clearly best (docs/puzzles.md)");
  add_game_option(build, opt->game);
  add_model_option(build, opt->model);
  build
      ->add_option("--games-dir", opt->games_dirs, "a folder of *.pgn records to mine (repeatable)")
      ->check(CLI::ExistingDirectory);
  build
      ->add_option("--selfplay-games", opt->selfplay_games,
                   "games of network self-play to mine as well")
      ->check(in_range(0, 100000));
  build->add_option("--count", opt->count, "stop once this many puzzles are found")
      ->check(in_range(1, 1000000));
  build->add_option("--max-per-game", opt->max_per_game, "puzzles from one game at most")
      ->check(in_range(1, 1000));
  build->add_option("--min-ply", opt->min_ply, "skip the positions before this ply")
      ->check(in_range(0, 1000));
  build->add_option("--batch", opt->batch, "positions per batch of the one-ply filter")
      ->check(in_range(1, 4096));
  build
      ->add_option("--margin", opt->miner.min_gap,
                   "the key move's expected score beats every other move's by this, each "
                   "confirmed by its own search")
      ->check(in_range(0.01, 1.0));
  build
      ->add_option("--filter-margin", opt->miner.filter_gap,
                   "the one-ply gap a position needs to be searched at all")
      ->check(in_range(0.0, 1.0));
  build
      ->add_option("--min-best", opt->miner.min_best,
                   "the key move's expected score at least (it must hold)")
      ->check(in_range(0.0, 1.0));
  build
      ->add_option("--confirm-visits", opt->miner.confirm_visits,
                   "visits of each move's own confirming search")
      ->check(in_range(int64_t(1), int64_t(1000000)));
  build
      ->add_option("--rating-visits", opt->miner.max_rating_visits,
                   "the largest search of the rating ladder (1, 2, 4, ... visits)")
      ->check(in_range(int64_t(1), int64_t(1000000)));
  build
      ->add_option("--solver-seconds", opt->miner.solver_seconds,
                   "Kalah: seconds of the exact solver per position")
      ->check(in_range(0.01, 3600.0));
  build
      ->add_option("--rated-by", opt->rated_by,
                   "what rates the puzzles: human (the human model's policy), search (the "
                   "search effort) or auto (human where the game has a human model)")
      ->check(CLI::IsMember({"auto", "human", "search"}));
  build->add_option("--human-model", opt->human_model,
                    "the human model that rates the puzzles (default: the shipped one)");
  build->add_option("--fold", opt->fold,
                    "the recorded games to mine: train, validation or all (the held-out split "
                    "of core/rated_games.h)");
  build->add_option("--out,-o", opt->out, "the puzzle file (default: the shipped one)");
  add_seed_option(build, opt->seed);
  build->callback([opt, &exit_code] {
    opt->miner.seed = opt->seed;
    exit_code = run_puzzles_build(*opt);
  });
  register_puzzles_rating(puzzles, exit_code);

  register_puzzle(app, exit_code);
}

}  // namespace kz::cli
