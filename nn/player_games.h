// A player's games read from a file of many (a PlayOK export, a PGN): each game's line
// (date, opponent, colour, result, accuracy, what the game alone says of the player's
// rating) and the rating estimate over all of them at once (nn/player_rating.h). The
// logic of `kumalak analyze --player-report` and `--by-player` (docs/human.md, "A
// player's rating from many games"), kept out of the command so that the page's coming
// browser build can share it. LibTorch-free.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/notation.h"
#include "core/rated_games.h"
#include "mcts/player.h"
#include "nn/game_likelihood.h"
#include "nn/human_head.h"
#include "nn/player_rating.h"

namespace kz {

// The rating grid every estimate here is computed on: the head's range, 25 points apart
// (as `kumalak analyze`'s one-game "Played like").
inline constexpr int kPlayerRatingGridStep = 25;

// What the games are analysed with. Everything is optional: without an engine there is no
// accuracy, without a human model no rating.
struct PlayerGamesTools {
  Player* engine = nullptr;          // judges every move for the accuracy (mcts/analysis.h)
  ThinkLimits limits;                // the engine's budget per position
  const HumanHead* human = nullptr;  // the human model of the rating estimates
  SearchBestMove search;             // its search mixture's search (null: none)
};

// One game of the player's, as listed.
struct PlayerGame {
  std::string file;  // the file it came from (GameRecord::source)
  int index = 0;     // its 1-based number in that file
  std::string date;  // the Date tag as written ("" when absent)
  std::string opponent;
  int colour = 0;      // the player's side: 0 White (first mover), 1 Black
  std::string result;  // as recorded ("1-0", "0-1", "1/2-1/2", "*")
  // The player's score: 1 won, 0.5 drawn, 0 lost; nullopt when the record has no result.
  std::optional<double> score;
  int plies = 0;
  SideRating rating, opponent_rating;  // the rating tags (core/rated_games.h)
  std::optional<double> accuracy;      // the player's (mcts/accuracy.h)
  // This game alone (both sides jointly where the model has the pair prior, as `kumalak
  // analyze` says "Played like"); nullopt without a human model or player's move.
  std::optional<RatingEstimate> played_like;
  GameRatingEvidence evidence;  // for the estimate over many games
};

// A game left out, and why ("game 317 (line 4410): illegal move ...").
struct SkippedGame {
  std::string file;
  int index = 0;
  std::string reason;
};

// The name with the most games among `games` (both colours counted; ties: the one that
// appears first); "" when no game names a player. Names are the White/Black tags.
std::string most_frequent_player(std::span<const GameRecord> games);

// `record` analysed from `player`'s side (who must be White or Black in it). Throws
// ParseError (naming the game and ply) when the record does not replay.
PlayerGame analyse_player_game(const GameRecord& record, const GameSpec& spec,
                               const std::string& player, const PlayerGamesTools& tools);

struct PlayerReport {
  std::string player;
  std::vector<PlayerGame> games;     // in file order
  std::vector<SkippedGame> skipped;  // the player's games that did not replay
  // Over all of `games` (nullopt without a human model).
  std::optional<PlayerRatingEstimate> estimate;
  std::optional<double> mean_accuracy;  // the mean of the games' accuracies
};

// Every game of `records` in which `player` played, analysed; a game that does not replay
// is skipped with its reason and the rest are used. The games are shared among
// `workers`, one thread each (each its own engine and search; the human model may be
// one for all: its calls are inference only), the results in file order whatever the
// threads' order. `progress(done, total)` is called after each of the player's games,
// from one thread at a time (may be null).
PlayerReport player_report(std::span<const GameRecord> records, const GameSpec& spec,
                           const std::string& player, std::span<const PlayerGamesTools> workers,
                           const std::function<void(int, int)>& progress = nullptr);

// The measurement of the estimate over many games (docs/human.md): every player with at
// least `min_games` games in which their side is rated, scored against the mean of their
// recorded ratings in those games. Rows by the number of games an estimate uses: the
// first 1, 5, 10 of each player's games (players with at least that many), all of them
// for players with 20 or more, and all of them for every player.
// One player's estimate in a row, against the mean of their recorded ratings: what a
// row's figures are computed from, kept so that rows of several folds can be pooled.
struct ScoredPlayer {
  std::string name;
  double recorded = 0;      // the mean of the player's recorded ratings
  RatingEstimate estimate;  // the estimate over the games the row uses
  double average = 0;       // the plain average of those games' one-game estimates
  double weighted = 0;      // the same weighted by their intervals
  int games_used = 0;
};
struct ByPlayerRow {
  PlayerRatingOptions options;       // how the estimate over many games weighed the evidence
  std::string games;                 // "1", "5", "10", "20+", "all"
  std::vector<ScoredPlayer> scored;  // in the players' order; the figures below are theirs
  int players = 0;
  double games_per_player = 0;  // the mean number of games an estimate used
  // The estimate over many games: rank correlation with the mean recorded ratings, mean
  // absolute error, the share of players whose mean rating lies in its 95 % interval and
  // the interval's mean width.
  double spearman = 0, mae = 0, coverage = 0, width = 0;
  double mean_mae = 0;  // predicting the players' mean rating for everyone
  // Baselines: averaging the one-game estimates plainly and weighted by their intervals.
  double average_spearman = 0, average_mae = 0;
  double weighted_spearman = 0, weighted_mae = 0;
};
// Whether two rows count the same thing: the same games label and weighing.
bool same_row_kind(const ByPlayerRow& a, const ByPlayerRow& b);
// A row's figures (players, games_per_player, spearman, mae, coverage, width, mean_mae
// and the baselines') computed from its `scored` players; zeros when it has none.
void score_row(ByPlayerRow& row);
// One row of the players of all `rows` together (the same options and games label; the
// folds of a cross-validation, each measured by a model that never saw its games).
// Throws std::invalid_argument when the rows' options or labels differ.
ByPlayerRow pooled_row(std::span<const ByPlayerRow> rows);

struct ByPlayerEvaluation {
  int games = 0;          // games with a rated side of a player who qualifies
  int skipped_games = 0;  // of those, the ones that did not replay
  int players = 0;
  std::vector<ByPlayerRow> rows;
  // Every qualifying player: name, games, mean recorded rating, the estimate over all.
  struct Player {
    std::string name;
    int games = 0;
    double recorded = 0;
    RatingEstimate estimate;
    double average = 0;  // the plain average of one-game estimates
  };
  std::vector<Player> player_list;
};
// The player list of an `all` row: each player's estimate over all their games.
std::vector<ByPlayerEvaluation::Player> player_list_of(const ByPlayerRow& all);
// `records`: the games to measure on (the caller picks the fold); `min_games` the
// players' least number of games; `workers` as player_report's (their engines unused);
// `variants`: the rows are computed for each (the player list with the first; empty: the
// default options). `progress(done, total)` after each game; `skipped` gets each game
// that did not replay.
ByPlayerEvaluation evaluate_by_player(std::span<const GameRecord> records, const GameSpec& spec,
                                      int min_games, std::span<const PlayerGamesTools> workers,
                                      std::span<const PlayerRatingOptions> variants,
                                      const std::function<void(int, int)>& progress = nullptr,
                                      std::vector<SkippedGame>* skipped = nullptr);

}  // namespace kz
