// Worked examples for the match statistics. Reference numbers are derived in the comments
// (by hand from the formulas) or by an independent computation in the test itself.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "tests/test_util.h"
#include "train/elo.h"

namespace kz {
namespace {

TEST(TrainElo, ScoreToElo) {
  // 60%: -400 log10(1/0.6 - 1) = 400 log10(1.5) = 400 * 0.176091 = 70.4365.
  EXPECT_NEAR(elo_from_score(0.6), 70.4365, 1e-4);
  // 75%: odds 3:1, 400 log10(3) = 190.8485.
  EXPECT_NEAR(elo_from_score(0.75), 190.8485, 1e-4);
  EXPECT_NEAR(elo_from_score(0.25), -190.8485, 1e-4);
  EXPECT_DOUBLE_EQ(elo_from_score(0.5), 0.0);
  EXPECT_EQ(elo_from_score(1.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(elo_from_score(0.0), -std::numeric_limits<double>::infinity());
  // 400 Elo is 10:1 odds: 10/11.
  EXPECT_NEAR(score_from_elo(400), 10.0 / 11.0, 1e-12);
  for (double s : {0.01, 0.3, 0.5, 0.77, 0.999})
    EXPECT_NEAR(score_from_elo(elo_from_score(s)), s, 1e-12);
}

TEST(TrainElo, NormalQuantile) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.8413447460685429), 1.0, 1e-9);  // Phi(1)
  EXPECT_NEAR(normal_quantile(0.025), -1.959964, 1e-6);
  EXPECT_THROW(normal_quantile(0.0), std::invalid_argument);
  EXPECT_THROW(normal_quantile(1.0), std::invalid_argument);
}

TEST(TrainElo, TrinomialEstimate) {
  // 60 wins, 40 losses: s = 0.6; per-game variance 0.6*0.4 = 0.24, stderr sqrt(0.24/100) =
  // 0.04899; s +- 1.959964*0.04899 = [0.50398, 0.69602] -> [+2.767, +143.909] Elo.
  // LOS = Phi((60-40)/sqrt(100)) = Phi(2) = 0.977250.
  const EloEstimate e = estimate_elo(WDL{60, 0, 40});
  EXPECT_EQ(e.n, 100);
  EXPECT_DOUBLE_EQ(e.score, 0.6);
  EXPECT_NEAR(e.score_stderr, 0.0489898, 1e-6);
  EXPECT_NEAR(e.elo, 70.4365, 1e-4);
  EXPECT_NEAR(e.elo_lo, 2.7669, 1e-3);
  EXPECT_NEAR(e.elo_hi, 143.9092, 1e-3);
  EXPECT_NEAR(e.los, 0.977250, 1e-6);

  // Draws shrink the variance at the same score: 30/60/10 scores 0.6 with variance
  // 0.3*0.4^2 + 0.6*0.1^2 + 0.1*0.6^2 = 0.09, stderr 0.03 -> [+28.695, +114.297].
  const EloEstimate d = estimate_elo(WDL{30, 60, 10});
  EXPECT_NEAR(d.score_stderr, 0.03, 1e-12);
  EXPECT_NEAR(d.elo_lo, 28.6945, 1e-3);
  EXPECT_NEAR(d.elo_hi, 114.2970, 1e-3);
  // LOS from decisive games only: Phi(20/sqrt(40)) = Phi(3.1623) = 0.999217.
  EXPECT_NEAR(d.los, 0.999217, 1e-6);

  // A wider confidence gives a wider interval around the same point.
  const EloEstimate wide = estimate_elo(WDL{60, 0, 40}, 0.99);
  EXPECT_LT(wide.elo_lo, e.elo_lo);
  EXPECT_GT(wide.elo_hi, e.elo_hi);

  // Edge cases do not crash: no games, a clean sweep.
  const EloEstimate none = estimate_elo(WDL{});
  EXPECT_EQ(none.elo, 0.0);
  EXPECT_EQ(none.los, 0.5);
  EXPECT_TRUE(std::isinf(none.elo_hi));
  const EloEstimate sweep = estimate_elo(WDL{10, 0, 0});
  EXPECT_TRUE(std::isinf(sweep.elo));
  EXPECT_THROW(estimate_elo(WDL{-1, 0, 0}), std::invalid_argument);
}

TEST(TrainElo, PentanomialEstimate) {
  // 100 pairs scoring 0, 1/2, 1, 3/2, 2 points 5, 10, 50, 25, 10 times. Per-game score of
  // a pair: 0, .25, .5, .75, 1. Mean = (10*.25 + 50*.5 + 25*.75 + 10)/100 = 0.5625.
  // Variance = sum c_k (x_k - 0.5625)^2 / 100 = 0.05546875; stderr = sqrt(v/100) = 0.0235518.
  // Elo = 43.658; interval 0.5625 -+ 1.959964*0.0235518 -> [11.358, 76.729];
  // LOS = Phi(0.0625/0.0235518) = Phi(2.6537) = 0.996020.
  const EloEstimate e = estimate_elo(Pentanomial{{5, 10, 50, 25, 10}});
  EXPECT_EQ(e.n, 100);
  EXPECT_DOUBLE_EQ(e.score, 0.5625);
  EXPECT_NEAR(e.score_stderr, 0.0235518, 1e-6);
  EXPECT_NEAR(e.elo, 43.6578, 1e-3);
  EXPECT_NEAR(e.elo_lo, 11.3578, 1e-3);
  EXPECT_NEAR(e.elo_hi, 76.7287, 1e-3);
  EXPECT_NEAR(e.los, 0.996020, 1e-6);

  // Pairing matters: when every pair splits 1-1 (each side wins with one colour), the
  // 200 games read as independent W/D/L look very noisy, but the pairs show no spread.
  const EloEstimate split = estimate_elo(Pentanomial{{0, 0, 100, 0, 0}});
  EXPECT_EQ(split.score_stderr, 0.0);
  EXPECT_EQ(split.los, 0.5);
  const EloEstimate as_games = estimate_elo(WDL{100, 0, 100});
  EXPECT_GT(as_games.score_stderr, 0.03);
}

// Exact generalized SPRT for a discrete score distribution, computed independently of the
// library: the log-likelihood ratio of the maximum-likelihood distributions constrained to
// mean s1 and s0. For observed frequencies p_i at scores x_i the constrained maximiser is
// q_i = p_i / (1 + t (x_i - s)), with t the root of sum p_i (x_i - s) / (1 + t (x_i - s)).
double exact_gsprt_llr(const std::vector<double>& counts, const std::vector<double>& xs,
                       double elo0, double elo1) {
  double n = 0;
  for (double c : counts) n += c;
  auto root = [&](double s) {
    double dmax = -1, dmin = 1;
    for (double x : xs) {
      dmax = std::max(dmax, x - s);
      dmin = std::min(dmin, x - s);
    }
    double lo = -1 / dmax + 1e-12, hi = -1 / dmin - 1e-12;
    for (int it = 0; it < 200; ++it) {
      const double t = 0.5 * (lo + hi);
      double f = 0;
      for (size_t i = 0; i < xs.size(); ++i)
        f += counts[i] / n * (xs[i] - s) / (1 + t * (xs[i] - s));
      (f > 0 ? lo : hi) = t;
    }
    return 0.5 * (lo + hi);
  };
  const double s0 = 1 / (1 + std::pow(10, -elo0 / 400)), s1 = 1 / (1 + std::pow(10, -elo1 / 400));
  const double t0 = root(s0), t1 = root(s1);
  double llr = 0;
  for (size_t i = 0; i < xs.size(); ++i)
    llr += counts[i] * (std::log(1 + t0 * (xs[i] - s0)) - std::log(1 + t1 * (xs[i] - s1)));
  return llr;
}

TEST(TrainElo, SprtWorkedExamples) {
  const SprtParams p{.elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05};
  // Bounds: log(0.05/0.95) = -2.944439, log(0.95/0.05) = +2.944439.
  // 1200/2000/1000 (4200 games): m = 0.5238095, v = 0.0589569; s0 = 0.5,
  // s1 = 1/(1+10^(-5/400)) = 0.5071945. LLR = 4200 (s1-s0)(2m-s0-s1)/(2v) = 4.684516.
  const SprtResult r = sprt(WDL{1200, 2000, 1000}, p);
  EXPECT_NEAR(r.lower, -2.944439, 1e-6);
  EXPECT_NEAR(r.upper, 2.944439, 1e-6);
  EXPECT_NEAR(r.llr, 4.684516, 1e-5);
  EXPECT_EQ(r.decision, SprtDecision::kAcceptH1);
  // The normal approximation agrees with the exact GSPRT to within 0.5% here.
  EXPECT_NEAR(r.llr, exact_gsprt_llr({1200, 2000, 1000}, {1, 0.5, 0}, 0, 5), 0.03);

  // 60/0/40 against [0, 10]: the zero draw count is regularised to 0.001 (as in fishtest),
  // giving LLR 0.556348: continue.
  const SprtResult small = sprt(WDL{60, 0, 40}, {.elo0 = 0, .elo1 = 10});
  EXPECT_NEAR(small.llr, 0.556348, 1e-5);
  EXPECT_EQ(small.decision, SprtDecision::kContinue);

  // A clearly worse candidate is rejected: 1000/2000/1200 mirrors the first example; with
  // H0 at -5 and H1 at 0 the LLR is the negative of it.
  const SprtResult worse = sprt(WDL{1000, 2000, 1200}, {.elo0 = -5, .elo1 = 0});
  EXPECT_NEAR(worse.llr, -4.684516, 1e-4);
  EXPECT_EQ(worse.decision, SprtDecision::kAcceptH0);
  EXPECT_STREQ(sprt_decision_string(worse.decision), "H0");

  // Pentanomial: the same formula per pair. Counts {5,10,50,25,10} against [0, 10]:
  // m = 0.5625, v = 0.05546875 (no zero counts), s1 = 0.5143868:
  // LLR = 100 * 0.0143868 * (1.125 - 1.0143868) / (2 * 0.05546875) = 1.434508.
  const SprtResult pent = sprt(Pentanomial{{5, 10, 50, 25, 10}}, {.elo0 = 0, .elo1 = 10});
  EXPECT_NEAR(pent.llr, 1.434508, 1e-5);
  EXPECT_EQ(pent.decision, SprtDecision::kContinue);

  // Large samples near the hypotheses agree with the exact GSPRT for pentanomial too.
  const std::vector<double> big = {400, 2000, 5000, 2400, 500};
  const SprtResult pb = sprt(Pentanomial{{400, 2000, 5000, 2400, 500}}, p);
  EXPECT_NEAR(pb.llr, exact_gsprt_llr(big, {0, 0.25, 0.5, 0.75, 1}, 0, 5),
              0.01 * std::abs(pb.llr) + 0.02);

  EXPECT_EQ(sprt(WDL{}, p).llr, 0.0);
  EXPECT_THROW(sprt(WDL{1, 1, 1}, {.elo0 = 5, .elo1 = 0}), std::invalid_argument);
  EXPECT_THROW(sprt(WDL{1, 1, 1}, {.elo0 = 0, .elo1 = 5, .alpha = 0}), std::invalid_argument);
}

// A simulated SPRT, checked after every game, stops with H1 for a stronger candidate and
// H0 for an equal one at about the nominal rates (alpha = beta = 0.05; 40 runs each, so
// 34 is more than 3 standard deviations below the expected 38).
TEST(TrainElo, SprtSimulationReachesTheRightDecision) {
  std::mt19937_64 rng(2024);
  auto run = [&](double true_elo) {
    const double s = score_from_elo(true_elo), draw = 0.3;
    std::uniform_real_distribution<double> u(0, 1);
    WDL r;
    for (int g = 0; g < 100000; ++g) {
      const double x = u(rng);
      if (x < s - draw / 2)
        ++r.wins;
      else if (x < s + draw / 2)
        ++r.draws;
      else
        ++r.losses;
      const auto res = sprt(r, {.elo0 = 0, .elo1 = 20});
      if (res.decision != SprtDecision::kContinue) return res.decision;
    }
    return SprtDecision::kContinue;
  };
  int h1_strong = 0, h0_equal = 0;
  for (int i = 0; i < 40; ++i) {
    h1_strong += run(30) == SprtDecision::kAcceptH1;
    h0_equal += run(0) == SprtDecision::kAcceptH0;
  }
  EXPECT_GE(h1_strong, 34);
  EXPECT_GE(h0_equal, 34);
}

TEST(TrainElo, SprtWaitsForMinimumSamples) {
  // One win: the observed variance is nearly zero and the LLR enormous; no decision yet.
  const SprtResult one = sprt(WDL{1, 0, 0}, {.elo0 = 0, .elo1 = 10});
  EXPECT_GT(one.llr, one.upper);
  EXPECT_EQ(one.decision, SprtDecision::kContinue);
  const SprtResult now = sprt(WDL{1, 0, 0}, {.elo0 = 0, .elo1 = 10, .min_samples = 1});
  EXPECT_EQ(now.decision, SprtDecision::kAcceptH1);
}

// Expected counts for `n` games between true ratings, with a 20% draw rate.
PairResult expected_pair(const std::string& a, const std::string& b, double ea, double eb,
                         int64_t n) {
  const double s = score_from_elo(ea - eb);
  PairResult r{a, b};
  r.draws = int64_t(std::llround(0.2 * double(n)));
  r.wins = int64_t(std::llround((s - 0.1) * double(n)));
  r.losses = n - r.wins - r.draws;
  return r;
}

const LadderRating& find(const LadderFit& f, const std::string& name) {
  for (const auto& r : f.ratings)
    if (r.name == name) return r;
  throw std::runtime_error("no rating " + name);
}

TEST(TrainElo, LadderOfTwoMatchesTheClosedForm) {
  // Two models: the fit is the match's own Elo, elo_from_score(0.6) = 70.4365, with
  // stderr 1/(c sqrt(n p (1-p))), c = ln10/400: 1/(0.00575646 * sqrt(24)) = 35.4597.
  const LadderFit f =
      fit_ladder({{"gen1", "gen0", 60, 0, 40}}, {.anchor = "gen0", .prior_draws = 0});
  EXPECT_TRUE(f.converged);
  EXPECT_NEAR(find(f, "gen1").elo, 70.4365, 1e-4);
  EXPECT_NEAR(find(f, "gen1").stderr_elo, 35.4597, 1e-3);
  EXPECT_NEAR(find(f, "gen1").elo_lo, 70.4365 - 1.959964 * 35.4597, 1e-2);
  EXPECT_EQ(find(f, "gen0").elo, 0.0);
  EXPECT_EQ(find(f, "gen0").stderr_elo, 0.0);
  EXPECT_EQ(find(f, "gen1").games, 100);
  EXPECT_DOUBLE_EQ(find(f, "gen1").score, 0.6);
  EXPECT_DOUBLE_EQ(find(f, "gen0").score, 0.4);
}

TEST(TrainElo, LadderRecoversTrueRatingsFromLargeCounts) {
  // True Elos 0, 100, 250. Every pair plays 100000 games at its expected score.
  const std::vector<PairResult> results = {
      expected_pair("gen1", "gen0", 100, 0, 100000),
      expected_pair("gen2", "gen1", 250, 100, 100000),
      expected_pair("gen0", "gen2", 0, 250, 100000),
  };
  const LadderFit f = fit_ladder(results, {.anchor = "gen0", .prior_draws = 0});
  ASSERT_TRUE(f.converged);
  ASSERT_EQ(f.ratings.size(), 3u);
  EXPECT_EQ(f.ratings[0].name, "gen0");  // sorted by generation
  EXPECT_EQ(f.ratings[2].generation, 2);
  EXPECT_NEAR(find(f, "gen0").elo, 0.0, 1e-12);
  EXPECT_NEAR(find(f, "gen1").elo, 100.0, 0.3);
  EXPECT_NEAR(find(f, "gen2").elo, 250.0, 0.3);
  EXPECT_LT(find(f, "gen2").stderr_elo, 3.0);
  // Re-anchoring shifts everything.
  const LadderFit g = fit_ladder(results, {.anchor = "gen1", .prior_draws = 0});
  EXPECT_NEAR(find(g, "gen0").elo, find(f, "gen0").elo - find(f, "gen1").elo, 1e-6);
  EXPECT_NEAR(find(g, "gen2").elo, find(f, "gen2").elo - find(f, "gen1").elo, 1e-6);
}

TEST(TrainElo, LadderFromSampledGamesCoversTheTruth) {
  // Five models on a chain plus a few long-range pairs, 2000 sampled games per pair.
  const std::vector<double> truth = {0, 60, 140, 190, 300};
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<PairResult> results;
  const std::vector<std::string> names = {"m0", "m1", "m2", "m3", "m4"};
  auto play = [&](int a, int b) {
    const double s = score_from_elo(truth[a] - truth[b]);
    PairResult r{names[size_t(a)], names[size_t(b)]};
    for (int g = 0; g < 2000; ++g) {
      const double x = u(rng);
      if (x < s - 0.1)
        ++r.wins;
      else if (x < s + 0.1)
        ++r.draws;
      else
        ++r.losses;
    }
    results.push_back(r);
  };
  for (int i = 0; i + 1 < 5; ++i) play(i + 1, i);
  play(2, 0);
  play(4, 1);
  const LadderFit f = fit_ladder(results, {.anchor = "m0"});
  ASSERT_TRUE(f.converged);
  for (int i = 1; i < 5; ++i) {
    const auto& r = find(f, names[size_t(i)]);
    EXPECT_NEAR(r.elo, truth[i], 4 * r.stderr_elo) << r.name;
    EXPECT_GT(r.stderr_elo, 3.0);
    EXPECT_LT(r.stderr_elo, 30.0);
  }
  // Models further from the anchor are less certain.
  EXPECT_GT(find(f, "m4").stderr_elo, find(f, "m1").stderr_elo);
}

TEST(TrainElo, LadderEdgeCases) {
  // A clean sweep stays finite with the default prior.
  const LadderFit sweep = fit_ladder({{"b", "a", 20, 0, 0}}, {.anchor = "a"});
  EXPECT_TRUE(sweep.converged);
  // With one virtual draw: score (20.5)/21 -> 400 log10(41) = 645.1.
  EXPECT_NEAR(find(sweep, "b").elo, 400 * std::log10(41.0), 1e-3);
  EXPECT_THROW(fit_ladder({{"a", "b", 1, 1, 1}, {"c", "d", 1, 1, 1}}, {.anchor = "a"}),
               std::invalid_argument);
  try {
    fit_ladder({{"a", "b", 1, 1, 1}, {"c", "d", 1, 1, 1}}, {.anchor = "a"});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'c'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fit_ladder({{"a", "b", 1, 1, 1}}, {.anchor = "z"}), std::invalid_argument);
  EXPECT_THROW(fit_ladder({{"a", "a", 1, 1, 1}}, {.anchor = "a"}), std::invalid_argument);
  EXPECT_THROW(fit_ladder({{"a", "b", -1, 1, 1}}, {.anchor = "a"}), std::invalid_argument);
  // A pair with no games yet sits at the anchor, held there by the prior alone.
  EXPECT_NEAR(find(fit_ladder({{"a", "b", 0, 0, 0}}, {.anchor = "a"}), "b").elo, 0.0, 1e-9);
  EXPECT_EQ(generation_from_name("gen0012"), 12);
  EXPECT_EQ(generation_from_name("run3-gen7.pt"), 7);
  EXPECT_EQ(generation_from_name("random"), -1);
  EXPECT_EQ(generation_from_name("ab:4"), -1);  // the baseline, not generation 4
  EXPECT_EQ(generation_from_name("x99999999999999"), -1);
  EXPECT_EQ(chain_from_name("gen0012"), "gen");
  EXPECT_EQ(chain_from_name("blend-gen0069"), "blend-gen");
  EXPECT_EQ(chain_from_name("run3-gen7.pt"), "run3-gen");
  EXPECT_EQ(chain_from_name("ab:4"), "");
  EXPECT_EQ(chain_from_name("random"), "");
}

TEST(TrainElo, LadderTableAndCsvRoundTrip) {
  LadderFit f = fit_ladder({expected_pair("gen1", "gen0", 100, 0, 1000),
                            expected_pair("gen2", "gen1", 250, 100, 1000),
                            {"odd, \"name\"", "gen0", 10, 0, 10}},
                           {.anchor = "gen0"});
  const std::string text = ladder_table_text(f);
  EXPECT_NE(text.find("rank"), std::string::npos);
  // Ranked by Elo: gen2 first.
  EXPECT_LT(text.find("gen2"), text.find("gen1"));
  EXPECT_LT(text.find("gen1"), text.find("gen0"));

  const std::string dir = test::temp_dir("kz-elo");
  const std::string path = dir + "/ladder.csv";
  f.ratings[1].shipped = true;
  write_ladder_csv(path, f.ratings);
  const auto back = read_ladder_csv(path);
  ASSERT_EQ(back.size(), f.ratings.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].name, f.ratings[i].name);
    EXPECT_EQ(back[i].generation, f.ratings[i].generation);
    EXPECT_NEAR(back[i].elo, f.ratings[i].elo, 1e-3);
    EXPECT_NEAR(back[i].elo_hi, f.ratings[i].elo_hi, 1e-3);
    EXPECT_EQ(back[i].games, f.ratings[i].games);
    EXPECT_EQ(back[i].shipped, i == 1);
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);  // no temporary file left
  // Malformed tables are refused with an exception, not a crash.
  std::ofstream(path) << "name,elo\ngen1,abc\n";
  EXPECT_THROW(read_ladder_csv(path), std::runtime_error);
  std::ofstream(path) << "model,rating\n";
  EXPECT_THROW(read_ladder_csv(path), std::runtime_error);
  EXPECT_THROW(read_ladder_csv(dir + "/missing.csv"), std::runtime_error);
  // A table from before the shipped column reads as "not shipped".
  std::ofstream(path) << "name,elo\ngen1,12.5\n";
  const auto old_table = read_ladder_csv(path);
  ASSERT_EQ(old_table.size(), 1u);
  EXPECT_FALSE(old_table[0].shipped);
  EXPECT_EQ(old_table[0].generation, 1);
}

}  // namespace
}  // namespace kz
