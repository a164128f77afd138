// kumalak openings: the opening explorer (core/opening_explorer.h). For a position, each
// move played there in the explorer's games with the number of games, the mover's score,
// wins/draws/losses, the mean rating of the players who chose it and a bar; optionally
// the engine's evaluation of each move and what the human model says players of a rating
// play. --json answers programs (docs/openings.md describes the object).
//
// kumalak openings build: reads PGN records (PlayOK exports, tournament files) and the
// self-play shards of a run and writes an explorer file; docs/openings.md has the command
// that rebuilt the shipped one.
//
// What they compute is tools/opening_build.h and tools/opening_query.h; this file reads
// the options and prints.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/opening_explorer.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/json_text.h"
#include "tools/opening_build.h"
#include "tools/opening_query.h"
#include "train/progress.h"

namespace kz::cli {

namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- build ------------------------------------------------------------------------

struct BuildOptions {
  std::string game = "togyz";
  std::string out;
  int min_games = 3;
  int max_plies = 30;
  // NAME=LABEL: the games of the input file NAME (as given, or its file name) count as
  // LABEL (auto, titled, engine).
  std::vector<std::string> labels;
  std::vector<std::string> inputs;
};

// The explorer of `input` with a progress line on standard error every 2 s.
ExplorerBuild build_with_progress(const ExplorerBuildInput& input) {
  Progress::Options po;
  po.unit = "games";
  po.line_interval_s = 2;
  Progress progress("openings build", 0, po);
  ExplorerBuild built = build_explorer(
      input, [&](int64_t total) { progress.set_total(total); },
      [&](int64_t games) { progress.add(games); });
  progress.finish();
  return built;
}

int run_build(const BuildOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  const char* me = "kumalak openings build";
  ExplorerBuildInput input;
  input.min_games = opt.min_games;
  input.max_plies = opt.max_plies;
  try {
    input.spec = GameSpec::parse(opt.game);
    for (const std::string& in : opt.inputs) list_explorer_inputs(in, input.pgns, input.shards);
    input.labels = parse_source_labels(opt.labels, input.pgns);
  } catch (const ParseError& e) {
    print_command_error(me, e);
    return 2;
  }
  try {
    input.records = read_explorer_records(input.pgns);
  } catch (const ParseError& e) {
    print_command_error(me, e);
    return 1;
  }
  const ExplorerBuild built = build_with_progress(input);
  try {
    built.explorer.write(opt.out);
  } catch (const std::exception& e) {
    print_command_error(me, e);
    return 1;
  }
  const double build_s = seconds_since(start);
  for (const ExplorerSourceReport& r : built.reports)
    for (const std::string& why : r.skipped) print_command_error(me, "skipped " + why);
  // Read back as a player's query would, and time every position's lookup.
  const auto load_start = std::chrono::steady_clock::now();
  OpeningExplorer loaded;
  try {
    loaded = OpeningExplorer::read(opt.out);
  } catch (const std::exception& e) {
    print_command_error(me, e, "the file written does not read back");
    return 1;
  }
  const double load_ms = seconds_since(load_start) * 1e3;
  const auto [median_us, max_us] = time_explorer_queries(loaded);
  std::printf(
      "%s: %s: %zu positions, %zu moves, %llu bytes; %lld games read, %lld skipped, %lld "
      "shards left out; built in %.2f s\n",
      me, opt.out.c_str(), loaded.positions().size(), loaded.move_count(),
      static_cast<unsigned long long>(fs::file_size(opt.out)),
      static_cast<long long>(built.total_games), static_cast<long long>(built.skipped),
      static_cast<long long>(built.unreadable_shards), build_s);
  std::printf(
      "%s: read back in %.1f ms; a lookup over all %zu positions: median %.2f us, max %.2f us\n",
      me, load_ms, loaded.positions().size(), median_us, max_us);
  return 0;
}

// ---- the query --------------------------------------------------------------------

struct QueryOptions {
  std::string game = "togyz";
  std::string explorer;  // "" = the shipped one
  std::string moves;
  bool moves_given = false;
  std::string position;
  std::string source = "all";
  std::string band;
  bool json = false;
  bool eval = false;  // the engine's evaluation of each move
  std::string model;  // --model (implies eval); "" = the shipped network
  std::string level = "expert";
  double movetime = 0;
  std::string human_model;  // "" = the shipped human model
  int rating = 0;           // > 0: what players of this rating play (human model)
  std::string lang;
};

// "all", "rated 1500-1799": the selection in the options' own words.
std::string selection_words(const QueryOptions& opt) {
  return opt.band.empty() ? opt.source : opt.source + " " + opt.band;
}

int run_query(const QueryOptions& opt) {
  using i18n::tr;
  apply_language(opt.lang);
  const char* me = "kumalak openings";
  GameSpec spec;
  Position pos;
  ExplorerBuckets selection = 0;
  try {
    spec = GameSpec::parse(opt.game);
    selection = explorer_selection(opt.source, opt.band);
    pos = opening_query_position(spec, opt.moves_given, opt.moves, opt.position);
  } catch (const ParseError& e) {
    print_command_error(me, e);
    return 2;
  }
  const std::string path = opt.explorer.empty() ? shipped_explorer_path(spec) : opt.explorer;
  LoadedExplorer loaded;
  try {
    loaded = load_explorer(path);
  } catch (const nlohmann::json::exception& e) {
    print_command_error(me, e, path + ": the metadata is not JSON");
    return 1;
  } catch (const std::exception& e) {
    print_command_error(me, e);
    return 1;
  }
  if (!(loaded.explorer.game() == spec)) {
    print_command_error(
        me,
        tr("the explorer file {file} is for {file_game}, not {game}",
           {{"file", path}, {"file_game", loaded.explorer.game().name()}, {"game", spec.name()}}));
    return 2;
  }
  OpeningAnswer answer = explorer_answer(loaded.explorer, pos, selection);
  try {
    if (opt.eval || !opt.model.empty())
      add_engine_evaluations(answer, spec, opt.level, opt.model, opt.movetime);
    if (opt.rating > 0) add_human_probabilities(answer, spec, opt.rating, opt.human_model);
  } catch (const std::exception& e) {
    print_command_error(me, e);
    return 2;
  }
  if (opt.json)
    std::cout << json_text(opening_answer_json(answer, loaded, opt.source, opt.band)) << "\n";
  else
    std::cout << opening_answer_text(answer, selection_words(opt));
  return 0;
}

}  // namespace

void register_openings(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<QueryOptions>();
  auto* cmd = app.add_subcommand(
      "openings",
      tr_noop("Opening statistics: the moves played in a position and how they scored"));
  add_game_option(cmd, opt->game);
  cmd->add_option("--explorer", opt->explorer,
                  tr_noop("the opening explorer file (default: the shipped one)"));
  cmd->add_option("--position", opt->position, tr_noop("the position string"));
  cmd->add_option("--moves", opt->moves, tr_noop("moves from the start: the mover's pit numbers"))
      ->each([opt](const std::string&) { opt->moves_given = true; });
  cmd->add_option("--source", opt->source,
                  tr_noop("whose games: all, rated, unrated, titled or engine"));
  cmd->add_option(
      "--rating-band", opt->band,
      tr_noop("rated players of one band: below-1200, 1200-1499, 1500-1799 or 1800-up"));
  cmd->add_flag("--json", opt->json, tr_noop("print one JSON object"));
  cmd->add_flag("--eval", opt->eval, tr_noop("also the engine's evaluation of each move"));
  add_model_option(cmd, opt->model);
  add_level_option(cmd, opt->level);
  add_movetime_option(cmd, opt->movetime);
  add_human_model_option(cmd, opt->human_model);
  cmd->add_option("--rating", opt->rating,
                  tr_noop("also say how often players of this PlayOK rating play each move (Togyz, "
                          "with the human model)"))
      ->check(in_range(1, 100000));
  add_lang_option(cmd, opt->lang);

  auto bopt = std::make_shared<BuildOptions>();
  auto* build = cmd->add_subcommand(
      "build", "Build an opening explorer file from PGN records and self-play shards");
  add_game_option(build, bopt->game);
  build->add_option("--out,-o", bopt->out, "the explorer file to write")->required();
  build
      ->add_option("--min-games", bopt->min_games,
                   "keep a position when at least this many games went through it")
      ->check(in_range(1, 1000000));
  build->add_option("--max-plies", bopt->max_plies, "collect the positions of the first N plies")
      ->check(in_range(1, 1000));
  build
      ->add_option("--source-label", bopt->labels,
                   "NAME=LABEL: count the games of input file NAME as auto (by their rating "
                   "tags), titled or engine (repeatable)")
      ->allow_extra_args(false);  // one NAME=LABEL each time: the inputs after it stay inputs
  build->add_option("inputs", bopt->inputs, "PGN files, *.kzshard shards, or folders of them")
      ->required();
  build->callback([bopt, &exit_code] { exit_code = run_build(*bopt); });
  cmd->callback([opt, build, &exit_code] {
    if (build->parsed()) return;  // `openings build`: its own callback did the work
    exit_code = run_query(*opt);
  });
}

}  // namespace kz::cli
