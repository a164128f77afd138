#include "mcts/search.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <limits>

namespace kz {

namespace {

// Result of a finished or decided game, as (value, draw, margin) for `player`.
void outcome_for(const Position& pos, int player, float& value, float& draw, float& margin) {
  const Outcome o = pos.outcome();
  value = float(outcome_score(o, player));
  draw = o == Outcome::kDraw ? 1.f : 0.f;
  margin = float(player == 0 ? pos.margin() : -pos.margin());
}

constexpr int kMaxReuseDepth = 4;  // plies below the old root searched for the new one

}  // namespace

SearchParams game_search_params(const GameSpec& spec) {
  SearchParams p;
  p.margin_utility = 0.05f;
  p.margin_scale = spec.is_togyz() ? 20.f : 8.f;
  return p;
}

Search::Search(const SearchParams& params, uint64_t seed) : params_(params), rng_(seed) {
  clear();
}

void Search::clear() {
  nodes_.clear();
  nodes_.push_back(Node{});
  for (auto& b : in_flight_) {
    b.path_steps.clear();
    b.pending.clear();
  }
  root_noise_applied_ = false;
}

void Search::narrow_by_stores(Node& n, const Position& pos, int player) const {
  // Stones in a store stay there: the final store is at least the current one, and at
  // most everything the opponent does not already hold. A finished game is exact.
  n.store_lo = uint8_t(std::max<int>(n.store_lo, pos.store[player]));
  n.store_hi =
      uint8_t(std::min<int>(std::min<int>(n.store_hi, total_), total_ - pos.store[player ^ 1]));
}

void Search::prove_from_bounds(Node& n) const {
  // Win, draw and loss are the sign of the final margin.
  const int lo = margin_of(n.store_lo), hi = margin_of(std::min<int>(n.store_hi, total_));
  if (lo > 0)
    n.proven = 1;
  else if (hi < 0)
    n.proven = -1;
  else if (lo == 0 && hi == 0)
    n.proven = 0;
}

void Search::exact_value(const Position& pos, float& value, float& draw, float& margin) const {
  outcome_for(pos, pos.to_move, value, draw, margin);
}

bool Search::set_root(const Position& pos) {
  assert(pending_leaves() == 0);
  total_ = pos.total_stones();
  for (auto& b : in_flight_) {
    b.path_steps.clear();
    b.pending.clear();
  }
  if (nodes_.size() > 1 || (nodes_[0].flags & kExpanded)) {
    if (pos == root_pos_) {
      apply_root_noise();
      return true;
    }
    // Breadth-first over the expanded part of the tree, a few plies deep.
    struct Item {
      uint32_t node;
      Position pos;
      uint8_t chooser;
      int depth;
    };
    std::deque<Item> queue{{0, root_pos_, root_pos_.to_move, 0}};
    while (!queue.empty()) {
      Item it = queue.front();
      queue.pop_front();
      if (it.node != 0 && it.pos == pos) {
        // Copy the subtree into a fresh, compact pool; everything else is dropped.
        std::vector<Node> fresh;
        fresh.reserve(nodes_.size());
        fresh.push_back(nodes_[it.node]);
        Node& root = fresh[0];
        if (it.chooser != pos.to_move) {  // stats were from the other player's view
          root.value_sum = -root.value_sum;
          root.margin_sum = -root.margin_sum;
          if (root.proven == 1 || root.proven == -1) root.proven = int8_t(-root.proven);
          const uint8_t lo = root.store_lo;
          root.store_lo = flip(root.store_hi);
          root.store_hi = flip(lo);
        }
        std::deque<std::pair<uint32_t, uint32_t>> copy{{it.node, 0}};
        while (!copy.empty()) {
          auto [old_index, new_index] = copy.front();
          copy.pop_front();
          const Node old = nodes_[old_index];
          if (!old.num_children) continue;
          const uint32_t first = uint32_t(fresh.size());
          fresh[new_index].first_child = first;
          for (int c = 0; c < old.num_children; ++c) {
            fresh.push_back(nodes_[old.first_child + c]);
            copy.emplace_back(old.first_child + c, first + c);
          }
        }
        nodes_ = std::move(fresh);
        root_pos_ = pos;
        root_noise_applied_ = false;
        apply_root_noise();
        return true;
      }
      if (it.depth >= kMaxReuseDepth) continue;
      const Node& n = nodes_[it.node];
      for (int c = 0; c < n.num_children; ++c) {
        const uint32_t child = n.first_child + c;
        if (!(nodes_[child].flags & kExpanded)) continue;
        Position next = it.pos;
        next.play(nodes_[child].move);
        queue.push_back({child, next, it.pos.to_move, it.depth + 1});
      }
    }
  }
  clear();
  root_pos_ = pos;
  narrow_by_stores(nodes_[0], pos, pos.to_move);
  if (bounds_active()) prove_from_bounds(nodes_[0]);
  return false;
}

int64_t Search::root_visits() const {
  return nodes_[0].visits;
}

bool Search::root_proven() const {
  return bounds_active() ? exact(nodes_[0]) : nodes_[0].proven != kUnproven;
}

float Search::child_utility(const Node& child, float fpu_value) const {
  const uint32_t n = child.visits + child.in_flight;
  if (n == 0) return fpu_value;
  if (child.proven != kUnproven && params_.solver) {
    if (!bounds_active() || params_.margin_utility == 0.f) return float(child.proven);
    // Score bounds: proven results differ in margin, and the margin term tells them
    // apart (the exact margin once solved, the average kept within the bounds before).
    const float lo = float(margin_of(child.store_lo));
    const float hi = float(margin_of(std::min<int>(child.store_hi, total_)));
    const float m = exact(child) || child.visits == 0
                        ? lo
                        : std::clamp(child.margin_sum / float(child.visits), lo, hi);
    return float(child.proven) + params_.margin_utility * std::tanh(m / params_.margin_scale);
  }
  // Descents in flight count as losses (virtual loss), steering the next descent away.
  float q = (child.value_sum - float(child.in_flight)) / float(n);
  if (params_.margin_utility != 0.f && child.visits > 0)
    q += params_.margin_utility *
         std::tanh(child.margin_sum / float(child.visits) / params_.margin_scale);
  return q;
}

uint32_t Search::select_child(uint32_t parent, const Position& pos, uint8_t chooser) const {
  const Node& p = nodes_[parent];
  const float parent_n = float(p.visits + p.in_flight);
  const float sqrt_n = std::sqrt(std::max(parent_n, 1.f));
  // The node's own value, turned to the view of the player choosing now (its stats
  // are from its chooser's view, which differs unless the mover kept the turn).
  float parent_q = p.visits > 0 ? p.value_sum / float(p.visits) : 0.f;
  if (chooser != pos.to_move) parent_q = -parent_q;
  float visited_prior = 0;
  // Score bounds: the mover is sure of `sure` stones; a child that cannot end above
  // that cannot change this node's value and is cut, unless every child is (then the
  // node is solved and only reached as a root in transition).
  const bool bounds = bounds_active();
  int sure = 0;
  bool all_cut = true, all_lost = true;
  for (int c = 0; c < p.num_children; ++c) {
    const Node& ch = nodes_[p.first_child + c];
    if (ch.visits + ch.in_flight > 0) visited_prior += ch.prior;
    if (bounds) sure = std::max<int>(sure, ch.store_lo);
  }
  auto cannot_beat_sure = [&](const Node& ch) {
    return std::min<int>(ch.store_hi, total_) <= sure;
  };
  if (bounds) {
    for (int c = 0; c < p.num_children; ++c) {
      const Node& ch = nodes_[p.first_child + c];
      if (!cannot_beat_sure(ch)) all_cut = false;
      if (ch.proven != -1) all_lost = false;
    }
  }
  const float reduction = parent == 0 ? params_.root_fpu_reduction : params_.fpu_reduction;
  const float fpu = parent_q - reduction * std::sqrt(visited_prior);
  // Forced playouts: the first root child below its forced visits is searched next
  // (counting descents in flight, so one batch does not force the same child twice).
  if (parent == 0 && forcing_playouts()) {
    for (int c = 0; c < p.num_children; ++c) {
      const Node& ch = nodes_[p.first_child + c];
      if (params_.solver && ch.proven != kUnproven) continue;
      if (bounds && !all_cut && cannot_beat_sure(ch)) continue;  // cut
      const float forced = std::sqrt(params_.forced_playouts_k * ch.prior * parent_n);
      if (float(ch.visits + ch.in_flight) < forced) return p.first_child + c;
    }
  }

  uint32_t best = p.first_child;
  float best_score = -std::numeric_limits<float>::infinity();
  for (int c = 0; c < p.num_children; ++c) {
    const uint32_t index = p.first_child + c;
    const Node& ch = nodes_[index];
    if (bounds) {
      if (!all_cut && cannot_beat_sure(ch)) continue;  // cut
    } else if (params_.solver && ch.proven == 1) {
      return index;  // a proven win: nothing else matters
    }
    float score;
    // A proven loss only if everything else is lost too; with score bounds, when all
    // are lost, PUCT chooses among them (which loses least).
    if (params_.solver && ch.proven == -1 && !(bounds && all_lost)) {
      score = -1e9f + ch.prior;
    } else {
      const float u = params_.c_puct * ch.prior * sqrt_n / (1.f + float(ch.visits + ch.in_flight));
      score = child_utility(ch, fpu) + u;
    }
    if (score > best_score) {
      best_score = score;
      best = index;
    }
  }
  return best;
}

void Search::expand(uint32_t node, const Position& pos, const EvalOutput& eval) {
  uint32_t mask = pos.legal_mask();
  const uint32_t first = uint32_t(nodes_.size());
  float total = 0;
  for (uint32_t m = mask; m; m &= m - 1) total += eval.policy[__builtin_ctz(m)];
  const int count = __builtin_popcount(mask);
  // A child's bounds are the mover's: at least the mover's store now, at most all the
  // stones the opponent does not hold.
  const int mover = pos.to_move;
  const uint8_t child_lo = pos.store[mover];
  const uint8_t child_hi = uint8_t(std::clamp(total_ - int(pos.store[mover ^ 1]), 0, 255));
  nodes_.resize(first + uint32_t(count));  // one size check for all the children
  for (Node* child = &nodes_[first]; mask; mask &= mask - 1, ++child) {
    const int move = __builtin_ctz(mask);
    child->move = uint8_t(move);
    child->store_lo = child_lo;
    child->store_hi = child_hi;
    child->prior = total > 0 ? eval.policy[move] / total : 1.f / float(count);
  }
  Node& n = nodes_[node];
  n.first_child = first;
  n.num_children = uint8_t(count);
  n.flags = uint8_t((n.flags | kExpanded) & ~kAwaitingEval);
  if (node == 0) {
    if (params_.root_policy_temperature != 1.f && count > 0) {
      float sum = 0;
      for (int c = 0; c < count; ++c) {
        Node& ch = nodes_[first + c];
        ch.prior = std::pow(std::max(ch.prior, 1e-9f), 1.f / params_.root_policy_temperature);
        sum += ch.prior;
      }
      for (int c = 0; c < count; ++c) nodes_[first + c].prior /= sum;
    }
    root_noise_applied_ = false;
    apply_root_noise();
  }
}

void Search::apply_root_noise() {
  Node& root = nodes_[0];
  if (root_noise_applied_ || params_.dirichlet_alpha <= 0 || root.num_children == 0) return;
  std::gamma_distribution<float> gamma(params_.dirichlet_alpha, 1.f);
  float noise[kMaxMoves];
  float sum = 0;
  for (int c = 0; c < root.num_children; ++c) sum += (noise[c] = gamma(rng_));
  if (sum <= 0) return;
  root_priors_before_noise_ = root_priors();
  for (int c = 0; c < root.num_children; ++c) {
    Node& ch = nodes_[root.first_child + c];
    ch.prior =
        (1 - params_.dirichlet_fraction) * ch.prior + params_.dirichlet_fraction * noise[c] / sum;
  }
  root_noise_applied_ = true;
}

void Search::backup(const std::vector<PathStep>& path, uint32_t begin, uint32_t end, int leaf_mover,
                    float value, float draw, float margin) {
  for (uint32_t i = begin; i < end; ++i) {
    Node& n = nodes_[path[i].node];
    const bool same = path[i].chooser == leaf_mover;
    n.visits++;
    n.value_sum += same ? value : -value;
    n.draw_sum += draw;
    n.margin_sum += same ? margin : -margin;
  }
}

void Search::revert_virtual_loss(const std::vector<PathStep>& path, uint32_t begin, uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) nodes_[path[i].node].in_flight--;
}

void Search::update_proven(const std::vector<PathStep>& path, uint32_t begin, uint32_t end) {
  if (!params_.solver) return;
  // Walk up from the parent of the last node; stop as soon as nothing changes.
  for (int64_t i = int64_t(end) - 2; i >= int64_t(begin); --i) {
    Node& n = nodes_[path[i].node];
    if (n.proven != kUnproven) break;
    if (!(n.flags & kExpanded)) break;
    int best = -2;
    bool all_proven = true;
    for (int c = 0; c < n.num_children; ++c) {
      const int8_t p = nodes_[n.first_child + c].proven;
      if (p == kUnproven)
        all_proven = false;
      else
        best = std::max(best, int(p));
    }
    int mover_value;
    if (best == 1)
      mover_value = 1;
    else if (all_proven && best >= -1)
      mover_value = best;
    else
      break;
    // The children's view is the mover's here; convert to this node's chooser.
    const uint8_t mover = path[i + 1].chooser;
    n.proven = int8_t(mover == path[i].chooser ? mover_value : -mover_value);
  }
}

void Search::update_bounds(const std::vector<PathStep>& path, uint32_t begin, uint32_t end) {
  if (!bounds_active()) return;
  // Walk up from the parent of the last node; stop as soon as nothing changes. A node
  // takes the best of its children's bounds (for the player to move there: the max of
  // both), turned to its own chooser's view, and keeps whichever bound is tighter.
  for (int64_t i = int64_t(end) - 2; i >= int64_t(begin); --i) {
    Node& n = nodes_[path[i].node];
    if (!(n.flags & kExpanded) || n.num_children == 0) break;
    int best_lo = 0, best_hi = 0;
    for (int c = 0; c < n.num_children; ++c) {
      const Node& ch = nodes_[n.first_child + c];
      best_lo = std::max<int>(best_lo, ch.store_lo);
      best_hi = std::max<int>(best_hi, std::min<int>(ch.store_hi, total_));
    }
    int lo = best_lo, hi = best_hi;
    if (path[i + 1].chooser != path[i].chooser) {
      lo = total_ - best_hi;
      hi = total_ - best_lo;
    }
    lo = std::max<int>(lo, n.store_lo);
    hi = std::min<int>(hi, std::min<int>(n.store_hi, total_));
    if (lo == n.store_lo && hi == n.store_hi) break;
    n.store_lo = uint8_t(lo);
    n.store_hi = uint8_t(hi);
    prove_from_bounds(n);
  }
}

int Search::gather(int slot, int max_leaves, std::vector<Position>& leaves) {
  assert(slot >= 0 && slot < kMaxInFlight);
  std::vector<PathStep>& path = in_flight_[slot].path_steps;  // this batch's descents
  std::vector<Pending>& pending = in_flight_[slot].pending;
  int added = 0;
  if (root_is_terminal()) return 0;
  const bool bounds = bounds_active();
  int descents = 0;
  while (added < max_leaves && descents < 2 * max_leaves + 8 && !root_proven()) {
    ++descents;
    const uint32_t begin = uint32_t(path.size());
    Position pos = root_pos_;
    uint32_t cur = 0;
    path.push_back({0, root_pos_.to_move});
    bool collided = false;
    while (true) {
      Node& n = nodes_[cur];
      const uint8_t chooser = path.back().chooser;
      // Known: with score bounds, the exact margin; otherwise the result.
      const bool known = bounds ? exact(n) : params_.solver && n.proven != kUnproven;
      if ((n.flags & kTerminal) || (known && cur != 0)) {
        // Exact value: back it up now, no evaluation needed.
        float value, draw, margin;
        if (n.flags & kTerminal) {
          outcome_for(pos, chooser, value, draw, margin);
        } else {
          value = float(n.proven);
          draw = n.proven == 0 ? 1.f : 0.f;
          margin = bounds     ? float(margin_of(n.store_lo))
                   : n.visits ? n.margin_sum / float(n.visits)
                              : 0.f;
        }
        const uint32_t end = uint32_t(path.size());
        backup(path, begin, end, chooser, value, draw, margin);
        if (bounds)
          update_bounds(path, begin, end);
        else
          update_proven(path, begin, end);
        path.resize(begin);
        break;
      }
      if (!(n.flags & kExpanded)) {
        if (n.flags & kAwaitingEval) {  // collision with a descent of this or another batch
          collided = true;
          path.resize(begin);
          break;
        }
        if (bounds && cur != 0) {
          // The leaf's own stores narrow its bounds (a finished game's to its margin).
          const uint8_t lo = n.store_lo, hi = n.store_hi;
          narrow_by_stores(n, pos, chooser);
          prove_from_bounds(n);
          if (n.store_lo != lo || n.store_hi != hi)
            update_bounds(path, begin, uint32_t(path.size()));
          if (pos.is_over()) {
            n.flags |= kTerminal;
            continue;  // handled as terminal on the next iteration
          }
          if (params_.stop_at_decided && n.visits == 0 && pos.is_decided()) {
            // Decided: its first visit backs up the known result with the margin as it
            // stands; later visits evaluate it and look past it for the exact margin.
            float value, draw, margin;
            outcome_for(pos, chooser, value, draw, margin);
            backup(path, begin, uint32_t(path.size()), chooser, value, draw, margin);
            path.resize(begin);
            break;
          }
        } else if (cur != 0 && (pos.is_over() || (params_.stop_at_decided && pos.is_decided()))) {
          n.flags |= kTerminal;
          float value, draw, margin;
          outcome_for(pos, chooser, value, draw, margin);
          n.proven = int8_t(value);
          continue;  // handled as terminal on the next iteration
        }
        n.flags |= kAwaitingEval;
        const uint32_t end = uint32_t(path.size());
        for (uint32_t i = begin; i < end; ++i) nodes_[path[i].node].in_flight++;
        pending.push_back({begin, end, pos});
        leaves.push_back(pos);
        ++added;
        break;
      }
      const uint32_t next = select_child(cur, pos, chooser);
      const uint8_t mover = pos.to_move;
      pos.play(nodes_[next].move);
      path.push_back({next, mover});
      cur = next;
    }
    if (collided) break;
  }
  return added;
}

void Search::deliver(int slot, std::span<const EvalOutput> outputs) {
  assert(slot >= 0 && slot < kMaxInFlight);
  std::vector<PathStep>& path = in_flight_[slot].path_steps;  // this batch's descents
  std::vector<Pending>& pending = in_flight_[slot].pending;
  assert(outputs.size() == pending.size());
  for (size_t i = 0; i < pending.size() && i < outputs.size(); ++i) {
    const Pending& p = pending[i];
    const uint32_t leaf = path[p.path_end - 1].node;
    expand(leaf, p.pos, outputs[i]);
    revert_virtual_loss(path, p.path_begin, p.path_end);
    const Node& n = nodes_[leaf];
    if (bounds_active() && n.proven != kUnproven) {
      // A decided leaf looked past for its margin: its result is known; the network's
      // margin is kept within the bounds.
      const uint8_t chooser = path[p.path_end - 1].chooser;
      const float m = chooser == p.pos.to_move ? outputs[i].margin : -outputs[i].margin;
      const float margin = std::clamp(m, float(margin_of(n.store_lo)),
                                      float(margin_of(std::min<int>(n.store_hi, total_))));
      backup(path, p.path_begin, p.path_end, chooser, float(n.proven), n.proven == 0 ? 1.f : 0.f,
             margin);
      continue;
    }
    backup(path, p.path_begin, p.path_end, p.pos.to_move, outputs[i].value(), outputs[i].draw,
           outputs[i].margin);
  }
  pending.clear();
  path.clear();
}

std::array<uint32_t, kMaxMoves> Search::root_visit_counts() const {
  std::array<uint32_t, kMaxMoves> counts{};
  const Node& root = nodes_[0];
  for (int c = 0; c < root.num_children; ++c) {
    const Node& ch = nodes_[root.first_child + c];
    counts[ch.move] = ch.visits;
  }
  return counts;
}

namespace {
// With score bounds: `optimal` >= 0 when the parent is solved (the best lower bound
// among its children, which the moves that keep the exact margin have). Proven but
// unsolved moves go by visits, which the margin term of their utility steers.
struct ChildOrder {
  int optimal = -1;
};

// Ordering of a node's children for "best": a proven win, then most visits, then the
// better average; a proven loss last. With score bounds, a solved parent's
// margin-keeping moves come first.
template <class NodeT>
bool better_child(const NodeT& a, const NodeT& b, const ChildOrder& order) {
  if (order.optimal >= 0) {
    const bool oa = a.store_lo == order.optimal, ob = b.store_lo == order.optimal;
    if (oa != ob) return oa;
  }
  auto rank = [](const NodeT& n) { return n.proven == 1 ? 2 : n.proven == -1 ? 0 : 1; };
  if (rank(a) != rank(b)) return rank(a) > rank(b);
  if (a.visits != b.visits) return a.visits > b.visits;
  const float qa = a.visits ? a.value_sum / float(a.visits) : -2.f;
  const float qb = b.visits ? b.value_sum / float(b.visits) : -2.f;
  if (qa != qb) return qa > qb;
  return a.prior > b.prior;
}
}  // namespace

int Search::optimal_store(uint32_t node) const {
  const Node& n = nodes_[node];
  if (!bounds_active() || !exact(n) || n.num_children == 0) return -1;
  int best = 0;
  for (int c = 0; c < n.num_children; ++c)
    best = std::max<int>(best, nodes_[n.first_child + c].store_lo);
  return best;
}

std::array<uint32_t, kMaxMoves> Search::pruned_root_visit_counts() const {
  std::array<uint32_t, kMaxMoves> counts = root_visit_counts();
  const Node& root = nodes_[0];
  if (!forcing_playouts() || root.num_children == 0) return counts;
  const ChildOrder order{optimal_store(0)};
  const Node* best = &nodes_[root.first_child];
  for (int c = 1; c < root.num_children; ++c)
    if (better_child(nodes_[root.first_child + c], *best, order))
      best = &nodes_[root.first_child + c];
  // PUCT scores as select_child computes them at the end of the search (no descent is in
  // flight then; an unvisited child has nothing to prune).
  const float total = float(root.visits);
  const float sqrt_n = std::sqrt(std::max(total, 1.f));
  auto exploration = [&](const Node& n, float visits) {
    return params_.c_puct * n.prior * sqrt_n / (1.f + visits);
  };
  const float best_score = child_utility(*best, 0) + exploration(*best, float(best->visits));
  for (int c = 0; c < root.num_children; ++c) {
    const Node& ch = nodes_[root.first_child + c];
    if (&ch == best || ch.visits == 0) continue;
    const float forced = std::sqrt(params_.forced_playouts_k * ch.prior * total);
    // The fewest visits at which the child's score is still at most the best's:
    // utility + c * P * sqrt(N) / (1 + n) <= best_score.
    const float utility = child_utility(ch, 0);
    float fewest = float(ch.visits);
    if (utility < best_score)
      fewest = std::ceil(params_.c_puct * ch.prior * sqrt_n / (best_score - utility) - 1.f);
    const float kept = std::max({fewest, float(ch.visits) - std::floor(forced), 0.f});
    uint32_t n = uint32_t(std::min(kept, float(ch.visits)));
    if (n <= 1) n = 0;
    counts[ch.move] = n;
  }
  return counts;
}

std::array<float, kMaxMoves> Search::root_priors() const {
  if (root_noise_applied_) return root_priors_before_noise_;
  std::array<float, kMaxMoves> priors{};
  const Node& root = nodes_[0];
  for (int c = 0; c < root.num_children; ++c)
    priors[nodes_[root.first_child + c].move] = nodes_[root.first_child + c].prior;
  return priors;
}

ThinkResult Search::result() const {
  ThinkResult r;
  const bool bounds = bounds_active();
  const Node& root = nodes_[0];
  r.nodes = root.visits;
  if (root_is_terminal()) {
    float v, d, m;
    exact_value(root_pos_, v, d, m);
    r.win = v > 0 ? 1.f : 0.f;
    r.loss = v < 0 ? 1.f : 0.f;
    r.draw = d;
    r.margin = m;
    r.proven = true;
    r.margin_exact = root_pos_.is_over();
    return r;
  }
  auto fill_values = [](const Node& n, float& w, float& d, float& l, float& m) {
    if (n.visits == 0) return;
    const float q = n.value_sum / float(n.visits);
    d = std::clamp(n.draw_sum / float(n.visits), 0.f, 1.f);
    w = std::clamp((1.f - d + q) / 2.f, 0.f, 1.f);
    l = std::clamp((1.f - d - q) / 2.f, 0.f, 1.f);
    m = n.margin_sum / float(n.visits);
  };
  // Score bounds: the expected margin within the bounds, the exact one once solved.
  auto bound_margin = [&](const Node& n, float& m, bool& is_exact) {
    if (!bounds) return;
    is_exact = exact(n);
    m = std::clamp(m, float(margin_of(n.store_lo)),
                   float(margin_of(std::min<int>(n.store_hi, total_))));
  };
  fill_values(root, r.win, r.draw, r.loss, r.margin);
  bound_margin(root, r.margin, r.margin_exact);
  if (root.proven != kUnproven) {
    r.proven = true;
    r.win = root.proven == 1;
    r.draw = root.proven == 0;
    r.loss = root.proven == -1;
  }
  std::vector<const Node*> children;
  for (int c = 0; c < root.num_children; ++c) children.push_back(&nodes_[root.first_child + c]);
  const ChildOrder root_order{optimal_store(0)};
  std::stable_sort(children.begin(), children.end(),
                   [&](const Node* a, const Node* b) { return better_child(*a, *b, root_order); });
  for (const Node* ch : children) {
    MoveEval e;
    e.move = ch->move;
    e.visits = ch->visits;
    e.prior = ch->prior;
    fill_values(*ch, e.win, e.draw, e.loss, e.margin);
    bound_margin(*ch, e.margin, e.margin_exact);
    if (ch->proven != kUnproven) {
      e.proven = true;
      e.win = ch->proven == 1;
      e.draw = ch->proven == 0;
      e.loss = ch->proven == -1;
    }
    r.moves.push_back(e);
  }
  if (!r.moves.empty()) r.best_move = r.moves[0].move;
  // Principal variation: follow the best child while it has been visited.
  uint32_t cur = 0;
  while (nodes_[cur].num_children > 0) {
    const Node& n = nodes_[cur];
    const ChildOrder order{optimal_store(cur)};
    uint32_t best = n.first_child;
    for (int c = 1; c < n.num_children; ++c)
      if (better_child(nodes_[n.first_child + c], nodes_[best], order)) best = n.first_child + c;
    if (nodes_[best].visits == 0) break;
    r.pv.push_back(nodes_[best].move);
    cur = best;
  }
  r.depth = int(r.pv.size());
  return r;
}

int Search::pick_move(float temperature, std::mt19937_64& rng) const {
  const Node& root = nodes_[0];
  if (root.num_children == 0)
    return root_pos_.is_over() ? -1 : __builtin_ctz(root_pos_.legal_mask());
  const ChildOrder order{optimal_store(0)};
  uint32_t best = root.first_child;
  for (int c = 1; c < root.num_children; ++c)
    if (better_child(nodes_[root.first_child + c], nodes_[best], order))
      best = root.first_child + c;
  const Node& b = nodes_[best];
  // A proven win, or with score bounds a solved root, is played without sampling.
  if (temperature <= 0 || b.proven == 1 || order.optimal >= 0) return b.move;
  // Sample among visited moves that are not proven losses (unless all are).
  double weights[kMaxMoves] = {};
  double total = 0;
  for (int c = 0; c < root.num_children; ++c) {
    const Node& ch = nodes_[root.first_child + c];
    if (ch.visits == 0 || (ch.proven == -1 && b.proven != -1)) continue;
    weights[c] = std::pow(double(ch.visits), 1.0 / temperature);
    total += weights[c];
  }
  if (total <= 0) return b.move;
  std::uniform_real_distribution<double> u(0, total);
  double x = u(rng);
  for (int c = 0; c < root.num_children; ++c) {
    x -= weights[c];
    if (x <= 0 && weights[c] > 0) return nodes_[root.first_child + c].move;
  }
  return b.move;
}

}  // namespace kz
