#include "mcts/analysis.h"

#include <algorithm>
#include <cstdio>

#include "core/i18n.h"
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

// "W 62% +4.1": White's expected score and margin, from a value seen by `mover`.
std::string white_view(int mover, const Expected& ev) {
  const double e = mover == 0 ? ev.e : 1.0 - ev.e;
  const float m = mover == 0 ? ev.margin : -ev.margin;
  char score[16], margin[16];
  std::snprintf(score, sizeof score, "%.0f", 100.0 * e);
  std::snprintf(margin, sizeof margin, "%+.1f", double(m));
  return i18n::tr("W {score}% {margin}", {{"score", score}, {"margin", margin}});
}

std::string signed_int(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%+d", v);
  return buf;
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
    j.comment = white_view(mover, j.after);
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
  j.comment = judgement_comment(j, before);
  return j;
}

std::string judgement_comment(const MoveJudgement& j, const Position& before) {
  std::string c = white_view(j.mover, j.after);
  if (!j.judged) return c;
  char drop[16];
  std::snprintf(drop, sizeof drop, "%.0f", 100 * j.drop);
  switch (j.mark) {
    case MoveMark::kBlunder:
      c += "; " + i18n::tr("?? blunder (-{drop}%)", {{"drop", drop}});
      break;
    case MoveMark::kMistake:
      c += "; " + i18n::tr("? mistake (-{drop}%)", {{"drop", drop}});
      break;
    case MoveMark::kInaccuracy:
      c += "; " + i18n::tr("?! inaccuracy (-{drop}%)", {{"drop", drop}});
      break;
    case MoveMark::kNone:
      break;
  }
  // Kalah positions the engine solved: stones given away against perfect play.
  if (j.given_away) {
    const ExactMargins m = *j.given_away;
    c += "; " + i18n::trn("gives away {n} stone against perfect play (mover {best} -> {got})",
                          "gives away {n} stones against perfect play (mover {best} -> {got})",
                          m.best - m.played,
                          {{"best", signed_int(m.best)}, {"got", signed_int(m.played)}});
  }
  if (!j.agrees && j.best_move >= 0)
    c += "; " + i18n::tr("engine: {move} ({value})", {{"move", format_move(before, j.best_move)},
                                                      {"value", white_view(j.mover, j.best)}});
  return c;
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

std::string AnalysisStats::line() const {
  // The numbers keep their widths (columns line up under each other in any language).
  char count[16], average[16], agreed[16];
  std::snprintf(count, sizeof count, "%3d", moves);
  std::snprintf(average, sizeof average, "%4.1f", moves ? 100.0 * loss / moves : 0.0);
  std::snprintf(agreed, sizeof agreed, "%3.0f", moves ? 100.0 * agree / moves : 0.0);
  return i18n::tr(
      "{moves} moves: inaccuracies {inaccuracies}, mistakes {mistakes}, blunders {blunders}, "
      "average loss {loss}%, engine's move {agree}%",
      {{"moves", count},
       {"inaccuracies", inaccuracies},
       {"mistakes", mistakes},
       {"blunders", blunders},
       {"loss", average},
       {"agree", agreed}});
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

std::string analysis_thresholds_text() {
  return i18n::tr(
      "Thresholds (drop of the mover's expected score): inaccuracy >= 10%, mistake >= 20%, "
      "blunder >= 35%.");
}

}  // namespace kz
