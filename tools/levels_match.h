// `kumalak levels-match`'s games, apart from its options and its table: the two sides
// of a pair (a named level or a PlayOK rating), the record of finished games that lets a
// stopped match resume, each pair's counts, and one pair's paired games played through
// the game runner (mcts/game_runner.h). tools/cmd_levels_match.cpp prints the table.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/position.h"
#include "mcts/game_runner.h"
#include "mcts/levels.h"

namespace kz {

// One side of a pair: a named level, or a PlayOK rating played by the human model.
struct MatchSide {
  Level level = Level::kBeginner;
  std::optional<int> rating{};
  std::string name() const { return rating ? std::to_string(*rating) : level_name(level); }
};

// "hard", "4" or "1400" (throws ParseError).
MatchSide parse_match_side(const std::string& text);

// One finished game of a record.
struct RecordedGame {
  std::string upper;  // the upper level's name: which level pair
  int opening = 0, game = 0, points = 0, plies = 0;
  int64_t upper_nodes = 0, lower_nodes = 0;
  int upper_moves = 0, lower_moves = 0;
  double upper_seconds = 0, lower_seconds = 0;
  std::string upper_name, lower_name;
  // Resign adjudication's verdict: the upper level's half points by it (0 or 2; -1 when
  // there was none) and the ply it came at. Without --resign-verify the game ended there.
  int verdict_points = -1, verdict_ply = -1;
};

// The record's JSON line of `g`.
nlohmann::ordered_json record_line(const RecordedGame& g);

// Reads a record: its settings must equal `settings`, every game line must be whole and
// in range. A last line cut off by a kill (no newline, not JSON) is dropped with a
// warning; anything else malformed is an error naming the file and line.
std::vector<RecordedGame> read_record(const std::string& path,
                                      const nlohmann::ordered_json& settings, int n_openings);

// What one pair of levels did over its games, from the upper level's side.
struct PairStats {
  int wins = 0, draws = 0, losses = 0;  // from the upper level's side
  int64_t upper_nodes = 0, lower_nodes = 0;
  int upper_moves = 0, lower_moves = 0;
  double upper_seconds = 0, lower_seconds = 0;
  int plies = 0;
  std::string upper_name, lower_name;  // the engines, e.g. alphabeta-hard, mcts-expert
  // Resign adjudication: games with a verdict, the plies they were judged at and (played
  // on with --resign-verify) the plies they lasted, and the verdicts the result contradicts.
  int verdicts = 0, wrong_verdicts = 0;
  int64_t verdict_plies = 0, verdict_game_plies = 0;
  // The upper level's half points per opening (0..4: both colours): the pentanomial
  // statistics of train/elo.h. Sized by the caller, one per opening.
  std::vector<int> opening_points;
  // Counts finished game `g` of this pair.
  void add(const RecordedGame& g);
};

// How the levels of a match play (the options of `kumalak levels-match` they take).
struct LevelsMatchPlay {
  uint64_t seed = 1;                   // the players' noise: each game and side its own, from it
  double time_scale = 1.0;             // multiplies the levels' time and node budgets
  bool alphabeta_only = false;         // alpha-beta at every level
  bool lower_alphabeta = false;        // the lower side always alpha-beta
  bool lower_no_score_bounds = false;  // the lower side's MCTS without score bounds
  std::string model;                   // the MCTS levels' network ("": the shipped one)
  std::string lower_model;             // the lower side's ("": `model`)
  std::string human_model;             // the rating levels' human model ("": the shipped one)
  int threads = 2;                     // games at once, one core each
  int max_plies = 1000;                // a game that reaches it is judged by the stores
  // Resign adjudication (PairedMatch::Options): off at 0.
  double resign_score = 0;
  int resign_moves = 3;
  bool resign_verify = false;
};

// Plays both colours of the openings `todo` (indices into `openings`) between `upper`
// (side 0) and `lower`, and calls `on_game` with each finished game's record (its
// `upper` the upper side's name) and the runner's game, on the runner's threads one at a
// time.
//   spec: the game
//   first_game: the number of the pair's first game in the whole match (pair index x 2 x
//               openings), which with the game's own number seeds its players' noise
//   play: as above
// Throws what the game runner or a player's set-up throws.
void play_level_pair(const GameSpec& spec, const MatchSide& upper, const MatchSide& lower,
                     int first_game, const std::vector<Position>& openings,
                     const std::vector<int>& todo, const LevelsMatchPlay& play,
                     const std::function<void(const RecordedGame&, const RunnerGame&)>& on_game);

}  // namespace kz
