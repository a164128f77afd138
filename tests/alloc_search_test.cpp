// The tree does not allocate per visit, and features are encoded without allocating:
// every operator new of this executable is counted (its own area, so that no other
// suite pays for the counter), and a warmed-up search must make a visit's work with
// next to none.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "mcts/constant_evaluator.h"
#include "mcts/driver.h"
#include "mcts/search.h"
#include "nn/features.h"

namespace {
std::atomic<int64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

namespace kz {
namespace {

int64_t allocations() {
  return g_allocations.load(std::memory_order_relaxed);
}

// Visits of one search driven round by round against a constant evaluator, and the
// allocations they made after `warm_up` visits.
struct Counted {
  int64_t visits = 0;
  int64_t allocations = 0;
};

Counted count_search(const GameSpec& spec, bool score_bounds, int64_t warm_up, int64_t visits) {
  ConstantEvaluator evaluator;
  EvalCache cache(1 << 14);
  SearchDriver driver(evaluator, &cache, 64);
  SearchParams params;
  params.leaves_per_batch = 16;
  params.score_bounds = score_bounds;
  Search search(params, 3);
  std::mt19937_64 rng(5);
  search.set_root(random_opening(Position::start(spec), 6, rng));
  Search* searches[] = {&search};
  int64_t target[] = {warm_up};
  driver.run(searches, target);
  const int64_t before_visits = search.root_visits();
  const int64_t before = allocations();
  target[0] = warm_up + visits;
  driver.run(searches, target);
  return {search.root_visits() - before_visits, allocations() - before};
}

// The node pool grows by doubling, so a search of V visits may allocate about log2(V)
// times; anything per visit or per leaf would show as thousands.
TEST(Allocations, SearchVisitsDoNotAllocate) {
  for (const GameSpec& spec : {GameSpec::togyz(), GameSpec::kalah(6, 4, false)}) {
    for (bool bounds : {true, false}) {
      const Counted c = count_search(spec, bounds, 2000, 40000);
      SCOPED_TRACE(spec.name() + (bounds ? " with score bounds" : ""));
      ASSERT_GT(c.visits, 10000);
      EXPECT_LE(c.allocations, 8) << c.allocations << " allocations in " << c.visits << " visits";
    }
  }
}

TEST(Allocations, EncodingFeaturesDoesNotAllocate) {
  std::mt19937_64 rng(9);
  for (const GameSpec& spec : {GameSpec::togyz(), GameSpec::kalah(6, 4, false)}) {
    std::vector<Position> positions;
    for (int i = 0; i < 200; ++i)
      positions.push_back(random_opening(Position::start(spec), int(rng() % 30), rng));
    std::vector<float> planes(size_t(kNumPlanes) * size_t(ring_length(positions[0])));
    const int64_t before = allocations();
    for (const Position& p : positions) encode_features(p, planes);
    EXPECT_EQ(allocations() - before, 0) << spec.name();
  }
}

}  // namespace
}  // namespace kz
