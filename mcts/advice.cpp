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

Hint make_hint(Player& player, const Position& pos, const ThinkLimits& limits, int count) {
  Hint h;
  h.result = player.think(pos, limits);
  if (auto* perfect = dynamic_cast<PerfectPlayer*>(&player);
      perfect && perfect->last_solve().solved) {
    h.solve = perfect->last_solve();
  }
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
    hm.facts = move_facts(pos, e.move);
    h.moves.push_back(std::move(hm));
  }
  return h;
}

}  // namespace kz
