// What the tools tell a person about moves, as facts: what a move does (captures,
// tuzdyks, extra turns, what it leaves open next move), lines in notation, and the best
// few moves of a position with the engine's numbers. Shared by `kumalak hint`, the `hint`
// command of `kumalak play`, `kumalak analyze` and the page; the words a player reads
// are made from these facts above the search (tools/move_words.h).
#pragma once

#include <string>
#include <vector>

#include "mcts/kalah_solver.h"
#include "mcts/player.h"

namespace kz {

// What one move does, from the mover's side, looking one reply ahead.
struct MoveFacts {
  int move = -1;             // 0-based pit
  int stones = 0;            // stones picked up
  int captured = 0;          // stones taken by the capture rule (Togyz incl. the 3 of a tuzdyk)
  bool made_tuzdyk = false;  // Togyz
  int tuzdyk_hole = -1;      // 0-based hole of the opponent's row that became the tuzdyk
  int to_own_tuzdyk = 0;     // Togyz: stones that fell into the mover's tuzdyk
  int to_their_tuzdyk = 0;   // Togyz: stones that fell into the opponent's tuzdyk
  int sown_to_opponent = 0;  // stones left in the opponent's row by the sowing
  bool extra_turn = false;   // Kalah
  int capture_pit = -1;      // Kalah: 0-based pit of the mover where the capture happened
  bool ends_game = false;
  bool decides_game = false;  // reaches a result that can no longer change
  int final_margin = 0;       // mover's store minus the opponent's, when it ends/decides
  // The opponent's best answer: its immediate gain in stones (capture or tuzdyk), the
  // mover's 0-based hole it hits (-1: none) and whether it makes a tuzdyk there.
  int reply_gain = 0;
  int reply_hole = -1;
  bool reply_tuzdyk = false;
  // The same before the move: what the opponent threatened (to tell "defends").
  int threat_before = 0;
  int threat_before_hole = -1;
  // The mover's best capture if it could move again at once (a threat it creates).
  int own_threat = 0;
  int own_threat_hole = -1;  // 0-based hole of the opponent's row
  bool own_threat_tuzdyk = false;
};

// The facts of `move` (legal in `pos`; a default MoveFacts with only `move` otherwise),
// which tools/move_words.h puts into a player's words.
MoveFacts move_facts(const Position& pos, int move);

// Moves in the game's notation ("76 87x 12", or pit numbers in Kalah), played from pos.
// Stops at the first move that is not legal.
std::string line_notation(const Position& pos, const std::vector<int>& moves);

// The expected score (win + draw / 2) of an evaluation.
inline float expected_score(const MoveEval& e) {
  return e.win + 0.5f * e.draw;
}

struct HintMove {
  int move = -1;
  std::string notation;
  MoveEval eval;
  std::vector<int> line;  // expected line starting with the move (may be just the move)
  std::string line_text;
  MoveFacts facts;  // what the move does (tools/move_words.h explain_move words it)
};

struct Hint {
  std::vector<HintMove> moves;  // best first, at most `count`
  ThinkResult result;
  // Kalah, when the position was solved (a perfect player): the solve, which
  // tools/exact_result_words.h words ("solved: you win by 8 with perfect play; pit 3
  // keeps +8, ..."); unsolved otherwise.
  SolveResult solve;
};

// Asks `player` about `pos` and keeps the best `count` moves with their facts and lines.
// The best move's line is the engine's PV; for the others the alpha-beta engine's own
// line after that move is used where available, otherwise just the move.
Hint make_hint(Player& player, const Position& pos, const ThinkLimits& limits, int count = 3);

// Percent with no decimals ("62%"), and a signed margin with one decimal ("+4.2").
std::string percent(float p);
std::string signed_margin(float m);

}  // namespace kz
