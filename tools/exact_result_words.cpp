#include "tools/exact_result_words.h"

#include <cstdio>

#include "core/i18n.h"

namespace kz {

namespace {
std::string signed_int(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%+d", v);
  return v == 0 ? "0" : buf;
}

// One whole phrase for each outcome, for pits (Kalah) and holes (Togyz).
std::string exact_move_phrase(bool togyz, const ExactMove& m) {
  const std::initializer_list<i18n::Arg> args = {{"pit", m.move + 1},
                                                 {"margin", signed_int(m.margin)}};
  switch (m.outcome) {
    case ExactMoveOutcome::kKeeps:
      return togyz ? i18n::tr("hole {pit} keeps {margin}", args)
                   : i18n::tr("pit {pit} keeps {margin}", args);
    case ExactMoveOutcome::kDrops:
      return togyz ? i18n::tr("hole {pit} drops to {margin}", args)
                   : i18n::tr("pit {pit} drops to {margin}", args);
    case ExactMoveOutcome::kDropsStillWins:
      return togyz ? i18n::tr("hole {pit} drops to {margin} (still wins)", args)
                   : i18n::tr("pit {pit} drops to {margin} (still wins)", args);
    case ExactMoveOutcome::kDropsToADraw:
      return togyz ? i18n::tr("hole {pit} drops to {margin} (only a draw)", args)
                   : i18n::tr("pit {pit} drops to {margin} (only a draw)", args);
    case ExactMoveOutcome::kDropsToALoss:
      break;
  }
  return togyz ? i18n::tr("hole {pit} drops to {margin} (loses)", args)
               : i18n::tr("pit {pit} drops to {margin} (loses)", args);
}
}  // namespace

std::string describe_exact_result(const Position& pos, const SolveResult& r) {
  if (!r.solved) return i18n::tr("not solved within the limits");
  std::string s =
      r.margin > 0   ? i18n::tr("solved: you win by {n} with perfect play", {{"n", r.margin}})
      : r.margin < 0 ? i18n::tr("solved: you lose by {n} with perfect play", {{"n", -r.margin}})
                     : i18n::tr("solved: a draw with perfect play");
  const std::vector<ExactMove> moves = exact_moves(pos, r);
  for (size_t i = 0; i < moves.size(); ++i) {
    s += i == 0 ? "; " : ", ";
    s += exact_move_phrase(pos.is_togyz(), moves[i]);
  }
  return s;
}

}  // namespace kz
