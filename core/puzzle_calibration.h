// How well a puzzle file's ratings predict what rated players did (`kumalak puzzles
// calibrate`): every puzzle mined from a rated game (its source names the game and the
// ply) was once a real position in front of a real player of a known rating, who played
// the key move or did not. Those attempts, read back from the recorded games, are scored
// with the expected score the players' rating updates use (core/glicko2.h).
// docs/puzzles.md, "Rating", has the figures.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/notation.h"
#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/rated_games.h"

namespace kz {

// One real attempt: the player of `player_rating` to move in the puzzle's position in its
// game, and whether they played the key move.
struct Attempt {
  std::string id;  // the puzzle's
  int player_rating = 0;
  int puzzle_rating = 0;
  bool found = false;
};

// The recorded games of some folders, by (file name, index in the file).
using GameIndex = std::map<std::pair<std::string, int>, GameRecord>;

// Every *.pgn file's games in `dirs` (read_pgn_file; throws what it throws).
GameIndex read_recorded_games(const std::vector<std::string>& dirs);

// What happened to the puzzles of one file: the attempts, and the puzzles that gave none
// by reason ("game_not_found", "player_unrated", ...).
struct FileAttempts {
  std::vector<Attempt> attempts;
  std::map<std::string, int> skipped;
};

// The attempts of `set`'s puzzles whose games are in `games` and in `fold`.
FileAttempts real_attempts(const PuzzleSet& set, const GameIndex& games, FoldSelection fold);

// The chance that a player of `player_rating` finds a puzzle of `puzzle_rating`, kept
// inside 1e-6..1 - 1e-6.
double attempt_chance(int player_rating, double puzzle_rating);

// The log-loss of `a` had its puzzle been rated `puzzle_rating`.
double attempt_log_loss(const Attempt& a, int puzzle_rating);

// The share of (found, missed) pairs in which the found puzzle's rating lies further
// below its player's rating than the missed one's (ties half): how well the ratings
// order the attempts, whatever their scale.
double ordering_auc(const std::vector<Attempt>& attempts);

// The attempts whose player stood between `from` (included) and `to` points above the
// puzzle: how many, the mean predicted chance and the share found (0 without any).
struct MarginBin {
  int from = 0, to = 0, attempts = 0;
  double predicted = 0, found = 0;
};

// One file's attempts scored (the means over its attempts).
struct AttemptSummary {
  double found = 0, log_loss = 0, brier = 0;
  // The best single rating for every puzzle, fitted to these very attempts, and its
  // log-loss: a baseline the ratings must beat to say anything about one puzzle
  // against another.
  int constant_rating = 0;
  double constant_log_loss = 0;
  double ordering_auc = 0;
  std::vector<MarginBin> by_margin;  // by how far the player stood above the puzzle
  // With fit_scale: the PuzzleRatingScale fitted to the attempts, and its log-loss.
  std::optional<PuzzleRatingScale> fitted_scale;
  double fitted_log_loss = 0;
};
// `attempts` must not be empty.
AttemptSummary summarize_attempts(const std::vector<Attempt>& attempts, bool fit_scale);

// Two files compared on the attempts they share (the same puzzle, rated two ways): the
// mean log-loss difference of `other` from `first`, with a 95 % interval (where more
// than one attempt is shared).
struct PairedLogLoss {
  size_t shared_attempts = 0;
  std::optional<double> difference;
  double low = 0, high = 0;
};
PairedLogLoss compare_log_loss(const std::vector<Attempt>& first,
                               const std::vector<Attempt>& other);

}  // namespace kz
