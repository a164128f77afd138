// What the search asks of a position, and who answers: the network (nn/nn_evaluator.h)
// or the network-free RolloutEvaluator (mcts/rollout_evaluator.h).
//
// The contract that the whole batching design rests on:
// - Evaluators are only ever called with a batch of positions (std::span). A caller
//   that has one position is doing something wrong in normal use.
// - The answer for a position depends on that position alone (not on the rest of the
//   batch, not on call order), up to float rounding. This is what makes the EvalCache
//   correct and lets a game searched among many give the same visits as alone.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/position.h"

namespace kz {

struct EvalOutput {
  // Move probabilities over the mover's pits 0..8; illegal moves are exactly 0 and the
  // legal ones sum to 1.
  std::array<float, kMaxMoves> policy{};
  // Game outcome probabilities for the side to move.
  float win = 0, draw = 0, loss = 0;
  // Expected final margin (side to move's store minus the opponent's), in stones.
  float margin = 0;

  float value() const { return win - loss; }  // the scalar the search backs up
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Fills out[i] for positions[i]. Positions are never finished games (the search scores
  // those exactly). Not required to be thread-safe: one driver thread calls it, unless
  // allows_concurrent_calls() says otherwise.
  virtual void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) = 0;
  // True when several threads may call evaluate() at the same time (each with its own
  // batch): a single search's threads then keep several network calls running at once
  // (MctsPlayerOptions::threads).
  virtual bool allows_concurrent_calls() const { return false; }
  // A short description for logs and bench output ("rollout x8", "net 64x6 cpu").
  virtual std::string describe() const = 0;

  // Inputs made ahead of evaluate() on the caller's thread, where an evaluator takes them
  // (the network's features): the search driver's pipeline makes one half's while the
  // network evaluates the other half, so that the network's thread does not encode
  // (docs/performance.md). prepared_floats: how many floats one position of `pos`'s game
  // takes (0, the default: none; then prepare and evaluate_prepared are not called).
  virtual size_t prepared_floats(const Position& /*pos*/) const { return 0; }
  // Writes prepared_floats(pos) floats for `pos`. Safe on any thread, beside evaluate().
  virtual void prepare(const Position& /*pos*/, float* /*out*/) const {}
  // evaluate() with the positions' prepared inputs, one after the other in `inputs`.
  virtual void evaluate_prepared(std::span<const Position> positions, const float* /*inputs*/,
                                 std::span<EvalOutput> out) {
    evaluate(positions, out);
  }
};

// A fixed-size, lossy cache of evaluations keyed by Position::hash(): direct-mapped with
// the full 64-bit key stored, so a collision costs a re-evaluation, never a wrong answer
// (up to a 2^-64 key clash). Transpositions are common in mancala (the same counts
// arise by different move orders), and tree reuse re-asks recent positions.
class EvalCache {
 public:
  explicit EvalCache(size_t entries = 1 << 18);
  bool lookup(uint64_t key, EvalOutput& out);
  void insert(uint64_t key, const EvalOutput& value);
  void clear();
  size_t capacity() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t key = 0;  // 0 = empty (a real hash of 0 is simply never cached)
    EvalOutput value;
  };
  std::vector<Entry> entries_;
};

}  // namespace kz
