#include "mcts/advice.h"

#include <cmath>
#include <cstdio>

#include "core/notation.h"
#include "mcts/alphabeta.h"
#include "mcts/perfect_player.h"

namespace kz {

namespace {

struct BestCapture {
  int captured = 0;  // stones taken by the capture rule
  int hole = -1;     // 0-based hole of the victim's row
  bool tuzdyk = false;
};

// The biggest capture the side to move of `pos` could make right now; a tuzdyk counts
// before any plain capture of up to 10 stones, which is about what one is worth.
BestCapture best_capture(const Position& pos) {
  BestCapture best;
  int best_key = 0;
  for (uint32_t m = pos.legal_mask(); m; m &= m - 1) {
    Position c = pos;
    const auto info = c.play(__builtin_ctz(m));
    if (info.captured == 0) continue;
    const int key = info.captured + (info.made_tuzdyk ? 10 : 0);
    if (key > best_key) {
      best_key = key;
      best.captured = info.captured;
      best.tuzdyk = info.made_tuzdyk;
      // Togyz captures happen in the victim's row; a Kalah capture empties the victim's
      // pit opposite the capturer's landing pit.
      best.hole = pos.is_togyz() ? info.landing_index : pos.npits - 1 - info.landing_index;
    }
  }
  return best;
}

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

MoveFacts move_facts(const Position& pos, int move) {
  MoveFacts f;
  f.move = move;
  if (!pos.is_legal(move)) return f;
  const int me = pos.to_move, opp = me ^ 1;
  f.stones = pos.pit(me, move);
  {
    Position flipped = pos;
    flipped.to_move = uint8_t(opp);
    const BestCapture t = best_capture(flipped);
    f.threat_before = t.captured;
    f.threat_before_hole = t.hole;
  }
  Position after = pos;
  const auto info = after.play(move);
  f.captured = info.captured;
  f.made_tuzdyk = info.made_tuzdyk;
  if (info.made_tuzdyk) f.tuzdyk_hole = info.landing_index;
  f.extra_turn = info.extra_turn;
  if (!pos.is_togyz() && info.captured > 0) f.capture_pit = info.landing_index;
  f.ends_game = info.ended_game;
  f.decides_game = after.is_decided() && !pos.is_decided();
  f.final_margin = int(after.store[me]) - int(after.store[opp]);

  // Where the stones went. Togyz sows round 18 holes from the picked one (a single
  // stone starts in the next); Kalah round 2m+1 places, skipping the opponent's store.
  if (pos.is_togyz()) {
    const int from = me * kMaxPits + move;
    const int start = f.stones == 1 ? from + 1 : from;
    for (int j = 0; j < f.stones; ++j) f.sown_to_opponent += ((start + j) % 18) / kMaxPits == opp;
    if (!info.ended_game) {
      f.to_own_tuzdyk = int(after.store[me]) - int(pos.store[me]) - info.captured;
      f.to_their_tuzdyk = int(after.store[opp]) - int(pos.store[opp]);
      // Stones that fell into the mover's tuzdyk were sown into the opponent's row.
      f.sown_to_opponent -= f.to_own_tuzdyk;
    }
  } else {
    const int m = pos.npits, ring = 2 * m + 1;
    for (int j = 1; j <= f.stones; ++j) f.sown_to_opponent += (move + j) % ring > m;
  }

  if (!after.is_decided()) {
    Position reply = after;
    reply.to_move = uint8_t(opp);
    if (reply.legal_mask()) {
      const BestCapture r = best_capture(reply);
      f.reply_gain = r.captured;
      f.reply_hole = r.hole;
      f.reply_tuzdyk = r.tuzdyk;
    }
    Position again = after;
    again.to_move = uint8_t(me);
    if (again.legal_mask()) {
      const BestCapture t = best_capture(again);
      f.own_threat = t.captured;
      f.own_threat_hole = t.hole;
      f.own_threat_tuzdyk = t.tuzdyk;
    }
  }
  return f;
}

std::string explain_move(const Position& pos, int move) {
  if (!pos.is_legal(move)) return "not a legal move";
  const MoveFacts f = move_facts(pos, move);
  const bool togyz = pos.is_togyz();
  const char* hole = togyz ? "hole" : "pit";
  const char* unit_one = togyz ? "stone" : "seed";
  const char* unit_many = togyz ? "stones" : "seeds";
  std::vector<std::string> parts;
  auto result_word = [](int margin) {
    return margin > 0 ? "a win" : margin < 0 ? "a loss" : "a draw";
  };
  const Position after = [&] {
    Position p = pos;
    p.play(move);
    return p;
  }();
  const int me = pos.to_move;
  if (f.ends_game) {
    parts.push_back("ends the game " + std::to_string(after.store[me]) + "-" +
                    std::to_string(after.store[me ^ 1]) + ", " + result_word(f.final_margin));
  } else if (f.decides_game) {
    parts.push_back("decides the game (" + std::to_string(after.store[me]) + "-" +
                    std::to_string(after.store[me ^ 1]) + "): " + result_word(f.final_margin));
  }
  if (f.made_tuzdyk) {
    parts.push_back("makes their hole " + std::to_string(f.tuzdyk_hole + 1) +
                    " your tuzdyk (3 stones now, and every stone that falls there later)");
  } else if (f.captured > 0 && togyz) {
    const auto info = [&] {
      Position p = pos;
      return p.play(move);
    }();
    parts.push_back("captures " + plural(f.captured, unit_one, unit_many) + " on their hole " +
                    std::to_string(info.landing_index + 1));
  } else if (f.captured > 0) {
    parts.push_back("captures " + plural(f.captured, unit_one, unit_many) + " (your pit " +
                    std::to_string(f.capture_pit + 1) + " and the opposite pit " +
                    std::to_string(pos.npits - f.capture_pit) + ")");
  }
  if (f.extra_turn && !f.ends_game) parts.push_back("ends in your store: you move again");
  if (f.to_own_tuzdyk > 0)
    parts.push_back(plural(f.to_own_tuzdyk, "stone falls", "stones fall") + " into your tuzdyk");
  if (f.to_their_tuzdyk > 0)
    parts.push_back("gives " + plural(f.to_their_tuzdyk, unit_one, unit_many) + " to their tuzdyk");
  if (!f.ends_game && !f.decides_game) {
    if (f.threat_before > 0 && f.reply_gain < f.threat_before)
      parts.push_back("removes the threat of a capture of " + std::to_string(f.threat_before) +
                      " on your " + hole + " " + std::to_string(f.threat_before_hole + 1));
    if (f.reply_tuzdyk)
      parts.push_back("lets them make your hole " + std::to_string(f.reply_hole + 1) +
                      " their tuzdyk next move");
    else if (f.reply_gain > 0)
      parts.push_back("leaves your " + std::string(hole) + " " + std::to_string(f.reply_hole + 1) +
                      " open to a capture of " + std::to_string(f.reply_gain) + " next move");
    if (f.own_threat_tuzdyk)
      parts.push_back("threatens to make their hole " + std::to_string(f.own_threat_hole + 1) +
                      " your tuzdyk");
    else if (f.own_threat > 0)
      parts.push_back("threatens to capture " + std::to_string(f.own_threat) + " on their " + hole +
                      " " + std::to_string(f.own_threat_hole + 1));
  }
  if (parts.empty() || (f.captured == 0 && !f.made_tuzdyk && !f.extra_turn && !f.ends_game)) {
    std::string quiet = "sows " + plural(f.stones, unit_one, unit_many);
    if (f.sown_to_opponent > 0)
      quiet += ", " + std::to_string(f.sown_to_opponent) + " into their row";
    if (parts.empty()) quiet = "a quiet move: " + quiet + "; nothing is left open";
    parts.insert(parts.begin(), quiet);
  }
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

std::string line_notation(const Position& pos, const std::vector<int>& moves) {
  std::string s;
  Position p = pos;
  for (int m : moves) {
    if (p.is_over() || !p.is_legal(m)) break;
    if (!s.empty()) s += ' ';
    s += format_move(p, m);
    p.play(m);
  }
  return s;
}

std::string percent(float p) {
  return std::to_string(int(std::lround(100.0 * p))) + "%";
}

std::string signed_margin(float m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f", double(m));
  return buf;
}

std::string proven_note(bool proven, bool margin_exact, float margin) {
  if (margin_exact)
    return " (proven " + std::string(margin > 0 ? "+" : "") +
           std::to_string(int(std::lround(margin))) + ")";
  return proven ? " (proven)" : "";
}

Hint make_hint(Player& player, const Position& pos, const ThinkLimits& limits, int count) {
  Hint h;
  h.result = player.think(pos, limits);
  if (auto* perfect = dynamic_cast<PerfectPlayer*>(&player);
      perfect && perfect->last_solve().solved)
    h.exact = describe_exact_result(pos, perfect->last_solve());
  auto* ab = dynamic_cast<AlphaBetaPlayer*>(&player);
  for (const MoveEval& e : h.result.moves) {
    if (int(h.moves.size()) >= count) break;
    HintMove hm;
    hm.move = e.move;
    hm.notation = format_move(pos, e.move);
    hm.eval = e;
    if (e.move == h.result.best_move && !h.result.pv.empty())
      hm.line = h.result.pv;
    else if (ab)
      hm.line = ab->last_root_line(e.move);
    if (hm.line.empty() || hm.line[0] != e.move) hm.line = {e.move};
    hm.line_text = line_notation(pos, hm.line);
    hm.reason = explain_move(pos, e.move);
    h.moves.push_back(std::move(hm));
  }
  return h;
}

}  // namespace kz
