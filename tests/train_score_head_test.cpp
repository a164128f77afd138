// The score distribution head (NetConfig::score_distribution_head, [train]
// score_distribution_weight; KataGo's score belief): its size by game, model files with
// it, the evaluator's margin from it, adding it to a model without it, and training it
// on the final margins.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "nn/features.h"
#include "nn/model_file.h"
#include "nn/nn_evaluator.h"
#include "tests/nn_test_util.h"
#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/config.h"
#include "train/trainer.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

NetConfig tiny(bool score) {
  NetConfig c = test::tiny_net_config();
  c.score_distribution_head = score;
  return c;
}

TEST(ScoreHead, OneLogitPerMarginOfTheGame) {
  for (const char* name : {"togyz", "kalah", "kalah:4,3"}) {
    const GameSpec spec = GameSpec::parse(name);
    Model m = make_random_model(spec, tiny(true), 3);
    EXPECT_EQ(m.meta.network.score_max_margin, spec.total_seeds()) << name;  // 162 for Togyz
    EXPECT_EQ(m.net->parameter_count(), expected_parameter_count(m.meta.network)) << name;
    m.net->eval();
    const int L = 2 * spec.pits;
    const NetOutput out = m.net->forward(torch::randn({2, kNumPlanes, L}), spec.pits);
    ASSERT_TRUE(out.score_logits.defined());
    EXPECT_EQ(out.score_logits.sizes(),
              (std::vector<int64_t>{2, 2 * int64_t(spec.total_seeds()) + 1}))
        << name;
  }
  EXPECT_EQ(make_random_model(GameSpec::togyz(), tiny(false), 3).meta.network.score_max_margin, 0);
  EXPECT_FALSE(
      Network(tiny(false))->forward(torch::randn({1, kNumPlanes, 18}), 9).score_logits.defined());
}

TEST(ScoreHead, ModelWithTheHeadRoundTripsAndOldModelsHaveNone) {
  const std::string dir = test::temp_dir("kz-score-head");
  const GameSpec spec = GameSpec::togyz();
  Model m = make_random_model(spec, tiny(true), 5);
  save_model(dir + "/s.pt", m);
  EXPECT_NE(test::read_bytes(dir + "/s.pt").find("\"score_distribution_head\":true"),
            std::string::npos);
  Model back = load_model(dir + "/s.pt", &spec);
  EXPECT_EQ(back.meta.network, m.meta.network);
  EXPECT_EQ(back.meta.network.score_max_margin, 162);
  EXPECT_EQ(weights_checksum(back.net), weights_checksum(m.net));
  save_model(dir + "/plain.pt", make_random_model(spec, tiny(false), 5));
  EXPECT_EQ(test::read_bytes(dir + "/plain.pt").find("score_distribution"), std::string::npos);
  const std::string root = test::source_dir();
  for (const std::string& file : {root + "/models/togyz.pt", root + "/models/kalah.pt"}) {
    if (!fs::exists(file)) continue;
    const Model old = load_model(file);
    EXPECT_FALSE(old.meta.network.score_distribution_head) << file;
    EXPECT_EQ(old.meta.network.score_max_margin, 0) << file;
  }
  // Metadata claiming the head without its weights is refused before or while loading.
  const std::string out =
      test::with_metadata(test::read_bytes(dir + "/plain.pt"), "\"value_hidden\":16",
                          "\"value_hidden\":16,\"score_distribution_head\":true");
  std::ofstream(dir + "/claims.pt", std::ios::binary) << out;
  const std::string e = test::load_error(dir + "/claims.pt");
  EXPECT_TRUE(e.find("bytes of weights") != std::string::npos ||
              e.find("weights do not match the network its metadata describes") !=
                  std::string::npos)
      << e;
  fs::remove_all(dir);
}

// The evaluator's margin is the distribution's expectation, in stones, not the scalar
// head's: a head that puts (nearly) all mass on +10 gives +10 wherever.
TEST(ScoreHead, TheSearchsMarginIsTheDistributionsExpectation) {
  const GameSpec spec = GameSpec::togyz();
  Model m = make_random_model(spec, tiny(true), 7);
  {
    torch::NoGradGuard no_grad;
    m.net->score_out->weight.zero_();
    m.net->score_out->bias.fill_(-30.f);
    m.net->score_out->bias[162 + 10] = 30.f;
  }
  const std::vector<Position> positions = test::random_positions(spec, 6, 2);
  const std::vector<EvalOutput> out = test::evaluate(m, positions);
  for (const EvalOutput& e : out) EXPECT_NEAR(e.margin, 10.f, 1e-3);
  {
    torch::NoGradGuard no_grad;  // half on -4, half on +12: 4
    m.net->score_out->bias.fill_(-30.f);
    m.net->score_out->bias[162 - 4] = 30.f;
    m.net->score_out->bias[162 + 12] = 30.f;
  }
  for (const EvalOutput& e : test::evaluate(m, positions)) EXPECT_NEAR(e.margin, 4.f, 1e-3);
  // Without the head: the scalar head, as before; everything else is the same network's.
  Model plain = with_score_distribution_head(m, false, 1);
  EXPECT_FALSE(plain.meta.network.score_distribution_head);
  const std::vector<EvalOutput> before = test::evaluate(plain, positions);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(before[i].policy, out[i].policy);
    EXPECT_EQ(before[i].win, out[i].win);
    EXPECT_NE(before[i].margin, out[i].margin);
  }
  // Adding a head again keeps the tower: policy and W/D/L unchanged.
  Model again = with_score_distribution_head(plain, true, 1);
  EXPECT_EQ(again.meta.network.score_max_margin, 162);
  const std::vector<EvalOutput> after = test::evaluate(again, positions);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(after[i].policy, out[i].policy);
}

// Trained from a model without the head (as `--init models/togyz.pt`) on games that all
// ended 6 stones apart (Kalah(3,3): margins -18..+18): the head starts fresh and learns
// to put its mass on -6 and +6, the classes of the rows' final margins.
TEST(ScoreHead, TrainsOnTheFinalMargins) {
  const std::string dir = test::temp_dir("kz-score-train");
  RunConfig config = load_config(test::source_dir() + "/configs/tiny.toml");
  const GameSpec spec = config.game;
  std::mt19937_64 rng(3);
  ShardWriter w(spec, 0);
  std::vector<Position> seen;
  for (int g = 0; g < 12; ++g) {
    test::RandomGame game = test::random_game(spec, rng, 0);
    for (const ShardRow& r : game.rows) seen.push_back(r.pos);
    w.add_game(std::move(game.rows), Outcome::kWhiteWins, 6, game.length);
  }
  fs::create_directories(dir + "/data");
  w.write(dir + "/data/a.kzshard");
  save_model(dir + "/start.pt", make_random_model(spec, config.network, 3));
  TrainOptions o;
  o.config = config;
  o.config.network.score_distribution_head = true;
  o.config.train.score_distribution_weight = 1.0f;
  o.config.train.validation_fraction = 0.2;
  o.config.train.validation_every = 1000;
  o.data_dir = dir + "/data";
  o.init_model = dir + "/start.pt";
  o.out_model = dir + "/s.pt";
  o.steps = 60;
  o.show_progress = false;
  const TrainReport r = run_training(o);
  EXPECT_GT(r.val_score, 0);
  EXPECT_LT(r.last_score, std::log(2.0 * spec.total_seeds() + 1) - 1) << r.last_score;
  Model trained = load_model(dir + "/s.pt");
  ASSERT_TRUE(trained.meta.network.score_distribution_head);
  const int M = trained.meta.network.score_max_margin;
  trained.net->eval();
  torch::NoGradGuard no_grad;
  const int L = 2 * spec.pits, n = 64;
  std::vector<float> features(size_t(n) * kNumPlanes * L);
  for (int i = 0; i < n; ++i)
    encode_features(seen[size_t(i)],
                    std::span<float>(features).subspan(size_t(i) * kNumPlanes * L, kNumPlanes * L));
  const torch::Tensor p = torch::softmax(
      trained.net->forward(torch::from_blob(features.data(), {n, kNumPlanes, L}), spec.pits)
          .score_logits,
      1);
  const double on_six = (p.select(1, M - 6) + p.select(1, M + 6)).mean().item<double>();
  EXPECT_GT(on_six, 0.5) << "mass on the final margins: " << on_six;
  fs::remove_all(dir);
}

TEST(ScoreHead, ConfigKeys) {
  const RunConfig plain = parse_config("", "t.toml");
  EXPECT_FALSE(plain.network.score_distribution_head);
  EXPECT_EQ(plain.train.score_distribution_weight, 0.1f);
  const RunConfig on = parse_config(
      "[network]\nscore_distribution_head = true\n[train]\nscore_distribution_weight = 0.5\n",
      "t.toml");
  EXPECT_TRUE(on.network.score_distribution_head);
  EXPECT_EQ(on.train.score_distribution_weight, 0.5f);
  try {
    parse_config("[network]\nscore_distribution_head = \"yes\"\n", "t.toml");
    FAIL() << "a string accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("t.toml:2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kz
