// Matches between two players over paired openings, many games at once: each MCTS
// player has its own evaluator and driver, and all its games' searches share batches.
//
// Player specs (the same strings on every command line):
//   PATH            a model file, searched with MCTS at the match's visits per move
//   init            a freshly initialised network (generation 0) of the config's size
//   rollout         MCTS with the network-free rollout evaluator
//   ab:D            the alpha-beta baseline at fixed depth D (e.g. ab:4)
#pragma once

#include <functional>
#include <string>

#include "train/config.h"
#include "train/elo.h"

namespace kz {

struct MatchOptions {
  RunConfig config;
  std::string a, b;        // player specs; results are from a's point of view
  int games = 0;           // 0 = config.gate.games (rounded up to pairs)
  int visits = 0;          // 0 = config.gate.visits
  int parallel = 0;        // 0 = config.gate.games_in_parallel
  int opening_plies = -1;  // -1 = config.gate.opening_plies
  bool use_sprt = false;   // stop early on an SPRT verdict (config.gate elo0/elo1/...)
  int max_plies = 600;
  bool show_progress = true;
  // When both players search with MCTS, run their search rounds at the same time on two
  // threads (each side has its own evaluator). The games are the same either way; false
  // takes turns on one thread (a check, and for machines with one core).
  bool sides_in_parallel = true;
  // Called after every finished pair (for live reporting).
  std::function<void(const WDL&)> on_pair;
};

struct MatchResult {
  WDL wdl;            // a's wins, draws, losses
  Pentanomial pairs;  // a's points per opening pair
  EloEstimate elo;    // from the pentanomial counts
  SprtResult sprt;    // meaningful when use_sprt
  bool stopped_early = false;
  int64_t plies = 0;
  double seconds = 0;
  // Games that differ from every other game of the match (by start position and
  // moves); a game replayed move for move counts once. Deterministic equal players
  // play each pair's game twice: distinct_games = games / 2.
  int64_t distinct_games = 0;
};

MatchResult play_match(const MatchOptions& options);

// A line such as "W 12 D 3 L 5  score 0.675  Elo +127 [+41, +232]  LOS 99.8%", with
// "  distinct games 10/20" added when some games were played twice.
std::string describe_match(const MatchResult& r);

}  // namespace kz
