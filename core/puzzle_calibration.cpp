#include "core/puzzle_calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <regex>
#include <span>

#include "core/glicko2.h"

namespace kz {

GameIndex read_recorded_games(const std::vector<std::string>& dirs) {
  GameIndex games;
  for (const auto& dir : dirs)
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".pgn")
        for (GameRecord& g : read_pgn_file(e.path().string()))
          games[{e.path().filename().string(), g.index}] = std::move(g);
  return games;
}

FileAttempts real_attempts(const PuzzleSet& set, const GameIndex& games, FoldSelection fold) {
  static const std::regex kSource(R"(^(.+\.pgn) game (\d+) \(.*\) ply (\d+)$)");
  FileAttempts out;
  for (const Puzzle& z : set.puzzles) {
    std::smatch m;
    if (!std::regex_match(z.source, m, kSource)) {
      ++out.skipped["not_from_a_recorded_game"];
      continue;
    }
    const auto it = games.find({m[1].str(), std::stoi(m[2].str())});
    if (it == games.end()) {
      ++out.skipped["game_not_found"];
      continue;
    }
    const GameRecord& record = it->second;
    const RatedGame rated = read_rated_game(record);
    if (!fold_selected(fold, rated.fold)) {
      ++out.skipped["other_fold"];
      continue;
    }
    ReplayResult rr;
    Position pos;
    try {
      pos = record_start(record, set.spec);
      rr = replay_record(record, pos);
    } catch (const ParseError&) {
      ++out.skipped["record_refused_by_the_rules"];
      continue;
    }
    const size_t ply = std::stoul(m[3].str());
    if (ply >= rr.moves.size()) {
      ++out.skipped["position_differs_from_the_record"];
      continue;
    }
    for (size_t i = 0; i < ply; ++i) pos.play(rr.moves[i]);
    if (pos.hash() != z.position.hash()) {
      ++out.skipped["position_differs_from_the_record"];
      continue;
    }
    const SideRating side = rated.sides[pos.to_move];
    if (!side.rated()) {
      ++out.skipped["player_unrated"];
      continue;
    }
    out.attempts.push_back({z.id, side.rating, z.rating, rr.moves[ply] == z.key_move()});
  }
  return out;
}

double attempt_chance(int player_rating, double puzzle_rating) {
  return std::clamp(glicko2_expected_score(player_rating, puzzle_rating, kPuzzleDeviation), 1e-6,
                    1 - 1e-6);
}

namespace {
PuzzleAttempt as_puzzle_attempt(const Attempt& a, int puzzle_rating) {
  return {a.player_rating, puzzle_rating, a.found};
}
}  // namespace

double attempt_log_loss(const Attempt& a, int puzzle_rating) {
  const PuzzleAttempt one = as_puzzle_attempt(a, puzzle_rating);
  return attempts_log_loss(std::span(&one, 1));
}

double ordering_auc(const std::vector<Attempt>& attempts) {
  double good = 0, pairs = 0;
  for (const Attempt& f : attempts)
    if (f.found)
      for (const Attempt& x : attempts)
        if (!x.found) {
          const int margin_f = f.player_rating - f.puzzle_rating;
          const int margin_x = x.player_rating - x.puzzle_rating;
          good += margin_f > margin_x ? 1 : margin_f == margin_x ? 0.5 : 0;
          ++pairs;
        }
  return pairs > 0 ? good / pairs : 0;
}

AttemptSummary summarize_attempts(const std::vector<Attempt>& at, bool fit_scale) {
  AttemptSummary s;
  double found = 0, loss = 0, brier = 0;
  std::vector<int> players;
  std::vector<double> outcomes;
  for (const Attempt& a : at) {
    found += a.found;
    loss += attempt_log_loss(a, a.puzzle_rating);
    const double p = attempt_chance(a.player_rating, a.puzzle_rating);
    brier += (p - a.found) * (p - a.found);
    players.push_back(a.player_rating);
    outcomes.push_back(a.found ? 1 : 0);
  }
  const int constant = puzzle_rating_from_chances(players, outcomes);
  double constant_loss = 0;
  for (const Attempt& a : at) constant_loss += attempt_log_loss(a, constant);
  const double n = double(at.size());
  s.found = found / n;
  s.log_loss = loss / n;
  s.brier = brier / n;
  s.constant_rating = constant;
  s.constant_log_loss = constant_loss / n;
  s.ordering_auc = ordering_auc(at);
  const int edges[] = {-100000, -400, -200, 0, 200, 400, 100000};
  for (int b = 0; b + 1 < int(std::size(edges)); ++b) {
    double count = 0, predicted = 0, actual = 0;
    for (const Attempt& a : at) {
      const int margin = a.player_rating - a.puzzle_rating;
      if (margin < edges[b] || margin >= edges[b + 1]) continue;
      ++count;
      predicted += attempt_chance(a.player_rating, a.puzzle_rating);
      actual += a.found;
    }
    s.by_margin.push_back({edges[b], edges[b + 1], int(count), count > 0 ? predicted / count : 0,
                           count > 0 ? actual / count : 0});
  }
  if (fit_scale) {
    std::vector<PuzzleAttempt> all;
    for (const Attempt& a : at) all.push_back(as_puzzle_attempt(a, a.puzzle_rating));
    s.fitted_scale = fit_puzzle_rating_scale(all);
    s.fitted_log_loss = attempts_log_loss(all, *s.fitted_scale);
  }
  return s;
}

PairedLogLoss compare_log_loss(const std::vector<Attempt>& first,
                               const std::vector<Attempt>& other) {
  std::map<std::string, const Attempt*> first_by_id;
  for (const Attempt& a : first) first_by_id[a.id] = &a;
  std::vector<double> diffs;
  for (const Attempt& a : other)
    if (const auto it = first_by_id.find(a.id); it != first_by_id.end())
      diffs.push_back(attempt_log_loss(a, a.puzzle_rating) -
                      attempt_log_loss(*it->second, it->second->puzzle_rating));
  PairedLogLoss c;
  c.shared_attempts = diffs.size();
  if (diffs.size() > 1) {
    double mean = 0, var = 0;
    for (double d : diffs) mean += d;
    mean /= double(diffs.size());
    for (double d : diffs) var += (d - mean) * (d - mean);
    var /= double(diffs.size() - 1);
    const double half = 1.96 * std::sqrt(var / double(diffs.size()));
    c.difference = mean;
    c.low = mean - half;
    c.high = mean + half;
  }
  return c;
}

}  // namespace kz
