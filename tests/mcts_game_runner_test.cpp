// The game runner (mcts/game_runner.h) that self-play, matches, levels-match and the
// bench all play through: paired openings, adjudication, Player sides against MCTS
// sides, reproducibility. Network-free: the rollout evaluator and alpha-beta players.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <thread>

#include "mcts/alphabeta.h"
#include "mcts/batching_front.h"
#include "mcts/game_runner.h"
#include "mcts/rollout_evaluator.h"
#include "tests/mcts_test_util.h"

namespace kz {
namespace {

// Alpha-beta at a fixed depth with some root noise, seeded per game and side, so that
// games differ from each other but each is reproducible.
GameSide alphabeta_side(int depth, double randomness = 0) {
  GameSide s;
  s.name = "ab" + std::to_string(depth);
  s.limits.depth = depth;
  s.make_player = [depth, randomness](int index, int side) {
    AlphaBetaOptions o;
    o.depth = depth;
    o.tt_mib = 1;
    o.randomness = randomness;
    o.seed = uint64_t(index) * 2 + uint64_t(side) + 1;
    return std::make_unique<AlphaBetaPlayer>(o);
  };
  return s;
}

// What a finished game looked like, for comparisons between runs.
struct GameRecordLite {
  int index = 0;
  Position start, final_pos;
  int side_of_white = 0;
  int plies = 0;
  Outcome outcome = Outcome::kDraw;
  bool adjudicated = false;
  int verdict_loser = -1, verdict_ply = -1;  // resign adjudication's
  bool operator==(const GameRecordLite& o) const {
    return index == o.index && start.to_string() == o.start.to_string() &&
           final_pos.to_string() == o.final_pos.to_string() && side_of_white == o.side_of_white &&
           plies == o.plies && outcome == o.outcome && adjudicated == o.adjudicated &&
           verdict_loser == o.verdict_loser && verdict_ply == o.verdict_ply;
  }
};

// A PairedMatch that records every game and checks every move it sees for legality.
class RecordingMatch : public PairedMatch {
 public:
  using PairedMatch::PairedMatch;
  void start_games(std::span<RunnerGame* const> free) override {
    PairedMatch::start_games(free);
    for (RunnerGame* g : free)
      if (g->active) starts[g->index] = g->pos;
  }
  int on_search_done(RunnerGame& g, Search& s) override {
    const int move = PairedMatch::on_search_done(g, s);
    EXPECT_TRUE(g.pos.is_legal(move)) << g.pos.to_string();
    ++mcts_moves;
    return move;
  }
  void on_player_move(RunnerGame& g, int side, const ThinkResult& r) override {
    EXPECT_TRUE(g.pos.is_legal(r.best_move)) << g.pos.to_string();
    EXPECT_EQ(g.mover_side(), side);
    ++player_moves;
    PairedMatch::on_player_move(g, side, r);
  }
  void on_game_end(RunnerGame& g, const GameEnd& end) override {
    GameRecordLite rec;
    rec.index = g.index;
    rec.start = starts.at(g.index);
    rec.final_pos = g.pos;
    rec.side_of_white = g.side_of[0];
    rec.plies = g.plies;
    rec.outcome = end.outcome;
    rec.adjudicated = end.adjudicated;
    rec.verdict_loser = g.verdict_loser;
    rec.verdict_ply = g.verdict_ply;
    games[g.index] = rec;
    PairedMatch::on_game_end(g, end);
  }
  std::map<int, Position> starts;
  std::map<int, GameRecordLite> games;
  int mcts_moves = 0, player_moves = 0;
};

PairedMatch::Options random_openings(const GameSpec& spec, int pairs, uint64_t seed) {
  PairedMatch::Options o;
  o.pairs = pairs;
  o.seed = seed;
  o.opening = [spec, seed](int pair) {
    std::mt19937_64 rng(seed * 1000003 + uint64_t(pair));
    return random_opening(Position::start(spec), 4, rng, 100);
  };
  return o;
}

TEST(GameRunner, PairedOpeningsArePlayedTwiceWithColoursSwapped) {
  const GameSpec spec = GameSpec::parse("kalah:4,3");
  GameSide sides[2] = {alphabeta_side(2), alphabeta_side(1)};
  std::vector<int> pair_points;
  auto options = random_openings(spec, 5, 11);
  options.on_pair = [&](int, int points) {
    pair_points.push_back(points);
    return true;
  };
  RecordingMatch match(options);
  GameRunnerOptions ro;
  ro.slots = 4;
  GameRunner(sides, match, ro).run();
  ASSERT_EQ(match.games.size(), 10u);
  EXPECT_EQ(pair_points.size(), 5u);
  for (int pair = 0; pair < 5; ++pair) {
    const GameRecordLite& first = match.games.at(2 * pair);
    const GameRecordLite& second = match.games.at(2 * pair + 1);
    EXPECT_EQ(first.start.to_string(), second.start.to_string()) << "pair " << pair;
    EXPECT_EQ(first.side_of_white, 0);   // side 0 has White in the first game
    EXPECT_EQ(second.side_of_white, 1);  // and Black in the second
    EXPECT_FALSE(first.adjudicated);
    EXPECT_TRUE(first.final_pos.is_decided());
  }
  EXPECT_NE(match.games.at(0).start.to_string(), match.games.at(2).start.to_string());
}

TEST(GameRunner, AdjudicatesByTheStoresAtMaxPlies) {
  const GameSpec spec = GameSpec::togyz();  // 6 plies cannot decide a Togyz game
  GameSide sides[2] = {alphabeta_side(1, 2.0), alphabeta_side(1, 2.0)};
  RecordingMatch match(random_openings(spec, 3, 5));
  GameRunnerOptions ro;
  ro.slots = 6;
  ro.max_plies = 6;
  GameRunner(sides, match, ro).run();
  ASSERT_EQ(match.games.size(), 6u);
  for (const auto& [index, g] : match.games) {
    EXPECT_EQ(g.plies, 6) << index;
    EXPECT_TRUE(g.adjudicated);
    EXPECT_EQ(g.outcome, g.final_pos.outcome_by_stores());
  }
  EXPECT_EQ(match.player_moves, 36);
}

// A player that plays its lowest legal pit and reports, for its n-th move of a game
// (0-based), the expected score `score(n)` as a win probability (no draws).
class ScriptedPlayer : public Player {
 public:
  explicit ScriptedPlayer(std::function<float(int)> score) : score_(std::move(score)) {}
  std::string name() const override { return "scripted"; }
  ThinkResult think(const Position& pos, const ThinkLimits&) override {
    ThinkResult r;
    r.best_move = __builtin_ctz(pos.legal_mask());
    r.win = score_(moves_++);
    r.loss = 1 - r.win;
    return r;
  }

 private:
  std::function<float(int)> score_;
  int moves_ = 0;
};

GameSide scripted_side(const std::string& name, std::function<float(int)> score) {
  GameSide s;
  s.name = name;
  s.make_player = [score](int, int) { return std::make_unique<ScriptedPlayer>(score); };
  return s;
}

// Resign adjudication (PairedMatch::Options::resign_score): the game ends once both
// engines have called it for the same side on `resign_moves` moves each, and the side
// that believed itself lost loses, whichever colour it had.
TEST(GameRunner, ResignAdjudicationEndsAGameBothEnginesCallLost) {
  GameSide sides[2] = {scripted_side("confident", [](int) { return 0.99f; }),
                       scripted_side("doomed", [](int) { return 0.02f; })};
  auto options = random_openings(GameSpec::togyz(), 3, 7);  // Togyz: no extra turns
  options.resign_score = 0.03f;
  options.resign_moves = 3;
  RecordingMatch match(options);
  GameRunnerOptions ro;
  ro.slots = 2;
  GameRunner(sides, match, ro).run();
  ASSERT_EQ(match.games.size(), 6u);
  for (const auto& [index, g] : match.games) {
    EXPECT_EQ(g.plies, 6) << index;  // three moves each
    const int doomed_colour = 1 - g.side_of_white;
    EXPECT_EQ(g.verdict_loser, doomed_colour) << index;
    EXPECT_EQ(g.verdict_ply, 6) << index;
    EXPECT_EQ(g.outcome, doomed_colour == 0 ? Outcome::kBlackWins : Outcome::kWhiteWins) << index;
    EXPECT_FALSE(g.adjudicated);  // not by the stores
  }
}

// --resign-verify: the verdict is noted at the same ply but the game is played out.
TEST(GameRunner, ResignVerifyNotesTheVerdictAndPlaysOn) {
  GameSide sides[2] = {scripted_side("confident", [](int) { return 0.99f; }),
                       scripted_side("doomed", [](int) { return 0.02f; })};
  auto options = random_openings(GameSpec::togyz(), 2, 7);
  options.resign_score = 0.03f;
  options.resign_moves = 3;
  options.resign_verify = true;
  RecordingMatch match(options);
  GameRunnerOptions ro;
  ro.slots = 2;
  ro.max_plies = 40;
  GameRunner(sides, match, ro).run();
  ASSERT_EQ(match.games.size(), 4u);
  for (const auto& [index, g] : match.games) {
    EXPECT_EQ(g.verdict_loser, 1 - g.side_of_white) << index;
    EXPECT_EQ(g.verdict_ply, 6) << index;
    EXPECT_GT(g.plies, 6) << index;
    EXPECT_EQ(g.outcome, g.final_pos.outcome_by_stores()) << index;  // played, not resigned
  }
}

// One engine's belief alone, or a streak that breaks, ends nothing.
TEST(GameRunner, ResignAdjudicationNeedsBothEnginesOnEveryMove) {
  const auto run = [](GameSide a, GameSide b) {
    GameSide sides[2] = {std::move(a), std::move(b)};
    auto options = random_openings(GameSpec::togyz(), 2, 9);
    options.resign_score = 0.03f;
    options.resign_moves = 3;
    RecordingMatch match(options);
    GameRunnerOptions ro;
    ro.slots = 2;
    ro.max_plies = 30;
    GameRunner(sides, match, ro).run();
    return match.games;
  };
  const auto doomed = [](int) { return 0.02f; };
  const auto unsure = [](int) { return 0.5f; };
  // Both believe themselves lost; the doomed side against an unsure one; a doomed side
  // that doubts on every third move against a confident one.
  for (const auto& games :
       {run(scripted_side("a", doomed), scripted_side("b", doomed)),
        run(scripted_side("a", unsure), scripted_side("b", doomed)),
        run(scripted_side("a", [](int) { return 0.99f; }),
            scripted_side("b", [](int n) { return n % 3 == 2 ? 0.5f : 0.02f; }))}) {
    ASSERT_EQ(games.size(), 4u);
    for (const auto& [index, g] : games) {
      EXPECT_EQ(g.verdict_loser, -1) << index;
      EXPECT_EQ(g.plies, 30) << index;
      EXPECT_TRUE(g.adjudicated) << index;  // by the stores, at max_plies
    }
  }
  PairedMatch::Options bad = random_openings(GameSpec::togyz(), 1, 1);
  bad.resign_score = 0.5f;
  EXPECT_THROW(PairedMatch{bad}, std::invalid_argument);
  bad.resign_score = 0.03f;
  bad.resign_moves = 0;
  EXPECT_THROW(PairedMatch{bad}, std::invalid_argument);
}

// side 0: MCTS with the rollout evaluator; side 1: alpha-beta depth 1.
struct MctsVsAlphaBeta {
  RolloutEvaluator evaluator{4};
  EvalCache cache{1 << 12};
  SearchDriver driver{evaluator, &cache, 64};
  GameSide sides[2];
  MctsVsAlphaBeta() {
    sides[0].name = "mcts";
    sides[0].driver = &driver;
    sides[0].params.leaves_per_batch = 4;
    sides[0].visits = 24;
    sides[1] = alphabeta_side(1, 1.0);
  }
};

std::map<int, GameRecordLite> play_mcts_vs_alphabeta(uint64_t seed, int slots,
                                                     float resign_score = 0) {
  MctsVsAlphaBeta setup;
  auto options = random_openings(GameSpec::parse("kalah:4,3"), 4, seed);
  options.resign_score = resign_score;
  options.resign_moves = 1;
  RecordingMatch match(options);
  GameRunnerOptions ro;
  ro.slots = slots;
  GameRunner(setup.sides, match, ro).run();
  EXPECT_GT(match.mcts_moves, 0);
  EXPECT_GT(match.player_moves, 0);
  return match.games;
}

TEST(GameRunner, PlayerSideAgainstMctsSideFinishesLegalGames) {
  const auto games = play_mcts_vs_alphabeta(3, 4);
  ASSERT_EQ(games.size(), 8u);
  for (const auto& [index, g] : games) {
    // Replaying is not possible from the record, but a game that ended early or late
    // would show here: every game ends decided (a Kalah(4,3) game cannot reach 600).
    EXPECT_TRUE(g.final_pos.is_decided()) << index;
    EXPECT_FALSE(g.adjudicated);
    EXPECT_GT(g.plies, 0);
  }
}

// An MCTS side's value comes from its search's root (Search::result): with a loose
// threshold some games are judged, and each judged game ended at its verdict, lost by the
// side judged lost.
TEST(GameRunner, ResignAdjudicationReadsMctsSearches) {
  const auto games = play_mcts_vs_alphabeta(3, 4, 0.45f);
  ASSERT_EQ(games.size(), 8u);
  int judged = 0;
  for (const auto& [index, g] : games) {
    if (g.verdict_loser < 0) continue;
    ++judged;
    EXPECT_EQ(g.plies, g.verdict_ply) << index;
    EXPECT_EQ(g.outcome, g.verdict_loser == 0 ? Outcome::kBlackWins : Outcome::kWhiteWins);
  }
  EXPECT_GT(judged, 0);
}

TEST(GameRunner, ResultsAreReproducibleFromTheSeed) {
  const auto a = play_mcts_vs_alphabeta(7, 4);
  const auto b = play_mcts_vs_alphabeta(7, 4);
  EXPECT_TRUE(a == b);
  // How many games are in flight changes the batches, not the games.
  const auto c = play_mcts_vs_alphabeta(7, 8);
  EXPECT_TRUE(a == c);
  const auto d = play_mcts_vs_alphabeta(8, 4);
  EXPECT_FALSE(a == d);
}

// A self-play-like controller: one MCTS side plays both colours, pipelined, with root
// noise and sampled moves from each game's own generator.
class SelfplayLike : public GameController {
 public:
  explicit SelfplayLike(int games) : games_(games), rng_(size_t(games)) {}
  void start_games(std::span<RunnerGame* const> free) override {
    for (RunnerGame* g : free) {
      if (started_ == games_) return;
      rng_[size_t(started_)].seed(1000 + uint64_t(started_));
      g->index = started_++;
      g->pos =
          random_opening(Position::start(GameSpec::parse("kalah:4,3")), 2, rng_[size_t(g->index)]);
      g->side_of[0] = g->side_of[1] = 0;
      g->search_seed[0] = rng_[size_t(g->index)]();
      g->active = true;
    }
  }
  int on_search_done(RunnerGame& g, Search& s) override {
    EXPECT_TRUE(s.done(g.target));
    visits += s.root_visits() - g.start_visits;
    ++moves;
    return s.pick_move(1.0f, rng_[size_t(g.index)]);
  }
  void on_game_end(RunnerGame& g, const GameEnd&) override {
    finals[g.index] = g.pos.to_string() + " " + std::to_string(g.plies);
  }
  std::map<int, std::string> finals;
  int moves = 0;
  int64_t visits = 0;  // made by the searches, over all moves

 private:
  int games_, started_ = 0;
  std::vector<std::mt19937_64> rng_;
};

struct SelfplayLikeRun {
  std::map<int, std::string> finals;
  int moves = 0;
  int64_t visits = 0;
  DriverStats stats;
};

SelfplayLikeRun play_selfplay_like(int slots, int threads = 1) {
  RolloutEvaluator evaluator(4);
  EvalCache cache(1 << 12);
  SearchDriver driver(evaluator, &cache, 64);
  GameSide side;
  side.name = "selfplay";
  side.driver = &driver;
  side.params.leaves_per_batch = 4;
  side.params.dirichlet_alpha = 1.0f;
  side.visits = 16;
  SelfplayLike games(9);
  GameRunnerOptions ro;
  ro.schedule = GameRunnerOptions::Schedule::kPipelined;
  ro.slots = slots;
  ro.threads = threads;
  GameRunner(std::span<const GameSide>(&side, 1), games, ro).run();
  EXPECT_GT(games.moves, 9);
  return {games.finals, games.moves, games.visits, driver.stats()};
}

TEST(GameRunner, PipelinedSelfplayFinishesEveryGameReproducibly) {
  const auto a = play_selfplay_like(4);
  ASSERT_EQ(a.finals.size(), 9u);
  EXPECT_EQ(a.finals, play_selfplay_like(4).finals);
  EXPECT_EQ(a.finals, play_selfplay_like(3).finals);  // independent of the slots they run in
}

// Search threads: each plays its own games, all leaves through one batching front. The
// games, their moves and every search's visits are those of one thread.
TEST(GameRunner, SearchThreadsPlayTheSameGamesAsOne) {
  const auto one = play_selfplay_like(6, 1);
  for (int threads : {2, 3}) {
    const auto many = play_selfplay_like(6, threads);
    EXPECT_EQ(many.finals, one.finals) << threads;
    EXPECT_EQ(many.moves, one.moves) << threads;
    EXPECT_EQ(many.visits, one.visits) << threads;
    EXPECT_GT(many.stats.batches, 0u);
    EXPECT_GT(many.stats.evaluated, 0u);
    EXPECT_LE(many.stats.cache_hits, many.stats.leaves);
  }
}

TEST(GameRunner, SearchThreadsWithTwoMctsSidesAndAPlayer) {
  // Two MCTS sides with evaluators of their own: a thread can wait on one side's front
  // while the other waits on the other's; the fronts must not wait for each other.
  RolloutEvaluator eval_a(4), eval_b(2);
  EvalCache cache_a(1 << 12), cache_b(1 << 12);
  SearchDriver driver_a(eval_a, &cache_a, 32), driver_b(eval_b, &cache_b, 32);
  GameSide sides[2];
  sides[0].driver = &driver_a;
  sides[1].driver = &driver_b;
  for (GameSide& side : sides) {
    side.params.leaves_per_batch = 4;
    side.visits = 16;
  }
  auto play = [&](int threads, bool in_parallel) {
    RecordingMatch match(random_openings(GameSpec::parse("kalah:4,3"), 4, 9));
    GameRunnerOptions ro;
    ro.slots = 8;
    ro.threads = threads;
    ro.sides_in_parallel = in_parallel;
    GameRunner(sides, match, ro).run();
    EXPECT_EQ(match.player_moves, 0);
    return match.games;
  };
  const auto one = play(1, true);
  ASSERT_EQ(one.size(), 8u);
  EXPECT_TRUE(play(2, true) == one);
  EXPECT_TRUE(play(2, false) == one);
  EXPECT_TRUE(play(4, true) == one);
  // And an MCTS side against a Player side, on three threads.
  MctsVsAlphaBeta setup;
  RecordingMatch match(random_openings(GameSpec::parse("kalah:4,3"), 4, 7));
  GameRunnerOptions ro;
  ro.slots = 6;
  ro.threads = 3;
  GameRunner(setup.sides, match, ro).run();
  EXPECT_TRUE(match.games == play_mcts_vs_alphabeta(7, 4));
}

TEST(GameRunner, PlayerThreadsPlayTheSameGamesAsOne) {
  const GameSpec spec = GameSpec::parse("kalah:4,3");
  GameSide sides[2] = {alphabeta_side(2, 1.0), alphabeta_side(1, 1.0)};
  RecordingMatch one(random_openings(spec, 6, 2));
  GameRunnerOptions ro;
  ro.slots = 2;
  GameRunner(sides, one, ro).run();
  RecordingMatch three(random_openings(spec, 6, 2));
  ro.threads = 3;
  ro.slots = 6;
  GameRunner(sides, three, ro).run();
  ASSERT_EQ(one.games.size(), 12u);
  EXPECT_TRUE(one.games == three.games);
}

TEST(GameRunner, RefusesAnImpossibleSetUp) {
  RolloutEvaluator evaluator(1);
  SearchDriver driver(evaluator, nullptr, 8);
  GameSide both;  // a driver and a player factory
  both.driver = &driver;
  both.make_player = [](int, int) { return std::make_unique<AlphaBetaPlayer>(); };
  RecordingMatch match(random_openings(GameSpec::togyz(), 1, 1));
  EXPECT_THROW(GameRunner(std::span<const GameSide>(&both, 1), match, {}), std::invalid_argument);
  GameSide nothing;  // neither
  EXPECT_THROW(GameRunner(std::span<const GameSide>(&nothing, 1), match, {}),
               std::invalid_argument);
  GameSide ab = alphabeta_side(1);
  GameRunnerOptions ro;
  ro.schedule = GameRunnerOptions::Schedule::kPipelined;  // needs an MCTS driver
  GameRunner runner(std::span<const GameSide>(&ab, 1), match, ro);
  EXPECT_THROW(runner.run(), std::invalid_argument);
}

// Clients on several threads get exactly the answers the evaluator gives them directly,
// in batches no larger than max_batch.
class CountingEvaluator : public Evaluator {
 public:
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override {
    EXPECT_LE(positions.size(), 16u);
    largest = std::max(largest, positions.size());
    inner.evaluate(positions, out);
  }
  std::string describe() const override { return "counting"; }
  RolloutEvaluator inner{2};
  size_t largest = 0;  // touched only by the front's collector thread
};

// `clients` threads, each asking `front` for 30 random batches of Togyz positions through
// ask(client, batch, answers) and then saying client_done(): how many answers of each
// client differ from what the evaluator gives directly. Client c draws from seed + c.
template <class Ask>
std::vector<int> mismatches_of_clients(BatchingFront& front, int clients, uint64_t seed, Ask ask) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(size_t(clients), 0);
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937_64 rng(seed + uint64_t(c));
      RolloutEvaluator direct(2);
      for (int round = 0; round < 30; ++round) {
        std::vector<Position> batch;
        const int n = 1 + int(rng() % 12);
        for (int i = 0; i < n; ++i) {
          const Position p = random_opening(Position::start(GameSpec::togyz()), 6, rng);
          if (!p.is_over()) batch.push_back(p);
        }
        std::vector<EvalOutput> via_front(batch.size()), expected(batch.size());
        ask(c, batch, via_front);
        direct.evaluate(batch, expected);
        for (size_t i = 0; i < batch.size(); ++i)
          mismatches[size_t(c)] += via_front[i].policy != expected[i].policy ||
                                   via_front[i].value() != expected[i].value();
      }
      front.client_done();
    });
  }
  for (auto& t : threads) t.join();
  return mismatches;
}

TEST(BatchingFront, ClientsOnManyThreadsGetTheirOwnAnswers) {
  CountingEvaluator counting;
  constexpr int kClients = 4;
  BatchingFront front(counting, 16, kClients);
  const std::vector<int> mismatches = mismatches_of_clients(
      front, kClients, 1,
      [&](int, const std::vector<Position>& batch, std::vector<EvalOutput>& answers) {
        front.evaluate(batch, answers);
      });
  for (int m : mismatches) EXPECT_EQ(m, 0);
  EXPECT_GT(front.batches(), 0u);
  EXPECT_LT(front.batches(), uint64_t(kClients * 30));  // requests shared batches
  EXPECT_LE(counting.largest, 16u);
}

// Inputs the clients prepared reach the evaluator beside their positions, also in batches
// shared with requests that came without (the collector prepares those), and the
// answers are those the evaluator gives directly.
TEST(BatchingFront, PreparedInputsReachTheEvaluatorBesideRequestsWithout) {
  test::PreparingRollouts preparing;
  constexpr int kClients = 4;
  BatchingFront front(preparing, 16, kClients);
  EXPECT_EQ(front.prepared_floats(Position::start(GameSpec::togyz())), 2u);
  const std::vector<int> mismatches = mismatches_of_clients(
      front, kClients, 11,
      [&](int c, const std::vector<Position>& batch, std::vector<EvalOutput>& answers) {
        if (c % 2 == 0) {  // half the clients prepare their inputs
          std::vector<float> inputs(2 * batch.size());
          for (size_t i = 0; i < batch.size(); ++i) front.prepare(batch[i], &inputs[2 * i]);
          front.evaluate_prepared(batch, inputs.data(), answers);
        } else {
          front.evaluate(batch, answers);
        }
      });
  for (int m : mismatches) EXPECT_EQ(m, 0);
  EXPECT_GT(preparing.prepared_calls, 0);
  EXPECT_EQ(preparing.mismatched, 0);
}

}  // namespace
}  // namespace kz
