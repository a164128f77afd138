// The MCTS: best moves in hand-made positions, the solver against plain minimax,
// batching invariance, tree reuse. All with the network-free rollout evaluator.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "mcts/driver.h"
#include "mcts/mcts_player.h"
#include "mcts/rollout_evaluator.h"
#include "mcts/task_thread.h"
#include "tests/mcts_test_util.h"

namespace kz {
namespace {

using test::rollouts;
using test::SearchMode;

// `pos` after up to `plies` uniformly random legal moves (fewer if the game is decided).
Position after_random_plies(Position pos, int plies, std::mt19937_64& rng) {
  for (int i = 0; i < plies && !pos.is_decided(); ++i) {
    pos.play(random_legal_move(pos, rng));
  }
  return pos;
}

ThinkResult think(const Position& pos, int visits, SearchParams params = {}, SearchMode mode = {}) {
  auto eval = rollouts(8, mode);
  MctsPlayerOptions o;
  o.params = params;
  o.visits = visits;
  o.threads = mode.threads;
  MctsPlayer player(eval, o);
  ThinkLimits lim;
  lim.nodes = visits;
  return player.think(pos, lim);
}

TEST(Mcts, TogyzTakesTheDecisiveCapture) {
  // White's hole 1 (10 stones) ends in Black's hole 1: 19 + 1 = 20, an even capture
  // that brings White to 82. Every other move captures nothing.
  const Position pos =
      Position::parse("10,0,0,0,0,0,0,1,0/19,1,1,1,1,1,1,1,1 62 62 w", GameSpec::togyz());
  const ThinkResult r = think(pos, 200);
  EXPECT_EQ(r.best_move, 0);
  EXPECT_TRUE(r.moves[0].proven);
  EXPECT_GT(r.win, 0.99f);
}

TEST(Mcts, TogyzPrefersABigCaptureInTheMiddlegame) {
  // Hole 9 (1 stone) ends on Black's hole 1: 11 + 1 = 12 captured. Not decisive; the
  // other two moves capture nothing.
  const Position pos =
      Position::parse("1,0,0,0,0,0,0,2,1/11,5,5,5,5,5,5,5,5 50 57 w", GameSpec::togyz());
  Position after = pos;
  const auto info = after.play(8);
  ASSERT_EQ(info.captured, 12);
  ASSERT_FALSE(after.is_decided());
  const ThinkResult r = think(pos, 800);
  EXPECT_EQ(r.best_move, 8) << "visits of best: " << r.moves[0].visits;
}

TEST(Mcts, KalahTakesTheEmptyPitCapture) {
  // South pit 1 -> empty pit 2, opposite North pit 5 holds 15: captures 16 and wins.
  const Position pos =
      Position::parse("1,0,0,0,0,0/1,1,1,1,15,1 13 14 s", GameSpec::parse("kalah"));
  const ThinkResult r = think(pos, 200);
  EXPECT_EQ(r.best_move, 0);
  EXPECT_TRUE(r.proven);
  EXPECT_EQ(r.win, 1.f);
}

TEST(Mcts, ResultListsEveryLegalMoveAndAPrincipalVariation) {
  const Position pos = Position::start(GameSpec::togyz());
  const ThinkResult r = think(pos, 300);
  EXPECT_EQ(r.moves.size(), 9u);
  EXPECT_GE(r.nodes, 300);
  EXPECT_FALSE(r.pv.empty());
  EXPECT_EQ(r.pv[0], r.best_move);
  int64_t sum = 0;
  for (const auto& m : r.moves) sum += m.visits;
  EXPECT_EQ(sum + 1, r.nodes);  // the root's own first visit
  EXPECT_NEAR(r.win + r.draw + r.loss, 1.f, 1e-3);
}

// Plain minimax with memo: value for the side to move (+1, 0, -1).
int minimax(const Position& pos, std::map<std::pair<uint64_t, std::string>, int>& memo) {
  if (pos.is_over() || pos.is_decided()) {
    return outcome_score(pos.outcome(), pos.to_move);
  }
  const auto key = std::make_pair(pos.hash(), pos.to_string());
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  int best = -2;
  for (uint32_t m = pos.legal_mask(); m; m &= m - 1) {
    Position next = pos;
    next.play(__builtin_ctz(m));
    const int v = minimax(next, memo);
    best = std::max(best, next.to_move == pos.to_move ? v : -v);
  }
  memo[key] = best;
  return best;
}

int solve_with_mcts(const Position& pos, int64_t max_visits) {
  RolloutEvaluator eval(2);
  EvalCache cache(1 << 14);
  SearchDriver driver(eval, &cache, 64);
  Search search(SearchParams{}, 3);
  search.set_root(pos);
  Search* ptr[1] = {&search};
  const int64_t target[1] = {max_visits};
  driver.run(ptr, target);
  EXPECT_TRUE(search.root_proven())
      << pos.to_string() << " unproven after " << search.root_visits();
  const ThinkResult r = search.result();
  return r.win == 1.f ? 1 : r.loss == 1.f ? -1 : 0;
}

TEST(MctsSolver, ProvesSmallKalahGamesLikeMinimax) {
  for (const char* name : {"kalah:2,1", "kalah:2,2", "kalah:3,1", "kalah:2,2,empty", "kalah:3,2"}) {
    const GameSpec spec = GameSpec::parse(name);
    std::map<std::pair<uint64_t, std::string>, int> memo;
    const Position start = Position::start(spec);
    EXPECT_EQ(solve_with_mcts(start, 400000), minimax(start, memo)) << name;
  }
}

TEST(MctsSolver, ProvesRandomKalahEndgamesLikeMinimax) {
  std::mt19937_64 rng(11);
  const GameSpec spec = GameSpec::parse("kalah:4,3");
  int checked = 0;
  while (checked < 12) {
    const int plies = 10 + int(rng() % 20);
    const Position p = after_random_plies(Position::start(spec), plies, rng);
    if (p.is_decided()) continue;
    std::map<std::pair<uint64_t, std::string>, int> memo;
    EXPECT_EQ(solve_with_mcts(p, 400000), minimax(p, memo)) << p.to_string();
    ++checked;
  }
}

TEST(MctsBatching, AGameSearchedAmongManyGetsTheSameVisitsAsAlone) {
  const GameSpec spec = GameSpec::togyz();
  std::vector<Position> starts;
  std::mt19937_64 rng(5);
  for (int g = 0; g < 8; ++g) {
    starts.push_back(after_random_plies(Position::start(spec), 6, rng));
  }
  SearchParams params;
  params.leaves_per_batch = 8;
  params.dirichlet_alpha = 0.3f;  // noise too: it must come from the search's own seed
  auto run = [&](const std::vector<int>& which) {
    RolloutEvaluator eval(4);
    EvalCache cache(1 << 14);
    SearchDriver driver(eval, &cache, 256);
    std::vector<std::unique_ptr<Search>> searches;
    std::vector<Search*> ptrs;
    for (int g : which) {
      searches.push_back(std::make_unique<Search>(params, 1000 + g));
      searches.back()->set_root(starts[g]);
      ptrs.push_back(searches.back().get());
    }
    std::vector<int64_t> targets(which.size(), 300);
    driver.run(ptrs, targets);
    std::vector<std::array<uint32_t, kMaxMoves>> visits;
    for (auto* s : ptrs) visits.push_back(s->root_visit_counts());
    return std::make_pair(visits, driver.stats());
  };
  const auto [all, all_stats] = run({0, 1, 2, 3, 4, 5, 6, 7});
  const auto [alone, alone_stats] = run({3});
  EXPECT_EQ(all[3], alone[0]);
  // Batching really happened: the evaluator saw batches of many games' leaves.
  EXPECT_GT(double(all_stats.evaluated) / double(all_stats.batches), 30.0);
  EXPECT_LE(double(alone_stats.evaluated) / double(alone_stats.batches), 8.0);
}

// One search from each of `starts` (seed `seed + g` for game g) to `target` visits through
// one driver: one round at a time, or pipelined (games alternating between the two
// halves). The roots' visit counts and the driver's statistics.
struct DriverRun {
  std::vector<std::array<uint32_t, kMaxMoves>> visits;
  DriverStats stats;
};
DriverRun drive(Evaluator& eval, int max_batch, const SearchParams& params,
                const std::vector<Position>& starts, uint64_t seed, int64_t target,
                bool pipelined) {
  SearchDriver driver(eval, nullptr, max_batch);
  std::vector<std::unique_ptr<Search>> searches;
  std::vector<Search*> ptrs;
  for (size_t g = 0; g < starts.size(); ++g) {
    searches.push_back(std::make_unique<Search>(params, seed + g));
    searches.back()->set_root(starts[g]);
    ptrs.push_back(searches.back().get());
  }
  if (pipelined) {
    int rounds = 0;
    driver.run_pipelined(
        [&](int half, std::vector<Search*>& list, std::vector<int64_t>& targets) {
          for (size_t g = size_t(half); g < ptrs.size(); g += 2) {
            list.push_back(ptrs[g]);
            targets.push_back(target);
          }
        },
        [&](int) {
          ++rounds;
          for (auto* s : ptrs)
            if (!s->done(target)) return rounds < 10000;
          return false;
        });
  } else {
    driver.run(ptrs, std::vector<int64_t>(ptrs.size(), target));
  }
  DriverRun result{{}, driver.stats()};
  for (auto* s : ptrs) result.visits.push_back(s->root_visit_counts());
  return result;
}

// The pipeline (two halves taking turns, the network on a worker thread) changes when
// leaves are evaluated, never what a search sees: every game's tree ends the same as
// with one round at a time.
TEST(MctsBatching, PipelinedHalvesGiveTheSameTreesAsOneRoundAtATime) {
  const GameSpec spec = GameSpec::kalah(6, 4, false);
  std::vector<Position> starts;
  std::mt19937_64 rng(9);
  for (int g = 0; g < 10; ++g) {
    starts.push_back(after_random_plies(Position::start(spec), 3, rng));
  }
  SearchParams params;
  params.leaves_per_batch = 4;
  RolloutEvaluator eval(2);
  const DriverRun serial = drive(eval, 64, params, starts, 50, 200, false);
  const DriverRun piped = drive(eval, 64, params, starts, 50, 200, true);
  EXPECT_EQ(serial.visits, piped.visits);
  EXPECT_EQ(serial.stats.evaluated, piped.stats.evaluated);
}

// An evaluator that takes inputs made ahead (Evaluator::prepare): the driver makes them
// for every miss, in the batch's order and split as the batches are (max_batch 4 here),
// and the trees are those of the evaluator without them.
TEST(MctsBatching, PreparedInputsReachTheEvaluatorWithTheirPositions) {
  const GameSpec spec = GameSpec::kalah(6, 4, false);
  std::mt19937_64 rng(12);
  std::vector<Position> starts;
  for (int g = 0; g < 6; ++g) starts.push_back(after_random_plies(Position::start(spec), 3, rng));
  SearchParams params;
  params.leaves_per_batch = 4;
  test::PreparingRollouts preparing;
  RolloutEvaluator plain(2);
  EXPECT_EQ(drive(preparing, 4, params, starts, 70, 120, true).visits,
            drive(plain, 4, params, starts, 70, 120, true).visits);
  EXPECT_GT(preparing.prepared_calls, 0);
  EXPECT_EQ(preparing.mismatched, 0);
}

TEST(MctsBatching, AnEvaluatorErrorInThePipelineReachesTheCaller) {
  struct FailingEvaluator : Evaluator {
    int calls = 0;
    void evaluate(std::span<const Position>, std::span<EvalOutput>) override {
      if (++calls == 3) throw std::runtime_error("device lost");
    }
    std::string describe() const override { return "failing"; }
  } eval;
  SearchDriver driver(eval, nullptr, 64);
  Search a(SearchParams{}, 1), b(SearchParams{}, 2);
  a.set_root(Position::start(GameSpec::togyz()));
  b.set_root(Position::start(GameSpec::togyz()));
  EXPECT_THROW(driver.run_pipelined(
                   [&](int half, std::vector<Search*>& list, std::vector<int64_t>& targets) {
                     list.push_back(half == 0 ? &a : &b);
                     targets.push_back(1000);
                   },
                   [](int) { return true; }),
               std::runtime_error);
}

// The pipeline's thread: tasks queued behind the running one run in order, wait(ticket)
// waits for that task and not for those after it, and a task's error is rethrown once.
TEST(TaskThreadTest, QueuedTasksRunInOrderAndEachTicketCanBeAwaited) {
  TaskThread thread;
  std::vector<int> order;  // written by the thread only, read after a wait
  std::atomic<bool> release{false};
  const uint64_t first = thread.start([&] { order.push_back(1); });
  const uint64_t second = thread.start([&] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    order.push_back(2);
  });
  const uint64_t third = thread.start([&] { order.push_back(3); });
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  thread.wait(first);  // returns while the second is held back
  EXPECT_EQ(order, std::vector<int>({1}));
  release = true;
  thread.wait(third);
  EXPECT_EQ(order, std::vector<int>({1, 2, 3}));
  thread.wait();  // nothing left: returns at once

  const uint64_t failing = thread.start([] { throw std::runtime_error("lost"); });
  const uint64_t after = thread.start([&] { order.push_back(4); });
  EXPECT_THROW(thread.wait(failing), std::runtime_error);
  thread.wait(after);  // the error was rethrown once; the task after it still ran
  EXPECT_EQ(order.back(), 4);
}

TEST(MctsTree, ReusesTheSubtreeOfThePositionReached) {
  auto eval = std::make_shared<RolloutEvaluator>(4);
  MctsPlayerOptions o;
  o.visits = 400;
  MctsPlayer player(eval, o);
  Position pos = Position::start(GameSpec::togyz());
  ThinkLimits lim;
  lim.nodes = 400;
  const ThinkResult first = player.think(pos, lim);
  const int reply_move = first.pv.size() > 1 ? first.pv[1] : -1;
  ASSERT_GE(reply_move, 0);
  const int64_t child_visits = [&] {
    for (const auto& m : first.moves)
      if (m.move == first.best_move) return m.visits;
    return int64_t(0);
  }();
  pos.play(first.best_move);
  pos.play(reply_move);
  // The grandchild along the PV was visited; its visits are kept.
  EXPECT_TRUE(player.search().set_root(pos));
  EXPECT_GT(player.search().root_visits(), 0);
  EXPECT_LT(player.search().root_visits(), child_visits);
  // An unrelated position clears the tree.
  EXPECT_FALSE(player.search().set_root(
      Position::parse("9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 b", GameSpec::togyz())));
  EXPECT_EQ(player.search().root_visits(), 0);
}

TEST(MctsSearch, SampledMovesAreLegalAndProvenLossesAvoided) {
  std::mt19937_64 rng(1);
  const Position pos =
      Position::parse("10,0,0,0,0,0,0,1,0/19,1,1,1,1,1,1,1,1 62 62 w", GameSpec::togyz());
  Search search(SearchParams{}, 9);
  search.set_root(pos);
  RolloutEvaluator eval(4);
  SearchDriver driver(eval, nullptr, 32);
  Search* ptr[1] = {&search};
  const int64_t target[1] = {300};
  driver.run(ptr, target);
  for (int i = 0; i < 50; ++i) {
    const int m = search.pick_move(1.0f, rng);
    EXPECT_TRUE(pos.is_legal(m));
    EXPECT_EQ(m, 0);  // a proven win is always played
  }
}

// One search on one or several threads (MctsPlayerOptions::threads, the protocol's
// Threads): 1 thread, 2 and 4 threads calling the evaluator at once, and 2 with an evaluator that
// takes one call at a time (the two-batch pipeline). The same answers where the position decides
// them, every visit accounted for, no leaf left pending, proofs like minimax, and the
// time and stop limits still hold. ThreadSanitizer runs these too (tools/tsan.sh).
class MctsThreadedSearch : public ::testing::TestWithParam<SearchMode> {};

INSTANTIATE_TEST_SUITE_P(Modes, MctsThreadedSearch, test::threaded_search_modes(),
                         test::search_mode_name);

TEST_P(MctsThreadedSearch, FindsTheSameDecisiveMovesAndProofs) {
  const Position togyz =
      Position::parse("10,0,0,0,0,0,0,1,0/19,1,1,1,1,1,1,1,1 62 62 w", GameSpec::togyz());
  const ThinkResult t = think(togyz, 200, {}, GetParam());
  EXPECT_EQ(t.best_move, 0);
  EXPECT_TRUE(t.moves[0].proven);
  const Position kalah =
      Position::parse("1,0,0,0,0,0/1,1,1,1,15,1 13 14 s", GameSpec::parse("kalah"));
  const ThinkResult k = think(kalah, 200, {}, GetParam());
  EXPECT_EQ(k.best_move, 0);
  EXPECT_TRUE(k.proven);
  const Position middle =
      Position::parse("1,0,0,0,0,0,0,2,1/11,5,5,5,5,5,5,5,5 50 57 w", GameSpec::togyz());
  EXPECT_EQ(think(middle, 800, {}, GetParam()).best_move, 8);
}

TEST_P(MctsThreadedSearch, EveryVisitIsAccountedForAndNothingStaysPending) {
  std::mt19937_64 rng(5);
  const SearchMode mode = GetParam();
  for (const char* game : {"togyz", "kalah", "bantumi"}) {
    const GameSpec spec = GameSpec::parse(game);
    MctsPlayerOptions o;
    o.visits = 600;
    o.threads = mode.threads;
    MctsPlayer player(rollouts(4, mode), o);
    Position pos = Position::start(spec);
    for (int ply = 0; ply < 30 && !pos.is_decided(); ++ply) {
      ThinkLimits lim;
      lim.nodes = 600;
      const ThinkResult r = player.think(pos, lim);
      ASSERT_TRUE(pos.is_legal(r.best_move)) << game << " " << pos.to_string();
      Search& s = player.search();
      EXPECT_EQ(s.pending_leaves(), 0);
      // The target is reached (or the root proven), and overshot by at most the batches
      // that were in flight when it was.
      if (!r.proven) {
        EXPECT_GE(s.root_visits(), 600);
        EXPECT_LE(s.root_visits(), 600 + mode.threads * s.params().leaves_per_batch);
      }
      int64_t child_visits = 0;
      for (const MoveEval& m : r.moves) child_visits += m.visits;
      // The root's visits are its children's plus its own first evaluation.
      if (!r.proven) {
        EXPECT_EQ(child_visits + 1, s.root_visits()) << game;
      }
      pos.play(ply % 3 == 0 ? random_legal_move(pos, rng) : r.best_move);
    }
  }
}

TEST_P(MctsThreadedSearch, SolvesKalahEndgamesLikeMinimax) {
  std::mt19937_64 rng(23);
  const GameSpec spec = GameSpec::parse("kalah:4,3");
  int checked = 0;
  while (checked < 8) {
    const Position p = after_random_plies(Position::start(spec), 12 + int(rng() % 16), rng);
    if (p.is_decided()) continue;
    MctsPlayerOptions o;
    o.threads = GetParam().threads;
    MctsPlayer player(rollouts(2, GetParam()), o);
    ThinkLimits lim;
    lim.nodes = 400000;
    const ThinkResult r = player.think(p, lim);
    ASSERT_TRUE(r.proven) << p.to_string();
    std::map<std::pair<uint64_t, std::string>, int> memo;
    EXPECT_EQ(r.win == 1.f ? 1 : r.loss == 1.f ? -1 : 0, minimax(p, memo)) << p.to_string();
    ++checked;
  }
}

TEST_P(MctsThreadedSearch, TimeAndStopLimitsEndTheSearch) {
  MctsPlayerOptions o;
  o.threads = GetParam().threads;
  MctsPlayer player(rollouts(8, GetParam()), o);
  ThinkLimits lim;
  lim.movetime_s = 0.2;
  const ThinkResult r = player.think(Position::start(GameSpec::togyz()), lim);
  EXPECT_LT(r.seconds, 1.5);
  EXPECT_GT(r.nodes, 10);
  EXPECT_EQ(player.search().pending_leaves(), 0);
  std::atomic<bool> stop{true};
  ThinkLimits stopped;
  stopped.nodes = 1000000;
  stopped.stop = &stop;
  player.new_game();
  const ThinkResult s = player.think(Position::start(GameSpec::togyz()), stopped);
  EXPECT_LT(s.nodes, 100);
  EXPECT_GE(s.best_move, 0);
}

// An evaluator error on one of the threads reaches the caller, and the tree is left
// without pending leaves.
TEST(MctsThreadedSearchErrors, AnEvaluatorErrorReachesTheCaller) {
  struct Failing : RolloutEvaluator {
    std::atomic<int> calls{0};
    void evaluate(std::span<const Position> p, std::span<EvalOutput> o) override {
      if (++calls > 5) throw std::runtime_error("network gone");
      RolloutEvaluator::evaluate(p, o);
    }
  };
  auto eval = std::make_shared<Failing>();
  MctsPlayerOptions o;
  o.threads = 3;
  MctsPlayer player(eval, o);
  ThinkLimits lim;
  lim.nodes = 100000;
  EXPECT_THROW(player.think(Position::start(GameSpec::togyz()), lim), std::runtime_error);
  EXPECT_EQ(player.search().pending_leaves(), 0);
}

}  // namespace
}  // namespace kz
