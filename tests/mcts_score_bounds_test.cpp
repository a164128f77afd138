// Score-bounded MCTS (SearchParams::score_bounds): the search proves a position's exact
// final margin and plays a won game for the most stones, a lost one for the fewest.
// References are plain minimax over the final margin, played to the end of the game as
// the rules say (decided positions are played on), on positions small enough for it.
// All with the network-free rollout evaluator.
#include <gtest/gtest.h>

#include <climits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "mcts/driver.h"
#include "mcts/mcts_player.h"
#include "mcts/rollout_evaluator.h"
#include "tests/mcts_test_util.h"

namespace kz {
namespace {

// Memo of exact margins. Togyz can repeat positions (a lone stone may go round and
// round), so positions on the current line are tracked: a line that comes back makes
// the position `cyclic`, and such positions are not used as references.
struct Memo {
  std::map<std::pair<uint64_t, std::string>, int> value;
  std::set<std::pair<uint64_t, std::string>> on_line;
  bool cyclic = false;
};

// The exact final margin (mover's store - opponent's) for the side to move, by minimax
// to the end of the game.
int exact_margin(const Position& pos, Memo& memo) {
  if (pos.is_over()) return pos.to_move == 0 ? pos.margin() : -pos.margin();
  const auto key = std::make_pair(pos.hash(), pos.to_string());
  if (auto it = memo.value.find(key); it != memo.value.end()) return it->second;
  if (memo.cyclic || !memo.on_line.insert(key).second) {
    memo.cyclic = true;
    return 0;
  }
  int best = INT_MIN;
  for (uint32_t m = pos.legal_mask(); m; m &= m - 1) {
    Position next = pos;
    next.play(__builtin_ctz(m));
    const int v = exact_margin(next, memo);
    best = std::max(best, next.to_move == pos.to_move ? v : -v);
  }
  memo.on_line.erase(key);
  memo.value[key] = best;
  return best;
}

// The exact margin of `move` for the side to move at `pos`.
int margin_after(const Position& pos, int move, Memo& memo) {
  Position next = pos;
  next.play(move);
  const int v = exact_margin(next, memo);
  return next.to_move == pos.to_move ? v : -v;
}

struct Searched {
  ThinkResult result;
  bool proven = false;  // root_proven(): the exact margin with bounds, else the result
  int lower = 0, upper = 0;
  int64_t visits = 0;
};

Searched search(const Position& pos, int64_t max_visits, bool score_bounds, uint64_t seed = 3) {
  RolloutEvaluator eval(2);
  EvalCache cache(1 << 14);
  SearchDriver driver(eval, &cache, 64);
  SearchParams params;
  params.score_bounds = score_bounds;
  Search s(params, seed);
  s.set_root(pos);
  Search* ptr[1] = {&s};
  const int64_t target[1] = {max_visits};
  driver.run(ptr, target);
  EXPECT_TRUE(s.bounds_ordered()) << pos.to_string();
  return {s.result(), s.root_proven(), s.root_margin_lower(), s.root_margin_upper(),
          s.root_visits()};
}

// Proves `pos` with score bounds and checks the margin and the move against minimax.
void expect_exact(const Position& pos, int64_t max_visits) {
  Memo memo;
  const int want = exact_margin(pos, memo);
  const Searched s = search(pos, max_visits, true);
  ASSERT_TRUE(s.proven) << pos.to_string() << " unsolved after " << s.visits << " visits, bounds "
                        << s.lower << ".." << s.upper << ", exact " << want;
  EXPECT_EQ(s.lower, want) << pos.to_string();
  EXPECT_EQ(s.upper, want) << pos.to_string();
  EXPECT_TRUE(s.result.margin_exact);
  EXPECT_EQ(s.result.margin, float(want)) << pos.to_string();
  EXPECT_EQ(s.result.win, want > 0 ? 1.f : 0.f);
  EXPECT_EQ(s.result.loss, want < 0 ? 1.f : 0.f);
  // The move played keeps the exact margin, and so does every move reported exact.
  EXPECT_EQ(margin_after(pos, s.result.best_move, memo), want)
      << pos.to_string() << " plays " << s.result.best_move + 1;
  for (const MoveEval& m : s.result.moves) {
    if (m.margin_exact) {
      EXPECT_EQ(m.margin, float(margin_after(pos, m.move, memo)));
    }
  }
}

// `pos` after up to `plies` random moves; `decided` positions are kept (the game is
// played on past them here).
Position random_plies(Position pos, int plies, std::mt19937_64& rng) {
  for (int i = 0; i < plies && !pos.is_over(); ++i) pos.play(random_legal_move(pos, rng));
  return pos;
}

// A Togyz endgame: `stones` stones spread over the holes, the rest in the kazans with
// neither at 82 yet, either side to move.
Position togyz_endgame(int stones, std::mt19937_64& rng) {
  while (true) {
    int holes[18] = {};
    for (int i = 0; i < stones; ++i) holes[rng() % 18]++;
    const int rest = kTogyzStones - stones;
    const int white = rest - 81 + int(rng() % uint64_t(2 * 81 - rest + 1));
    std::ostringstream s;
    for (int i = 0; i < 18; ++i) s << holes[i] << (i == 8 ? "/" : i < 17 ? "," : "");
    s << " " << white << " " << rest - white << (rng() % 2 ? " w" : " b");
    const Position p = Position::parse(s.str(), GameSpec::togyz());
    if (!p.is_over() && !p.is_decided()) return p;
  }
}

TEST(ScoreBounds, ProvesTheExactMarginOfSmallKalahGames) {
  for (const char* name : {"kalah:2,1", "kalah:2,2", "kalah:3,1", "kalah:2,2,empty", "kalah:3,2"})
    expect_exact(Position::start(GameSpec::parse(name)), 400000);
}

TEST(ScoreBounds, ProvesTheExactMarginOfKalahEndgames) {
  // Decided positions included: the margin is still open there.
  std::mt19937_64 rng(7);
  for (int checked = 0; checked < 16; ++checked) {
    const Position p =
        random_plies(Position::start(GameSpec::parse("kalah:4,3")), 14 + int(rng() % 16), rng);
    if (p.is_over()) continue;
    expect_exact(p, 400000);
  }
}

TEST(ScoreBounds, ProvesTheExactMarginOfTogyzEndgames) {
  std::mt19937_64 rng(3);
  int checked = 0;
  for (int tries = 0; tries < 2000 && checked < 10; ++tries) {
    const Position p = togyz_endgame(5 + tries % 4, rng);
    Memo memo;
    exact_margin(p, memo);
    if (memo.cyclic) continue;  // no finite game tree: nothing to compare with
    expect_exact(p, 400000);
    ++checked;
  }
  EXPECT_EQ(checked, 10);
}

TEST(ScoreBounds, PlaysTheLargestWinWhereTheResultSolverPlaysASmallerOne) {
  // Won Kalah endgames with winning moves of different margins: with score bounds the
  // move played always wins by the most; the win/draw/loss solver stops at the first
  // proof, and in some of them wins by less.
  std::mt19937_64 rng(5);
  int positions = 0, smaller_without = 0;
  for (int tries = 0; tries < 400 && positions < 8; ++tries) {
    const Position p =
        random_plies(Position::start(GameSpec::parse("kalah:4,3")), 14 + int(rng() % 12), rng);
    // Decided positions are not searched at all without bounds (see OffTheSolver...).
    if (p.is_decided()) continue;
    Memo memo;
    const int best = exact_margin(p, memo);
    if (best <= 0) continue;
    int worst_win = best;
    for (uint32_t m = p.legal_mask(); m; m &= m - 1) {
      const int v = margin_after(p, __builtin_ctz(m), memo);
      if (v > 0) worst_win = std::min(worst_win, v);
    }
    if (worst_win == best) continue;  // every winning move wins by as much
    ++positions;
    const Searched with = search(p, 400000, true);
    EXPECT_TRUE(with.proven);
    EXPECT_EQ(margin_after(p, with.result.best_move, memo), best) << p.to_string();
    const Searched without = search(p, 400000, false);
    EXPECT_TRUE(without.proven);
    EXPECT_FALSE(without.result.margin_exact);
    const int got = margin_after(p, without.result.best_move, memo);
    EXPECT_GT(got, 0) << p.to_string();  // still a win
    smaller_without += got < best;
  }
  EXPECT_EQ(positions, 8);
  EXPECT_GT(smaller_without, 0) << "the win/draw/loss solver always found the largest win";
}

TEST(ScoreBounds, ALostPositionIsLostByAsLittleAsPossible) {
  std::mt19937_64 rng(31);
  int positions = 0;
  for (int tries = 0; tries < 400 && positions < 6; ++tries) {
    const Position p =
        random_plies(Position::start(GameSpec::parse("kalah:4,3")), 16 + int(rng() % 12), rng);
    if (p.is_over()) continue;
    Memo memo;
    if (exact_margin(p, memo) >= 0) continue;
    ++positions;
    expect_exact(p, 400000);
  }
  EXPECT_EQ(positions, 6);
}

TEST(ScoreBounds, OffTheSolverStopsAtTheResult) {
  // Kalah(4,3), South's store holds 13 of 24: decided. Without score bounds that is
  // the end of the search (nothing to play for); with them the margin is searched.
  const Position decided = Position::parse("1,2,0,1/1,0,2,1 13 3 s", GameSpec::parse("kalah:4,3"));
  ASSERT_TRUE(decided.is_decided());
  const Searched off = search(decided, 100000, false);
  EXPECT_TRUE(off.result.proven);
  EXPECT_EQ(off.visits, 0);
  EXPECT_FALSE(off.result.margin_exact);
  expect_exact(decided, 100000);
  // Not decided, won by a capture that decides it: the result solver stops as soon as
  // that is proven, the bounded search when the margin is.
  std::mt19937_64 rng(5);
  int compared = 0;
  for (int tries = 0; tries < 400 && compared < 4; ++tries) {
    const Position p =
        random_plies(Position::start(GameSpec::parse("kalah:4,3")), 10 + int(rng() % 10), rng);
    if (p.is_decided()) continue;
    const Searched without = search(p, 400000, false);
    if (!without.proven || without.result.win != 1.f) continue;
    const Searched with = search(p, 400000, true);
    EXPECT_TRUE(with.proven && with.result.margin_exact) << p.to_string();
    EXPECT_GE(with.visits, without.visits) << p.to_string();
    ++compared;
  }
  EXPECT_EQ(compared, 4);
}

TEST(ScoreBounds, BoundsNeverCrossAndHoldTheTrueMarginThroughWholeGames) {
  // Random play with small searches and tree reuse, both games; where minimax can
  // afford it (Kalah(4,3) past the opening), the true margin lies within the bounds.
  std::mt19937_64 rng(99);
  for (const char* game : {"kalah:4,3", "kalah:3,3,empty", "kalah", "togyz"}) {
    const GameSpec spec = GameSpec::parse(game);
    const bool small = spec.total_seeds() <= 24;
    for (int g = 0; g < 2; ++g) {
      MctsPlayerOptions o;
      o.visits = 150;
      o.seed = rng();
      MctsPlayer player(std::make_shared<RolloutEvaluator>(2), o);
      Position pos = random_plies(Position::start(spec), int(rng() % 6), rng);
      for (int ply = 0; ply < 400 && !pos.is_over(); ++ply) {
        ThinkLimits lim;
        lim.nodes = 150;
        const ThinkResult r = player.think(pos, lim);
        const Search& s = player.search();
        ASSERT_TRUE(s.bounds_ordered()) << game << " " << pos.to_string();
        ASSERT_LE(s.root_margin_lower(), s.root_margin_upper());
        ASSERT_TRUE(pos.is_legal(r.best_move));
        if (small && ply >= 12) {
          Memo memo;
          const int m = exact_margin(pos, memo);
          EXPECT_LE(s.root_margin_lower(), m) << game << " " << pos.to_string();
          EXPECT_GE(s.root_margin_upper(), m) << game << " " << pos.to_string();
        }
        pos.play(rng() % 4 == 0 ? random_legal_move(pos, rng) : r.best_move);
      }
    }
  }
}

// One search on several threads (MctsPlayerOptions::threads): the bounds are updated
// under the tree's lock like everything else, so the proofs are the same. The suite's
// name puts it among tools/tsan.sh's threaded tests.
class MctsThreadedScoreBounds : public ::testing::TestWithParam<test::SearchMode> {};

INSTANTIATE_TEST_SUITE_P(Modes, MctsThreadedScoreBounds, test::threaded_search_modes(),
                         test::search_mode_name);

TEST_P(MctsThreadedScoreBounds, ProvesExactKalahMarginsLikeMinimax) {
  std::mt19937_64 rng(41);
  const test::SearchMode mode = GetParam();
  for (int checked = 0; checked < 6;) {
    const Position p =
        random_plies(Position::start(GameSpec::parse("kalah:4,3")), 14 + int(rng() % 14), rng);
    if (p.is_over()) continue;
    MctsPlayerOptions o;
    o.threads = mode.threads;
    MctsPlayer player(test::rollouts(2, mode), o);
    ThinkLimits lim;
    lim.nodes = 400000;
    const ThinkResult r = player.think(p, lim);
    EXPECT_TRUE(player.search().bounds_ordered());
    EXPECT_EQ(player.search().pending_leaves(), 0);
    ASSERT_TRUE(r.margin_exact) << p.to_string();
    Memo memo;
    const int want = exact_margin(p, memo);
    EXPECT_EQ(r.margin, float(want)) << p.to_string();
    EXPECT_EQ(margin_after(p, r.best_move, memo), want) << p.to_string();
    ++checked;
  }
}

}  // namespace
}  // namespace kz
