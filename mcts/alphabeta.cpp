#include "mcts/alphabeta.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "mcts/search_yield.h"

namespace kz {

namespace {

constexpr int kInf = kWinScore + 1;

enum : uint8_t { kBoundNone = 0, kBoundUpper = 1, kBoundLower = 2, kBoundExact = 3 };

// Move ordering: children are searched in decreasing order key. The classes lie far
// apart, so that no key of a lower class reaches a higher one.
// The transposition table's move (the best of an earlier search of the node) first.
constexpr int kOrderTableMove = 1 << 30;
// Then the moves that change the balance at once (a gain, a tuzdyk, an extra turn, the
// game's end): this plus their gain key. One whose gain key is negative (a game end
// that loses stones) falls below it and is treated as a quiet move after a cutoff.
constexpr int kOrderGainBase = 1 << 24;
// Then the killers (quiet moves that cut off at the same ply elsewhere): the newer one
// gets this plus one, the older one this. Late moves below it may be reduced.
constexpr int kOrderKiller = 1 << 22;
// The other quiet moves by their history score, capped below the killers.
constexpr int kOrderHistoryCap = 1 << 21;

// How much of the order key an immediate gain is worth.
struct GainWeights {
  int per_stone;   // per stone the move adds to the mover's store difference
  int tuzdyk;      // when the move makes a tuzdyk (Togyz)
  int extra_turn;  // when the mover moves again (Kalah)
};
// Inside the tree: a tuzdyk counts as 20 stones and an extra turn as 2 (in 64ths).
constexpr GainWeights kSearchGain{64, 20 * 64, 2 * 64};
// In quiescence: a tuzdyk counts as 10 stones and an extra turn as half a stone.
constexpr GainWeights kQuiescenceGain{4, 40, 2};
// At the root before the first iteration: a tuzdyk counts as 20 stones and an extra
// turn as half a stone.
constexpr GainWeights kRootGain{10, 200, 5};
// The root's key of the table's move: above any gain key there.
constexpr int kRootOrderTableMove = 100000;

inline int gain_key(const GainWeights& w, int gain, const Position::MoveInfo& info) {
  return gain * w.per_stone + (info.made_tuzdyk ? w.tuzdyk : 0) +
         (info.extra_turn ? w.extra_turn : 0);
}

// Score of a decided or finished position for the side to move, `ply` plies from the
// root. Only called when pos.is_decided(); Togyz kazans of 82+ and Kalah stores over
// half never tie, so 0 only happens in a finished, drawn game.
inline int terminal_score(const Position& pos, int ply) {
  const int d = int(pos.store[pos.to_move]) - int(pos.store[pos.to_move ^ 1]);
  if (d > 0) return kWinScore - ply;
  if (d < 0) return -(kWinScore - ply);
  return 0;
}

// Mate-like scores are stored relative to the node so that a TT hit at another ply
// still says how far the result is.
inline int score_to_tt(int s, int ply) {
  if (s > kProvenScore) return s + ply;
  if (s < -kProvenScore) return s - ply;
  return s;
}
inline int score_from_tt(int s, int ply) {
  if (s > kProvenScore) return s - ply;
  if (s < -kProvenScore) return s + ply;
  return s;
}

inline int row_sum(const Position& pos, int player) {
  int s = 0;
  for (int i = 0; i < pos.npits; ++i) s += pos.pit(player, i);
  return s;
}

inline int tuzdyk_value(const EvalWeights& w, int on_board) {
  return w.tuzdyk + w.tuzdyk_board * on_board;
}

// The largest immediate gain (store difference, plus the tuzdyk value when one is
// made) the side to move of `pos` can get with one move, in centi-stones; >= 0.
int best_immediate_gain(const Position& pos, const EvalWeights& w, int on_board) {
  const int me = pos.to_move, opp = me ^ 1;
  const int before = int(pos.store[me]) - int(pos.store[opp]);
  uint32_t mask = pos.legal_mask();
  int best = 0;
  while (mask) {
    const int m = __builtin_ctz(mask);
    mask &= mask - 1;
    Position c = pos;
    const auto info = c.play(m);
    int gain = (int(c.store[me]) - int(c.store[opp]) - before) * w.store;
    if (info.made_tuzdyk) gain += tuzdyk_value(w, on_board);
    best = std::max(best, gain);
  }
  return best;
}

}  // namespace

int evaluate(const Position& pos, const EvalWeights& w) {
  const int me = pos.to_move, opp = me ^ 1;
  int score = (int(pos.store[me]) - int(pos.store[opp])) * w.store;
  const int own = row_sum(pos, me), theirs = row_sum(pos, opp);
  const int on_board = own + theirs;
  Position flipped = pos;
  flipped.to_move = uint8_t(opp);
  const uint32_t my_moves = pos.legal_mask(), their_moves = flipped.legal_mask();
  score += (__builtin_popcount(my_moves) - __builtin_popcount(their_moves)) * w.mobility;
  if (pos.is_togyz()) {
    if (pos.tuzdyk[me] != kNoTuzdyk) score += tuzdyk_value(w, on_board);
    if (pos.tuzdyk[opp] != kNoTuzdyk) score -= tuzdyk_value(w, on_board);
    score += (own - theirs) * w.togyz_own_stones;
  } else {
    score += (own - theirs) * w.kalah_own_seeds;
    const int m = pos.npits;
    int extra = 0;
    for (int i = 0; i < m; ++i) {
      extra += pos.pit(me, i) == m - i;
      extra -= pos.pit(opp, i) == m - i;
    }
    score += extra * w.kalah_extra_turn;
  }
  if (w.threat_to_move) score += best_immediate_gain(pos, w, on_board) * w.threat_to_move / 100;
  if (w.threat_waiting && their_moves)
    score -= best_immediate_gain(flipped, w, on_board) * w.threat_waiting / 100;
  return score;
}

ScoreWdl score_to_wdl(int score, const Position& pos) {
  ScoreWdl r;
  if (score > kProvenScore || score < -kProvenScore) {
    r.proven = true;
    (score > 0 ? r.win : r.loss) = 1;
    r.margin = score > 0 ? 2 : -2;  // callers that know the line refine this
    return r;
  }
  const int on_board = pos.total_stones() - pos.store[0] - pos.store[1];
  const double mu = score / 100.0;
  const double s = 0.6 * std::sqrt(double(std::max(on_board, 0))) + 1.0;
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  const double win = sigmoid((mu - 1.0) / s), loss = sigmoid((-mu - 1.0) / s);
  r.win = float(win);
  r.loss = float(loss);
  r.draw = float(std::max(0.0, 1.0 - win - loss));
  r.margin = float(mu);
  return r;
}

// ---------------------------------------------------------------------------------

struct AlphaBetaPlayer::TTEntry {
  uint64_t key = 0;
  int16_t score = 0;
  int8_t depth = 0;
  uint8_t flag = kBoundNone;
  int8_t move = -1;
  uint8_t generation = 0;
};

struct AlphaBetaPlayer::Child {
  Position pos;
  int move;
  int order;
};

AlphaBetaPlayer::AlphaBetaPlayer(const AlphaBetaOptions& options) {
  set_options(options);
}
AlphaBetaPlayer::~AlphaBetaPlayer() = default;

void AlphaBetaPlayer::set_options(const AlphaBetaOptions& o) {
  static_assert(sizeof(TTEntry) == 16, "two entries per cache line");
  const bool resize = !tt_ || o.tt_mib != opt_.tt_mib;
  opt_ = o;
  opt_.max_qdepth = std::clamp(opt_.max_qdepth, 0, 32);
  if (resize) {
    const size_t bytes = size_t(std::clamp(opt_.tt_mib, 1, 1 << 14)) << 20;
    size_t entries = 1;
    while (entries * 2 * sizeof(TTEntry) <= bytes) entries *= 2;
    allocate_tt(entries);
  }
  rng_.seed(opt_.seed);
}

void AlphaBetaPlayer::allocate_tt(size_t entries) {
  tt_.reset();  // the old table goes first, so that two never coexist
  tt_.reset(static_cast<TTEntry*>(std::calloc(entries, sizeof(TTEntry))));
  if (!tt_)
    throw std::runtime_error("cannot allocate a transposition table of " +
                             std::to_string((entries * sizeof(TTEntry)) >> 20) + " MiB");
  tt_mask_ = entries - 1;
}

std::string AlphaBetaPlayer::name() const {
  return opt_.label;
}

std::vector<int> AlphaBetaPlayer::last_root_line(int move) const {
  if (move < 0 || move >= kMaxMoves) return {};
  return std::vector<int>(root_pv_[move].begin(), root_pv_[move].begin() + root_pv_len_[move]);
}

void AlphaBetaPlayer::new_game() {
  allocate_tt(tt_mask_ + 1);
  for (auto& k : killers_) k = {-1, -1};
  for (auto& h : history_) h.fill(0);
  generation_ = 0;
}

bool AlphaBetaPlayer::out_of_time() {
  if (aborted_) return true;
  if (node_limit_ && nodes_ >= node_limit_) return aborted_ = true;
  if ((nodes_ & 1023) == 0) {
    yield_search();  // the host may stop the search meanwhile (mcts/search_yield.h)
    if (stop_ && stop_->load(std::memory_order_relaxed)) return aborted_ = true;
    if (has_deadline_ && std::chrono::steady_clock::now() >= deadline_) return aborted_ = true;
  }
  return false;
}

void AlphaBetaPlayer::tt_store(uint64_t key, int depth, int score, int flag, int move, int ply) {
  TTEntry& e = tt_[key & tt_mask_];
  const bool same = e.key == key;
  // Keep a deeper result for the same position, and anything of this search over
  // stale entries of earlier moves.
  if (same && e.generation == generation_ && e.depth > depth && flag != kBoundExact) return;
  if (!same && e.generation == generation_ && e.depth > depth + 2) return;
  if (move >= 0 || !same) e.move = int8_t(move);
  e.key = key;
  e.score = int16_t(score_to_tt(score, ply));
  e.depth = int8_t(std::clamp(depth, 0, 127));
  e.flag = uint8_t(flag);
  e.generation = generation_;
}

void AlphaBetaPlayer::update_pv(int ply, int move) {
  pv_[ply][ply] = int8_t(move);
  for (int i = ply + 1; i < pv_len_[ply + 1]; ++i) pv_[ply][i] = pv_[ply + 1][i];
  pv_len_[ply] = std::max(pv_len_[ply + 1], ply + 1);
}

// Searches a child and returns its score from the parent's side-to-move view: negated
// only when the move handed the turn over (not after a Kalah extra turn).
inline int AlphaBetaPlayer::child_score(const Position& parent, const Position& child, int depth,
                                        int alpha, int beta, int ply) {
  if (child.to_move == parent.to_move) return search(child, depth - 1, alpha, beta, ply + 1);
  return -search(child, depth - 1, -beta, -alpha, ply + 1);
}

int AlphaBetaPlayer::ordered_children(const Position& pos, int ply, int tt_move, bool quiescence,
                                      Child* children) const {
  const int me = pos.to_move, opp = me ^ 1;
  const int before = int(pos.store[me]) - int(pos.store[opp]);
  int n = 0;
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
    const int m = __builtin_ctz(mask);
    Child& c = children[n];
    c.pos = pos;
    c.move = m;
    const Position::MoveInfo info = c.pos.play(m);
    const int gain = int(c.pos.store[me]) - int(c.pos.store[opp]) - before;
    if (quiescence) {
      // Only moves that change the material balance right away: captures, tuzdyks,
      // Kalah extra turns (a free move), and moves that end the game.
      if (info.captured == 0 && !info.extra_turn && !info.ended_game) continue;
      c.order = gain_key(kQuiescenceGain, gain, info);
    } else if (m == tt_move) {
      c.order = kOrderTableMove;
    } else if (info.made_tuzdyk || gain > 0 || info.extra_turn || info.ended_game) {
      c.order = kOrderGainBase + gain_key(kSearchGain, gain, info);
    } else if (m == killers_[ply][0]) {
      c.order = kOrderKiller + 1;
    } else if (m == killers_[ply][1]) {
      c.order = kOrderKiller;
    } else {
      c.order = std::min(history_[me][m], kOrderHistoryCap);
    }
    ++n;
  }
  // Insertion sort, best first (at most nine children); equal keys keep pit order.
  for (int i = 1; i < n; ++i) {
    Child c = children[i];
    int j = i - 1;
    while (j >= 0 && children[j].order < c.order) {
      children[j + 1] = children[j];
      --j;
    }
    children[j + 1] = c;
  }
  return n;
}

int AlphaBetaPlayer::search(const Position& pos, int depth, int alpha, int beta, int ply) {
  pv_len_[ply] = ply;
  if (pos.is_decided()) return terminal_score(pos, ply);
  if (depth <= 0 || ply >= kMaxSearchPly - 1) return qsearch(pos, alpha, beta, ply, 0);
  ++nodes_;
  if (out_of_time()) return 0;

  // A result found nearer the root can not be beaten further down.
  alpha = std::max(alpha, -(kWinScore - ply));
  beta = std::min(beta, kWinScore - ply - 1);
  if (alpha >= beta) return alpha;

  const bool pv_node = beta - alpha > 1;
  const uint64_t key = pos.hash();
  int tt_move = -1;
  {
    const TTEntry& e = tt_[key & tt_mask_];
    if (e.key == key && e.flag != kBoundNone) {
      tt_move = e.move;
      if (e.depth >= depth && !pv_node) {
        const int s = score_from_tt(e.score, ply);
        if (e.flag == kBoundExact || (e.flag == kBoundLower && s >= beta) ||
            (e.flag == kBoundUpper && s <= alpha))
          return s;
      }
    }
  }

  const int me = pos.to_move;
  Child children[kMaxMoves];
  const int n = ordered_children(pos, ply, tt_move, false, children);

  const int alpha_orig = alpha;
  int best = -kInf, best_move = children[0].move;
  for (int i = 0; i < n; ++i) {
    const Child& c = children[i];
    int s;
    if (i == 0) {
      s = child_score(pos, c.pos, depth, alpha, beta, ply);
    } else {
      // Late quiet moves are first searched a ply shallower; one that surprises is
      // searched again at full depth.
      const bool reduce =
          opt_.late_move_reduction && i >= 3 && depth >= 3 && !pv_node && c.order < kOrderKiller;
      s = reduce ? child_score(pos, c.pos, depth - 1, alpha, alpha + 1, ply) : alpha + 1;
      if (s > alpha && !aborted_) s = child_score(pos, c.pos, depth, alpha, alpha + 1, ply);
      if (s > alpha && s < beta && !aborted_) s = child_score(pos, c.pos, depth, alpha, beta, ply);
    }
    if (aborted_) return 0;
    if (s > best) {
      best = s;
      best_move = c.move;
      if (s > alpha) {
        alpha = s;
        update_pv(ply, c.move);
        if (s >= beta) {
          if (c.order < kOrderGainBase && c.move != tt_move) {
            if (killers_[ply][0] != c.move) {
              killers_[ply][1] = killers_[ply][0];
              killers_[ply][0] = int8_t(c.move);
            }
            history_[me][c.move] += depth * depth;
          }
          break;
        }
      }
    }
  }
  const int flag = best >= beta ? kBoundLower : best > alpha_orig ? kBoundExact : kBoundUpper;
  tt_store(key, depth, best, flag, best_move, ply);
  return best;
}

int AlphaBetaPlayer::qsearch(const Position& pos, int alpha, int beta, int ply, int qdepth) {
  pv_len_[ply] = ply;
  if (pos.is_decided()) return terminal_score(pos, ply);
  ++nodes_;
  if (out_of_time()) return 0;
  int best = evaluate(pos, opt_.weights);
  if (best >= beta || qdepth >= opt_.max_qdepth || ply >= kMaxSearchPly - 1) return best;
  if (best > alpha) alpha = best;

  const int me = pos.to_move;
  Child children[kMaxMoves];
  const int n = ordered_children(pos, ply, -1, true, children);
  for (int i = 0; i < n; ++i) {
    const Child& c = children[i];
    const int s = c.pos.to_move == me ? qsearch(c.pos, alpha, beta, ply + 1, qdepth + 1)
                                      : -qsearch(c.pos, -beta, -alpha, ply + 1, qdepth + 1);
    if (aborted_) return 0;
    if (s > best) {
      best = s;
      if (s > alpha) {
        alpha = s;
        update_pv(ply, c.move);
        if (s >= beta) break;
      }
    }
  }
  return best;
}

ThinkResult AlphaBetaPlayer::make_result(const Position& pos, int chosen, int depth_done) const {
  ThinkResult r;
  const int me = pos.to_move;
  uint32_t mask = pos.legal_mask();
  while (mask) {
    const int m = __builtin_ctz(mask);
    mask &= mask - 1;
    MoveEval e;
    e.move = m;
    const int s = root_score_[m];
    const ScoreWdl w = score_to_wdl(s, pos);
    e.win = w.win;
    e.draw = w.draw;
    e.loss = w.loss;
    e.margin = w.margin;
    e.proven = w.proven;
    if (w.proven) {
      // The margin of a proven line: the store difference where its line ends (a decided
      // game whose rest is unknown counts as it stands), never on the wrong side of 0.
      Position p = pos;
      for (int i = 0; i < root_pv_len_[m]; ++i) {
        if (p.is_decided() || !p.is_legal(root_pv_[m][i])) break;
        p.play(root_pv_[m][i]);
      }
      float d = float(int(p.store[me]) - int(p.store[me ^ 1]));
      if (s > 0) d = std::max(d, 2.0f);
      if (s < 0) d = std::min(d, -2.0f);
      if (s == 0) d = 0;
      e.margin = d;
    }
    r.moves.push_back(e);
  }
  std::stable_sort(r.moves.begin(), r.moves.end(), [&](const MoveEval& a, const MoveEval& b) {
    return root_score_[a.move] > root_score_[b.move];
  });
  // The chosen move (it differs from the best only with root noise) goes first.
  for (size_t i = 0; i < r.moves.size(); ++i)
    if (r.moves[i].move == chosen)
      std::rotate(r.moves.begin(), r.moves.begin() + i, r.moves.begin() + i + 1);
  r.best_move = chosen;
  if (!r.moves.empty()) {
    r.win = r.moves[0].win;
    r.draw = r.moves[0].draw;
    r.loss = r.moves[0].loss;
    r.margin = r.moves[0].margin;
    r.proven = r.moves[0].proven;
  }
  r.pv.assign(root_pv_[chosen].begin(), root_pv_[chosen].begin() + root_pv_len_[chosen]);
  // Extend a line cut short by a table hit with the table's own best moves.
  Position p = pos;
  bool ok = true;
  for (int mv : r.pv) {
    if (p.is_decided() || !p.is_legal(mv)) {
      ok = false;
      break;
    }
    p.play(mv);
  }
  while (ok && !p.is_decided() && int(r.pv.size()) < std::max(depth_done, 1) + 8 &&
         int(r.pv.size()) < kMaxSearchPly) {
    const uint64_t key = p.hash();
    const TTEntry& e = tt_[key & tt_mask_];
    if (e.key != key || e.move < 0 || !p.is_legal(e.move)) break;
    r.pv.push_back(e.move);
    p.play(e.move);
  }
  r.nodes = nodes_;
  r.depth = depth_done;
  return r;
}

ThinkLimits AlphaBetaPlayer::budget() const {
  ThinkLimits l;
  l.depth = opt_.depth;
  l.nodes = opt_.nodes;
  l.movetime_s = opt_.movetime_s;
  if (l.depth <= 0 && l.nodes <= 0 && l.movetime_s <= 0) l.movetime_s = 1.0;
  return l;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The result of a position without a legal move: the game's result if it is over.
ThinkResult no_move_result(const Position& pos) {
  ThinkResult r;
  if (pos.is_over()) {
    const int d = int(pos.store[pos.to_move]) - int(pos.store[pos.to_move ^ 1]);
    r.win = d > 0;
    r.loss = d < 0;
    r.draw = d == 0;
    r.margin = float(d);
    r.proven = true;
  }
  return r;
}

}  // namespace

AlphaBetaPlayer::SearchBudget AlphaBetaPlayer::start_search(
    const ThinkLimits& limits, std::chrono::steady_clock::time_point start) {
  nodes_ = 0;
  aborted_ = false;
  stop_ = limits.stop;
  ++generation_;
  for (auto& h : history_)
    for (auto& v : h) v /= 4;

  SearchBudget b;
  const bool caller_limits = limits.depth > 0 || limits.nodes > 0 || limits.movetime_s > 0;
  if (caller_limits) {
    b.max_depth = limits.depth;
    b.movetime = limits.movetime_s;
    node_limit_ = limits.nodes;
  } else {
    b.max_depth = opt_.depth;
    b.movetime = opt_.movetime_s;
    node_limit_ = opt_.nodes;
    if (b.max_depth <= 0 && b.movetime <= 0 && node_limit_ <= 0) b.movetime = 1.0;
  }
  if (b.max_depth <= 0 || b.max_depth > kMaxSearchDepth) b.max_depth = kMaxSearchDepth;
  has_deadline_ = b.movetime > 0;  // false for NaN too
  // Saturated at about 31 years: steady_clock counts nanoseconds in 64 bits, and a budget
  // above ~9.2e9 s overflowed into a deadline in the past, which stopped at once.
  constexpr double kLongestBudget = 1e9;
  if (has_deadline_)
    deadline_ = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(std::min(b.movetime, kLongestBudget)));
  return b;
}

void AlphaBetaPlayer::order_root_moves(const Position& pos, int* order, int n) const {
  const int me = pos.to_move;
  int key_of[kMaxMoves] = {};
  const TTEntry& e = tt_[pos.hash() & tt_mask_];
  const int tt_move = e.key == pos.hash() ? e.move : -1;
  for (int i = 0; i < n; ++i) {
    Position c = pos;
    const auto info = c.play(order[i]);
    key_of[order[i]] = (order[i] == tt_move ? kRootOrderTableMove : 0) +
                       gain_key(kRootGain, int(c.store[me]) - int(c.store[me ^ 1]), info);
  }
  std::stable_sort(order, order + n, [&](int a, int b) { return key_of[a] > key_of[b]; });
}

bool AlphaBetaPlayer::search_root_iteration(const Position& pos, int depth, int multipv,
                                            const int* order, int n, int& depth_done) {
  int iter_score[kMaxMoves];
  std::array<bool, kMaxMoves> iter_done{};
  int exact_scores[kMaxMoves];
  int n_exact = 0;
  for (int i = 0; i < n; ++i) {
    const int m = order[i];
    Position child = pos;
    child.play(m);
    // The window floor: the multipv-th best exact score so far (moves below it only
    // need a bound).
    int floor = -kInf;
    if (n_exact >= multipv) {
      int tmp[kMaxMoves];
      std::copy(exact_scores, exact_scores + n_exact, tmp);
      std::nth_element(tmp, tmp + (multipv - 1), tmp + n_exact, std::greater<int>());
      floor = tmp[multipv - 1];
    }
    int s;
    if (floor == -kInf) {
      s = child_score(pos, child, depth, -kInf, kInf, 0);
    } else {
      s = child_score(pos, child, depth, floor, floor + 1, 0);
      if (s > floor && !aborted_) s = child_score(pos, child, depth, floor, kInf, 0);
    }
    if (aborted_) break;
    iter_score[m] = s;
    iter_done[m] = true;
    if (s > floor) exact_scores[n_exact++] = s;  // a bound does not count
    root_pv_[m][0] = int8_t(m);
    int len = 1;
    for (int k = 1; k < pv_len_[1] && len < kMaxSearchPly; ++k) root_pv_[m][len++] = pv_[1][k];
    root_pv_len_[m] = len;
  }
  const bool complete = !aborted_;
  // An interrupted iteration still counts where it finished its first (best) move:
  // its scores are deeper than the last complete iteration's.
  if (complete || (depth > 1 && iter_done[order[0]]) || depth_done == 0) {
    for (int i = 0; i < n; ++i) {
      const int m = order[i];
      if (!iter_done[m]) continue;
      root_score_[m] = iter_score[m];
    }
  }
  if (complete) depth_done = depth;
  return complete;
}

void AlphaBetaPlayer::evaluate_unsearched_root_moves(const Position& pos, const int* order, int n) {
  for (int i = 0; i < n; ++i) {
    const int m = order[i];
    if (root_score_[m] != INT_MIN) continue;
    Position c = pos;
    c.play(m);
    const int s = c.is_decided() ? terminal_score(c, 1) : evaluate(c, opt_.weights);
    root_score_[m] = c.to_move == pos.to_move ? s : -s;
    root_pv_[m][0] = int8_t(m);
    root_pv_len_[m] = 1;
  }
}

int AlphaBetaPlayer::choose_root_move(const int* order, int n) {
  int chosen = order[0];
  if (opt_.randomness > 0) {
    std::normal_distribution<double> noise(0.0, opt_.randomness * 100.0);
    double best = -1e18;
    for (int i = 0; i < n; ++i) {
      const double v = root_score_[order[i]] + noise(rng_);
      if (v > best) {
        best = v;
        chosen = order[i];
      }
    }
  }
  return chosen;
}

ThinkResult AlphaBetaPlayer::think(const Position& pos, const ThinkLimits& limits) {
  const auto start = std::chrono::steady_clock::now();
  const SearchBudget budget = start_search(limits, start);

  root_score_.fill(INT_MIN);
  root_pv_len_.fill(0);
  int order[kMaxMoves];
  int n = 0;
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) order[n++] = __builtin_ctz(mask);
  if (n == 0) {
    ThinkResult r = no_move_result(pos);
    r.seconds = seconds_since(start);
    return r;
  }
  order_root_moves(pos, order, n);

  // Iterative deepening; after each iteration the root moves are sorted best first.
  const auto best_first = [&](int a, int b) { return root_score_[a] > root_score_[b]; };
  const int multipv = opt_.randomness > 0 ? n : std::clamp(opt_.multipv, 1, n);
  int depth_done = 0;
  for (int depth = 1; depth <= budget.max_depth; ++depth) {
    const bool complete = search_root_iteration(pos, depth, multipv, order, n, depth_done);
    std::stable_sort(order, order + n, best_first);
    if (!complete) break;

    if (on_iteration_) {
      ThinkResult r = make_result(pos, order[0], depth_done);
      r.seconds = seconds_since(start);
      on_iteration_(r);
    }
    const int best = root_score_[order[0]];
    // A proven result at distance d cannot get shorter once the depth exceeds d.
    if ((best > kProvenScore || best < -kProvenScore) && depth > kWinScore - std::abs(best) + 1)
      break;
    // The next iteration costs several times this one; do not start what cannot end.
    if (has_deadline_ && seconds_since(start) > 0.45 * budget.movetime) break;
  }

  // Moves no iteration finished (stopped at once): their static evaluation.
  evaluate_unsearched_root_moves(pos, order, n);
  if (depth_done == 0) std::stable_sort(order, order + n, best_first);

  ThinkResult r = make_result(pos, choose_root_move(order, n), depth_done);
  r.seconds = seconds_since(start);
  return r;
}

}  // namespace kz
