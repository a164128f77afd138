// Forced playouts and policy target pruning (mcts/search.h, forced_playouts_k; KataGo,
// "Accelerating Self-Play Learning in Go", section 3.1): with root noise every root
// child gets its sqrt(k * prior * visits) visits, the pruned target gives them back
// without lifting any child's PUCT score above the best child's, and without noise or
// with k = 0 nothing changes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "mcts/driver.h"
#include "mcts/search.h"

namespace kz {
namespace {

// A network stand-in: a skewed prior (pit 6 gets most of it) and a value from the
// stores, so that captures make some moves better than others.
class SkewedEvaluator : public Evaluator {
 public:
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override {
    for (size_t i = 0; i < positions.size(); ++i) {
      const Position& p = positions[i];
      EvalOutput& o = out[i];
      const uint32_t mask = p.legal_mask();
      float sum = 0;
      for (int m = 0; m < kMaxMoves; ++m)
        if (mask >> m & 1) sum += (o.policy[m] = m == 6 ? 20.f : 1.f);
      for (float& v : o.policy) v /= sum;
      const float lead = float(p.store[p.to_move]) - float(p.store[1 - p.to_move]);
      const float value = std::tanh(lead / 20.f);
      o.win = (1 + value) / 2 * 0.9f;
      o.loss = (1 - value) / 2 * 0.9f;
      o.draw = 0.1f;
      o.margin = lead;
    }
  }
  std::string describe() const override { return "skewed prior, store value"; }
};

struct Searched {
  ThinkResult result;
  std::array<uint32_t, kMaxMoves> visits{}, pruned{};
};

Searched search(float k, float dirichlet_alpha, int visits) {
  SearchParams params;
  params.forced_playouts_k = k;
  params.dirichlet_alpha = dirichlet_alpha;
  params.dirichlet_fraction = 0.25f;
  params.leaves_per_batch = 4;
  Search s(params, 17);
  s.set_root(Position::start(GameSpec::togyz()));
  SkewedEvaluator eval;
  SearchDriver driver(eval, nullptr, 64);
  Search* searches[1] = {&s};
  const int64_t target[1] = {visits};
  driver.run(searches, target);
  return {s.result(), s.root_visit_counts(), s.pruned_root_visit_counts()};
}

const MoveEval& best_of(const ThinkResult& r) {
  return r.moves.front();
}

TEST(ForcedPlayouts, EveryRootChildGetsItsForcedVisits) {
  const int n = 800;
  const Searched forced = search(2, 0.5f, n);
  for (const MoveEval& m : forced.result.moves) {
    const double want = std::sqrt(2.0 * m.prior * double(forced.result.nodes));
    // The last check was made a few visits before the end.
    EXPECT_GE(double(m.visits) + 1, want) << "move " << m.move << " prior " << m.prior;
  }
  // Without forcing, the skewed prior and the captures leave some child below it.
  const Searched plain = search(0, 0.5f, n);
  int below = 0;
  for (const MoveEval& m : plain.result.moves)
    below += double(m.visits) + 1 < std::sqrt(2.0 * m.prior * double(plain.result.nodes));
  EXPECT_GT(below, 0);
}

TEST(ForcedPlayouts, PrunedTargetKeepsTheBestAndStaysBelowItsScore) {
  const Searched s = search(2, 0.5f, 800);
  const ThinkResult& r = s.result;
  const MoveEval& best = best_of(r);
  EXPECT_EQ(s.pruned[best.move], s.visits[best.move]);
  uint64_t total = 0;
  int reduced = 0;
  const SearchParams params;  // c_puct as searched
  const float sqrt_n = std::sqrt(float(r.nodes));
  const float best_score =
      (best.win - best.loss) + params.c_puct * best.prior * sqrt_n / (1.f + float(best.visits));
  for (const MoveEval& m : r.moves) {
    const uint32_t kept = s.pruned[m.move];
    total += kept;
    EXPECT_LE(kept, s.visits[m.move]);
    EXPECT_NE(kept, 1u) << "a child left with one visit is pruned to none";
    if (kept < s.visits[m.move]) {
      ++reduced;
      // At most its forced visits are taken.
      EXPECT_LE(double(s.visits[m.move] - kept),
                std::sqrt(2.0 * m.prior * double(r.nodes)) + 1.0 + (kept == 0))
          << "move " << m.move;
      if (kept > 0) {
        const float score =
            (m.win - m.loss) + params.c_puct * m.prior * sqrt_n / (1.f + float(kept));
        EXPECT_LE(score, best_score + 1e-4f) << "move " << m.move;
      }
    }
  }
  EXPECT_GT(reduced, 0);
  EXPECT_GT(total, 0u);
  // As a shard row's policy (the counts normalised): shares that sum to 1.
  float sum = 0;
  for (int m = 0; m < kMaxMoves; ++m) sum += float(s.pruned[m]) / float(total);
  EXPECT_NEAR(sum, 1.f, 1e-5f);
}

TEST(ForcedPlayouts, NothingChangesWithoutNoiseOrWithKZero) {
  // Gating and fast searches have no noise: k is ignored there.
  const Searched no_noise = search(2, 0, 300);
  const Searched off = search(0, 0, 300);
  EXPECT_EQ(no_noise.visits, off.visits);
  EXPECT_EQ(no_noise.pruned, no_noise.visits);
  const Searched k_zero = search(0, 0.5f, 300);
  EXPECT_EQ(k_zero.pruned, k_zero.visits);
}

}  // namespace
}  // namespace kz
