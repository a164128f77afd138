// What `kumalak puzzles build` and `kumalak puzzle` compute, apart from their options
// and printing (tools/cmd_puzzles.cpp): the positions mined for puzzles (recorded games,
// network self-play), the mining itself (mcts/puzzle_miner.h's filter and confirm under
// the caps of a build), the puzzles rated by the human model and sorted, and for the
// player the puzzle of the day (or by id, or at random), the answer read and the puzzle
// rating updated (core/puzzle_rating.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/rated_games.h"
#include "mcts/evaluator.h"
#include "mcts/puzzle_miner.h"
#include "nn/human_head.h"

namespace kz::cli {

// Every position from `min_ply` on of the games of `fold` in the *.pgn files of `dir` (in
// name order), each with its source ("FILE game N (DATE) ply P") and a game number
// counted on from `game_number`. A record the rules refuse is no source of puzzles: it is
// skipped. One line a file on `log` ("kumalak puzzles build: FILE: N games ...").
// Throws what reading the folder or a file throws.
void add_recorded_positions(const std::string& dir, const GameSpec& spec, int min_ply,
                            FoldSelection fold, std::vector<PuzzleCandidate>& out, int& game_number,
                            std::ostream& log);

// The positions from `min_ply` on of `games` games of self-play with the network's policy
// (sampled, one batch per ply over all games; a tenth of the moves uniformly at random)
// from `seed`: varied, plausible games where there are no recorded ones (Kalah).
void add_selfplay_positions(Evaluator& evaluator, const GameSpec& spec, int games, int min_ply,
                            uint64_t seed, std::vector<PuzzleCandidate>& out, int& game_number);

// The caps of a build.
struct PuzzleMiningLimits {
  int count = 500;       // stop once this many puzzles are found
  int max_per_game = 2;  // puzzles from one game at most
  int batch = 256;       // positions per filter batch
};

// How far a mining has come, for its progress lines.
struct PuzzleMiningProgress {
  size_t filtered = 0;    // positions through the filter
  size_t positions = 0;   // of these many
  size_t candidates = 0;  // positions that passed it and were searched
  size_t puzzles = 0;     // puzzles confirmed
};

// The puzzles of a mining and its counts at the end.
struct MinedPuzzles {
  std::vector<Puzzle> puzzles;  // in the order they were found
  PuzzleMiningProgress progress;
};

// Filters `positions` (in their order) batch by batch and confirms the candidates into
// puzzles until `limits.count`, at most `limits.max_per_game` per game, each position and
// each puzzle id once. `progress` is called after each confirming search (may be null).
MinedPuzzles mine_puzzles(PuzzleMiner& miner, const std::vector<PuzzleCandidate>& positions,
                          const PuzzleMiningLimits& limits,
                          const std::function<void(const PuzzleMiningProgress&)>& progress);

// Rates `puzzles` by `human` (nn/puzzle_human_rating.h; null: the ratings they have) and
// sorts them by rating, easiest first, ties in their order. Throws what rating throws.
void rate_and_sort_puzzles(std::vector<Puzzle>& puzzles, HumanHead* human);

// The number of puzzles of each theme, by theme name.
std::map<std::string, int> puzzle_theme_counts(const std::vector<Puzzle>& puzzles);

// "12m05s".
std::string minutes_text(double seconds);

// Whether a build rates its puzzles by the human model (else by the search effort).
//   rated_by: --rated-by: "human", "search" or "auto" (human where the game has one)
//   human_model: --human-model ("" = the shipped one)
//   spec: the game
bool rates_by_human(const std::string& rated_by, const std::string& human_model,
                    const GameSpec& spec);

// One progress line of the mining, with its newline: "kumalak puzzles build: F/P positions
// filtered, C candidates, N puzzles, R puzzles/s, ETA 1m02s" (or "done in" the whole time).
//   p: how far it has come
//   count: the puzzles it looks for
//   mining_s: seconds of mining so far
//   total_s: seconds since the build started
//   final: the last line
std::string mining_line(const PuzzleMiningProgress& p, int count, double mining_s, double total_s,
                        bool final);

// "wrote N puzzles to FILE (capture 2, only-move 8, ...)", with its newline.
//   set: the puzzles written
//   path: the file they went to
std::string written_puzzles_text(const PuzzleSet& set, const std::string& path);

// Writes `set` to `path` (atomically, core/puzzle_file.h), making its folder first.
// Throws what making the folder or writing throws.
void write_puzzle_set(const std::string& path, const PuzzleSet& set);

// Which puzzle of a set to play (at most one of id, random and date set).
struct PuzzleChoice {
  std::string id;       // the puzzle of this id
  bool random = false;  // a random puzzle
  uint64_t seed = 0;    // the random puzzle's seed (0: the clock)
  std::string date;     // the day's puzzle of this date (YYYY-MM-DD, "" = today, UTC)
};

// The index of the puzzle `choice` names in `set` (not empty). Throws ParseError (in
// the player's language) for an id not in the set or a date that is not one.
size_t choose_puzzle(const PuzzleSet& set, const PuzzleChoice& choice);

// The player's answer `token` in `pos`, a position of `spec`'s game: a legal move (a
// bare hole number is enough in Togyz, "9" as well as "99"), else nullopt.
std::optional<int> read_puzzle_answer(const GameSpec& spec, const Position& pos,
                                      const std::string& token);

// A puzzle attempt as it counts for the player's rating.
struct PuzzleAttempt {
  bool tried_before = false;  // the puzzle was tried before: the rating does not change
  Glicko2Rating before, after;
};

// Counts the attempt at `puzzle` of `set` (solved or not) in `ratings` (a player new to the
// game starts at the middle of its puzzles); a puzzle tried before changes nothing.
PuzzleAttempt record_puzzle_attempt(PuzzleRatings& ratings, const PuzzleSet& set,
                                    const Puzzle& puzzle, bool solved);

}  // namespace kz::cli
