// `kumalak analyze --pool-by-player`: the K folds of a cross-validation by game of the
// rating estimate over many games (tools/rating_cross_validation.sh, docs/human.md), each
// a `--by-player --held-out j/K --json` answer measured by a model trained without fold
// j, pooled into one table: every row's players of all folds together. A player with
// games in several folds is one entry per fold (disjoint games, each fold's model never
// saw them); `distinct_players` says how many names there are.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "nn/player_games.h"

namespace kz::cli {

// One fold's file as read.
struct PooledFold {
  std::string file;
  std::string held_out;  // "j/K"
  std::string human_model;
  int players = 0, games = 0, skipped_games = 0;
  double seconds = 0;
};

// A row's 95 % intervals by a bootstrap over players: the row's distinct names drawn with
// replacement, each bringing all its entries (a player's entries in several folds are not
// independent, so the names are the unit), `kPoolBootstrapRounds` rounds from a fixed
// seed; the 2.5 % and 97.5 % quantiles of the Spearman correlation and of the ratio of
// the estimate's mean absolute error to predicting the mean's.
inline constexpr int kPoolBootstrapRounds = 2000;
struct RowInterval {
  double spearman_low = 0, spearman_high = 0;
  double mae_ratio_low = 0, mae_ratio_high = 0;
  int names = 0;  // the distinct players drawn from
};
// nullopt when the row has fewer than two distinct names.
std::optional<RowInterval> bootstrap_row(const ByPlayerRow& row, int rounds = kPoolBootstrapRounds);

struct PooledByPlayer {
  std::vector<PooledFold> folds;  // in the order of j
  int min_games = 0;
  int search_mix_visits = 0;
  ByPlayerEvaluation evaluation;  // games, players (entries) and rows summed over the folds
  int distinct_players = 0;       // names among the `all` rows' entries
  std::vector<std::optional<RowInterval>> intervals;  // one per row of `evaluation`
};

// Reads the folds' JSON files. Throws ParseError naming the file and what is wrong: one
// that cannot be read, is not JSON or lacks a field of `--by-player --json`; folds of
// different K, one fold twice or missing; different min_games or rows.
PooledByPlayer pool_by_player_files(const std::vector<std::string>& paths);

// The pooled table, as `--by-player` prints its own, with the folds above it.
std::string pooled_by_player_text(const PooledByPlayer& pooled);
// The same as one JSON object: `--by-player --json`'s fields, "held_out": "K folds",
// "folds" and "distinct_players".
nlohmann::json pooled_by_player_json(const PooledByPlayer& pooled);

}  // namespace kz::cli
