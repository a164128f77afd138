// What `kumalak levels-match` computes around its games (tools/levels_match.h), apart
// from its options and printing (tools/cmd_levels_match.cpp): the pairs it plays (the
// ladder of levels, one level and the one below, or two sides named by --a and --b) with
// the score each must reach, the paired openings, the games of an earlier sitting taken
// back from its record with the settings it was made with, the openings still to play,
// a finished game's line and a pair's score so far, and the score table with each
// pair's Elo and SPRT.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/position.h"
#include "tools/levels_match.h"
#include "train/elo.h"

namespace kz {

// A level must score this much against the one below (docs/levels.md).
inline constexpr double kStepScore = 0.65;
// The SPRT reported per pair: is the step worth the 65 % it should be (+108 Elo), or
// only 55 % (+35 Elo)? The pentanomial statistics of train/elo.h, as gating uses.
inline const SprtParams kStepSprt{35, 108, 0.05, 0.05, 20};
// A pair with a rating level (--a/--b): A must score this much, the goal for 200 rating
// points (docs/levels.md); its SPRT asks whether A is stronger at all (0 Elo) or worth
// that score (+70 Elo).
inline constexpr double kRatingStepScore = 0.60;
inline const SprtParams kRatingStepSprt{0, 70, 0.05, 0.05, 20};

// The two sides of one pair, and what the first must score against the second.
struct LevelPair {
  MatchSide upper, lower;
  double step_score = kStepScore;
  SprtParams sprt = kStepSprt;
};

// Which pairs a match plays, as its options name them.
struct LevelPairsChoice {
  std::string a, b;         // one pair, A against B (each a level or a rating); "" = none
  std::string only;         // the upper level of the one pair to play ("" = every level)
  bool same_level = false;  // the lower side plays the upper's level too
  std::string human_model;  // the human model of rating levels ("" = the shipped one)
};

// The pairs `choice` names: A against B, the --only level against the one below, or every
// level against the one below. Throws ParseError saying what is wrong (a rating level
// whose human model or engine network is missing among it).
std::vector<LevelPair> level_pairs_of(const LevelPairsChoice& choice, const GameSpec& spec);

// The openings of a match of `games` games per pair (rounded up to pairs): `plies` random
// plies from the start each, from `seed`.
std::vector<Position> paired_openings(const GameSpec& spec, int games, int plies, uint64_t seed);

// An earlier sitting's games taken back from a record.
struct ResumedRecord {
  // The record's lines to keep: the settings, then the games of the openings finished in
  // both colours (a half-played opening is played again and its one game dropped).
  std::string kept;
  int games = 0;  // the games counted
  // By pair and opening: finished in both colours, not to be played again.
  std::vector<std::vector<bool>> opening_done;
};

// Counts into `stats` (one per pair) the games of the record at `path` made with
// `settings` (nothing when there is no such file). Throws what read_record throws.
ResumedRecord resume_record(const std::string& path, const nlohmann::ordered_json& settings,
                            int openings, const std::vector<LevelPair>& pairs,
                            std::vector<PairStats>& stats);

// The settings a record is made with: a resumed match must use the same ones, or its
// games would not be one match. --a/--b's keys are there only when given and
// adjudication's only when it is on, so records made before either existed still resume.
//   spec: the game
//   games: games per pair, as asked
//   opening_plies: random plies of each opening
//   choice: the pairs played
//   play: how the levels play
nlohmann::ordered_json levels_record_settings(const GameSpec& spec, int games, int opening_plies,
                                              const LevelPairsChoice& choice,
                                              const LevelsMatchPlay& play);

// The openings of pair `pair` still to play, by index (every one without a record).
std::vector<int> openings_to_play(const ResumedRecord& resumed, size_t pair);

// A pair's score so far from the upper side, as the progress line shows it ("62.5%").
std::string pair_score_text(const PairStats& stats);

// A finished game in a line (--verbose): "hard (white) vs medium, opening 3: win 50-31, 84
// plies", and adjudication's verdict where there was one.
//   upper, lower: the pair's sides
//   recorded: the game's record
//   game: the runner's game (the stores, the plies, the verdict's ply)
//   resign_verify: the games were played on after the verdict (which is then judged)
std::string levels_game_line(const MatchSide& upper, const MatchSide& lower,
                             const RecordedGame& recorded, const RunnerGame& game,
                             bool resign_verify);

// What the score table shows besides the pairs' counts.
struct LevelsTableSetup {
  std::string game;       // the game's name
  int openings = 0;       // per pair
  int opening_plies = 0;  // random plies of each opening
  double time_scale = 1;
  uint64_t seed = 1;
  bool resign = false;         // resign adjudication was on
  bool resign_verify = false;  // ... and the games were played on
  int threads = 1;
  int recorded_games = 0;  // games counted from the record of an earlier sitting
  double seconds = 0;      // this sitting's wall time
};

// The score table of docs/levels.md, and how many pairs scored under their step.
struct LevelsTable {
  std::string text;
  int failures = 0;
};
LevelsTable levels_table(const LevelsTableSetup& setup, const std::vector<LevelPair>& pairs,
                         const std::vector<PairStats>& stats);

}  // namespace kz
