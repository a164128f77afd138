#include "tools/analyze_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/accuracy.h"
#include "mcts/advice.h"
#include "tools/analysis_words.h"
#include "tools/move_words.h"

namespace kz::cli {

using i18n::tr;
using i18n::trn;

namespace {

// `side`'s accuracy (mcts/accuracy.h) and its mistakes and blunders offered as puzzles:
// the position before each, to find a better move than the one played (docs/puzzles.md).
std::string mistakes_as_puzzles(const AnalysedGame& game, int side) {
  std::string out;
  if (const auto accuracy = game_accuracy(game.analysis, side)) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f", *accuracy);
    out += "    " + tr("Accuracy: {accuracy}%.", {{"accuracy", buf}}) + "\n";
  }
  Position before = game.start;
  for (size_t ply = 0; ply < game.moves.size() && ply < game.analysis.moves.size(); ++ply) {
    const MoveJudgement& j = game.analysis.moves[ply];
    if (j.judged && j.mover == side && j.mark >= MoveMark::kMistake)
      out += "    " +
             tr("Ply {ply}, position {position}: Find a better move than {move}.",
                {{"ply", ply + 1},
                 {"position", before.to_string()},
                 {"move", format_move(before, j.move)}}) +
             "\n";
    before.play(game.moves[ply]);
  }
  return out;
}

// `side`'s rating estimated from its moves by the human policy head (as `kumalak
// serve`'s analysis), and for each of its moves the probability that a player of that
// rating plays it.
std::string human_rating_lines(const AnalysedGame& game, int side) {
  const std::optional<PlayedLike>& like = game.like[size_t(side)];
  if (!like) return "";
  std::string out = "    " +
                    tr("Played like a {rating} [{low}, {high}].",
                       {{"rating", like->rating}, {"low", like->low}, {"high", like->high}}) +
                    "\n";
  Position before = game.start;
  size_t ply = 0;
  for (const PlayedLike::Move& m : like->moves) {
    for (; int(ply) + 1 < m.ply; ++ply) before.play(game.moves[ply]);
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

// A number or null.
template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// One decimal, or null.
nlohmann::json tenths_or_null(const std::optional<double>& value) {
  return value ? nlohmann::json(std::round(*value * 10) / 10) : nlohmann::json(nullptr);
}

// A rating tag's rating, or null when the side is not rated.
nlohmann::json rated_or_null(const SideRating& r) {
  return r.status == RatingStatus::kRated ? nlohmann::json(r.rating) : nlohmann::json(nullptr);
}

// The player's result in a game, in words.
std::string result_words(const PlayerGame& g) {
  if (!g.score) return tr("no result");
  const std::string word = *g.score == 1 ? tr("won") : *g.score == 0 ? tr("lost") : tr("drawn");
  return word + " " + g.result;
}

// One game of the report: its table line.
std::string report_line(const PlayerGame& g) {
  std::string like = "-";
  if (g.played_like)
    like = std::to_string(std::lround(g.played_like->rating)) + " [" +
           std::to_string(std::lround(g.played_like->low)) + ", " +
           std::to_string(std::lround(g.played_like->high)) + "]";
  return padded(g.date.empty() ? "-" : g.date, 12) + padded(g.opponent, 18) +
         padded(g.colour == 0 ? tr("White") : tr("Black"), 8) + padded(result_words(g), 16) +
         padded(g.accuracy ? one_decimal(*g.accuracy) + "%" : "-", 10) + like + "\n";
}

// One game of the report as JSON.
nlohmann::json report_game_json(const PlayerGame& g) {
  nlohmann::json line = {{"file", g.file},
                         {"game", g.index},
                         {"date", g.date},
                         {"opponent", g.opponent},
                         {"colour", g.colour == 0 ? "white" : "black"},
                         {"result", g.result},
                         {"plies", g.plies}};
  line["score"] = or_null(g.score);
  line["rating"] = rated_or_null(g.rating);
  line["opponent_rating"] = rated_or_null(g.opponent_rating);
  line["accuracy"] = tenths_or_null(g.accuracy);
  line["played_like"] = g.played_like ? estimate_json(*g.played_like) : nlohmann::json(nullptr);
  return line;
}

// printf into a string.
template <typename... Args>
std::string printed(const char* format, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

}  // namespace

std::string analysis_summary_text(const GamesAnalysis& analysis) {
  std::string summary;
  for (const AnalysedGame& g : analysis.games) {
    summary += trn("Game {game} ({file}): {white} vs {black}, {result}, {n} ply",
                   "Game {game} ({file}): {white} vs {black}, {result}, {n} plies",
                   (long long)g.moves.size(),
                   {{"game", g.index},
                    {"file", g.file},
                    {"white", g.names[0]},
                    {"black", g.names[1]},
                    {"result", g.result}}) +
               "\n";
    for (int p = 0; p < 2; ++p) {
      const std::initializer_list<i18n::Arg> args = {
          {"name", g.names[p]}, {"stats", analysis_stats_line(g.analysis.side[p])}};
      summary += "  " +
                 (p == 0 ? tr("White {name}: {stats}", args) : tr("Black {name}: {stats}", args)) +
                 "\n";
      summary += mistakes_as_puzzles(g, p);
      summary += human_rating_lines(g, p);
    }
  }
  if (analysis.games.size() > 1) {
    summary += tr("All games, per player:") + "\n";
    for (const auto& name : analysis.player_order)
      summary += "  " + name + ": " + analysis_stats_line(analysis.by_player.at(name)) + "\n";
  }
  return summary + analysis_thresholds_text() + "\n";
}

std::string pgn_with_summary(const GamesAnalysis& analysis) {
  std::string out = analysis.pgn;
  std::istringstream ss(analysis_summary_text(analysis));
  for (std::string line; std::getline(ss, line);) out += "; " + line + "\n";
  return out;
}

std::string player_report_text(const std::string& player, const PlayerReport& report) {
  std::string out = trn("{player}: {n} game", "{player}: {n} games", (long long)report.games.size(),
                        {{"player", player}, {"n", report.games.size()}}) +
                    "\n";
  out += padded(tr("Date"), 12) + padded(tr("Opponent"), 18) + padded(tr("Colour"), 8) +
         padded(tr("Result"), 16) + padded(tr("Accuracy"), 10) + tr("Played like") + "\n";
  for (const PlayerGame& g : report.games) out += report_line(g);
  if (report.estimate) {
    const RatingEstimate& e = report.estimate->estimate;
    // [low, high] is the 95 % credible interval (docs/human.md).
    out += trn("Rating from all {n} game: {rating}, likely between {low} and {high}.",
               "Rating from all {n} games: {rating}, likely between {low} and {high}.",
               (long long)report.estimate->games,
               {{"n", report.estimate->games},
                {"rating", std::lround(e.rating)},
                {"low", std::lround(e.low)},
                {"high", std::lround(e.high)}}) +
           "\n";
  }
  if (report.mean_accuracy)
    out += tr("Mean accuracy: {accuracy}%.", {{"accuracy", one_decimal(*report.mean_accuracy)}}) +
           "\n";
  return out;
}

nlohmann::json player_report_json(const std::string& player, const TimedPlayerReport& timed,
                                  int64_t visits, int threads, const std::string& human_model) {
  const PlayerReport& report = timed.report;
  nlohmann::json j;
  j["player"] = player;
  j["games"] = nlohmann::json::array();
  for (const PlayerGame& g : report.games) j["games"].push_back(report_game_json(g));
  j["skipped"] = nlohmann::json::array();
  for (const SkippedGame& g : report.skipped)
    j["skipped"].push_back({{"file", g.file}, {"game", g.index}, {"reason", g.reason}});
  if (report.estimate) {
    j["rating"] = estimate_json(report.estimate->estimate);
    j["rating"]["games"] = report.estimate->games;
  } else {
    j["rating"] = nullptr;
  }
  j["mean_accuracy"] = tenths_or_null(report.mean_accuracy);
  j["visits"] = visits;
  j["threads"] = threads;
  j["human_model"] = human_model;
  j["seconds"] = std::round(timed.seconds * 10) / 10;
  return j;
}

std::string by_player_text(const TimedByPlayer& timed, const ByPlayerSetup& setup) {
  const ByPlayerEvaluation& ev = timed.evaluation;
  std::string out = printed(
      "%d players with %d+ rated games (%d games, %d skipped), %s fold, %.0f s\n", ev.players,
      setup.min_games, ev.games, ev.skipped_games, setup.fold.c_str(), timed.seconds);
  out += printed("%-5s %-3s %-6s %7s %6s | %8s %7s %8s %7s %7s | %9s | %8s %7s | %8s %7s\n",
                 "scale", "opp", "games", "players", "used", "spearman", "mae", "coverage", "width",
                 "", "mean mae", "avg rho", "avg mae", "wavg rho", "wavg mae");
  for (const ByPlayerRow& r : ev.rows) {
    if (r.players == 0) {
      out += printed("%-5.3g %-3s %-6s %7d\n", r.options.likelihood_scale,
                     r.options.opponents ? "yes" : "no", r.games.c_str(), 0);
      continue;
    }
    out += printed(
        "%-6s %7d %6.1f | %8.3f %7.1f %7.1f%% %7.0f %7s | %9.1f | %8.3f %7.1f | %8.3f %7.1f\n",
        r.games.c_str(), r.players, r.games_per_player, r.spearman, r.mae, 100 * r.coverage,
        r.width, "", r.mean_mae, r.average_spearman, r.average_mae, r.weighted_spearman,
        r.weighted_mae);
  }
  return out;
}

nlohmann::json by_player_json(const TimedByPlayer& timed, const ByPlayerSetup& setup) {
  const ByPlayerEvaluation& ev = timed.evaluation;
  nlohmann::json j;
  j["human_model"] = setup.human_model;
  j["fold"] = setup.fold;
  j["held_out"] = setup.held_out;
  j["min_games"] = setup.min_games;
  j["games"] = ev.games;
  j["skipped_games"] = ev.skipped_games;
  j["players"] = ev.players;
  j["search_mix_visits"] = setup.search_mix_visits;
  j["threads"] = setup.threads;
  j["seconds"] = std::round(timed.seconds * 10) / 10;
  j["rows"] = nlohmann::json::array();
  for (const ByPlayerRow& r : ev.rows) {
    // Each player's figures unrounded, so that `--pool-by-player` pools the folds of a
    // cross-validation into exactly the table one run over all of them would give.
    nlohmann::json scored = nlohmann::json::array();
    for (const ScoredPlayer& p : r.scored)
      scored.push_back({{"name", p.name},
                        {"recorded", p.recorded},
                        {"estimate", p.estimate.rating},
                        {"low", p.estimate.low},
                        {"high", p.estimate.high},
                        {"average", p.average},
                        {"weighted", p.weighted},
                        {"games_used", p.games_used}});
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
                         {"weighted_mae", r.weighted_mae},
                         {"scored", std::move(scored)}});
  }
  j["player_list"] = nlohmann::json::array();
  for (const auto& p : ev.player_list)
    j["player_list"].push_back({{"name", p.name},
                                {"games", p.games},
                                {"recorded", p.recorded},
                                {"estimate", estimate_json(p.estimate)},
                                {"average", p.average}});
  return j;
}

ByPlayerSetup by_player_setup(const AnalyzeOptions& opt, const AnalysisWorkers& tools) {
  return {.fold = opt.fold,
          .held_out = opt.held_out,
          .min_games = opt.min_games,
          .human_model = tools.human.path,
          .search_mix_visits =
              tools.human.search_engine ? human_search_visits(tools.human.head->info(), false) : 0,
          .threads = int(tools.workers.size())};
}

}  // namespace kz::cli
