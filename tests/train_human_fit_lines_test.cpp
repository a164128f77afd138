// The lines human-train writes about what it fitted (train/human_fit_lines.h), from
// figures made up to give round numbers.
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "train/human_fit_lines.h"
#include "train/human_head_setup.h"

namespace kz {
namespace {

TEST(HumanFitLines, TheValidationFitAndTheValueTerm) {
  EXPECT_EQ(validation_fit_line("epoch 2", {1000, 0.25, -1.5}),
            "epoch 2: validation top-1 25.00 %, log-likelihood -1.5000 (1000 positions)");
  ValueHeadComparison heads;
  heads.own = {400, 300, 0.2, 0.75};
  const std::string own =
      "value head vs the validation games' results: this model's Brier 0.2000, winner's side "
      "75.00 % (400 positions)";
  EXPECT_EQ(value_heads_line(heads), own) << "no shipped model: nothing beside it";
  heads.reference_path = "models/togyz.pt";
  heads.reference_error = "cannot read it";
  EXPECT_EQ(value_heads_line(heads), own + "; cannot read it");
  heads.reference = ValueAccuracy{400, 300, 0.25, 0.5};
  EXPECT_EQ(value_heads_line(heads),
            own + "; models/togyz.pt's Brier 0.2500, winner's side 50.00 %");
  ValueWeightsFit fit;
  fit.positions = 5000;
  fit.iterations = 7;
  fit.loglik_before = -1.25;
  fit.loglik_after = -1.125;
  EXPECT_EQ(value_fit_line(fit),
            "value weights fitted on 5000 train positions in 7 Newton steps: train "
            "log-likelihood -1.2500 -> -1.1250");
  const HumanHeadInfo none = test::human_range(800, 2200, 1500);
  EXPECT_EQ(value_beta_line(none),
            "value term beta(R): 800: 0.000 1000: 0.000 1200: 0.000 1400: 0.000 1600: 0.000 "
            "1800: 0.000 2000: 0.000 2200: 0.000; titled: 0.000");
}

TEST(HumanFitLines, ASearchMixtureAndItsBins) {
  SearchMixReport report;
  report.info = test::human_range(800, 2200, 1500);  // no weights: lambda 0 everywhere
  report.fit.positions = 300;
  report.fit.sweeps = 4;
  report.fit.loglik_before = -2;
  report.fit.loglik_after = -1.5;
  report.bins[1400] = {10, 2, 5, -20, -15};
  report.bins[-1] = {4, 1, 1, -8, -8};
  report.bins[-2] = {14, 3, 6, -28, -23};
  const SearchMixLines lines = search_mix_lines(report, true, 64);
  EXPECT_EQ(lines.fit,
            "search mixture (visit shares, 64 visits) fitted on 300 train positions in 4 sweeps: "
            "train log-likelihood -2.0000 -> -1.5000; lambda(R): 800: 0.0000 1000: 0.0000 1200: "
            "0.0000 1400: 0.0000 1600: 0.0000 1800: 0.0000 2000: 0.0000 2200: 0.0000; titled: "
            "0.0000");
  EXPECT_EQ(lines.header,
            "validation, visit shares: bin | positions | lambda | top-1 before / after | loglik "
            "before / after");
  ASSERT_EQ(lines.bins.size(), 3u);
  EXPECT_EQ(lines.bins[0], "  all | 14 | 0.0000 | 21.43 / 42.86 % | -2.0000 / -1.6429");
  EXPECT_EQ(lines.bins[1], "  titled | 4 | 0.0000 | 25.00 / 25.00 % | -2.0000 / -2.0000");
  EXPECT_EQ(lines.bins[2], "  1400-1499 | 10 | 0.0000 | 20.00 / 50.00 % | -2.0000 / -1.5000");
  EXPECT_EQ(search_mix_lines(report, false, 64).fit.substr(0, 28), "search mixture (best move, 6");
}

TEST(HumanFitLines, WhatTheTrainingReadsAndDrops) {
  HumanData train, validation;
  train.samples.resize(30);
  train.games = 3;
  validation.samples.resize(12);
  validation.games = 1;
  HumanHeadSetup head;
  head.info = test::human_range(1000, 1800, 1425);
  head.titled_positions = 7;
  EXPECT_EQ(human_data_line(train, validation, head),
            "30 train positions (3 games, 7 of titled players), 12 validation positions (1 "
            "games); ratings 1000..1800, mean 1425");
  EXPECT_EQ(pair_prior_line(5), "rating pair prior: 5 train games with both sides rated");
  EXPECT_EQ(pair_prior_line(0),
            "rating pair prior: 0 train games with both sides rated (none: no pair prior "
            "written)");
  EXPECT_TRUE(stale_terms_lines({}, true).empty());
  const std::vector<std::string> both = stale_terms_lines({true, true}, false);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0],
            "the --init model's search mixture is dropped (fitted to its head before this "
            "training)");
  EXPECT_EQ(both[1],
            "the --init model's value weights are dropped (they were fitted to its head before "
            "this training)");
  EXPECT_EQ(stale_terms_lines({false, true}, true),
            std::vector<std::string>{"the --init model's value weights are dropped (they were "
                                     "fitted to its head before this training; fitted again "
                                     "after it)"});
}

TEST(HumanFitLines, TheValueTermFittedAgainSaysEachStep) {
  const GameSpec spec = GameSpec::togyz();
  const Position start = Position::start(spec);
  HumanData d;  // two games of two rated sides, a sample each
  d.games = 2;
  d.sides = {{1234, false, 1, 1, 0, 0},
             {1456, false, 1, 0, 0, 1},
             {1610, false, 1, 0.5, 1, 0},
             {1350, false, 1, 0.5, 1, 1}};
  d.samples = {{start, 0, 1234, false, 0},
               {start, 1, 1456, false, 1},
               {start, 2, 1610, false, 2},
               {start, 3, 1350, false, 3}};
  Model model = make_random_model(spec, test::tiny_net_config(), 1);
  set_up_human_head(model, d, *human_head_range(d.samples), false, false);
  model.meta.human.search_mix_weights.assign(size_t(kHumanRatingInputs), 0.f);
  std::vector<std::string> said;
  refit_value_term(model, d, d, spec, [&](const std::string& line) { said.push_back(line); });
  ASSERT_EQ(said.size(), 4u);
  EXPECT_EQ(said[0],
            "the --init model's search mixture is dropped (fitted on top of the value term "
            "fitted again now)");
  EXPECT_EQ(said[1].rfind("value head vs the validation games' results: ", 0), 0u) << said[1];
  EXPECT_EQ(said[2].rfind("value weights fitted on 4 train positions", 0), 0u) << said[2];
  EXPECT_EQ(said[3], value_beta_line(model.meta.human));
  EXPECT_TRUE(model.meta.human.search_mix_weights.empty());
  EXPECT_FALSE(model.meta.human.value_weights.empty());
  said.clear();
  refit_value_term(model, d, d, spec, [&](const std::string& line) { said.push_back(line); });
  EXPECT_EQ(said.size(), 3u) << "no mixture left to drop";
}

}  // namespace
}  // namespace kz
