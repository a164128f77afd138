#include "tools/analysis_words.h"

#include <cstdio>

#include "core/i18n.h"
#include "core/notation.h"

namespace kz {

namespace {

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

std::string analysis_stats_line(const AnalysisStats& s) {
  // The numbers keep their widths (columns line up under each other in any language).
  char count[16], average[16], agreed[16];
  std::snprintf(count, sizeof count, "%3d", s.moves);
  std::snprintf(average, sizeof average, "%4.1f", s.moves ? 100.0 * s.loss / s.moves : 0.0);
  std::snprintf(agreed, sizeof agreed, "%3.0f", s.moves ? 100.0 * s.agree / s.moves : 0.0);
  return i18n::tr(
      "{moves} moves: inaccuracies {inaccuracies}, mistakes {mistakes}, blunders {blunders}, "
      "average loss {loss}%, engine's move {agree}%",
      {{"moves", count},
       {"inaccuracies", s.inaccuracies},
       {"mistakes", s.mistakes},
       {"blunders", s.blunders},
       {"loss", average},
       {"agree", agreed}});
}

std::string analysis_thresholds_text() {
  return i18n::tr(
      "Thresholds (drop of the mover's expected score): inaccuracy >= 10%, mistake >= 20%, "
      "blunder >= 35%.");
}

}  // namespace kz
