// kumalak analyze: replays recorded games, evaluates every position with the engine and
// writes the games back as PGN with a comment after each move (White's win chance and
// expected margin after the move, and the engine's move where it preferred another),
// marking inaccuracies, mistakes and blunders, then prints a summary per player. How a
// move is judged is mcts/analysis.h's (shared with `kumalak serve`); what this command
// computes is tools/analyze_games.h, what it shows tools/analyze_report.h.
#include <iostream>
#include <memory>

#include "core/atomic_file.h"
#include "core/i18n.h"
#include "mcts/levels.h"
#include "tools/analyze_games.h"
#include "tools/analyze_report.h"
#include "tools/by_player_pool.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/json_text.h"

namespace kz::cli {

namespace {

// Each message as the command's error.
void print_error(const std::string& message) {
  print_command_error("kumalak analyze", message);
}

// kumalak analyze --player-report: one player's games and the rating over all of them.
int run_player_report(const AnalyzeOptions& opt, const GameSpec& spec, Level level) {
  using i18n::tr;
  bool read_all = true;
  const std::vector<GameRecord> records = read_record_files(opt.files, print_error, read_all);
  int status = read_all ? 0 : 1;
  const std::string player = opt.player.empty() ? most_frequent_player(records) : opt.player;
  if (player.empty()) {
    print_error(tr("no game names its players"));
    return 1;
  }
  AnalysisWorkers tools;
  try {
    load_analysis_workers(spec, analysis_human_path(spec, opt.human_model),
                          {level, opt.model, opt.visits, opt.movetime}, opt.threads, tools);
  } catch (const std::exception& e) {
    print_command_error("kumalak analyze", e, tools.human.path);
    return 2;
  }
  const TimedPlayerReport timed = timed_player_report(records, spec, player, tools.workers);
  for (const SkippedGame& g : timed.report.skipped)
    print_error(tr("skipped: {reason}", {{"reason", g.reason}}));
  if (timed.report.games.empty()) {
    print_error(tr("no game of '{player}' could be analysed", {{"player", player}}));
    return 1;
  }
  if (!timed.report.skipped.empty()) status = 1;
  if (opt.json)
    std::cout << json_text(player_report_json(player, timed, tools.engines.empty() ? 0 : opt.visits,
                                              int(tools.workers.size()), tools.human.path))
              << "\n";
  else
    std::cout << player_report_text(player, timed.report);
  return status;
}

// kumalak analyze --by-player: the estimate over many games measured on a fold's rated
// games (docs/human.md, "A player's rating from many games").
int run_by_player(const AnalyzeOptions& opt, const GameSpec& spec) {
  FoldSelection fold;
  HeldOut held_out;
  std::vector<std::vector<GameRecord>> files;
  AnalysisWorkers tools;
  try {
    fold = parse_fold_selection(opt.fold);
    held_out = parse_held_out(opt.held_out);
    files = read_game_files(opt.files);
    load_analysis_workers(spec, analysis_human_path(spec, opt.human_model), {}, opt.threads, tools);
  } catch (const std::exception& e) {
    print_command_error("kumalak analyze", e);
    return 2;
  }
  if (!tools.human.head) {
    print_error("--by-player: " + i18n::tr("no human model for this game; give --human-model"));
    return 2;
  }
  const TimedByPlayer timed =
      timed_by_player(std::move(files), fold, held_out, spec, opt.min_games, tools.workers,
                      by_player_variants(opt.likelihood_scales, opt.without_opponents));
  for (const SkippedGame& g : timed.skipped)
    print_error(i18n::tr("skipped: {reason}", {{"reason", g.reason}}));
  if (timed.evaluation.players < 2) {
    print_error("--by-player: fewer than two players with " + std::to_string(opt.min_games) +
                "+ rated games in the fold");
    return 1;
  }
  const ByPlayerSetup setup = by_player_setup(opt, tools);
  if (opt.json)
    std::cout << json_text(by_player_json(timed, setup)) << "\n";
  else
    std::cout << by_player_text(timed, setup);
  return 0;
}

// kumalak analyze --pool-by-player: the folds of a cross-validation in one table.
int run_pool_by_player(const AnalyzeOptions& opt) {
  PooledByPlayer pooled;
  try {
    pooled = pool_by_player_files(opt.files);
  } catch (const ParseError& e) {
    print_command_error("kumalak analyze", e);
    return 2;
  }
  if (opt.json)
    std::cout << json_text(pooled_by_player_json(pooled)) << "\n";
  else
    std::cout << pooled_by_player_text(pooled);
  return 0;
}

// The annotated records into `output` (or standard output, the summary then in ';'
// comment lines, so that it stays one PGN file) and the summary.
int write_analysis(const GamesAnalysis& analysis, const std::string& output) {
  if (output.empty()) {
    std::cout << pgn_with_summary(analysis);
    return 0;
  }
  try {
    write_file_atomically(output, [&](std::ostream& o) { o << analysis.pgn; });
  } catch (const std::exception& e) {
    print_command_error("kumalak analyze", e);
    return 1;
  }
  std::cout << analysis_summary_text(analysis);
  return 0;
}

int run_analyze(const AnalyzeOptions& opt) {
  apply_language(opt.lang);
  GameSpec spec;
  Level level;
  GameRanges selection;
  try {
    spec = GameSpec::parse(opt.game);
    level = parse_level(opt.level);
    if (!opt.games.empty()) selection = parse_game_ranges(opt.games);
  } catch (const ParseError& e) {
    print_command_error("kumalak analyze", e);
    return 2;
  }
  if (opt.files.empty()) {
    print_error(i18n::tr("give a PGN file"));
    return 2;
  }
  if (opt.pool_by_player) return run_pool_by_player(opt);
  if (opt.by_player) return run_by_player(opt, spec);
  if (opt.player_report || !opt.player.empty()) return run_player_report(opt, spec, level);
  std::unique_ptr<Player> engine;
  try {
    engine = games_engine(spec, level, opt.model, opt.depth);
  } catch (const std::exception& e) {
    print_command_error("kumalak analyze", e);
    return 2;
  }
  // The rating estimate needs a human model: given, or shipped for the game (Togyz).
  const std::string human_path = analysis_human_path(spec, opt.human_model);
  AnalysisHuman human;
  try {
    human = load_analysis_human(spec, human_path);
  } catch (const std::exception& e) {
    print_command_error("kumalak analyze", e, human_path);
    return 2;
  }
  ThinkLimits limits;
  limits.movetime_s = opt.movetime;
  limits.depth = opt.depth;
  const GamesAnalysis analysis =
      analyze_game_files(opt.files, spec, selection, *engine, limits, human, print_error);
  // Nothing reaches standard output unless some game was analysed.
  if (analysis.games.empty()) {
    if (!analysis.had_errors) print_error(i18n::tr("no game selected"));
    return 1;
  }
  const int written = write_analysis(analysis, opt.output);
  return written != 0 ? written : analysis.had_errors ? 1 : 0;
}

}  // namespace

void register_analyze(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<AnalyzeOptions>();
  auto* cmd =
      app.add_subcommand("analyze", tr_noop("Annotate recorded games with the engine's judgement"));
  cmd->add_option(tr_noop("files"), opt->files, tr_noop("PGN files"))->required();
  add_game_option(cmd, opt->game);
  add_level_option(cmd, opt->level);
  add_model_option(cmd, opt->model);
  cmd->add_option(
      "--human-model", opt->human_model,
      tr_noop("human policy model for each player's rating estimate (default: the shipped "
              "models/GAME-human.pt, Togyz)"));
  add_movetime_option(cmd, opt->movetime);
  add_depth_option(cmd, opt->depth);
  cmd->add_option("--output,-o", opt->output, tr_noop("write the annotated PGN here"));
  cmd->add_option("--games", opt->games, tr_noop("which games of each file, e.g. 1-3 or 2,5"));
  cmd->add_flag("--player-report", opt->player_report,
                tr_noop("one player's games: a line each (date, opponent, colour, result, "
                        "accuracy) and the rating estimate over all of them"));
  cmd->add_option("--player", opt->player,
                  tr_noop("the player of --player-report (default: the name playing most "
                          "games in the files)"));
  cmd->add_option("--visits", opt->visits,
                  tr_noop("--player-report: the engine's visits per position for the accuracy "
                          "(0: no accuracy)"))
      ->check(in_range<int64_t>(0, 1000000000));
  cmd->add_option("--threads", opt->threads,
                  tr_noop("--player-report, --by-player: games analysed at once, one thread each"))
      ->check(in_range(1, kMaxThreads));
  cmd->add_flag("--json", opt->json, tr_noop("--player-report, --by-player: one JSON object"));
  cmd->add_flag("--by-player", opt->by_player,
                tr_noop("measure the rating estimate over many games on a fold's rated games, "
                        "players grouped by name (docs/human.md)"));
  cmd->add_option("--fold", opt->fold, tr_noop("--by-player: validation, train or all"));
  cmd->add_option("--held-out", opt->held_out,
                  tr_noop("--by-player: J/K, the validation fold is the J-th of K slices of the "
                          "games (a cross-validation's fold; default 0/10, the shipped split)"));
  cmd->add_flag("--pool-by-player", opt->pool_by_player,
                tr_noop("the files are --by-player --json answers of the K folds of a "
                        "cross-validation (--held-out 0/K to K-1/K): one table of all their "
                        "players"));
  cmd->add_option("--likelihood-scales", opt->likelihood_scales,
                  tr_noop("--by-player: the tempered likelihoods to compare, e.g. 1,0.5,0.25"))
      ->delimiter(',')
      ->check(in_range(1e-6, 1.0));
  cmd->add_flag("--without-opponents", opt->without_opponents,
                tr_noop("--by-player: each row again without the opponents' moves"));
  cmd->add_option("--min-games", opt->min_games,
                  tr_noop("--by-player: the fewest rated games a player must have"))
      ->check(in_range(1, 1000000));
  add_lang_option(cmd, opt->lang);
  cmd->callback([opt, &exit_code] { exit_code = run_analyze(*opt); });
}

}  // namespace kz::cli
