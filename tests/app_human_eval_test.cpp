// What `kumalak human-eval` measures (tools/human_eval.h), in-process: the bins of the
// rated players' moves, the network's top-1 and log-likelihood on them, which positions
// the search measures, and the human columns of the shipped human model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "mcts/constant_evaluator.h"
#include "nn/plain_model.h"
#include "nn/search_mixture.h"
#include "tests/test_util.h"
#include "tools/human_eval.h"
#include "tools/human_level.h"

namespace kz {
namespace {

// Two games: 1500 (White) against 1300 and 1700 against a side without a rating.
HumanData test_data() {
  const std::string text =
      "[Event \"Test\"]\n[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n"
      "[TimeControl \"300\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1300\"]\n\n1. 76 98 2. 11 1-0\n\n"
      "[Event \"Test\"]\n[Round \"2\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n"
      "[TimeControl \"300\"]\n[WhiteElo \"1700\"]\n\n1. 54 33 *\n\n";
  std::istringstream in(text);
  return read_human_data({read_pgn(in, "t.pgn")}, GameSpec::togyz(), FoldSelection::kAll, false);
}

// The constant evaluator's policy is uniform: its top move is the lowest legal pit and
// every move's log-likelihood is minus the log of the number of legal moves.
TEST(HumanEval, BinsTheRatedMovesAndScoresThePolicy) {
  const HumanData data = test_data();
  ASSERT_EQ(data.samples.size(), 4u);
  const HumanEvalResult r = measure_human_eval(GameSpec::togyz(), data,
                                               std::make_shared<ConstantEvaluator>(), nullptr, {});
  ASSERT_EQ(r.bins.size(), 3u);
  const HumanEvalBin& b1500 = r.bins.at(1500);
  EXPECT_EQ(b1500.positions, 2);    // 76 and 11
  EXPECT_EQ(b1500.policy_top1, 1);  // 11: pit 1, the lowest
  EXPECT_NEAR(b1500.policy_loglik, 2 * std::log(1 / 9.0), 1e-6);
  EXPECT_EQ(r.bins.at(1300).positions, 1);
  EXPECT_EQ(r.bins.at(1300).policy_top1, 0);
  EXPECT_EQ(r.bins.at(1700).positions, 1);
  for (const auto& [from, b] : r.bins) {
    EXPECT_EQ(b.search_positions, 0) << from;  // no search asked for
    EXPECT_EQ(b.human_top1, 0) << from;        // no human head
  }
  EXPECT_EQ(r.estimates.sides, 0);
}

TEST(HumanEval, SearchesEveryKthPosition) {
  HumanEvalSettings settings;
  settings.search_visits = 8;
  settings.every = 2;  // the 1st and 3rd samples: both of 1500's moves
  const HumanEvalResult r = measure_human_eval(
      GameSpec::togyz(), test_data(), std::make_shared<ConstantEvaluator>(), nullptr, settings);
  EXPECT_EQ(r.bins.at(1500).search_positions, 2);
  EXPECT_EQ(r.bins.at(1300).search_positions, 0);
  EXPECT_EQ(r.bins.at(1700).search_positions, 0);
  EXPECT_LE(r.bins.at(1500).search_top1, 2);
}

TEST(HumanEval, TheHumanColumnsOfTheShippedModel) {
  const std::string path = test::source_dir() + "/models/togyz-human.pt";
  if (!std::ifstream(path).good()) GTEST_SKIP() << "no " << path;
  const HumanHead human(load_plain_model(path, nullptr));
  setenv("KZ_MODELS_DIR", (test::source_dir() + "/models").c_str(), 1);  // the mixture's engine
  const HumanData data = test_data();
  const HumanEvalResult r = measure_human_eval(GameSpec::togyz(), data,
                                               std::make_shared<ConstantEvaluator>(), &human, {});
  for (const auto& [from, b] : r.bins) {
    EXPECT_LE(b.human_top1, b.positions) << from;
    EXPECT_LE(b.blind_top1, b.positions) << from;
    EXPECT_LT(b.human_loglik, 0) << from;
    EXPECT_LT(b.blind_loglik, 0) << from;
  }
  // 1300's one move, 98, at 1300: the head's probability, mixed with the search's move
  // at the fitted lambda where the model has a search mixture.
  const HumanSample& s = data.samples[1];
  ASSERT_EQ(s.rating, 1300);
  double p = human.probabilities(std::span<const Position>(&s.position, 1), 1300)[0][8];
  if (auto search = human_level_search(GameSpec::togyz(), human, MixUse::kDescribe))
    p = mix_with_search(p, human_search_mix(human.info(), 1300),
                        search->search(s.position).best_move == 8 ? 1.0 : 0.0);
  unsetenv("KZ_MODELS_DIR");
  EXPECT_NEAR(r.bins.at(1300).human_loglik, std::log(std::max(float(p), 1e-9f)), 1e-5);
  EXPECT_EQ(r.estimates.sides, 0);  // no side made kMinEstimateMoves moves
  EXPECT_EQ(r.estimates.posterior, !human.info().rating_prior.empty());
}

}  // namespace
}  // namespace kz
