#include "tools/move_words.h"

#include <cmath>
#include <vector>

#include "core/i18n.h"
#include "mcts/advice.h"

namespace kz {

std::string explain_move(const Position& pos, int move) {
  using i18n::tr;
  using i18n::trn;
  if (!pos.is_legal(move)) return tr("not a legal move");
  const MoveFacts f = move_facts(pos, move);
  const bool togyz = pos.is_togyz();
  // Each clause is one message with its numbers as placeholders (Togyz says holes and
  // stones, Kalah pits and seeds: separate messages, never a glued noun).
  std::vector<std::string> parts;
  const Position after = [&] {
    Position p = pos;
    p.play(move);
    return p;
  }();
  const int me = pos.to_move;
  const int mine = after.store[me], theirs = after.store[me ^ 1];
  if (f.ends_game) {
    parts.push_back(
        f.final_margin > 0
            ? tr("ends the game {mine}-{theirs}, a win", {{"mine", mine}, {"theirs", theirs}})
        : f.final_margin < 0
            ? tr("ends the game {mine}-{theirs}, a loss", {{"mine", mine}, {"theirs", theirs}})
            : tr("ends the game {mine}-{theirs}, a draw", {{"mine", mine}, {"theirs", theirs}}));
  } else if (f.decides_game) {
    parts.push_back(f.final_margin > 0   ? tr("decides the game ({mine}-{theirs}): a win",
                                              {{"mine", mine}, {"theirs", theirs}})
                    : f.final_margin < 0 ? tr("decides the game ({mine}-{theirs}): a loss",
                                              {{"mine", mine}, {"theirs", theirs}})
                                         : tr("decides the game ({mine}-{theirs}): a draw",
                                              {{"mine", mine}, {"theirs", theirs}}));
  }
  if (f.made_tuzdyk) {
    parts.push_back(
        tr("makes their hole {hole} your tuzdyk (3 stones now, and every stone that "
           "falls there later)",
           {{"hole", f.tuzdyk_hole + 1}}));
  } else if (f.captured > 0 && togyz) {
    const auto info = [&] {
      Position p = pos;
      return p.play(move);
    }();
    parts.push_back(trn("captures {n} stone on their hole {hole}",
                        "captures {n} stones on their hole {hole}", f.captured,
                        {{"hole", info.landing_index + 1}}));
  } else if (f.captured > 0) {
    parts.push_back(trn("captures {n} seed (your pit {pit} and the opposite pit {opposite})",
                        "captures {n} seeds (your pit {pit} and the opposite pit {opposite})",
                        f.captured,
                        {{"pit", f.capture_pit + 1}, {"opposite", pos.npits - f.capture_pit}}));
  }
  if (f.extra_turn && !f.ends_game) parts.push_back(tr("ends in your store: you move again"));
  if (f.to_own_tuzdyk > 0)
    parts.push_back(trn("{n} stone falls into your tuzdyk", "{n} stones fall into your tuzdyk",
                        f.to_own_tuzdyk));
  if (f.to_their_tuzdyk > 0)
    parts.push_back(trn("gives {n} stone to their tuzdyk", "gives {n} stones to their tuzdyk",
                        f.to_their_tuzdyk));
  if (!f.ends_game && !f.decides_game) {
    if (f.threat_before > 0 && f.reply_gain < f.threat_before)
      parts.push_back(togyz ? tr("removes the threat of a capture of {n} on your hole {hole}",
                                 {{"n", f.threat_before}, {"hole", f.threat_before_hole + 1}})
                            : tr("removes the threat of a capture of {n} on your pit {hole}",
                                 {{"n", f.threat_before}, {"hole", f.threat_before_hole + 1}}));
    if (f.reply_tuzdyk)
      parts.push_back(tr("lets them make your hole {hole} their tuzdyk next move",
                         {{"hole", f.reply_hole + 1}}));
    else if (f.reply_gain > 0)
      parts.push_back(togyz ? tr("leaves your hole {hole} open to a capture of {n} next move",
                                 {{"hole", f.reply_hole + 1}, {"n", f.reply_gain}})
                            : tr("leaves your pit {hole} open to a capture of {n} next move",
                                 {{"hole", f.reply_hole + 1}, {"n", f.reply_gain}}));
    if (f.own_threat_tuzdyk)
      parts.push_back(
          tr("threatens to make their hole {hole} your tuzdyk", {{"hole", f.own_threat_hole + 1}}));
    else if (f.own_threat > 0)
      parts.push_back(togyz ? tr("threatens to capture {n} on their hole {hole}",
                                 {{"n", f.own_threat}, {"hole", f.own_threat_hole + 1}})
                            : tr("threatens to capture {n} on their pit {hole}",
                                 {{"n", f.own_threat}, {"hole", f.own_threat_hole + 1}}));
  }
  if (parts.empty() || (f.captured == 0 && !f.made_tuzdyk && !f.extra_turn && !f.ends_game)) {
    const bool theirs_row = f.sown_to_opponent > 0;
    const int k = f.sown_to_opponent;
    std::string quiet;
    if (parts.empty()) {
      quiet = togyz        ? theirs_row
                                 ? trn("a quiet move: sows {n} stone, {k} into their row; "
                                              "nothing is left open",
                                       "a quiet move: sows {n} stones, {k} into their row; "
                                              "nothing is left open",
                                       f.stones, {{"k", k}})
                                 : trn("a quiet move: sows {n} stone; nothing is left open",
                                       "a quiet move: sows {n} stones; nothing is left open", f.stones)
                     : theirs_row ? trn("a quiet move: sows {n} seed, {k} into their row; nothing is "
                                               "left open",
                                        "a quiet move: sows {n} seeds, {k} into their row; nothing is "
                                               "left open",
                                        f.stones, {{"k", k}})
                           : trn("a quiet move: sows {n} seed; nothing is left open",
                                 "a quiet move: sows {n} seeds; nothing is left open", f.stones);
    } else {
      quiet = togyz        ? theirs_row ? trn("sows {n} stone, {k} into their row",
                                              "sows {n} stones, {k} into their row", f.stones, {{"k", k}})
                                        : trn("sows {n} stone", "sows {n} stones", f.stones)
                     : theirs_row ? trn("sows {n} seed, {k} into their row",
                                        "sows {n} seeds, {k} into their row", f.stones, {{"k", k}})
                           : trn("sows {n} seed", "sows {n} seeds", f.stones);
    }
    parts.insert(parts.begin(), quiet);
  }
  // The clauses are independent statements about the move, each a message of its own;
  // "; " lists them in every language the catalogs have.
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

std::string proven_note(bool proven, bool margin_exact, float margin) {
  if (!margin_exact && !proven) return "";
  // Appended, not " " + tr(...): GCC 12 warns (-Wrestrict, a false positive) on
  // operator+ of a literal and a temporary string here.
  std::string note = " ";
  if (margin_exact)
    note +=
        i18n::tr("(proven {margin})", {{"margin", std::string(margin > 0 ? "+" : "") +
                                                      std::to_string(int(std::lround(margin)))}});
  else
    note += i18n::tr("(proven)");
  return note;
}

}  // namespace kz
