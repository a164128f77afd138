// AlphaZero-style PUCT search with batched leaf evaluation, an MCTS solver and tree
// reuse. One Search is one game's tree; it never calls an evaluator itself.
//
// Concurrency and batching model (read this before changing anything here):
// - A Search is single-threaded and passive. A driver asks it for up to K leaves
//   (`gather`), evaluates them together with leaves from other searches in one batch,
//   and hands the answers back in the same order (`deliver`).
// - Within one gather, K descents run one after another; each applies a virtual loss
//   to the nodes it passes, so the next descent is steered elsewhere. A descent that
//   ends on a leaf already waiting for evaluation is a "collision": its virtual loss is
//   undone and gathering stops early.
// - Many-games batching (self-play, gating) = one driver, many Searches
//   (mcts/driver.h). One-game batching (play, analysis) = the same driver with one
//   Search and a larger K. Either way the evaluator sees whole batches.
// - What a Search gathers depends only on its own tree and seed, never on the other
//   searches sharing the batch, so a game's search is reproducible alone or among many.
// - Nodes do not store positions (26 bytes each would double the node): a descent
//   replays moves from the root with copy-make, which costs nanoseconds per ply.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "mcts/evaluator.h"
#include "mcts/player.h"

namespace kz {

struct SearchParams {
  // PUCT exploration: U(child) = c_puct * prior * sqrt(N_parent) / (1 + N_child).
  // Higher explores more; values near 1.5 suit win/draw/loss values in [-1, 1].
  float c_puct = 1.5f;
  // First-play urgency: an unvisited child is valued at the parent's Q minus
  // fpu_reduction * sqrt(sum of priors of visited siblings), so the search keeps
  // looking at moves the network likes before trying every long shot once.
  float fpu_reduction = 0.25f;
  // The same at the root; self-play with noise usually wants this smaller.
  float root_fpu_reduction = 0.25f;
  // Dirichlet noise mixed into the root priors (self-play exploration); 0 = off.
  float dirichlet_alpha = 0.0f;
  float dirichlet_fraction = 0.25f;
  // Softmax temperature applied to the priors at the root (>1 flattens); 1 = off.
  float root_policy_temperature = 1.0f;
  // Leaves gathered per batch by one search. More keeps a big batch full from few
  // games but spreads a single search thinner (virtual loss).
  int leaves_per_batch = 16;
  // Prove wins, draws and losses from finished games upwards (MCTS solver). Mancala
  // endgames are full of forced lines; a proven move is played without doubt.
  bool solver = true;
  // Exact margins (score-bounded MCTS, Cazenave & Saffidine 2010; needs `solver`): every
  // node also carries a pessimistic and an optimistic bound on the final margin under
  // the rules (the game played to its end, as the Kalah solver counts it). A position is
  // solved when the two meet; a won one is then played for the largest margin, a lost
  // one for the smallest. Searching on past a proven result costs visits that a
  // win/draw/loss solver would save, so a search with a proven but inexact root keeps
  // going to its budget. A decided position's result is known, but not its margin:
  // its first visit backs the result up at once (as `stop_at_decided` says), later
  // visits look past it.
  bool score_bounds = true;
  // Treat a decided position (a Togyz kazan at 82+, a Kalah store over half) as
  // finished: the result cannot change, so searching on is wasted work. With
  // score_bounds only its first visit is (see there).
  bool stop_at_decided = true;
  // Weight of the expected margin in the utility that chooses moves:
  // utility = (win - loss) + margin_utility * tanh(margin / margin_scale). A little
  // helps the engine win by more once the game is won, and lose by less.
  float margin_utility = 0.0f;
  float margin_scale = 20.0f;
  // Forced playouts (KataGo, "Accelerating Self-Play Learning in Go", 3.1): in a search
  // with root noise (dirichlet_alpha > 0), a root child c with fewer than
  // sqrt(k * prior(c) * root visits) visits is searched next, so every move the noise
  // lifts gets a real look. 0 = off. pruned_root_visit_counts() takes the forced visits
  // back out of the policy target.
  float forced_playouts_k = 0.0f;
};

// The search parameters a game is played with: SearchParams' defaults with the margin
// in the utility (0.05 of tanh(margin / scale), the scale a typical final margin: 20
// stones in Togyz, 8 seeds in Kalah). The one place these numbers live: the MCTS levels
// play with them (mcts/levels.cpp) and a run config's [search] margin_utility and
// margin_scale default to them (train/config_schema.cpp).
SearchParams game_search_params(const GameSpec& spec);

class Search {
 public:
  explicit Search(const SearchParams& params = {}, uint64_t seed = 1);

  // Makes `pos` the root. When `pos` is reachable from the current root within a few
  // plies, the subtree below it is kept (tree reuse); otherwise the tree is cleared.
  // Returns true when a subtree was reused. Applies root noise if configured.
  bool set_root(const Position& pos);
  void clear();
  const Position& root_position() const { return root_pos_; }
  const SearchParams& params() const { return params_; }
  void set_params(const SearchParams& p) { params_ = p; }

  // Gathers up to `max_leaves` positions that need an evaluation and appends them to
  // `leaves`. Descents that end in finished or proven positions are backed up at once
  // and not returned. Returns how many were appended.
  int gather(int max_leaves, std::vector<Position>& leaves) {
    return gather(0, max_leaves, leaves);
  }
  // Answers for the leaves of the last gather(), in order.
  void deliver(std::span<const EvalOutput> outputs) { deliver(0, outputs); }

  // Several batches of one tree in flight at once: `slot` (0 <= slot < kMaxInFlight)
  // names the batch. While slot 0's leaves are in the network, slot 1 may gather:
  // the virtual losses of slot 0's descents steer it elsewhere, and a descent that
  // reaches a leaf still awaiting its evaluation (either slot's) is a collision that
  // ends the gathering. Each slot's answers go back with deliver(slot), in its own
  // order; slots may be delivered in any order. This is how a single search keeps the
  // network busy while its tree works (SearchDriver::run_pipelined with the same
  // search in both halves). All calls still come from one thread at a time.
  static constexpr int kMaxInFlight = 16;
  int gather(int slot, int max_leaves, std::vector<Position>& leaves);
  void deliver(int slot, std::span<const EvalOutput> outputs);
  int pending_leaves() const {
    int n = 0;
    for (const auto& b : in_flight_) n += int(b.pending.size());
    return n;
  }

  int64_t root_visits() const;
  // The root's value is known: with score bounds, its exact margin; otherwise its
  // win, draw or loss.
  bool root_proven() const;
  bool root_is_terminal() const {
    return root_pos_.is_over() ||
           (params_.stop_at_decided && !bounds_active() && root_pos_.is_decided());
  }
  // Bounds on the root's final margin for its side to move: with score bounds, from the
  // search (equal once the margin is proven); otherwise only what its stores say.
  int root_margin_lower() const { return margin_of(nodes_[0].store_lo); }
  int root_margin_upper() const { return margin_of(std::min<int>(nodes_[0].store_hi, total_)); }
  // The search for this move is finished: the root has `target_visits` visits, or its
  // value is proven, or there is nothing to search. Every caller that plays moves from
  // searches (self-play, matches, the bench, the driver, the MCTS player) asks this.
  bool done(int64_t target_visits) const {
    return root_visits() >= target_visits || root_proven() || root_is_terminal();
  }

  // The search's answer: visits, values, margin and principal variation per move.
  ThinkResult result() const;
  // The move to play: temperature 0 = most visited (a proven win first, a proven loss
  // last); otherwise sampled with probability proportional to visits^(1/temperature).
  int pick_move(float temperature, std::mt19937_64& rng) const;
  // Visit counts of the root's children by pit (0 for illegal or unvisited moves).
  std::array<uint32_t, kMaxMoves> root_visit_counts() const;
  // The same with forced playouts pruned (KataGo's policy target pruning): every child
  // but the most visited loses up to its sqrt(k * prior * root visits) forced visits, as
  // far as its PUCT score stays at most the best child's; a child left with one visit
  // loses it too. The best child keeps its visits. With forced_playouts_k 0 or without
  // root noise, root_visit_counts().
  std::array<uint32_t, kMaxMoves> pruned_root_visit_counts() const;
  // The root's priors by pit before Dirichlet noise was mixed in (the network's policy,
  // after root_policy_temperature); 0 for illegal moves. What the search's visits are
  // compared with to measure how much it learned (policy surprise).
  std::array<float, kMaxMoves> root_priors() const;

  // Score bounds never cross: every node's lower bound is at most its upper one (tests).
  bool bounds_ordered() const {
    for (const Node& n : nodes_)
      if (n.store_lo > std::min<int>(n.store_hi, total_)) return false;
    return true;
  }
  size_t node_count() const { return nodes_.size(); }
  static constexpr size_t bytes_per_node() { return sizeof(Node); }

 private:
  enum : int8_t { kUnproven = 2 };
  enum Flags : uint8_t { kExpanded = 1, kTerminal = 2, kAwaitingEval = 4 };
  // 32 bytes. Statistics are from the point of view of the player who chose the move
  // into this node (the parent's side to move); for the root, its own side to move.
  // The margin bounds are kept as bounds on that player's store at the end of the game
  // (margin = 2 * store - total, every stone ends in a store), which fit the two bytes
  // that were padding: no game has more than 255 stones (Togyz 162, Kalah(9,12) 216).
  struct Node {
    uint32_t first_child = 0;  // children are contiguous in nodes_
    float prior = 0;
    float value_sum = 0;   // sum of (win - loss)
    float draw_sum = 0;    // sum of draw probabilities
    float margin_sum = 0;  // sum of expected margins, in stones
    uint32_t visits = 0;
    uint16_t in_flight = 0;  // virtual visits of descents awaiting evaluation
    uint8_t move = 0;        // the pit played to reach this node
    uint8_t num_children = 0;
    uint8_t flags = 0;
    int8_t proven = kUnproven;  // exact result: +1 win, 0 draw, -1 loss, or kUnproven
    uint8_t store_lo = 0;       // score bounds: the final store is at least this
    uint8_t store_hi = 255;     // ... and at most this (255: not set, the total)
  };
  static_assert(sizeof(Node) == 32);

  struct PathStep {
    uint32_t node;
    uint8_t chooser;  // side to move at the parent (whose view the node's stats take)
  };
  struct Pending {
    uint32_t path_begin, path_end;  // into path_steps_
    Position pos;
  };

  float child_utility(const Node& child, float fpu_value) const;
  bool forcing_playouts() const {
    return params_.forced_playouts_k > 0 && params_.dirichlet_alpha > 0;
  }
  uint32_t select_child(uint32_t parent, const Position& pos, uint8_t chooser) const;
  void expand(uint32_t node, const Position& pos, const EvalOutput& eval);
  // One batch in flight: the descents' paths and the leaves awaiting evaluation.
  struct InFlight {
    std::vector<PathStep> path_steps;
    std::vector<Pending> pending;
  };
  void backup(const std::vector<PathStep>& path, uint32_t path_begin, uint32_t path_end,
              int leaf_mover, float value, float draw, float margin);
  void update_proven(const std::vector<PathStep>& path, uint32_t path_begin, uint32_t path_end);
  // Score bounds: narrows the bounds of path[i] for i = path_end-2 down to path_begin
  // from their children (max of the mover's bounds), and with them the W/D/L proofs;
  // stops where nothing changes.
  void update_bounds(const std::vector<PathStep>& path, uint32_t path_begin, uint32_t path_end);
  // The store bounds a position itself gives `player`: stores only grow.
  void narrow_by_stores(Node& n, const Position& pos, int player) const;
  void prove_from_bounds(Node& n) const;
  bool bounds_active() const { return params_.solver && params_.score_bounds && total_ <= 255; }
  bool exact(const Node& n) const { return n.store_lo >= std::min<int>(n.store_hi, total_); }
  int margin_of(int store) const { return 2 * store - total_; }
  // The same bounds from the other player's view.
  uint8_t flip(int store) const { return uint8_t(total_ - std::min(store, total_)); }
  void revert_virtual_loss(const std::vector<PathStep>& path, uint32_t path_begin,
                           uint32_t path_end);
  void apply_root_noise();
  // Score bounds and `node` solved: the best lower bound among its children (those
  // that keep its exact margin have it); otherwise -1.
  int optimal_store(uint32_t node) const;
  void exact_value(const Position& pos, float& value, float& draw, float& margin) const;

  SearchParams params_;
  std::mt19937_64 rng_;
  Position root_pos_;
  std::vector<Node> nodes_;  // nodes_[0] is the root
  int total_ = 0;            // stones in the game (root_pos_.total_stones())
  InFlight in_flight_[kMaxInFlight];
  bool root_noise_applied_ = false;
  std::array<float, kMaxMoves> root_priors_before_noise_{};  // valid while noise is applied
};

}  // namespace kz
