// The rating levels (tools/human_level.h) in-process, on the shipped human model, in both
// builds: the moves a level weighs and plays, the search filter, the rating estimate of a
// game, and the refusals a player reads. tests/serve_human_search_test.cpp checks the
// search mixture's arithmetic on models built with LibTorch.
#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <numeric>
#include <random>
#include <set>

#include "mcts/constant_evaluator.h"
#include "nn/plain_model.h"
#include "tests/test_util.h"
#include "tools/human_level.h"

namespace kz {
namespace {

class HumanLevel : public ::testing::Test {
 protected:
  void SetUp() override {
    // The shipped models, whatever the folder the tests run in.
    models_ = test::source_dir() + "/models";
    setenv("KZ_MODELS_DIR", models_.c_str(), 1);
    path_ = shipped_human_model_path(spec_);
    if (path_.empty()) GTEST_SKIP() << "no shipped human model in " << models_;
    policy_ = load_human_level(spec_, 1400, "");
  }
  void TearDown() override { unsetenv("KZ_MODELS_DIR"); }

  // The position after `plies` random legal moves from the start.
  Position random_position(int plies, uint64_t seed) const {
    std::mt19937_64 rng(seed);
    Position pos = Position::start(spec_);
    for (int i = 0; i < plies && !pos.is_over(); ++i) {
      std::vector<int> legal;
      for (uint32_t m = pos.legal_mask(); m; m &= m - 1) legal.push_back(__builtin_ctz(m));
      pos.play(legal[rng() % legal.size()]);
    }
    return pos;
  }

  const GameSpec spec_ = GameSpec::togyz();
  std::string models_, path_;
  std::shared_ptr<HumanHead> policy_;
};

TEST_F(HumanLevel, TheShippedModelIsFoundAndOnlyForItsGame) {
  EXPECT_EQ(path_, models_ + "/togyz-human.pt");
  EXPECT_EQ(shipped_human_model_path(GameSpec::kalah(6, 4)), "");
  EXPECT_NE(load_human_policy(spec_, ""), nullptr);
  EXPECT_THROW(load_human_policy(GameSpec::kalah(6, 4), ""), std::runtime_error);
}

TEST_F(HumanLevel, ARatingOutsideTheModelsRangeIsRefusedWithTheRange) {
  const HumanHeadInfo& info = policy_->info();
  const std::string why =
      test::error_message<ParseError>([&] { load_human_level(spec_, info.rating_max + 100, ""); });
  EXPECT_NE(why.find(std::to_string(info.rating_min) + ".." + std::to_string(info.rating_max)),
            std::string::npos)
      << why;
  EXPECT_THROW(load_human_level(spec_, 1400, models_ + "/no-such-model.pt"), ParseError);
}

TEST_F(HumanLevel, EveryLegalMoveOnceMostLikelyFirstSummingToOne) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Position pos = random_position(int(seed) * 3, seed);
    if (pos.is_over()) continue;
    for (int rating : {policy_->info().rating_min, 1400, policy_->info().rating_max}) {
      const std::vector<HumanMove> moves = human_moves(*policy_, pos, rating);
      ASSERT_EQ(int(moves.size()), std::popcount(pos.legal_mask())) << pos.to_string();
      double sum = 0;
      for (size_t i = 0; i < moves.size(); ++i) {
        EXPECT_TRUE(pos.is_legal(moves[i].move));
        if (i > 0) {
          EXPECT_GE(moves[i - 1].probability, moves[i].probability);
        }
        sum += moves[i].probability;
      }
      EXPECT_NEAR(sum, 1.0, 1e-4) << pos.to_string() << " at " << rating;
    }
  }
}

// A search over a constant evaluator stands in for the engine: whatever its move, the
// mixture at the level's lambda lifts it by lambda over the policy's (1 - lambda) p.
TEST_F(HumanLevel, TheSearchMixtureLiftsTheSearchsMove) {
  if (policy_->info().search_mix_weights.empty())
    GTEST_SKIP() << "the shipped human model has no search mixture";
  const auto search =
      human_level_search(spec_, *policy_, MixUse::kDescribe, std::make_shared<ConstantEvaluator>());
  ASSERT_NE(search, nullptr);
  const Position pos = random_position(6, 3);
  const int best = search->search(pos).best_move;
  const double lambda = human_search_mix(policy_->info(), 1400);
  const auto plain = human_moves(*policy_, pos, 1400);
  const auto mixed = human_moves(*policy_, pos, 1400, search.get(), MixUse::kDescribe);
  auto probability = [](const std::vector<HumanMove>& moves, int move) {
    for (const HumanMove& m : moves)
      if (m.move == move) return double(m.probability);
    return -1.0;
  };
  for (const HumanMove& m : plain)
    EXPECT_NEAR(probability(mixed, m.move),
                (1 - lambda) * m.probability + (m.move == best ? lambda : 0.0), 1e-6)
        << m.move;
}

TEST(HumanPlayFilter, KeepsTheSearchsMovesAndFloorsTheRest) {
  std::array<float, kMaxPits> p{};
  p[0] = 0.5f, p[1] = 0.3f, p[2] = 0.2f;
  SearchAnswer answer;
  answer.best_move = 2;
  answer.share[2] = 0.8f, answer.share[1] = 0.2f;
  auto unfiltered = p;
  human_play_filter_apply(unfiltered, answer, 0.0);
  EXPECT_EQ(unfiltered, p);  // tau 0: as it was
  auto filtered = p;
  human_play_filter_apply(filtered, answer, 0.5);  // keeps shares of 0.4 and more: move 2
  const double sum = 0.5 * kHumanFilterFloor + 0.3 * kHumanFilterFloor + 0.2;
  EXPECT_NEAR(filtered[2], 0.2 / sum, 1e-6);
  EXPECT_NEAR(filtered[0], 0.5 * kHumanFilterFloor / sum, 1e-6);
  EXPECT_NEAR(std::accumulate(filtered.begin(), filtered.end(), 0.0), 1.0, 1e-6);
  EXPECT_EQ(filtered[3], 0.0f);
}

TEST_F(HumanLevel, ASeededPlayerReplaysItsGame) {
  auto play = [&](uint64_t seed) {
    HumanLevelPlayer player(policy_, 1400, seed);
    std::vector<int> moves;
    Position pos = Position::start(spec_);
    for (int ply = 0; ply < 12 && !pos.is_over(); ++ply) {
      const int move = player.think(pos, ThinkLimits{}).best_move;
      EXPECT_TRUE(pos.is_legal(move));
      moves.push_back(move);
      pos.play(move);
    }
    return moves;
  };
  EXPECT_EQ(play(5), play(5));
  // The moves are drawn, not the policy's favourites: seeds lead to other games (the
  // policy is often sure, so some seeds play the same one).
  std::set<std::vector<int>> games;
  for (uint64_t seed = 1; seed <= 10 && games.size() < 2; ++seed) games.insert(play(seed));
  EXPECT_GT(games.size(), 1u);
  EXPECT_NE(HumanLevelPlayer(policy_, 1400, 1).name().find("1400"), std::string::npos);
}

TEST_F(HumanLevel, PlayedLikeEstimatesBothSidesInTheModelsRange) {
  std::vector<int> moves;
  Position pos = Position::start(spec_);
  HumanLevelPlayer player(policy_, 1600, 9);
  for (int ply = 0; ply < 20 && !pos.is_over(); ++ply) {
    moves.push_back(player.think(pos, ThinkLimits{}).best_move);
    pos.play(moves.back());
  }
  const auto sides = played_like_both(*policy_, Position::start(spec_), moves);
  for (int s = 0; s < 2; ++s) {
    ASSERT_TRUE(sides[size_t(s)].has_value()) << s;
    const PlayedLike& like = *sides[size_t(s)];
    EXPECT_LE(like.low, like.rating);
    EXPECT_LE(like.rating, like.high);
    EXPECT_GE(like.low, policy_->info().rating_min);
    EXPECT_LE(like.high, policy_->info().rating_max);
    ASSERT_EQ(like.moves.size(), moves.size() / 2);
    for (const auto& m : like.moves) {
      EXPECT_EQ(m.ply % 2, s == 0 ? 1 : 0);  // White moves on the odd plies
      EXPECT_EQ(m.move, moves[size_t(m.ply - 1)]);
      EXPECT_GT(m.probability, 0.f);
      EXPECT_LE(m.probability, 1.f);
    }
  }
  const auto none = played_like_both(*policy_, Position::start(spec_), {});
  EXPECT_FALSE(none[0].has_value());
  EXPECT_FALSE(none[1].has_value());
}

}  // namespace
}  // namespace kz
