// kumalak levels-match: plays each level against the level below and prints the score
// table that docs/levels.md records. Openings are paired: a few random plies from the
// start, then the same opening is played twice with the colours swapped, so neither
// side profits from a lucky opening or from moving first. The games are
// tools/levels_match.h's; the pairs, openings, record, game lines and table
// tools/levels_ladder.h's.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "core/atomic_file.h"
#include "nn/folded_network.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/json_text.h"
#include "tools/levels_ladder.h"
#include "tools/levels_match.h"
#include "train/progress.h"

namespace kz::cli {

namespace {

// The command line of `kumalak levels-match` (train/match.h's MatchOptions is one gating match).
struct LevelsMatchOptions {
  std::string game = "togyz";
  int games = 100;
  int threads = 2;
  int opening_plies = 4;
  uint64_t seed = 1;
  double time_scale = 1.0;
  std::string only;  // the upper level of the one pair to play
  // One pair off the ladder: side A against side B, the score from A's side. Each is a
  // named level or a PlayOK rating (a level of the human model, tools/human_level.h), so
  // `--a 1400 --b 1200` asks whether 200 rating points are a real step in strength.
  std::string a, b;
  std::string human_model;  // the human model of rating levels ("" = the shipped one)
  int max_plies = 1000;
  bool verbose = false;
  // false: the players `kumalak play` makes (hard and expert use the network where
  // make_level_player() says so); true: alpha-beta at every level.
  bool alphabeta_only = false;
  std::string model;  // as `kumalak play --model`
  // Comparisons off the ladder: the lower side plays the upper's own level
  // (same_level) and/or always with alpha-beta (lower_alphabeta), e.g. the network's
  // expert against the alpha-beta expert.
  bool same_level = false;
  bool lower_alphabeta = false;
  bool lower_no_score_bounds = false;  // the lower side's MCTS without score bounds (A/B)
  // The lower side's network ("" = `model`): with --same-level, two networks at one
  // level's budget, i.e. at equal time (a new model against an older one).
  std::string lower_model;
  // Every finished game is appended here (JSON lines); a run started again with the same
  // file and settings skips the openings already played in both colours, so a match of
  // hours survives being stopped ("" = no record).
  std::string record;
  // Resign adjudication (PairedMatch::Options, mcts/game_runner.h): a game ends when both
  // engines agree on the loser, `resign_moves` moves each at an expected score of at most
  // `resign_score` for it (0 = off: every game is played out). `resign_verify` plays on
  // and counts the verdicts the results contradict.
  double resign_score = 0;
  int resign_moves = 3;
  bool resign_verify = false;
};

// The pairs the command line names.
LevelPairsChoice pairs_choice(const LevelsMatchOptions& o) {
  return {o.a, o.b, o.only, o.same_level, o.human_model};
}

// How the levels play, from the command line.
LevelsMatchPlay level_play(const LevelsMatchOptions& o) {
  LevelsMatchPlay play;
  play.seed = o.seed;
  play.time_scale = o.time_scale;
  play.alphabeta_only = o.alphabeta_only;
  play.lower_alphabeta = o.lower_alphabeta;
  play.lower_no_score_bounds = o.lower_no_score_bounds;
  play.model = o.model;
  play.lower_model = o.lower_model;
  play.human_model = o.human_model;
  play.threads = o.threads;
  play.max_plies = o.max_plies;
  play.resign_score = o.resign_score;
  play.resign_moves = o.resign_moves;
  play.resign_verify = o.resign_verify;
  return play;
}

// The record's games of an earlier sitting counted into `stats`, and the record rewritten
// with them (temporary name, rename) and opened to append each new game to; nothing
// without --record. Returns the exit status of a failure, 0 when it went well.
int open_record(const LevelsMatchOptions& opt, const GameSpec& spec, int n_openings,
                const std::vector<LevelPair>& level_pairs, std::vector<PairStats>& stats,
                ResumedRecord& resumed, std::unique_ptr<std::ofstream>& record) {
  resumed.opening_done.assign(level_pairs.size(), std::vector<bool>(size_t(n_openings), false));
  if (opt.record.empty()) return 0;
  try {
    resumed = resume_record(opt.record,
                            levels_record_settings(spec, opt.games, opt.opening_plies,
                                                   pairs_choice(opt), level_play(opt)),
                            n_openings, level_pairs, stats);
  } catch (const std::exception& e) {
    print_command_error("kumalak levels-match", e);
    return 2;
  }
  try {
    write_file_atomically(opt.record, [&](std::ostream& out) { out << resumed.kept; });
  } catch (const std::exception& e) {
    // A folder that is not there, or not writable: said, not a crash.
    print_command_error("kumalak levels-match", e);
    return 1;
  }
  record = std::make_unique<std::ofstream>(opt.record, std::ios::app);
  if (!*record) {
    print_command_error("kumalak levels-match", "cannot append to " + opt.record);
    return 1;
  }
  if (resumed.games > 0)
    std::cerr << opt.record << ": " << resumed.games << " games already played, resuming\n";
  return 0;
}

int run_levels_match(const LevelsMatchOptions& opt) {
  GameSpec spec;
  std::vector<LevelPair> level_pairs;
  try {
    spec = GameSpec::parse(opt.game);
    level_pairs = level_pairs_of(pairs_choice(opt), spec);
  } catch (const ParseError& e) {
    print_command_error("kumalak levels-match", e);
    return 2;
  }
  // A human level's move is one small network call: one thread per forward, so that
  // --threads games at once do not oversubscribe the cores.
  for (const LevelPair& pair : level_pairs)
    if (pair.upper.rating || pair.lower.rating) set_inference_threads(1);
  const std::vector<Position> openings =
      paired_openings(spec, opt.games, opt.opening_plies, opt.seed);
  const int n_openings = int(openings.size());
  // Per level pair; the two games of an opening form a pair of the pentanomial statistics
  // (train/elo.h).
  std::vector<PairStats> stats(level_pairs.size());
  for (PairStats& pair : stats) pair.opening_points.assign(size_t(n_openings), 0);
  const auto t0 = std::chrono::steady_clock::now();
  ResumedRecord resumed;
  std::unique_ptr<std::ofstream> record;
  if (const int status = open_record(opt, spec, n_openings, level_pairs, stats, resumed, record))
    return status;
  Progress progress("levels-match", int64_t(level_pairs.size()) * 2 * n_openings - resumed.games,
                    {.unit = "games"});
  // One paired match per level pair, through the game runner (mcts/game_runner.h): side 0
  // is the upper level, side 1 the lower; --threads games at once, each on its own core.
  for (size_t p = 0; p < level_pairs.size(); ++p) {
    const MatchSide upper = level_pairs[p].upper, lower = level_pairs[p].lower;
    PairStats& s = stats[p];
    const std::vector<int> todo = openings_to_play(resumed, p);
    if (todo.empty()) continue;
    auto on_game = [&](const RecordedGame& rg, const RunnerGame& g) {
      s.add(rg);
      if (record) *record << json_text(record_line(rg)) << "\n" << std::flush;
      progress.set_field("score", pair_score_text(s));
      progress.add();  // after the score, so the line it may print shows this game
      if (opt.verbose)
        std::cerr << levels_game_line(upper, lower, rg, g, opt.resign_verify) << "\n";
    };
    try {
      // Game k of the whole run (level pair, opening, colour) seeds its players' noise.
      play_level_pair(spec, upper, lower, int(p) * 2 * n_openings, openings, todo, level_play(opt),
                      on_game);
    } catch (const std::exception& e) {
      print_command_error("kumalak levels-match", e);
      return 1;
    }
  }
  progress.finish();
  if (record && !*record) {
    print_command_error("kumalak levels-match", "writing " + opt.record + " failed");
    return 1;
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const LevelsTable table =
      levels_table({spec.name(), n_openings, opt.opening_plies, opt.time_scale, opt.seed,
                    opt.resign_score > 0, opt.resign_verify, opt.threads, resumed.games, total},
                   level_pairs, stats);
  std::fputs(table.text.c_str(), stdout);
  // Exit status 3 when some level scores under its step (65 %; 60 % with a rating level).
  return table.failures ? 3 : 0;
}

}  // namespace

void register_levels_match(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<LevelsMatchOptions>();
  auto* cmd = app.add_subcommand(
      "levels-match", "Play each level against the level below and print the score table");
  add_game_option(cmd, opt->game);
  cmd->add_option("--games", opt->games, "games per pair (rounded up to even: paired openings)")
      ->check(in_range(2, 10000000));
  cmd->add_option("--threads,--search-threads", opt->threads,
                  "games played at once, one per search thread")
      ->check(in_range(1, kMaxThreads));
  cmd->add_option("--opening-plies", opt->opening_plies, "random plies before the engines play")
      ->check(in_range(0, 1000));
  add_seed_option(cmd, opt->seed);
  add_time_scale_option(cmd, opt->time_scale);
  cmd->add_option("--only", opt->only, "play one pair: this level against the one below");
  cmd->add_option("--a", opt->a,
                  "play one pair, A against B (score from A's side); each a level or a "
                  "PlayOK rating of the human model, e.g. --a 1400 --b 1200");
  cmd->add_option("--b", opt->b, "the level or rating A plays against (with --a)");
  add_human_model_option(cmd, opt->human_model);
  cmd->add_option("--max-plies", opt->max_plies, "stop a game after this many plies")
      ->check(in_range(1, 100000));
  add_model_option(cmd, opt->model);
  cmd->add_flag("--alphabeta", opt->alphabeta_only, "alpha-beta at every level, even with a model");
  cmd->add_flag("--same-level", opt->same_level, "the lower side plays the upper's level too");
  cmd->add_flag("--lower-alphabeta", opt->lower_alphabeta,
                "the lower side always plays alpha-beta");
  cmd->add_flag("--lower-no-score-bounds", opt->lower_no_score_bounds,
                "the lower side's MCTS searches without score bounds (with --same-level: an A/B)");
  cmd->add_option("--lower-model", opt->lower_model,
                  "the lower side's network (with --same-level: two networks at equal time)");
  cmd->add_option("--record", opt->record,
                  "append every finished game to this file (JSON lines); run again with the same "
                  "file and settings to resume a stopped match");
  cmd->add_option("--resign-score", opt->resign_score,
                  "end a game when both engines agree it is lost: the loser's own expected "
                  "score at most this, the winner's at least 1 minus it (0: off; e.g. 0.03)")
      ->check(in_range(0.0, 0.5, Ends::kNotHigh));
  cmd->add_option("--resign-moves", opt->resign_moves,
                  "... on each of this many consecutive moves of each engine (default 3)")
      ->check(in_range(1, 1000));
  cmd->add_flag("--resign-verify", opt->resign_verify,
                "note the adjudication's verdicts but play every game out, counting wrong ones");
  cmd->add_flag("-v,--verbose", opt->verbose, "print every game's result on stderr");
  cmd->callback([opt, &exit_code] { exit_code = run_levels_match(*opt); });
}

}  // namespace kz::cli
