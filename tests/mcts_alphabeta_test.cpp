// The alpha-beta baseline, the levels and the move explanations.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "mcts/advice.h"
#include "mcts/alphabeta.h"
#include "mcts/levels.h"
#include "mcts/rollout_evaluator.h"
#include "tests/test_util.h"

namespace kz {
namespace {

Position togyz(const char* s) {
  return Position::parse(s, GameSpec::togyz());
}

ThinkResult think_depth(const Position& pos, int depth, AlphaBetaOptions o = {}) {
  AlphaBetaPlayer p(o);
  ThinkLimits l;
  l.depth = depth;
  return p.think(pos, l);
}

// Depth-limited exhaustive proof search, independent of the engine: the number of
// plies to a forced win (> 0), to a forced loss (< 0) for the side to move, or 0 when
// neither is proven within `depth` plies. Forced loss distances count the longest
// resistance; a Kalah extra turn keeps the side to move.
int prove(const Position& pos, int depth) {
  if (depth == 0) return 0;
  int best_win = 0, worst_loss = 0;
  bool all_lose = true;
  for (uint32_t m = pos.legal_mask(); m; m &= m - 1) {
    Position c = pos;
    c.play(__builtin_ctz(m));
    int r;  // from the mover's view, in plies from pos
    if (c.is_decided()) {
      const int d = int(c.store[pos.to_move]) - int(c.store[pos.to_move ^ 1]);
      r = d > 0 ? 1 : d < 0 ? -1 : 0;
    } else {
      const int sub = prove(c, depth - 1);
      const int mine = c.to_move == pos.to_move ? sub : -sub;
      r = mine > 0 ? mine + 1 : mine < 0 ? mine - 1 : 0;
    }
    if (r > 0 && (best_win == 0 || r < best_win)) best_win = r;
    if (r >= 0) all_lose = false;
    if (r < 0) worst_loss = std::min(worst_loss, r);
  }
  if (best_win) return best_win;
  return all_lose ? worst_loss : 0;
}

// Random positions reached by random play, stopping short of the end.
std::vector<Position> random_positions(const GameSpec& spec, int count, int min_plies,
                                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  while (int(out.size()) < count) {
    Position p = Position::start(spec);
    const int plies = min_plies + int(rng() % 40);
    for (int i = 0; i < plies && !p.is_decided(); ++i) {
      std::vector<int> legal;
      for (uint32_t m = p.legal_mask(); m; m &= m - 1) legal.push_back(__builtin_ctz(m));
      p.play(legal[rng() % legal.size()]);
    }
    if (!p.is_decided()) out.push_back(p);
  }
  return out;
}

TEST(AlphaBeta, TakesTheWinningCaptureInTogyz) {
  // White's hole 9 (1 stone) lands on Black's hole 1: 3 + 1 = 4, captured: 78 + 4 = 82.
  const Position pos = togyz("0,0,0,0,0,0,0,2,1/3,1,1,1,1,1,1,1,1 78 70 w");
  for (int depth : {1, 2, 5}) {
    const ThinkResult r = think_depth(pos, depth);
    EXPECT_EQ(r.best_move, 8) << "depth " << depth;
    EXPECT_TRUE(r.proven);
    EXPECT_FLOAT_EQ(r.win, 1.0f);
    EXPECT_GT(r.margin, 0);
  }
}

TEST(AlphaBeta, MakesTheTuzdykThatWins) {
  // Hole 9's stone makes Black's hole 1 hold 3: a tuzdyk, 79 + 3 = 82.
  const Position pos = togyz("0,0,0,0,0,0,0,1,1/2,1,1,1,1,1,1,1,2 79 70 w");
  const ThinkResult r = think_depth(pos, 4);
  ASSERT_EQ(r.best_move, 8);
  Position after = pos;
  EXPECT_TRUE(after.play(r.best_move).made_tuzdyk);
  EXPECT_TRUE(r.proven);
  // What the hint says of it (tools/move_words.h words these facts).
  const MoveFacts f = move_facts(pos, 8);
  EXPECT_TRUE(f.decides_game);
  EXPECT_EQ(f.final_margin, 12);
  EXPECT_TRUE(f.made_tuzdyk);
  EXPECT_EQ(f.tuzdyk_hole, 0);
}

TEST(AlphaBeta, TakesAnObviousCapture) {
  // Hole 9's single stone makes Black's hole 1 hold 16: captured. Nothing else captures.
  const Position pos = togyz("1,1,1,1,1,1,1,1,1/15,14,14,14,14,14,14,14,0 20 20 w");
  for (int depth : {1, 2, 3, 6}) EXPECT_EQ(think_depth(pos, depth).best_move, 8) << depth;
  // Even the noisiest level sees it, whatever its seed.
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto p = make_level_player(GameSpec::togyz(), Level::kBeginner, "", {1.0, seed});
    EXPECT_EQ(p->think(pos, {}).best_move, 8) << "seed " << seed;
  }
  EXPECT_EQ(move_facts(pos, 8).captured, 16);
}

TEST(AlphaBeta, FindsKalahWinsThroughExtraTurns) {
  // Forced results in Kalah endgames are full of extra turns (the same side moving
  // twice); the engine must agree with the exhaustive prover on the result and on its
  // distance in plies.
  const GameSpec spec = GameSpec::kalah(4, 3, false);
  int proven = 0;
  for (const Position& pos : random_positions(spec, 60, 10, 7)) {
    const int truth = prove(pos, 7);
    AlphaBetaPlayer p;
    ThinkLimits l;
    l.depth = 8;
    const ThinkResult rr = p.think(pos, l);
    ASSERT_TRUE(pos.is_legal(rr.best_move));
    if (truth == 0) continue;
    ++proven;
    const int score = p.last_root_scores()[rr.best_move];
    if (truth > 0) {
      EXPECT_EQ(score, kWinScore - truth) << pos.to_string();
      EXPECT_FLOAT_EQ(rr.win, 1.0f);
    } else {
      EXPECT_EQ(score, -(kWinScore + truth)) << pos.to_string();
      EXPECT_FLOAT_EQ(rr.loss, 1.0f);
    }
  }
  EXPECT_GT(proven, 10);  // the sample must actually exercise proofs
}

TEST(AlphaBeta, FindsShortestTogyzWinsFoundByExhaustiveSearch) {
  // Late positions (kazans near 82) where a forced result within 4 plies is common.
  int proven = 0;
  for (const Position& pos : random_positions(GameSpec::togyz(), 400, 120, 11)) {
    if (pos.store[0] < 66 && pos.store[1] < 66) continue;
    const int truth = prove(pos, 4);
    if (truth == 0) continue;
    ++proven;
    AlphaBetaPlayer p;
    ThinkLimits l;
    l.depth = 5;
    const ThinkResult r = p.think(pos, l);
    const int score = p.last_root_scores()[r.best_move];
    EXPECT_TRUE(r.proven) << pos.to_string();
    if (truth > 0)
      EXPECT_EQ(score, kWinScore - truth) << pos.to_string();
    else
      EXPECT_EQ(score, -(kWinScore + truth)) << pos.to_string();
    if (proven >= 40) break;
  }
  EXPECT_GT(proven, 5);
}

TEST(AlphaBeta, ResultIsWellFormedInRandomPositions) {
  for (const GameSpec& spec :
       {GameSpec::togyz(), GameSpec::kalah(6, 4), GameSpec::kalah(5, 4, true)}) {
    for (const Position& pos : random_positions(spec, 25, 0, 3)) {
      AlphaBetaOptions o;
      o.multipv = 9;
      const ThinkResult r = think_depth(pos, 3, o);
      ASSERT_TRUE(pos.is_legal(r.best_move)) << pos.to_string();
      EXPECT_EQ(int(r.moves.size()), pos.legal_count());
      std::set<int> seen;
      float prev = 2;
      for (const MoveEval& e : r.moves) {
        EXPECT_TRUE(pos.is_legal(e.move));
        EXPECT_TRUE(seen.insert(e.move).second);
        EXPECT_NEAR(e.win + e.draw + e.loss, 1.0f, 1e-4);
        EXPECT_LE(expected_score(e), prev + 1e-5) << "moves must come best first";
        prev = expected_score(e);
      }
      EXPECT_EQ(r.moves[0].move, r.best_move);
      ASSERT_FALSE(r.pv.empty());
      EXPECT_EQ(r.pv[0], r.best_move);
      Position p = pos;
      for (int m : r.pv) {
        ASSERT_TRUE(p.is_legal(m)) << "pv leaves the rules in " << pos.to_string();
        p.play(m);
      }
      EXPECT_EQ(r.depth, 3);
    }
  }
}

TEST(AlphaBeta, RespectsDepthNodesAndTimeLimits) {
  const Position start = Position::start(GameSpec::togyz());
  AlphaBetaPlayer p;
  ThinkLimits l;
  l.depth = 4;
  ThinkResult r = p.think(start, l);
  EXPECT_EQ(r.depth, 4);

  p.new_game();
  l = {};
  l.nodes = 20000;
  r = p.think(start, l);
  EXPECT_LE(r.nodes, 20000);
  EXPECT_GT(r.nodes, 10000);  // it used its budget instead of stopping early
  EXPECT_TRUE(start.is_legal(r.best_move));

  p.new_game();
  l = {};
  l.movetime_s = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  r = p.think(start, l);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 0.35);
  EXPECT_GE(r.depth, 4);
  EXPECT_TRUE(start.is_legal(r.best_move));
}

TEST(AlphaBeta, StopFlagEndsTheSearchPromptly) {
  const Position start = Position::start(GameSpec::togyz());
  AlphaBetaPlayer p;
  std::atomic<bool> stop{false};
  ThinkLimits l;
  l.depth = kMaxSearchDepth;  // would take ages
  l.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  const ThinkResult r = p.think(start, l);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  EXPECT_LT(took, 0.4);
  EXPECT_TRUE(start.is_legal(r.best_move));
  EXPECT_GE(r.depth, 1);

  // Already stopped: answers at once, still with a legal move.
  const ThinkResult r2 = p.think(start, l);
  EXPECT_TRUE(start.is_legal(r2.best_move));
  EXPECT_EQ(int(r2.moves.size()), 9);
}

TEST(AlphaBeta, FinishedGameHasNoMove) {
  const Position over = togyz("0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 90 72 w");
  ASSERT_TRUE(over.is_over());
  const ThinkResult r = think_depth(over, 3);
  EXPECT_EQ(r.best_move, -1);
  EXPECT_TRUE(r.proven);
  EXPECT_FLOAT_EQ(r.win, 1.0f);
}

TEST(AlphaBeta, NoiseVariesLowLevelsButNotTheirStrongMoves) {
  const Position start = Position::start(GameSpec::togyz());
  std::set<int> chosen;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    auto p = make_level_player(GameSpec::togyz(), Level::kBeginner, "", {1.0, seed});
    chosen.insert(p->think(start, {}).best_move);
  }
  EXPECT_GE(chosen.size(), 2u) << "a beginner should not always open the same way";
  auto medium = make_level_player(GameSpec::togyz(), Level::kMedium, "", {1.0, 5});
  auto again = make_level_player(GameSpec::togyz(), Level::kMedium, "", {1.0, 5});
  EXPECT_EQ(medium->think(start, {}).best_move, again->think(start, {}).best_move)
      << "the same seed must give the same game";
}

TEST(ScoreWdl, IsAProbabilityAndMonotone) {
  const Position start = Position::start(GameSpec::togyz());
  float prev = -1;
  for (int s = -3000; s <= 3000; s += 250) {
    const ScoreWdl w = score_to_wdl(s, start);
    EXPECT_NEAR(w.win + w.draw + w.loss, 1.0f, 1e-5);
    EXPECT_GE(w.draw, 0);
    EXPECT_GT(w.win, prev);
    prev = w.win;
    EXPECT_NEAR(w.margin, s / 100.0f, 1e-4);
  }
  EXPECT_NEAR(score_to_wdl(0, start).win, score_to_wdl(0, start).loss, 1e-6);
  EXPECT_TRUE(score_to_wdl(kWinScore - 3, start).proven);
}

TEST(Levels, ParseNamesAndNumbers) {
  EXPECT_EQ(parse_level("beginner"), Level::kBeginner);
  EXPECT_EQ(parse_level("expert"), Level::kExpert);
  EXPECT_EQ(parse_level("3"), Level::kMedium);
  EXPECT_THROW(parse_level("grandmaster"), ParseError);
  EXPECT_THROW(parse_level(""), ParseError);
  for (int i = 0; i < kLevelCount; ++i) EXPECT_EQ(parse_level(level_name(Level(i))), Level(i));
  EXPECT_EQ(model_file_stem(GameSpec::togyz()), "togyz");
  EXPECT_EQ(model_file_stem(GameSpec::kalah(6, 4)), "kalah");
  EXPECT_EQ(model_file_stem(GameSpec::kalah(5, 4, true)), "bantumi");
  EXPECT_EQ(model_file_stem(GameSpec::kalah(4, 3, true)), "kalah-4-3-empty");
}

TEST(Levels, NetworkIsUsedForUpperLevelsWithAModel) {
  const std::string dir = kz::test::temp_dir("levels");
  const std::string model = dir + "/net.pt";
  std::ofstream(model) << "not really a model";
  const GameSpec spec = GameSpec::togyz();
  // Without a network every level is alpha-beta, model or not.
  EXPECT_EQ(make_level_player(spec, Level::kExpert, model)->name(), "alphabeta-expert");
  EXPECT_THROW(make_level_player(spec, Level::kExpert, dir + "/missing.pt"), std::runtime_error);

  // The network comes in through LevelPlayerOptions::network: a stub records what it
  // was asked for and answers with rollouts.
  std::string seen_model;
  int seen_threads = 0, calls = 0;
  LevelPlayerOptions lo;
  lo.threads = 3;
  lo.network = [&](const GameSpec& s, const std::string& path,
                   int threads) -> std::shared_ptr<Evaluator> {
    EXPECT_EQ(s, spec);
    seen_model = path;
    seen_threads = threads;
    ++calls;
    return std::make_shared<RolloutEvaluator>();
  };
  EXPECT_EQ(make_level_player(spec, Level::kExpert, model, lo)->name(), "mcts-expert");
  EXPECT_EQ(seen_model, model);
  // Threads 3: three search threads (capped at the cores), each calling the network with
  // one LibTorch thread (mcts/levels.h).
  EXPECT_EQ(seen_threads, 1);
  EXPECT_EQ(make_level_player(spec, Level::kHard, model, lo)->name(), "mcts-hard");
  EXPECT_EQ(make_level_player(spec, Level::kMedium, model, lo)->name(), "alphabeta-medium");
  LevelPlayerOptions force = lo;
  force.force_alphabeta = true;
  EXPECT_EQ(make_level_player(spec, Level::kExpert, model, force)->name(), "alphabeta-expert");
  // A model named for analysis is used at any level (at hard's budget at least).
  EXPECT_EQ(make_analysis_player(spec, Level::kEasy, model, 3, lo)->name(), "mcts-hard");
  // No model given and none shipped: alpha-beta.
  setenv("KZ_MODELS_DIR", dir.c_str(), 1);
  const int before = calls;
  EXPECT_EQ(make_level_player(spec, Level::kExpert, "", lo)->name(), "alphabeta-expert");
  EXPECT_EQ(calls, before);
  std::ofstream(dir + "/togyz.pt") << "shipped";
  EXPECT_EQ(make_level_player(spec, Level::kExpert, "", lo)->name(), "mcts-expert");
  EXPECT_EQ(seen_model, dir + "/togyz.pt");
  unsetenv("KZ_MODELS_DIR");
  // The MCTS engine at any level (the protocol's `Engine mcts`) needs the network.
  EXPECT_EQ(make_mcts_level_player(spec, Level::kBeginner, model, lo)->name(), "mcts-beginner");
  EXPECT_THROW(make_mcts_level_player(spec, Level::kBeginner, model, {}), std::runtime_error);
  // An MCTS level plays a legal move with the stub network.
  auto hard = make_level_player(spec, Level::kHard, model, lo);
  ThinkLimits limits;
  limits.nodes = 32;
  const Position start = Position::start(spec);
  EXPECT_TRUE(start.is_legal(hard->think(start, limits).best_move));
  std::filesystem::remove_all(dir);
}

// One table says what each level is, for both games: the alpha-beta and MCTS budgets
// follow it, the game's search parameters come from game_search_params().
TEST(Levels, TableDrivesBothEngines) {
  for (const GameSpec& spec : {GameSpec::togyz(), GameSpec::kalah(6, 4)}) {
    for (int i = 0; i < kLevelCount; ++i) {
      const Level level = Level(i);
      const LevelSpec& row = level_spec(spec, level);
      const AlphaBetaOptions ab = level_alphabeta_options(spec, level, 1.0, 7);
      EXPECT_EQ(ab.depth, row.ab_depth);
      EXPECT_EQ(ab.nodes, row.ab_nodes);
      EXPECT_EQ(ab.randomness, row.ab_randomness);
      EXPECT_EQ(ab.label, std::string("alphabeta-") + level_name(level));
      const MctsPlayerOptions m = mcts_level_options(spec, level, 1.0, 7);
      EXPECT_EQ(m.visits, row.mcts_visits == 0 ? int64_t(1) << 40 : row.mcts_visits);
      EXPECT_EQ(m.params.margin_scale, game_search_params(spec).margin_scale);
      EXPECT_EQ(row.network, level >= Level::kHard);
    }
    // perfect is expert's row; half the time halves the budgets.
    EXPECT_EQ(&level_spec(spec, Level::kPerfect), &level_spec(spec, Level::kExpert));
    EXPECT_EQ(level_alphabeta_options(spec, Level::kHard, 0.5).nodes,
              level_spec(spec, Level::kHard).ab_nodes / 2);
  }
  // The calibrated numbers docs/levels.md quotes.
  EXPECT_EQ(level_spec(GameSpec::togyz(), Level::kHard).ab_nodes, 60000);
  EXPECT_EQ(level_spec(GameSpec::kalah(6, 4), Level::kHard).ab_nodes, 15000);
  EXPECT_EQ(level_spec(GameSpec::togyz(), Level::kHard).mcts_visits, 1000);
  EXPECT_EQ(level_spec(GameSpec::kalah(6, 4), Level::kMedium).ab_depth, 4);
  EXPECT_EQ(game_search_params(GameSpec::kalah(6, 4)).margin_scale, 8.f);
}

TEST(Advice, FindsKalahExtraTurnsCapturesAndOpenings) {
  const GameSpec kalah = GameSpec::kalah(6, 4);
  const Position start = Position::start(kalah);
  // Pit 3 holds 4 seeds: the last one falls into the store.
  EXPECT_TRUE(move_facts(start, 2).extra_turn);
  // South pit 1 (1 seed) lands in the empty pit 2 opposite North's pit 5 (6 seeds).
  const Position cap = Position::parse("1,0,4,4,4,4/4,4,4,4,6,4 4 1 s", kalah);
  EXPECT_EQ(move_facts(cap, 0).captured, 7);
  EXPECT_EQ(move_facts(cap, 0).capture_pit, 1);
  // A Togyz move that gives the opponent an even capture next move says so.
  const Position t = togyz("9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w");
  const MoveFacts f = move_facts(t, 6);  // 76: captures 10
  EXPECT_EQ(f.captured, 10);
  EXPECT_EQ(line_notation(t, {6, 7}), "76 87");
}

TEST(Advice, HintListsTheBestMovesWithLines) {
  const Position pos = togyz("1,1,1,1,1,1,1,1,1/15,14,14,14,14,14,14,14,0 20 20 w");
  AlphaBetaOptions o;
  o.multipv = 3;
  AlphaBetaPlayer p(o);
  ThinkLimits l;
  l.depth = 4;
  const Hint h = make_hint(p, pos, l, 3);
  ASSERT_EQ(h.moves.size(), 3u);
  EXPECT_EQ(h.moves[0].move, 8);
  EXPECT_EQ(h.moves[0].notation, "91");
  EXPECT_GE(h.moves[0].line.size(), 2u);
  for (const auto& m : h.moves) {
    EXPECT_EQ(m.facts.move, m.move);
    EXPECT_EQ(m.line[0], m.move);
    EXPECT_FALSE(m.line_text.empty());
  }
  EXPECT_GT(expected_score(h.moves[0].eval), expected_score(h.moves[1].eval));
}

}  // namespace
}  // namespace kz
