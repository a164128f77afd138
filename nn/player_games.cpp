#include "nn/player_games.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "mcts/accuracy.h"
#include "mcts/analysis.h"

namespace kz {

namespace {

std::string record_result(const GameRecord& record) {
  return record.result != "*" ? record.result : record.tag("Result", "*");
}

std::optional<double> score_for(const std::string& result, int colour) {
  double white;
  if (result == "1-0")
    white = 1;
  else if (result == "0-1")
    white = 0;
  else if (result == "1/2-1/2")
    white = 0.5;
  else
    return std::nullopt;
  return colour == 0 ? white : 1 - white;
}

// What the human model says of both sides of one game: each side's log-likelihoods and
// the one-game estimates ("Played like": jointly where both moved and the model has the
// pair prior, else each side alone with the one-sided prior).
struct BothSides {
  std::array<std::vector<double>, 2> loglik;
  std::array<std::optional<RatingEstimate>, 2> played_like;
};
BothSides both_sides(const HumanHead& human, const SearchBestMove& search, const Position& start,
                     std::span<const int> moves, const std::vector<int>& grid) {
  BothSides out;
  const GameLikelihood game = game_likelihood(human, start, moves, grid, search);
  out.loglik = game.loglik;
  const HumanHeadInfo& info = human.info();
  if (!out.loglik[0].empty() && !out.loglik[1].empty()) {
    const auto joint = estimate_ratings_jointly(grid, out.loglik[0], out.loglik[1], info);
    out.played_like = {joint[0], joint[1]};
  } else {
    const std::vector<double> log_prior = rating_log_prior(info, grid);
    for (size_t s = 0; s < 2; ++s)
      if (!out.loglik[s].empty())
        out.played_like[s] = estimate_rating_posterior(grid, out.loglik[s], log_prior);
  }
  return out;
}

// Calls work(i, worker) for every i in 0..n-1, the items shared among one thread per
// worker, and progress(done, n) after each under a lock. The first exception a thread
// throws is rethrown once all have stopped.
void share_among(size_t n, std::span<const PlayerGamesTools> workers,
                 const std::function<void(size_t, const PlayerGamesTools&)>& work,
                 const std::function<void(int, int)>& progress) {
  if (workers.empty()) throw std::invalid_argument("player games: no worker");
  std::atomic<size_t> next{0};
  std::mutex mutex;
  int done = 0;
  std::exception_ptr error;
  auto run = [&](const PlayerGamesTools& worker) {
    for (size_t i; (i = next++) < n;) {
      try {
        work(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        next = n;
        return;
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++done;
      if (progress) progress(done, int(n));
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers.size(); ++w) threads.emplace_back(run, std::cref(workers[w]));
  run(workers[0]);
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace

std::string most_frequent_player(std::span<const GameRecord> games) {
  std::map<std::string, int> count;
  std::vector<std::string> order;
  for (const GameRecord& g : games)
    for (const char* tag : {"White", "Black"}) {
      const std::string name = g.tag(tag);
      if (name.empty() || name == "?") continue;
      if (count[name]++ == 0) order.push_back(name);
    }
  std::string best;
  for (const std::string& name : order)
    if (best.empty() || count[name] > count[best]) best = name;
  return best;
}

PlayerGame analyse_player_game(const GameRecord& record, const GameSpec& spec,
                               const std::string& player, const PlayerGamesTools& tools) {
  PlayerGame out;
  out.file = record.source;
  out.index = record.index;
  out.date = record.tag("Date");
  out.colour = record.tag("White") == player ? 0 : 1;
  out.opponent = record.tag(out.colour == 0 ? "Black" : "White");
  out.result = record_result(record);
  out.score = score_for(out.result, out.colour);
  out.rating = side_rating(record, out.colour);
  out.opponent_rating = side_rating(record, 1 - out.colour);
  const Position start = record_start(record, spec);
  const ReplayResult replay = replay_record(record, start);  // throws ParseError
  out.plies = replay.plies;
  if (tools.engine) {
    const GameAnalysis analysis = analyze_game(*tools.engine, start, replay.moves, tools.limits);
    out.accuracy = game_accuracy(analysis, out.colour);
  }
  if (tools.human) {
    const std::vector<int> grid = human_rating_grid(tools.human->info(), kPlayerRatingGridStep);
    BothSides sides = both_sides(*tools.human, tools.search, start, replay.moves, grid);
    out.played_like = sides.played_like[size_t(out.colour)];
    out.evidence.player = std::move(sides.loglik[size_t(out.colour)]);
    out.evidence.opponent = std::move(sides.loglik[size_t(1 - out.colour)]);
  }
  return out;
}

PlayerReport player_report(std::span<const GameRecord> records, const GameSpec& spec,
                           const std::string& player, std::span<const PlayerGamesTools> workers,
                           const std::function<void(int, int)>& progress) {
  PlayerReport report;
  report.player = player;
  std::vector<const GameRecord*> theirs;
  for (const GameRecord& g : records)
    if (g.tag("White") == player || g.tag("Black") == player) theirs.push_back(&g);
  std::vector<std::optional<PlayerGame>> analysed(theirs.size());
  std::vector<std::string> reasons(theirs.size());
  share_among(
      theirs.size(), workers,
      [&](size_t i, const PlayerGamesTools& worker) {
        try {
          analysed[i] = analyse_player_game(*theirs[i], spec, player, worker);
        } catch (const ParseError& e) {
          reasons[i] = e.what();
        }
      },
      progress);
  for (size_t i = 0; i < theirs.size(); ++i) {
    if (analysed[i])
      report.games.push_back(std::move(*analysed[i]));
    else
      report.skipped.push_back({theirs[i]->source, theirs[i]->index, reasons[i]});
  }
  const PlayerGamesTools& tools = workers.front();
  if (tools.human) {
    std::vector<GameRatingEvidence> evidence;
    for (const PlayerGame& g : report.games) evidence.push_back(g.evidence);
    const std::vector<int> grid = human_rating_grid(tools.human->info(), kPlayerRatingGridStep);
    report.estimate = estimate_player_rating(grid, evidence, tools.human->info());
  }
  double sum = 0;
  int with = 0;
  for (const PlayerGame& g : report.games)
    if (g.accuracy) {
      sum += *g.accuracy;
      ++with;
    }
  if (with > 0) report.mean_accuracy = sum / with;
  return report;
}

namespace {

// The names with at least `min_games` games in which their side is rated: the players
// evaluate_by_player measures.
class QualifyingPlayers {
 public:
  QualifyingPlayers(std::span<const GameRecord> records, int min_games) : min_games_(min_games) {
    for (const GameRecord& g : records)
      for (int s = 0; s < 2; ++s)
        if (side_rating(g, s).status == RatingStatus::kRated)
          ++rated_games_[g.tag(s == 0 ? "White" : "Black")];
  }
  bool operator()(const std::string& name) const {
    const auto it = rated_games_.find(name);
    return !name.empty() && it != rated_games_.end() && it->second >= min_games_;
  }

 private:
  std::map<std::string, int> rated_games_;  // by name
  int min_games_;
};

// A qualifying player's rated side of one game: the rating the record gives, the
// one-game estimate and the evidence for the estimate over many games.
struct PlayerEntry {
  int rating = 0;
  RatingEstimate played_like;
  GameRatingEvidence evidence;
};
// Each player's entries in game order, and the players in the order of their first.
struct EntriesByPlayer {
  std::map<std::string, std::vector<PlayerEntry>> entries;
  std::vector<std::string> order;
};

double mean_rating(const std::vector<PlayerEntry>& entries) {
  double sum = 0;
  for (const PlayerEntry& e : entries) sum += e.rating;
  return sum / double(entries.size());
}

// Both sides of each game of `todo` (replayed from its record of `spec`, with the human
// rating `grid`), the games shared among `workers`; a game that does not replay is
// nullopt, with why in `reasons` (one per game).
std::vector<std::optional<BothSides>> both_sides_of_games(
    const std::vector<const GameRecord*>& todo, const GameSpec& spec, const std::vector<int>& grid,
    std::span<const PlayerGamesTools> workers, const std::function<void(int, int)>& progress,
    std::vector<std::string>& reasons) {
  std::vector<std::optional<BothSides>> sides_of(todo.size());
  reasons.assign(todo.size(), "");
  share_among(
      todo.size(), workers,
      [&](size_t i, const PlayerGamesTools& worker) {
        try {
          const Position start = record_start(*todo[i], spec);
          const ReplayResult replay = replay_record(*todo[i], start);
          sides_of[i] = both_sides(*worker.human, worker.search, start, replay.moves, grid);
        } catch (const ParseError& e) {
          reasons[i] = e.what();
        }
      },
      progress);
  return sides_of;
}

// The entries of the qualifying players' rated sides of the games `todo`, whose sides
// are `sides_of` (nullopt: the game did not replay, for the reason in `reasons`; it is
// counted in `skipped_games` and added to `skipped` when given).
EntriesByPlayer entries_by_player(const std::vector<const GameRecord*>& todo,
                                  const std::vector<std::optional<BothSides>>& sides_of,
                                  const std::vector<std::string>& reasons,
                                  const QualifyingPlayers& qualifies, int& skipped_games,
                                  std::vector<SkippedGame>* skipped) {
  EntriesByPlayer out;
  for (size_t i = 0; i < todo.size(); ++i) {
    const GameRecord* g = todo[i];
    if (!sides_of[i]) {
      ++skipped_games;
      if (skipped) skipped->push_back({g->source, g->index, reasons[i]});
      continue;
    }
    const BothSides& sides = *sides_of[i];
    for (int s = 0; s < 2; ++s) {
      const std::string name = g->tag(s == 0 ? "White" : "Black");
      const SideRating rating = side_rating(*g, s);
      if (!qualifies(name) || rating.status != RatingStatus::kRated ||
          !sides.played_like[size_t(s)])
        continue;
      if (!out.entries.count(name)) out.order.push_back(name);
      out.entries[name].push_back({rating.rating,
                                   *sides.played_like[size_t(s)],
                                   {sides.loglik[size_t(s)], sides.loglik[size_t(1 - s)]}});
    }
  }
  return out;
}

// One row of the evaluation: the players of `players` with at least `least` games, each
// estimated from their first `use` games (0: all) with `options` on the rating `grid` of
// the head `info`, against the mean of their recorded ratings. `label` names the row.
ByPlayerRow evaluation_row(const EntriesByPlayer& players, const std::vector<int>& grid,
                           const HumanHeadInfo& info, const PlayerRatingOptions& options,
                           const std::string& label, int use, int least) {
  ByPlayerRow row;
  row.options = options;
  row.games = label;
  for (const std::string& name : players.order) {
    const std::vector<PlayerEntry>& entries = players.entries.at(name);
    if (int(entries.size()) < least) continue;
    const size_t n = use > 0 ? size_t(use) : entries.size();
    std::vector<GameRatingEvidence> evidence;
    std::vector<RatingEstimate> singles;
    for (size_t i = 0; i < n; ++i) {
      evidence.push_back(entries[i].evidence);
      singles.push_back(entries[i].played_like);
    }
    row.scored.push_back(
        {name, mean_rating(entries), estimate_player_rating(grid, evidence, info, options).estimate,
         mean_of_game_estimates(singles, false), mean_of_game_estimates(singles, true), int(n)});
  }
  score_row(row);
  return row;
}

}  // namespace

void score_row(ByPlayerRow& row) {
  ByPlayerRow figures;  // every figure zero
  figures.options = row.options;
  figures.games = std::move(row.games);
  figures.scored = std::move(row.scored);
  row = std::move(figures);
  row.players = int(row.scored.size());
  if (row.players == 0) return;
  const double count = row.players;
  std::vector<double> recorded, estimated, average, weighted;
  double games_used = 0, mean = 0;
  for (const ScoredPlayer& p : row.scored) {
    recorded.push_back(p.recorded);
    estimated.push_back(p.estimate.rating);
    average.push_back(p.average);
    weighted.push_back(p.weighted);
    row.coverage += (p.estimate.low <= p.recorded && p.recorded <= p.estimate.high) ? 1 : 0;
    row.width += p.estimate.high - p.estimate.low;
    games_used += p.games_used;
    mean += p.recorded;
  }
  row.games_per_player = games_used / count;
  row.coverage /= count;
  row.width /= count;
  mean /= count;
  auto mae = [&](const std::vector<double>& v) {
    double sum = 0;
    for (size_t i = 0; i < v.size(); ++i) sum += std::abs(v[i] - recorded[i]);
    return sum / count;
  };
  row.mae = mae(estimated);
  row.mean_mae = mae(std::vector<double>(recorded.size(), mean));
  row.average_mae = mae(average);
  row.weighted_mae = mae(weighted);
  row.spearman = spearman_correlation(recorded, estimated);
  row.average_spearman = spearman_correlation(recorded, average);
  row.weighted_spearman = spearman_correlation(recorded, weighted);
}

bool same_row_kind(const ByPlayerRow& a, const ByPlayerRow& b) {
  return a.games == b.games && a.options.likelihood_scale == b.options.likelihood_scale &&
         a.options.opponents == b.options.opponents;
}

ByPlayerRow pooled_row(std::span<const ByPlayerRow> rows) {
  ByPlayerRow pooled;
  if (rows.empty()) return pooled;
  pooled.options = rows.front().options;
  pooled.games = rows.front().games;
  for (const ByPlayerRow& r : rows) {
    if (!same_row_kind(r, pooled))
      throw std::invalid_argument("pooled rows of different kinds: games " + r.games + " and " +
                                  pooled.games);
    pooled.scored.insert(pooled.scored.end(), r.scored.begin(), r.scored.end());
  }
  score_row(pooled);
  return pooled;
}

ByPlayerEvaluation evaluate_by_player(std::span<const GameRecord> records, const GameSpec& spec,
                                      int min_games, std::span<const PlayerGamesTools> workers,
                                      std::span<const PlayerRatingOptions> variants,
                                      const std::function<void(int, int)>& progress,
                                      std::vector<SkippedGame>* skipped) {
  ByPlayerEvaluation out;
  if (workers.empty() || !workers.front().human) return out;
  const HumanHeadInfo& info = workers.front().human->info();
  const std::vector<int> grid = human_rating_grid(info, kPlayerRatingGridStep);

  // One pass over the games that concern a qualifying player: both sides at once.
  const QualifyingPlayers qualifies(records, min_games);
  std::vector<const GameRecord*> todo;
  for (const GameRecord& g : records)
    if (qualifies(g.tag("White")) || qualifies(g.tag("Black"))) todo.push_back(&g);
  out.games = int(todo.size());
  std::vector<std::string> reasons;
  const std::vector<std::optional<BothSides>> sides_of =
      both_sides_of_games(todo, spec, grid, workers, progress, reasons);
  EntriesByPlayer players =
      entries_by_player(todo, sides_of, reasons, qualifies, out.skipped_games, skipped);
  // A player whose games did not all replay may have fallen under min_games.
  std::erase_if(players.order, [&](const std::string& name) {
    return int(players.entries[name].size()) < min_games;
  });
  out.players = int(players.order.size());
  std::vector<PlayerRatingOptions> options(variants.begin(), variants.end());
  if (options.empty()) options.emplace_back();

  // The rows: (label, games used per player, least games a player must have).
  const std::vector<std::tuple<std::string, int, int>> rows = {{"1", 1, min_games},
                                                               {"5", 5, std::max(5, min_games)},
                                                               {"10", 10, std::max(10, min_games)},
                                                               {"20+", 0, std::max(20, min_games)},
                                                               {"all", 0, min_games}};
  for (const PlayerRatingOptions& variant : options)
    for (const auto& [label, use, least] : rows)
      out.rows.push_back(evaluation_row(players, grid, info, variant, label, use, least));
  // The first weighing's `all` row holds every player's estimate over all their games.
  out.player_list = player_list_of(out.rows[rows.size() - 1]);
  return out;
}

std::vector<ByPlayerEvaluation::Player> player_list_of(const ByPlayerRow& all) {
  std::vector<ByPlayerEvaluation::Player> list;
  for (const ScoredPlayer& p : all.scored)
    list.push_back({p.name, p.games_used, p.recorded, p.estimate, p.average});
  return list;
}

}  // namespace kz
