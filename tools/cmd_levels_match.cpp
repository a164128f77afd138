// kumalak levels-match: plays each level against the level below and prints the score
// table that docs/levels.md records. Openings are paired: a few random plies from the
// start, then the same opening is played twice with the colours swapped, so neither
// side profits from a lucky opening or from moving first.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "core/atomic_file.h"
#include "core/notation.h"
#include "mcts/game_runner.h"
#include "mcts/levels.h"
#include "nn/folded_network.h"
#include "nn/model_evaluator.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_level.h"
#include "tools/levels_match.h"
#include "train/elo.h"
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

// A level must score this much against the one below (docs/levels.md).
constexpr double kStepScore = 0.65;
// The SPRT reported per pair: is the step worth the 65 % it should be (+108 Elo), or
// only 55 % (+35 Elo)? The pentanomial statistics of train/elo.h, as gating uses.
const SprtParams kStepSprt{35, 108, 0.05, 0.05, 20};
// A pair with a rating level (--a/--b): A must score this much, the goal for 200 rating
// points (docs/levels.md); its SPRT asks whether A is stronger at all (0 Elo) or worth
// that score (+70 Elo).
constexpr double kRatingStepScore = 0.60;
const SprtParams kRatingStepSprt{0, 70, 0.05, 0.05, 20};

// The two sides of one pair, and what the first must score against the second.
struct LevelPair {
  MatchSide upper, lower;
  double step_score = kStepScore;
  SprtParams sprt = kStepSprt;
};

// The settings a record was made with: a resumed match must use the same ones, or its
// games would not be one match. Adjudication's keys are there only when it is on, so
// records made before it existed (every game played out) still resume.
nlohmann::ordered_json record_settings(const LevelsMatchOptions& o, const GameSpec& spec) {
  nlohmann::ordered_json j = {{"levels_match_record", 1},
                              {"game", spec.name()},
                              {"games", o.games},
                              {"opening_plies", o.opening_plies},
                              {"seed", o.seed},
                              {"time_scale", o.time_scale},
                              {"only", o.only},
                              {"max_plies", o.max_plies},
                              {"alphabeta", o.alphabeta_only},
                              {"model", o.model},
                              {"same_level", o.same_level},
                              {"lower_alphabeta", o.lower_alphabeta},
                              {"lower_no_score_bounds", o.lower_no_score_bounds},
                              {"lower_model", o.lower_model}};
  // Only when set, so records made before --a/--b existed still resume.
  if (!o.a.empty()) {
    j["a"] = o.a;
    j["b"] = o.b;
    j["human_model"] = o.human_model;
  }
  if (o.resign_score > 0) {
    j["resign_score"] = o.resign_score;
    j["resign_moves"] = o.resign_moves;
    j["resign_verify"] = o.resign_verify;
  }
  return j;
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

// The score table and what goes with it on stdout; returns how many pairs scored under
// their step.
//   level_pairs, stats: the pairs and their counts, in the same order
//   recorded_games: the games counted from --record; total: this sitting's wall seconds
int print_table(const LevelsMatchOptions& opt, const GameSpec& spec,
                const std::vector<LevelPair>& level_pairs, const std::vector<PairStats>& stats,
                int n_openings, int recorded_games, double total) {
  std::printf(
      "game %s, %d games per pair (%d openings x 2 colours, %d random plies), "
      "time scale %g, seed %llu\n",
      spec.name().c_str(), 2 * n_openings, n_openings, opt.opening_plies, opt.time_scale,
      static_cast<unsigned long long>(opt.seed));
  std::printf("%-20s %6s %13s %7s %18s %5s %11s %11s %9s\n", "upper vs lower", "games", "W-D-L",
              "score", "elo [95%]", "sprt", "upper s/mv", "lower s/mv", "plies/g");
  int failures = 0;
  for (size_t p = 0; p < level_pairs.size(); ++p) {
    const PairStats& s = stats[p];
    const int n = s.wins + s.draws + s.losses;
    Pentanomial pairs;
    for (int points : s.opening_points) pairs.counts[size_t(points)]++;
    const EloEstimate elo = estimate_elo(pairs);
    const SprtResult verdict = sprt(pairs, level_pairs[p].sprt);
    const double score = pairs.score();
    std::ostringstream pair, wdl;
    pair << level_pairs[p].upper.name() << " vs " << level_pairs[p].lower.name();
    wdl << s.wins << "-" << s.draws << "-" << s.losses;
    char interval[64];
    std::snprintf(interval, sizeof interval, "%+.0f [%+.0f, %+.0f]", elo.elo, elo.elo_lo,
                  elo.elo_hi);
    std::printf("%-20s %6d %13s %6.1f%% %18s %5s %11.4f %11.4f %9.1f\n", pair.str().c_str(), n,
                wdl.str().c_str(), 100 * score, interval, sprt_decision_string(verdict.decision),
                s.upper_moves ? s.upper_seconds / s.upper_moves : 0.0,
                s.lower_moves ? s.lower_seconds / s.lower_moves : 0.0,
                n ? double(s.plies) / n : 0.0);
    if (score < level_pairs[p].step_score) ++failures;
  }
  const SprtParams& shown = level_pairs.front().sprt;
  std::printf(
      "sprt: H1 = the step is worth %.0f Elo (%.0f %%), H0 = %.0f Elo (%.0f %%): "
      "H1 accepted, H0 accepted, or continue (more games needed)\n",
      shown.elo1, 100 * score_from_elo(shown.elo1), shown.elo0, 100 * score_from_elo(shown.elo0));
  for (size_t p = 0; p < level_pairs.size(); ++p) {
    const PairStats& s = stats[p];
    if (opt.resign_score <= 0 || s.verdicts == 0) continue;
    const int n = s.wins + s.draws + s.losses;
    std::printf("%s: resign adjudication judged %d of %d games, at ply %.1f on average",
                level_pairs[p].upper.name().c_str(), s.verdicts, n,
                double(s.verdict_plies) / s.verdicts);
    if (opt.resign_verify)
      std::printf("; played on, they lasted %.1f plies and %d verdicts were wrong\n",
                  double(s.verdict_game_plies) / s.verdicts, s.wrong_verdicts);
    else
      std::printf(" (the games ended there)\n");
  }
  for (size_t p = 0; p < level_pairs.size(); ++p)
    std::printf("%s: %s vs %s\n", level_pairs[p].upper.name().c_str(), stats[p].upper_name.c_str(),
                stats[p].lower_name.c_str());
  std::printf("wall time %.0f s with %d threads%s\n", total, opt.threads,
              recorded_games > 0 ? " (this sitting; earlier games from --record)" : "");
  return failures;
}

// The pairs the options name: --a against --b, the --only level against the one below,
// or every level against the one below. Throws ParseError saying what is wrong (a rating
// level whose human model or engine network is missing among it).
std::vector<LevelPair> level_pairs_of(const LevelsMatchOptions& opt, const GameSpec& spec) {
  std::vector<LevelPair> level_pairs;
  if (!opt.a.empty() || !opt.b.empty()) {
    if (opt.a.empty() || opt.b.empty()) throw ParseError("--a and --b go together");
    if (!opt.only.empty() || opt.same_level)
      throw ParseError("--a/--b name one pair: no --only or --same-level with them");
    LevelPair pair{parse_match_side(opt.a), parse_match_side(opt.b)};
    // A rating level is refused here, before any game, when the human model is missing
    // or the rating outside its range (or its search mixture's engine network missing).
    for (const MatchSide* side : {&pair.upper, &pair.lower})
      if (side->rating)
        human_level_search(spec, *load_human_level(spec, *side->rating, opt.human_model),
                           MixUse::kPlay);
    if (pair.upper.rating || pair.lower.rating) {
      pair.step_score = kRatingStepScore;
      pair.sprt = kRatingStepSprt;
    }
    level_pairs.push_back(pair);
  } else if (!opt.only.empty()) {
    try {
      const Level l = parse_level(opt.only);
      if (l == Level::kBeginner && !opt.same_level)
        throw ParseError("beginner has no level below it");
      level_pairs.push_back({{l}, {opt.same_level ? l : Level(int(l) - 1)}});
    } catch (const ParseError& e) {
      throw ParseError(std::string("--only: ") + e.what());
    }
  } else {
    for (int l = 1; l < kLevelCount; ++l)
      level_pairs.push_back({{Level(l)}, {opt.same_level ? Level(l) : Level(l - 1)}});
  }
  return level_pairs;
}

int run_levels_match(const LevelsMatchOptions& opt) {
  GameSpec spec;
  try {
    spec = GameSpec::parse(opt.game);
  } catch (const ParseError& e) {
    print_command_error("kumalak levels-match", e);
    return 2;
  }
  std::vector<LevelPair> level_pairs;
  try {
    level_pairs = level_pairs_of(opt, spec);
  } catch (const ParseError& e) {
    print_command_error("kumalak levels-match", e);
    return 2;
  }
  // A human level's move is one small network call: one thread per forward, so that
  // --threads games at once do not oversubscribe the cores.
  for (const LevelPair& pair : level_pairs)
    if (pair.upper.rating || pair.lower.rating) set_inference_threads(1);

  const Position start = Position::start(spec);
  std::mt19937_64 rng(opt.seed);
  const int n_openings = (opt.games + 1) / 2;
  std::vector<Position> openings;
  for (int i = 0; i < n_openings; ++i)
    openings.push_back(random_opening(start, opt.opening_plies, rng, 100));

  // Per level pair; the two games of an opening form a pair of the pentanomial statistics
  // (train/elo.h).
  std::vector<PairStats> stats(level_pairs.size());
  for (PairStats& pair : stats) pair.opening_points.assign(size_t(n_openings), 0);
  const auto t0 = std::chrono::steady_clock::now();

  // The record of an earlier sitting: openings finished in both colours are counted and
  // not replayed; a half-played opening is played again (its one game is dropped).
  std::vector<std::vector<bool>> opening_done(level_pairs.size(),
                                              std::vector<bool>(n_openings, false));
  std::unique_ptr<std::ofstream> record;
  int recorded_games = 0;
  if (!opt.record.empty()) {
    const auto settings = record_settings(opt, spec);
    std::string kept = settings.dump() + "\n";
    if (std::filesystem::exists(opt.record)) {
      std::vector<RecordedGame> games;
      try {
        games = read_record(opt.record, settings, n_openings);
      } catch (const std::exception& e) {
        print_command_error("kumalak levels-match", e);
        return 2;
      }
      std::map<std::pair<size_t, int>, std::vector<const RecordedGame*>> by_opening;
      for (const auto& g : games)
        for (size_t p = 0; p < level_pairs.size(); ++p)
          if (g.upper == level_pairs[p].upper.name()) by_opening[{p, g.opening}].push_back(&g);
      for (const auto& [key, list] : by_opening) {
        const RecordedGame* colour[2] = {nullptr, nullptr};
        for (const RecordedGame* g : list) colour[g->game] = g;
        if (!colour[0] || !colour[1]) continue;
        opening_done[key.first][size_t(key.second)] = true;
        for (const RecordedGame* g : colour) {
          stats[key.first].add(*g);
          kept += record_line(*g).dump() + "\n";
          ++recorded_games;
        }
      }
    }
    // Rewritten whole (temporary name, rename), then appended to game by game.
    write_file_atomically(opt.record, [&](std::ostream& out) { out << kept; });
    record = std::make_unique<std::ofstream>(opt.record, std::ios::app);
    if (!*record) {
      print_command_error("kumalak levels-match", "cannot append to " + opt.record);
      return 1;
    }
    if (recorded_games > 0)
      std::cerr << opt.record << ": " << recorded_games << " games already played, resuming\n";
  }
  Progress progress("levels-match", int64_t(level_pairs.size()) * 2 * n_openings - recorded_games,
                    {.unit = "games"});

  // One paired match per level pair, through the game runner (mcts/game_runner.h): side 0
  // is the upper level, side 1 the lower; --threads games at once, each on its own core.
  for (size_t p = 0; p < level_pairs.size(); ++p) {
    const MatchSide upper = level_pairs[p].upper, lower = level_pairs[p].lower;
    PairStats& s = stats[p];
    // The openings still to play (all of them without a record).
    std::vector<int> todo;
    for (int i = 0; i < n_openings; ++i)
      if (!opening_done[p][size_t(i)]) todo.push_back(i);
    if (todo.empty()) continue;
    auto on_game = [&](const RecordedGame& rg, const RunnerGame& g) {
      const int game = rg.game, opening = rg.opening, upper_points = rg.points;
      s.add(rg);
      if (record) *record << record_line(rg).dump() << "\n" << std::flush;
      const int played = s.wins + s.draws + s.losses;
      char score[32];
      std::snprintf(score, sizeof score, "%.1f%%",
                    100.0 * (s.wins + 0.5 * s.draws) / std::max(1, played));
      progress.set_field("score", score);
      progress.add();  // after the score, so the line it may print shows this game
      if (opt.verbose)
        std::cerr << upper.name() << (game == 0 ? " (white)" : " (black)") << " vs " << lower.name()
                  << ", opening " << opening + 1 << ": "
                  << (upper_points == 2   ? "win"
                      : upper_points == 0 ? "loss"
                                          : "draw")
                  << " " << int(g.pos.store[0]) << "-" << int(g.pos.store[1]) << ", " << g.plies
                  << " plies"
                  << (g.verdict_ply < 0 ? ""
                      : opt.resign_verify
                          ? " (adjudication's verdict at ply " + std::to_string(g.verdict_ply) +
                                ": " + (rg.verdict_points == upper_points ? "right)" : "wrong)")
                          : " (adjudicated)")
                  << "\n";
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

  const int failures =
      print_table(opt, spec, level_pairs, stats, n_openings, recorded_games, total);
  // Exit status 3 when some level scores under its step (65 %; 60 % with a rating level).
  return failures ? 3 : 0;
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
