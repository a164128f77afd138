// Game analysis: how good was each move of a game, as the engine sees it. Shared by
// `kumalak analyze` (annotated PGN and a summary per player) and `kumalak serve` (the
// chart of White's expected score in the browser).
//
// How a move is judged: the engine searches the position before the move and scores
// every legal move (expected score = win + draw/2 for the mover). The move loses
// E(engine's move) - E(played move), both from that one search, so horizon effects hit
// both alike; the engine's own move loses nothing. Thresholds on that drop
// (docs/play.md): inaccuracy >= 0.10, mistake >= 0.20, blunder >= 0.35.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mcts/perfect_player.h"
#include "mcts/player.h"

namespace kz {

inline constexpr double kInaccuracy = 0.10, kMistake = 0.20, kBlunder = 0.35;

enum class MoveMark { kNone = 0, kInaccuracy = 1, kMistake = 2, kBlunder = 3 };
const char* move_mark_name(MoveMark mark);  // "", "inaccuracy", "mistake", "blunder"

// An expected score (win + draw / 2) and margin, from one side's point of view.
struct Expected {
  double e = 0.5;
  float margin = 0;
};

// What the engine thought of one played move.
struct MoveJudgement {
  int move = -1;        // 0-based pit played
  int mover = 0;        // who played it
  bool judged = false;  // false when the result was already fixed before the move
  Expected after;       // the mover's expected score after the move (the engine's
                        // if it agrees, the played move's otherwise; exact when decided)
  Expected best;        // the engine's preferred move's, for the mover
  int best_move = -1;   // 0-based pit the engine preferred (-1: none)
  bool agrees = false;  // the played move is the engine's
  double drop = 0;      // best.e - after.e, at least 0
  MoveMark mark = MoveMark::kNone;
  // Kalah positions the engine solved, when the played move gives stones away against
  // perfect play: the mover's final margins after the best and the played move.
  std::optional<ExactMargins> given_away;

  double white_score() const { return mover == 0 ? after.e : 1.0 - after.e; }
  float white_margin() const { return mover == 0 ? after.margin : -after.margin; }
};

// Judges `played` (legal in `before`) with one search of `engine` under `limits`.
MoveJudgement judge_move(Player& engine, const Position& before, int played,
                         const ThinkLimits& limits);

// A player's tally over the moves it made.
struct AnalysisStats {
  int moves = 0, inaccuracies = 0, mistakes = 0, blunders = 0, agree = 0;
  double loss = 0;  // sum of drops
  void add(const MoveJudgement& j);
  void add(const AnalysisStats& o);
};

struct GameAnalysis {
  std::vector<MoveJudgement> moves;  // one per ply
  AnalysisStats side[2];
};

// Judges every move of a game played from `start` (the moves must be legal; see
// replay_record). Calls engine.new_game() first.
GameAnalysis analyze_game(Player& engine, const Position& start, const std::vector<int>& moves,
                          const ThinkLimits& limits);

}  // namespace kz
