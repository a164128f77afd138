#include "mcts/analysis.h"

#include <algorithm>
#include <cstdio>

#include "core/notation.h"
#include "mcts/advice.h"
#include "mcts/perfect_player.h"

namespace kz {

namespace {

// The exact value of a decided position for `mover`.
Expected exact_eval(const Position& q, int mover) {
  const int d = int(q.store[mover]) - int(q.store[mover ^ 1]);
  return {d > 0 ? 1.0 : d < 0 ? 0.0 : 0.5, float(d)};
}

}  // namespace

const char* move_mark_name(MoveMark mark) {
  switch (mark) {
    case MoveMark::kNone:
      return "";
    case MoveMark::kInaccuracy:
      return "inaccuracy";
    case MoveMark::kMistake:
      return "mistake";
    case MoveMark::kBlunder:
      return "blunder";
  }
  return "";
}

MoveJudgement judge_move(Player& engine, const Position& before, int played,
                         const ThinkLimits& limits) {
  MoveJudgement j;
  j.move = played;
  j.mover = before.to_move;
  const int mover = j.mover;
  Position q = before;
  q.play(played);
  if (before.is_decided()) {  // the result was already fixed: nothing to judge
    j.after = j.best = exact_eval(q, mover);
    j.agrees = true;
    return j;
  }
  j.judged = true;
  const ThinkResult r = engine.think(before, limits);
  // Both values come from the same search, so that the depth and the side to move
  // at its horizon are the same for the played and the preferred move.
  Expected best{r.win + 0.5 * r.draw, r.margin}, mine = best;
  bool found = false;
  for (const MoveEval& e : r.moves) {
    if (e.move == r.best_move) best = {expected_score(e), e.margin};
    if (e.move == played) {
      mine = {expected_score(e), e.margin};
      found = true;
    }
  }
  if (!found) {  // an engine that did not score every move: search the reply
    const ThinkResult rq = q.is_decided() ? ThinkResult{} : engine.think(q, limits);
    mine = q.is_decided()       ? exact_eval(q, mover)
           : q.to_move == mover ? Expected{rq.win + 0.5 * rq.draw, rq.margin}
                                : Expected{rq.loss + 0.5 * rq.draw, -rq.margin};
  }
  j.best = best;
  j.best_move = r.best_move;
  j.agrees = played == r.best_move;
  j.drop = j.agrees ? 0.0 : std::max(0.0, best.e - mine.e);
  j.after = j.agrees ? best : mine;
  j.mark = j.drop >= kBlunder      ? MoveMark::kBlunder
           : j.drop >= kMistake    ? MoveMark::kMistake
           : j.drop >= kInaccuracy ? MoveMark::kInaccuracy
                                   : MoveMark::kNone;
  j.given_away = stones_given_away(r, played);
  return j;
}

void AnalysisStats::add(const MoveJudgement& j) {
  if (!j.judged) return;
  moves++;
  loss += j.drop;
  agree += j.agrees;
  inaccuracies += j.mark == MoveMark::kInaccuracy;
  mistakes += j.mark == MoveMark::kMistake;
  blunders += j.mark == MoveMark::kBlunder;
}

void AnalysisStats::add(const AnalysisStats& o) {
  moves += o.moves;
  inaccuracies += o.inaccuracies;
  mistakes += o.mistakes;
  blunders += o.blunders;
  agree += o.agree;
  loss += o.loss;
}

GameAnalysis analyze_game(Player& engine, const Position& start, const std::vector<int>& moves,
                          const ThinkLimits& limits) {
  GameAnalysis a;
  engine.new_game();
  Position p = start;
  for (int played : moves) {
    a.moves.push_back(judge_move(engine, p, played, limits));
    a.side[a.moves.back().mover].add(a.moves.back());
    p.play(played);
  }
  return a;
}

}  // namespace kz
