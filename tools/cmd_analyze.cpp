// kumalak analyze: replays recorded games, evaluates every position with the engine and
// writes the games back as PGN with a comment after each move (White's win chance and
// expected margin after the move, and the engine's move where it preferred another),
// marking inaccuracies, mistakes and blunders, then prints a summary per player. How a
// move is judged is mcts/analysis.h's (shared with `kumalak serve`).
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "core/rated_games.h"
#include "mcts/accuracy.h"
#include "mcts/advice.h"
#include "mcts/analysis.h"
#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "nn/player_games.h"
#include "tools/analysis_words.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_level.h"
#include "train/progress.h"

namespace kz::cli {

namespace {

// The report's default budget per position: 100 visits of the engine network, about
// 4 ms a position on the build VM, enough to tell a blunder from a good move.
constexpr int64_t kReportVisits = 100;

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
  // --player-report / --player NAME: one player's games, a line each, and the rating
  // estimate over all of them (NAME empty: the name playing most games in the files).
  bool player_report = false;
  std::string player;
  // --visits: the engine's visits per position for the report's accuracy (0: no
  // accuracy), instead of the level's budget: a file of 1,000 games must not take hours.
  int64_t visits = kReportVisits;
  bool json = false;  // --json: the report (or the evaluation) as one JSON object
  // --by-player: measure the estimate over many games on the rated games of `fold`,
  // players with `min_games` or more (docs/human.md); no engine analysis.
  bool by_player = false;
  std::string fold = "validation";
  int min_games = 5;
  // --likelihood-scales: the tempered likelihoods --by-player compares (the first one's
  // estimates are listed per player); empty: the default (kPlayerLikelihoodScale).
  std::vector<double> likelihood_scales;
  bool without_opponents = false;  // --without-opponents: each row again, opponents left out
  int threads = 1;  // --threads: games analysed at once (--player-report, --by-player)
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

// `text` padded with spaces to `width` characters (UTF-8 code points, so that Cyrillic
// words line up as Latin ones do).
std::string padded(const std::string& text, size_t width) {
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;
  return text + std::string(width > chars ? width - chars : 1, ' ');
}

std::string one_decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

nlohmann::json estimate_json(const RatingEstimate& e) {
  return {{"rating", std::lround(e.rating)},
          {"low", std::lround(e.low)},
          {"high", std::lround(e.high)}};
}

// The player's result in a game, in words.
std::string result_words(const PlayerGame& g) {
  using i18n::tr;
  if (!g.score) return tr("no result");
  const std::string word = *g.score == 1 ? tr("won") : *g.score == 0 ? tr("lost") : tr("drawn");
  return word + " " + g.result;
}

// The human model for the rating estimates (given, else the game's shipped one; none for
// a game without) and the engine network of its search mixture (null: none), shared by
// every thread. Throws what loading throws.
struct HumanTools {
  std::unique_ptr<HumanHead> head;
  std::shared_ptr<Evaluator> search_engine;
  std::string path;
};
HumanTools load_human_tools(const GameSpec& spec, const std::string& given) {
  HumanTools t;
  t.path = given.empty() ? shipped_human_model_path(spec) : given;
  if (t.path.empty()) return t;
  t.head = std::make_unique<HumanHead>(load_plain_model(t.path, &spec));
  t.search_engine = human_level_engine(spec, *t.head);
  return t;
}

// One worker per thread: its own search of the mixture (a search is not thread-safe), and
// where `engine` says so its own analysing engine (kept alive in `engines`).
std::vector<PlayerGamesTools> games_workers(const GameSpec& spec, const HumanTools& human,
                                            int threads,
                                            const std::function<std::unique_ptr<Player>()>& engine,
                                            std::vector<std::unique_ptr<Player>>& engines) {
  std::vector<PlayerGamesTools> workers(size_t(std::max(threads, 1)));
  for (PlayerGamesTools& w : workers) {
    w.human = human.head.get();
    if (human.head && human.search_engine) {
      std::shared_ptr<HumanSearch> s =
          human_level_search(spec, *human.head, MixUse::kDescribe, human.search_engine);
      w.search = [s](const Position& pos) { return s->search(pos).best_move; };
    }
    if (engine) {
      engines.push_back(engine());
      w.engine = engines.back().get();
    }
  }
  return workers;
}

// kumalak analyze --player-report: one player's games and the rating over all of them.
int run_player_report(const AnalyzeOptions& opt, const GameSpec& spec, Level level) {
  using i18n::tr;
  std::vector<GameRecord> records;
  int status = 0;
  for (const auto& file : opt.files) {
    try {
      std::vector<GameRecord> games = read_pgn_file(file);
      if (games.empty()) {
        print_command_error("kumalak analyze", tr("'{file}' holds no game", {{"file", file}}));
        status = 1;
      }
      for (auto& g : games) records.push_back(std::move(g));
    } catch (const ParseError& e) {
      print_command_error("kumalak analyze", e);
      status = 1;
    }
  }
  const std::string player = opt.player.empty() ? most_frequent_player(records) : opt.player;
  if (player.empty()) {
    print_command_error("kumalak analyze", tr("no game names its players"));
    return 1;
  }
  HumanTools human;
  std::vector<std::unique_ptr<Player>> engines;
  std::vector<PlayerGamesTools> workers;
  try {
    human = load_human_tools(spec, opt.human_model);
    std::function<std::unique_ptr<Player>()> engine;
    if (opt.visits > 0)
      engine = [&] {
        LevelPlayerOptions lo;
        lo.network = load_model_evaluator;
        return make_analysis_player(spec, level, opt.model, 0, lo);
      };
    workers = games_workers(spec, human, opt.threads, engine, engines);
  } catch (const std::exception& e) {
    print_command_error("kumalak analyze", e, human.path);
    return 2;
  }
  for (PlayerGamesTools& w : workers) {
    w.limits.nodes = opt.visits;
    if (opt.movetime > 0) w.limits = ThinkLimits{0, 0, opt.movetime, nullptr};
  }

  const auto started = std::chrono::steady_clock::now();
  PlayerReport report;
  {
    Progress::Options po;
    po.unit = "games";
    po.line_interval_s = 10;
    Progress progress("analyze " + player, 0, po);
    report = player_report(records, spec, player, workers, [&](int done, int total) {
      progress.set_total(total);
      progress.set_done(done);
    });
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const SkippedGame& g : report.skipped)
    print_command_error("kumalak analyze", tr("skipped: {reason}", {{"reason", g.reason}}));
  if (report.games.empty()) {
    print_command_error("kumalak analyze",
                        tr("no game of '{player}' could be analysed", {{"player", player}}));
    return 1;
  }
  if (!report.skipped.empty()) status = 1;

  if (opt.json) {
    nlohmann::json j;
    j["player"] = player;
    j["games"] = nlohmann::json::array();
    for (const PlayerGame& g : report.games) {
      nlohmann::json line = {{"file", g.file},
                             {"game", g.index},
                             {"date", g.date},
                             {"opponent", g.opponent},
                             {"colour", g.colour == 0 ? "white" : "black"},
                             {"result", g.result},
                             {"plies", g.plies}};
      line["score"] = g.score ? nlohmann::json(*g.score) : nlohmann::json(nullptr);
      line["rating"] = g.rating.status == RatingStatus::kRated ? nlohmann::json(g.rating.rating)
                                                               : nlohmann::json(nullptr);
      line["opponent_rating"] = g.opponent_rating.status == RatingStatus::kRated
                                    ? nlohmann::json(g.opponent_rating.rating)
                                    : nlohmann::json(nullptr);
      line["accuracy"] =
          g.accuracy ? nlohmann::json(std::round(*g.accuracy * 10) / 10) : nlohmann::json(nullptr);
      line["played_like"] = g.played_like ? estimate_json(*g.played_like) : nlohmann::json(nullptr);
      j["games"].push_back(line);
    }
    j["skipped"] = nlohmann::json::array();
    for (const SkippedGame& g : report.skipped)
      j["skipped"].push_back({{"file", g.file}, {"game", g.index}, {"reason", g.reason}});
    if (report.estimate) {
      j["rating"] = estimate_json(report.estimate->estimate);
      j["rating"]["games"] = report.estimate->games;
    } else {
      j["rating"] = nullptr;
    }
    j["mean_accuracy"] = report.mean_accuracy
                             ? nlohmann::json(std::round(*report.mean_accuracy * 10) / 10)
                             : nlohmann::json(nullptr);
    j["visits"] = engines.empty() ? 0 : opt.visits;
    j["threads"] = int(workers.size());
    j["human_model"] = human.path;
    j["seconds"] = std::round(seconds * 10) / 10;
    std::cout << j.dump() << "\n";
    return status;
  }

  std::cout << i18n::trn("{player}: {n} game", "{player}: {n} games",
                         (long long)report.games.size(),
                         {{"player", player}, {"n", report.games.size()}})
            << "\n";
  std::cout << padded(tr("Date"), 12) << padded(tr("Opponent"), 18) << padded(tr("Colour"), 8)
            << padded(tr("Result"), 16) << padded(tr("Accuracy"), 10) << tr("Played like") << "\n";
  for (const PlayerGame& g : report.games) {
    std::string like = "-";
    if (g.played_like)
      like = std::to_string(std::lround(g.played_like->rating)) + " [" +
             std::to_string(std::lround(g.played_like->low)) + ", " +
             std::to_string(std::lround(g.played_like->high)) + "]";
    std::cout << padded(g.date.empty() ? "-" : g.date, 12) << padded(g.opponent, 18)
              << padded(g.colour == 0 ? tr("White") : tr("Black"), 8) << padded(result_words(g), 16)
              << padded(g.accuracy ? one_decimal(*g.accuracy) + "%" : "-", 10) << like << "\n";
  }
  if (report.estimate) {
    const RatingEstimate& e = report.estimate->estimate;
    // [low, high] is the 95 % credible interval (docs/human.md).
    std::cout << i18n::trn("Rating from all {n} game: {rating}, likely between {low} and {high}.",
                           "Rating from all {n} games: {rating}, likely between {low} and {high}.",
                           (long long)report.estimate->games,
                           {{"n", report.estimate->games},
                            {"rating", std::lround(e.rating)},
                            {"low", std::lround(e.low)},
                            {"high", std::lround(e.high)}})
              << "\n";
  }
  if (report.mean_accuracy)
    std::cout << tr("Mean accuracy: {accuracy}%.",
                    {{"accuracy", one_decimal(*report.mean_accuracy)}})
              << "\n";
  return status;
}

// kumalak analyze --by-player: the estimate over many games measured on a fold's rated
// games (docs/human.md, "A player's rating from many games").
int run_by_player(const AnalyzeOptions& opt, const GameSpec& spec) {
  FoldSelection fold;
  std::vector<std::vector<GameRecord>> files;
  HumanTools human;
  std::vector<std::unique_ptr<Player>> no_engines;
  std::vector<PlayerGamesTools> workers;
  try {
    fold = parse_fold_selection(opt.fold);
    files = read_game_files(opt.files);
    human = load_human_tools(spec, opt.human_model);
    workers = games_workers(spec, human, opt.threads, nullptr, no_engines);
  } catch (const std::exception& e) {
    print_command_error("kumalak analyze", e);
    return 2;
  }
  if (!human.head) {
    print_command_error(
        "kumalak analyze",
        "--by-player: " + i18n::tr("no human model for this game; give --human-model"));
    return 2;
  }
  std::vector<GameRecord> records;
  for (auto& games : files)
    for (auto& g : games)
      if (fold_selected(fold, read_rated_game(g).fold)) records.push_back(std::move(g));
  std::vector<PlayerRatingOptions> variants;
  for (double scale : opt.likelihood_scales.empty() ? std::vector<double>{kPlayerLikelihoodScale}
                                                    : opt.likelihood_scales)
    for (bool opponents : {true, false}) {
      if (!opponents && !opt.without_opponents) continue;
      variants.push_back({scale, opponents});
    }
  const auto started = std::chrono::steady_clock::now();
  std::vector<SkippedGame> skipped;
  ByPlayerEvaluation ev;
  {
    Progress::Options po;
    po.unit = "games";
    po.line_interval_s = 10;
    Progress progress("by-player", 0, po);
    ev = evaluate_by_player(
        records, spec, opt.min_games, workers, variants,
        [&](int done, int total) {
          progress.set_total(total);
          progress.set_done(done);
        },
        &skipped);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const SkippedGame& g : skipped)
    print_command_error("kumalak analyze", i18n::tr("skipped: {reason}", {{"reason", g.reason}}));
  if (ev.players < 2) {
    print_command_error("kumalak analyze", "--by-player: fewer than two players with " +
                                               std::to_string(opt.min_games) +
                                               "+ rated games in the fold");
    return 1;
  }
  if (opt.json) {
    nlohmann::json j;
    j["human_model"] = human.path;
    j["fold"] = opt.fold;
    j["min_games"] = opt.min_games;
    j["games"] = ev.games;
    j["skipped_games"] = ev.skipped_games;
    j["players"] = ev.players;
    j["search_mix_visits"] =
        human.search_engine ? human_search_visits(human.head->info(), false) : 0;
    j["threads"] = int(workers.size());
    j["seconds"] = std::round(seconds * 10) / 10;
    j["rows"] = nlohmann::json::array();
    for (const ByPlayerRow& r : ev.rows)
      j["rows"].push_back({{"likelihood_scale", r.options.likelihood_scale},
                           {"opponents", r.options.opponents},
                           {"games", r.games},
                           {"players", r.players},
                           {"games_per_player", r.games_per_player},
                           {"spearman", r.spearman},
                           {"mae", r.mae},
                           {"mean_mae", r.mean_mae},
                           {"coverage", r.coverage},
                           {"interval_width", r.width},
                           {"average_spearman", r.average_spearman},
                           {"average_mae", r.average_mae},
                           {"weighted_spearman", r.weighted_spearman},
                           {"weighted_mae", r.weighted_mae}});
    j["player_list"] = nlohmann::json::array();
    for (const auto& p : ev.player_list)
      j["player_list"].push_back({{"name", p.name},
                                  {"games", p.games},
                                  {"recorded", p.recorded},
                                  {"estimate", estimate_json(p.estimate)},
                                  {"average", p.average}});
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::printf("%d players with %d+ rated games (%d games, %d skipped), %s fold, %.0f s\n",
              ev.players, opt.min_games, ev.games, ev.skipped_games, opt.fold.c_str(), seconds);
  std::printf("%-5s %-3s %-6s %7s %6s | %8s %7s %8s %7s %7s | %9s | %8s %7s | %8s %7s\n", "scale",
              "opp", "games", "players", "used", "spearman", "mae", "coverage", "width", "",
              "mean mae", "avg rho", "avg mae", "wavg rho", "wavg mae");
  for (const ByPlayerRow& r : ev.rows) {
    if (r.players == 0) {
      std::printf("%-5.3g %-3s %-6s %7d\n", r.options.likelihood_scale,
                  r.options.opponents ? "yes" : "no", r.games.c_str(), 0);
      continue;
    }
    std::printf(
        "%-6s %7d %6.1f | %8.3f %7.1f %7.1f%% %7.0f %7s | %9.1f | %8.3f %7.1f | %8.3f %7.1f\n",
        r.games.c_str(), r.players, r.games_per_player, r.spearman, r.mae, 100 * r.coverage,
        r.width, "", r.mean_mae, r.average_spearman, r.average_mae, r.weighted_spearman,
        r.weighted_mae);
  }
  return 0;
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
    print_command_error("kumalak analyze", e);
    return 2;
  }
  if (opt.files.empty()) {
    print_command_error("kumalak analyze", i18n::tr("give a PGN file"));
    return 2;
  }
  if (opt.by_player) return run_by_player(opt, spec);
  if (opt.player_report || !opt.player.empty()) return run_player_report(opt, spec, level);
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
    print_command_error("kumalak analyze", e);
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
      print_command_error("kumalak analyze", e, human_path);
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
      print_command_error("kumalak analyze", e);
      status = 1;
      continue;
    }
    if (games.empty()) {
      print_command_error("kumalak analyze", i18n::tr("'{file}' holds no game", {{"file", file}}));
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
        print_command_error("kumalak analyze", e);
        status = 1;
        continue;
      }
      const GameAnalysis ga = analyze_game(*engine, start, rr.moves, limits);
      std::vector<std::string> comments;
      Position before = start;
      for (size_t i = 0; i < ga.moves.size(); ++i) {
        comments.push_back(judgement_comment(ga.moves[i], before));
        before.play(rr.moves[i]);
      }
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
                                                       {"stats", analysis_stats_line(side[p])}};
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
    if (status == 0) print_command_error("kumalak analyze", i18n::tr("no game selected"));
    return 1;
  }
  if (analysed > 1) {
    summary += i18n::tr("All games, per player:") + "\n";
    for (const auto& name : player_order)
      summary += "  " + name + ": " + analysis_stats_line(by_player[name]) + "\n";
  }
  summary += analysis_thresholds_text() + "\n";
  if (!opt.output.empty()) {
    try {
      write_file_atomically(opt.output, [&](std::ostream& o) { o << pgn_out; });
    } catch (const std::exception& e) {
      print_command_error("kumalak analyze", e);
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
