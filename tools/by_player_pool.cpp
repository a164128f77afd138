#include "tools/by_player_pool.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "core/position.h"
#include "core/rated_games.h"
#include "tools/analyze_report.h"

namespace kz::cli {
namespace {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception&) {
    throw ParseError(path + ": not JSON (a `kumalak analyze --by-player --json` answer?)");
  }
}

ScoredPlayer scored_player(const nlohmann::json& j) {
  ScoredPlayer p;
  p.name = j.at("name").get<std::string>();
  p.recorded = j.at("recorded").get<double>();
  p.estimate.rating = j.at("estimate").get<double>();
  p.estimate.low = j.at("low").get<double>();
  p.estimate.high = j.at("high").get<double>();
  p.average = j.at("average").get<double>();
  p.weighted = j.at("weighted").get<double>();
  p.games_used = j.at("games_used").get<int>();
  return p;
}

ByPlayerRow row_of(const nlohmann::json& j) {
  ByPlayerRow row;
  row.options.likelihood_scale = j.at("likelihood_scale").get<double>();
  row.options.opponents = j.at("opponents").get<bool>();
  row.games = j.at("games").get<std::string>();
  for (const auto& p : j.at("scored")) row.scored.push_back(scored_player(p));
  return row;
}

// One fold's file: its header and rows.
struct FoldFile {
  PooledFold fold;
  HeldOut held_out;
  int min_games = 0, search_mix_visits = 0;
  std::vector<ByPlayerRow> rows;
};

FoldFile read_fold(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  FoldFile f;
  try {
    f.fold.file = path;
    f.fold.held_out = j.at("held_out").get<std::string>();
    f.fold.human_model = j.at("human_model").get<std::string>();
    f.fold.players = j.at("players").get<int>();
    f.fold.games = j.at("games").get<int>();
    f.fold.skipped_games = j.at("skipped_games").get<int>();
    f.fold.seconds = j.at("seconds").get<double>();
    f.min_games = j.at("min_games").get<int>();
    f.search_mix_visits = j.at("search_mix_visits").get<int>();
    if (j.at("fold").get<std::string>() != "validation")
      throw ParseError(path + ": measured on the " + j.at("fold").get<std::string>() +
                       " fold, not the held-out one");
    for (const auto& r : j.at("rows")) f.rows.push_back(row_of(r));
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(path + ": not a `kumalak analyze --by-player --json` answer of this " +
                     "version (" + e.what() + ")");
  }
  try {
    f.held_out = parse_held_out(f.fold.held_out);
  } catch (const ParseError& e) {
    throw ParseError(path + ": " + e.what());
  }
  return f;
}

}  // namespace

std::optional<RowInterval> bootstrap_row(const ByPlayerRow& row, int rounds) {
  std::map<std::string, std::vector<const ScoredPlayer*>> by_name;
  for (const ScoredPlayer& p : row.scored) by_name[p.name].push_back(&p);
  if (by_name.size() < 2 || rounds < 1) return std::nullopt;
  std::vector<const std::vector<const ScoredPlayer*>*> names;
  for (const auto& [name, entries] : by_name) names.push_back(&entries);
  std::mt19937_64 random(20261207);
  std::uniform_int_distribution<size_t> pick(0, names.size() - 1);
  std::vector<double> spearmans, ratios;
  for (int round = 0; round < rounds; ++round) {
    // The drawn row scored as the row itself is (score_row), so that the interval is of
    // the very figures the table shows.
    ByPlayerRow drawn;
    for (size_t n = 0; n < names.size(); ++n)
      for (const ScoredPlayer* p : *names[pick(random)]) drawn.scored.push_back(*p);
    score_row(drawn);
    if (drawn.mean_mae == 0) continue;  // one rating drawn every time: no ranking to score
    spearmans.push_back(drawn.spearman);
    ratios.push_back(drawn.mae / drawn.mean_mae);
  }
  if (spearmans.empty()) return std::nullopt;
  std::sort(spearmans.begin(), spearmans.end());
  std::sort(ratios.begin(), ratios.end());
  const auto quantile = [](const std::vector<double>& v, double q) {
    return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
  };
  return RowInterval{quantile(spearmans, 0.025), quantile(spearmans, 0.975),
                     quantile(ratios, 0.025), quantile(ratios, 0.975), int(names.size())};
}

PooledByPlayer pool_by_player_files(const std::vector<std::string>& paths) {
  if (paths.size() < 2) throw ParseError("--pool-by-player: give the K folds' files (K >= 2)");
  std::vector<FoldFile> files;
  for (const std::string& path : paths) files.push_back(read_fold(path));
  const int k = files.front().held_out.count;
  std::vector<const FoldFile*> by_index(size_t(k), nullptr);
  for (const FoldFile& f : files) {
    if (f.held_out.count != k)
      throw ParseError(f.fold.file + ": fold " + f.fold.held_out +
                       " of another cross-validation than " + files.front().fold.file + "'s " +
                       files.front().fold.held_out);
    const FoldFile*& slot = by_index[size_t(f.held_out.index)];
    if (slot)
      throw ParseError(f.fold.file + ": fold " + f.fold.held_out + " is also " + slot->fold.file);
    slot = &f;
    if (f.min_games != files.front().min_games)
      throw ParseError(f.fold.file + ": --min-games " + std::to_string(f.min_games) + ", not " +
                       std::to_string(files.front().min_games) + " as " + files.front().fold.file);
    bool same_rows = f.rows.size() == files.front().rows.size();
    for (size_t r = 0; same_rows && r < f.rows.size(); ++r)
      same_rows = same_row_kind(f.rows[r], files.front().rows[r]);
    if (!same_rows)
      throw ParseError(f.fold.file +
                       ": other rows (--likelihood-scales, --without-opponents) than " +
                       files.front().fold.file + "'s");
  }
  for (int j = 0; j < k; ++j)
    if (!by_index[size_t(j)])
      throw ParseError("--pool-by-player: fold " + held_out_text({j, k}) + " missing");

  PooledByPlayer pooled;
  pooled.min_games = files.front().min_games;
  pooled.search_mix_visits = files.front().search_mix_visits;
  ByPlayerEvaluation& ev = pooled.evaluation;
  for (const FoldFile* f : by_index) {
    pooled.folds.push_back(f->fold);
    ev.games += f->fold.games;
    ev.skipped_games += f->fold.skipped_games;
    ev.players += f->fold.players;
  }
  for (size_t r = 0; r < files.front().rows.size(); ++r) {
    std::vector<ByPlayerRow> rows;
    for (const FoldFile* f : by_index) rows.push_back(f->rows[r]);
    ev.rows.push_back(pooled_row(rows));
    pooled.intervals.push_back(bootstrap_row(ev.rows.back()));
    if (ev.rows.back().games == "all" && ev.player_list.empty())
      ev.player_list = player_list_of(ev.rows.back());
  }
  std::set<std::string> names;
  for (const auto& p : ev.player_list) names.insert(p.name);
  pooled.distinct_players = int(names.size());
  return pooled;
}

namespace {
// The pooled evaluation as by_player_text / by_player_json take it.
TimedByPlayer as_timed(const PooledByPlayer& pooled) {
  TimedByPlayer timed;
  timed.evaluation = pooled.evaluation;
  for (const PooledFold& f : pooled.folds) timed.seconds += f.seconds;
  return timed;
}
ByPlayerSetup as_setup(const PooledByPlayer& pooled) {
  std::string models;
  for (const PooledFold& f : pooled.folds) models += (models.empty() ? "" : ",") + f.human_model;
  return {.fold = "validation",
          .held_out = std::to_string(pooled.folds.size()) + " folds",
          .min_games = pooled.min_games,
          .human_model = models,
          .search_mix_visits = pooled.search_mix_visits,
          .threads = 1};
}
}  // namespace

std::string pooled_by_player_text(const PooledByPlayer& pooled) {
  std::ostringstream out;
  out << "Cross-validation by game, " << pooled.folds.size() << " folds pooled ("
      << pooled.distinct_players << " distinct players):\n";
  for (const PooledFold& f : pooled.folds)
    out << "  fold " << f.held_out << ": " << f.players << " players, " << f.games << " games ("
        << f.skipped_games << " skipped), " << f.human_model << "\n";
  out << by_player_text(as_timed(pooled), as_setup(pooled));
  out << "95 % intervals, players resampled (" << kPoolBootstrapRounds << " rounds):\n";
  for (size_t r = 0; r < pooled.evaluation.rows.size(); ++r) {
    const std::optional<RowInterval>& i = pooled.intervals[r];
    char line[160];
    if (i)
      std::snprintf(line, sizeof line,
                    "%-6s %3d names: spearman [%.3f, %.3f], mae / mean's [%.2f, %.2f]\n",
                    pooled.evaluation.rows[r].games.c_str(), i->names, i->spearman_low,
                    i->spearman_high, i->mae_ratio_low, i->mae_ratio_high);
    else
      std::snprintf(line, sizeof line, "%-6s fewer than two names\n",
                    pooled.evaluation.rows[r].games.c_str());
    out << line;
  }
  return out.str();
}

nlohmann::json pooled_by_player_json(const PooledByPlayer& pooled) {
  nlohmann::json j = by_player_json(as_timed(pooled), as_setup(pooled));
  j["distinct_players"] = pooled.distinct_players;
  j["bootstrap_rounds"] = kPoolBootstrapRounds;
  for (size_t r = 0; r < pooled.intervals.size(); ++r) {
    const std::optional<RowInterval>& i = pooled.intervals[r];
    j["rows"][r]["interval"] =
        i ? nlohmann::json{{"names", i->names},
                           {"spearman", {i->spearman_low, i->spearman_high}},
                           {"mae_ratio", {i->mae_ratio_low, i->mae_ratio_high}}}
          : nlohmann::json(nullptr);
  }
  j["folds"] = nlohmann::json::array();
  for (const PooledFold& f : pooled.folds)
    j["folds"].push_back({{"file", f.file},
                          {"held_out", f.held_out},
                          {"human_model", f.human_model},
                          {"players", f.players},
                          {"games", f.games},
                          {"skipped_games", f.skipped_games},
                          {"seconds", f.seconds}});
  return j;
}

}  // namespace kz::cli
