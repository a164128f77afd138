// kumalak puzzle: one puzzle in the terminal (the day's, one by id or a random one), the
// player's answer judged with the engine's reasons, the line played out and the
// player's puzzle rating (Glicko-2, core/puzzle_rating.h) updated.
//
// kumalak puzzles build: mines puzzles (positions where one move is clearly best) from
// recorded games and self-play and writes a puzzle file (core/puzzle_file.h). How the
// positions are filtered, confirmed and rated is mcts/puzzle_miner.h; docs/puzzles.md
// has the format, the themes and the commands that built the shipped sets.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <unordered_set>

#include "core/i18n.h"
#include "core/notation.h"
#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/puzzle_title.h"
#include "core/rated_games.h"
#include "mcts/advice.h"
#include "mcts/kalah_solver.h"
#include "mcts/levels.h"
#include "mcts/puzzle_miner.h"
#include "nn/model_evaluator.h"
#include "nn/puzzle_human_rating.h"
#include "tools/board_view.h"
#include "tools/command_error.h"
#include "tools/command_input.h"
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
  const bool by_human = opt.rated_by == "human" ||
                        (opt.rated_by == "auto" &&
                         (!opt.human_model.empty() || !shipped_human_model_path(spec).empty()));
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
  const auto mine_start = elapsed();
  auto report = [&](const PuzzleMiningProgress& p, bool final) {
    const double t = elapsed() - mine_start;
    const double rate = t > 0 ? p.puzzles / t : 0;
    std::string eta = "unknown";
    if (rate > 0 && int(p.puzzles) < opt.count)
      eta = minutes_text((opt.count - int(p.puzzles)) / rate);
    std::fprintf(stderr,
                 "kumalak puzzles build: %zu/%zu positions filtered, %zu candidates, %zu puzzles, "
                 "%.2f puzzles/s, %s%s\n",
                 p.filtered, p.positions, p.candidates, p.puzzles, rate,
                 final ? "done in " : "ETA ",
                 final ? minutes_text(elapsed()).c_str() : eta.c_str());
  };
  const PuzzleMiningLimits limits{opt.count, opt.max_per_game, opt.batch};
  MinedPuzzles mined = mine_puzzles(miner, positions, limits, [&](const PuzzleMiningProgress& p) {
    if (elapsed() < next_report) return;
    report(p, false);
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
    std::filesystem::path parent = std::filesystem::path(out_path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    write_puzzle_file(out_path, set);
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzles build", e);
    return 1;
  }
  report(mined.progress, true);
  std::cout << "wrote " << set.puzzles.size() << " puzzles to " << out_path << " (";
  bool first = true;
  for (const auto& [name, n] : puzzle_theme_counts(set.puzzles)) {
    std::cout << (first ? "" : ", ") << name << " " << n;
    first = false;
  }
  std::cout << ")\n";
  return int(set.puzzles.size()) < opt.count ? 3 : 0;
}

struct PuzzleOptions {
  std::string game = "togyz";
  std::string file;     // "" = the shipped puzzle file of the game
  std::string id;       // a puzzle by id
  bool random = false;  // a random puzzle instead of the day's
  uint64_t seed = 0;    // --random's seed (0 = from the clock)
  std::string date;     // the day of the daily puzzle ("" = today, UTC)
  std::string ratings;  // the rating file ("" = default_puzzle_ratings_path())
  std::string lang;     // --lang: the language of what the player reads
};

// The move as a person names it: "hole 9 (99)" in Togyz, "pit 3" in Kalah.
std::string move_name(const Position& pos, int move) {
  using i18n::tr;
  if (pos.is_togyz())
    return tr("hole {hole} ({notation})",
              {{"hole", move + 1}, {"notation", format_move(pos, move)}});
  return tr("pit {pit}", {{"pit", move + 1}});
}

int run_puzzle(const PuzzleOptions& opt) {
  using i18n::tr;
  apply_language(opt.lang);
  GameSpec spec;
  try {
    spec = GameSpec::parse(opt.game);
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzle", e);
    return 2;
  }
  if (!opt.id.empty() && (opt.random || !opt.date.empty())) {
    print_command_error("kumalak puzzle", tr("give --id, --random or --date, one of them"));
    return 2;
  }
  PuzzleSet set;
  PuzzleRatings ratings;
  const std::string ratings_path =
      opt.ratings.empty() ? default_puzzle_ratings_path() : opt.ratings;
  try {
    set = read_puzzle_file(opt.file.empty() ? shipped_puzzle_path(spec) : opt.file);
    if (!(set.spec == spec))
      throw ParseError(tr("the puzzle file holds {file_game} puzzles, not {game}",
                          {{"file_game", set.spec.name()}, {"game", spec.name()}}));
    if (set.puzzles.empty()) throw ParseError(tr("the puzzle file holds no puzzle"));
    ratings = read_puzzle_ratings(ratings_path);
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzle", e);
    return 2;
  }
  size_t index = 0;
  try {
    index = choose_puzzle(set, {opt.id, opt.random, opt.seed, opt.date});
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzle", e);
    return 2;
  }
  const Puzzle& z = set.puzzles[index];
  const Position& pos = z.position;
  const bool color = stdout_wants_color();
  const std::string labels[2] = {"", ""};
  std::cout << puzzle_title(z) << "\n"
            << render_board(pos, pos.to_move, LastMove{}, color, labels)
            << tr("{side} to move: find the best move.", {{"side", side_name(pos, pos.to_move)}})
            << "\n";
  int played = -1;
  for (std::string line;;) {
    std::cout << (pos.is_togyz() ? tr("Your move (a hole number, or quit): ")
                                 : tr("Your move (a pit number, or quit): "))
              << std::flush;
    if (!std::getline(command_input(), line) || line == "quit" || line == "q") {
      std::cout << "\n" << tr("No answer: the puzzle is not rated.") << "\n";
      return 0;
    }
    std::istringstream ss(line);
    std::string token;
    if (!(ss >> token)) continue;
    if (const std::optional<int> move = read_puzzle_answer(spec, pos, token)) {
      played = *move;
      break;
    }
    std::cout << tr("'{move}' is not a legal move here.", {{"move", token}}) << "\n";
  }
  const int key = z.key_move();
  const bool solved = played == key;
  if (solved)
    std::cout << tr("Correct: {move} is the best move; it {reason}.",
                    {{"move", move_name(pos, key)}, {"reason", explain_move(pos, key)}})
              << "\n";
  else
    std::cout << tr("Not the best move: {played} {played_reason}. The solution is {move}: it "
                    "{reason}.",
                    {{"played", move_name(pos, played)},
                     {"played_reason", explain_move(pos, played)},
                     {"move", move_name(pos, key)},
                     {"reason", explain_move(pos, key)}})
              << "\n";
  std::cout << tr("The line: {line}.", {{"line", line_notation(pos, z.solution)}}) << "\n";
  Position end = pos;
  for (size_t i = 0; i + 1 < z.solution.size(); ++i) end.play(z.solution[i]);
  const LastMove last = last_move_of(end, z.solution.back());
  end.play(z.solution.back());
  std::cout << render_board(end, pos.to_move, last, color, labels);

  const PuzzleAttempt attempt = record_puzzle_attempt(ratings, set, z, solved);
  if (attempt.tried_before) {
    std::cout << tr("You have tried this puzzle before, so your puzzle rating stays {rating}.",
                    {{"rating", int(std::lround(attempt.before.rating))}})
              << "\n";
    return 0;
  }
  try {
    write_puzzle_ratings(ratings_path, ratings);
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzle", e);
    return 1;
  }
  std::cout << tr("Your puzzle rating: {before} -> {after} (give or take {deviation}).",
                  {{"before", int(std::lround(attempt.before.rating))},
                   {"after", int(std::lround(attempt.after.rating))},
                   {"deviation", int(std::lround(2 * attempt.after.deviation))}})
            << "\n";
  return 0;
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

  auto popt = std::make_shared<PuzzleOptions>();
  auto* puzzle = app.add_subcommand(
      "puzzle",
      tr_noop("Solve a puzzle: the day's by default; your rating kept (docs/puzzles.md)"));
  add_game_option(puzzle, popt->game);
  puzzle->add_option("--file", popt->file, tr_noop("the puzzle file (default: the shipped one)"));
  puzzle->add_option("--id", popt->id, tr_noop("the puzzle of this id"));
  puzzle->add_flag("--random", popt->random, tr_noop("a random puzzle instead of the day's"));
  puzzle->add_option("--seed", popt->seed, tr_noop("--random's seed (default: the clock)"))
      ->check(in_range(uint64_t(0), std::numeric_limits<uint64_t>::max()));
  puzzle->add_option("--date", popt->date,
                     tr_noop("the daily puzzle of this date (YYYY-MM-DD; default today, UTC)"));
  puzzle->add_option(
      "--ratings", popt->ratings,
      tr_noop("the rating file (default: $XDG_CONFIG_HOME/kumalak/puzzle-rating.txt)"));
  add_lang_option(puzzle, popt->lang);
  puzzle->callback([popt, &exit_code] { exit_code = run_puzzle(*popt); });
}

}  // namespace kz::cli
