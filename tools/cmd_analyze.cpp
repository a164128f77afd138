// kumalak analyze: replays recorded games, evaluates every position with the engine and
// writes the games back as PGN with a comment after each move (White's win chance and
// expected margin after the move, and the engine's move where it preferred another),
// marking inaccuracies, mistakes and blunders, then prints a summary per player. How a
// move is judged is mcts/analysis.h's (shared with `kumalak serve`).
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/accuracy.h"
#include "mcts/advice.h"
#include "mcts/analysis.h"
#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "tools/commands.h"
#include "tools/human_level.h"

namespace kz::cli {

namespace {

struct AnalyzeOptions {
  std::string game = "togyz";
  std::vector<std::string> files;
  std::string level = "hard";
  std::string model;
  std::string human_model;  // --human-model: the human policy for the rating estimate
  double movetime = 0;
  int depth = 0;
  std::string output;
  std::string games;  // "1-3", "2", "1,4,7-9"; empty = all
  std::string lang;   // --lang: the language of the summary and of the PGN comments
};

// Parses "1-3,5" into a predicate on 1-based game numbers; throws ParseError.
std::vector<std::pair<int, int>> parse_ranges(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    int a = 0, b = 0;
    char dash = 0;
    std::istringstream ps(part);
    if (part.find('-') != std::string::npos) {
      if (!(ps >> a >> dash >> b) || dash != '-' || !ps.eof())
        throw ParseError(i18n::tr("--games: '{part}' is not a range like 1-3", {{"part", part}}));
    } else {
      if (!(ps >> a) || !ps.eof())
        throw ParseError(i18n::tr("--games: '{part}' is not a number", {{"part", part}}));
      b = a;
    }
    if (a < 1 || b < a)
      throw ParseError(i18n::tr("--games: '{part}' is not a valid range", {{"part", part}}));
    out.emplace_back(a, b);
  }
  if (out.empty()) throw ParseError(i18n::tr("--games: empty"));
  return out;
}

// `side`'s accuracy (mcts/accuracy.h) and its mistakes and blunders offered as puzzles:
// the position before each, to find a better move than the one played (docs/puzzles.md).
std::string mistakes_as_puzzles(const Position& start, const std::vector<int>& moves,
                                const GameAnalysis& ga, int side) {
  using i18n::tr;
  std::string out;
  if (const auto accuracy = game_accuracy(ga, side)) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f", *accuracy);
    out += "    " + tr("Accuracy: {accuracy}%.", {{"accuracy", buf}}) + "\n";
  }
  Position before = start;
  for (size_t ply = 0; ply < moves.size() && ply < ga.moves.size(); ++ply) {
    const MoveJudgement& j = ga.moves[ply];
    if (j.judged && j.mover == side && j.mark >= MoveMark::kMistake)
      out += "    " +
             tr("Ply {ply}, position {position}: Find a better move than {move}.",
                {{"ply", ply + 1},
                 {"position", before.to_string()},
                 {"move", format_move(before, j.move)}}) +
             "\n";
    before.play(moves[ply]);
  }
  return out;
}

// `side`'s rating estimated from its moves by the human policy head (`like`: played_like_both
// in tools/human_level.h, as `kumalak serve`'s analysis), and for each of its moves the
// probability that a player of that rating plays it.
std::string human_rating_lines(const std::optional<PlayedLike>& like, const Position& start,
                               const std::vector<int>& moves) {
  using i18n::tr;
  if (!like) return "";
  std::string out = "    " +
                    tr("Played like a {rating} [{low}, {high}].",
                       {{"rating", like->rating}, {"low", like->low}, {"high", like->high}}) +
                    "\n";
  Position before = start;
  size_t ply = 0;
  for (const PlayedLike::Move& m : like->moves) {
    for (; int(ply) + 1 < m.ply; ++ply) before.play(moves[ply]);
    out += "    " +
           tr("Ply {ply}: {move}, played here by {probability} of players rated {rating}.",
              {{"ply", m.ply},
               {"move", format_move(before, m.move)},
               {"probability", percent(m.probability)},
               {"rating", like->rating}}) +
           "\n";
  }
  return out;
}

int run_analyze(const AnalyzeOptions& opt) {
  apply_language(opt.lang);
  GameSpec spec;
  Level level;
  std::vector<std::pair<int, int>> ranges;
  try {
    spec = GameSpec::parse(opt.game);
    level = parse_level(opt.level);
    if (!opt.games.empty()) ranges = parse_ranges(opt.games);
  } catch (const ParseError& e) {
    std::cerr << "kumalak analyze: " << e.what() << "\n";
    return 2;
  }
  if (opt.files.empty()) {
    std::cerr << "kumalak analyze: " << i18n::tr("give a PGN file") << "\n";
    return 2;
  }
  auto wanted = [&](int n) {
    if (ranges.empty()) return true;
    for (auto [a, b] : ranges)
      if (n >= a && n <= b) return true;
    return false;
  };
  std::unique_ptr<Player> engine;
  try {
    LevelPlayerOptions lo;
    lo.force_alphabeta = opt.depth > 0;  // a depth in plies is an alpha-beta budget
    lo.network = load_model_evaluator;
    engine = make_analysis_player(spec, level, opt.model, 0, lo);  // every move scored
  } catch (const std::exception& e) {
    std::cerr << "kumalak analyze: " << e.what() << "\n";
    return 2;
  }
  // The rating estimate needs a human model: given, or shipped for the game (Togyz).
  std::unique_ptr<HumanHead> human;
  std::shared_ptr<HumanSearch> human_search;  // the human model's search mixture, if any
  const std::string human_path =
      opt.human_model.empty() ? shipped_human_model_path(spec) : opt.human_model;
  if (!human_path.empty()) {
    try {
      human = std::make_unique<HumanHead>(load_plain_model(human_path, &spec));
      human_search = human_level_search(spec, *human, MixUse::kDescribe);
    } catch (const std::exception& e) {
      std::cerr << "kumalak analyze: " << human_path << ": " << e.what() << "\n";
      return 2;
    }
  }
  ThinkLimits limits;
  limits.movetime_s = opt.movetime;
  limits.depth = opt.depth;

  std::string pgn_out, summary;
  std::map<std::string, AnalysisStats> by_player;
  std::vector<std::string> player_order;
  int status = 0, analysed = 0;
  for (const auto& file : opt.files) {
    std::vector<GameRecord> games;
    try {
      games = read_pgn_file(file);
    } catch (const ParseError& e) {
      std::cerr << "kumalak analyze: " << e.what() << "\n";
      status = 1;
      continue;
    }
    if (games.empty()) {
      std::cerr << "kumalak analyze: " << i18n::tr("'{file}' holds no game", {{"file", file}})
                << "\n";
      status = 1;
    }
    for (const auto& g : games) {
      if (!wanted(g.index)) continue;
      Position start;
      ReplayResult rr;
      try {
        start = record_start(g, spec);
        rr = replay_record(g, start);
      } catch (const ParseError& e) {
        std::cerr << "kumalak analyze: " << e.what() << "\n";
        status = 1;
        continue;
      }
      const GameAnalysis ga = analyze_game(*engine, start, rr.moves, limits);
      std::vector<std::string> comments;
      for (const MoveJudgement& j : ga.moves) comments.push_back(j.comment);
      const AnalysisStats* side = ga.side;
      GameRecord out = g;
      out.set_tag("Annotator", "KumalakZero " + engine->name());
      pgn_out += write_pgn(out.tags, start, rr.moves, comments) + "\n";
      ++analysed;
      const std::string names[2] = {g.tag("White", i18n::tr("White")),
                                    g.tag("Black", i18n::tr("Black"))};
      summary += i18n::trn("Game {game} ({file}): {white} vs {black}, {result}, {n} ply",
                           "Game {game} ({file}): {white} vs {black}, {result}, {n} plies",
                           (long long)rr.plies,
                           {{"game", g.index},
                            {"file", file},
                            {"white", names[0]},
                            {"black", names[1]},
                            {"result", g.result}}) +
                 "\n";
      // Both sides' ratings at once: jointly where the human model has the pair prior.
      std::array<std::optional<PlayedLike>, 2> like;
      if (human) like = played_like_both(*human, start, rr.moves, human_search.get());
      for (int p = 0; p < 2; ++p) {
        const std::initializer_list<i18n::Arg> args = {{"name", names[p]},
                                                       {"stats", side[p].line()}};
        summary += "  " +
                   (p == 0 ? i18n::tr("White {name}: {stats}", args)
                           : i18n::tr("Black {name}: {stats}", args)) +
                   "\n";
        if (!by_player.count(names[p])) player_order.push_back(names[p]);
        by_player[names[p]].add(side[p]);
        summary += mistakes_as_puzzles(start, rr.moves, ga, p);
        summary += human_rating_lines(like[size_t(p)], start, rr.moves);
      }
    }
  }
  // Nothing reaches standard output unless some game was analysed.
  if (analysed == 0) {
    if (status == 0) std::cerr << "kumalak analyze: " << i18n::tr("no game selected") << "\n";
    return 1;
  }
  if (analysed > 1) {
    summary += i18n::tr("All games, per player:") + "\n";
    for (const auto& name : player_order)
      summary += "  " + name + ": " + by_player[name].line() + "\n";
  }
  summary += analysis_thresholds_text() + "\n";
  if (!opt.output.empty()) {
    try {
      write_file_atomically(opt.output, [&](std::ostream& o) { o << pgn_out; });
    } catch (const std::exception& e) {
      std::cerr << "kumalak analyze: " << e.what() << "\n";
      return 1;
    }
    std::cout << summary;
  } else {
    // Standard output stays one PGN file: the summary goes into ';' comment lines.
    std::cout << pgn_out;
    std::istringstream ss(summary);
    for (std::string line; std::getline(ss, line);) std::cout << "; " << line << "\n";
  }
  return status;
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
  add_lang_option(cmd, opt->lang);
  cmd->callback([opt, &exit_code] { exit_code = run_analyze(*opt); });
}

}  // namespace kz::cli
