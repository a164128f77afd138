// The engine's network without LibTorch, in every build (the player's build has no
// LibTorch to compare with: tests/nn_plain_weights_test.cpp holds these paths to
// LibTorch's): the shipped models load, the portable forward and the CPU's fastest
// forward agree in fp32, the evaluator's answers are probabilities, the human head's
// are too, and a model file damaged anywhere is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "core/checksum.h"
#include "core/little_endian.h"
#include "nn/features.h"
#include "nn/human_head.h"
#include "nn/model_evaluator.h"
#include "nn/network_evaluator.h"
#include "nn/network_layout.h"
#include "nn/plain_model.h"
#include "nn/portable_network.h"
#include "tests/random_positions.h"
#include "tests/test_util.h"

namespace kz {
namespace {

std::vector<Position> positions_of(const GameSpec& spec, int n, uint64_t seed) {
  return test::undecided_random_positions(spec, n, seed, 40);
}

std::string model(const std::string& name) {
  return test::source_dir() + "/models/" + name;
}

TEST(PlainNetwork, ThePortableForwardAgreesWithTheFastestInFp32) {
  for (const char* file : {"togyz.pt", "kalah.pt"}) {
    const PlainModel m = load_plain_model(model(file));
    EXPECT_EQ(m.weights_format, WeightsFormat::kSafetensors);
    EXPECT_EQ(plain_weights_checksum(m.tensors), [&] {
      std::string bytes;
      return read_checked_model(model(file), bytes).weights_checksum;
    }());
    const GameSpec spec = GameSpec::parse(m.meta.game);
    const FoldedWeights folded = fold_network_weights(m.tensors, m.meta.network);
    const NetworkEvaluator portable(std::make_shared<const PortableNetwork>(folded), "portable");
    const NetworkEvaluator fastest(
        make_folded_network(folded, InferencePrecision::kFp32, ConvolutionKernels::kAuto), "fast");
    const std::vector<Position> positions = positions_of(spec, 100, 3);
    std::vector<EvalOutput> a(positions.size()), b(positions.size());
    NetworkEvaluator(portable).evaluate(positions, a);
    NetworkEvaluator(fastest).evaluate(positions, b);
    for (size_t i = 0; i < positions.size(); ++i) {
      EXPECT_NEAR(a[i].win, b[i].win, 1e-4) << file << " " << i;
      EXPECT_NEAR(a[i].loss, b[i].loss, 1e-4) << file << " " << i;
      EXPECT_NEAR(a[i].margin, b[i].margin, 1e-2) << file << " " << i;
      float sum = 0;
      for (int k = 0; k < spec.pits; ++k) {
        EXPECT_NEAR(a[i].policy[size_t(k)], b[i].policy[size_t(k)], 1e-4);
        if (!(positions[i].legal_mask() >> k & 1)) {
          EXPECT_EQ(a[i].policy[size_t(k)], 0.f);
        }
        sum += a[i].policy[size_t(k)];
      }
      EXPECT_NEAR(sum, 1.f, 1e-5);
      EXPECT_NEAR(a[i].win + a[i].draw + a[i].loss, 1.f, 1e-5);
    }
  }
}

// In fp32 and in the integer path (nn/portable_int_convolution.h): its integer sums are
// exact, then the same fp32 steps in the same order.
TEST(PlainNetwork, ThePortableForwardsBlockedConvolutionsGiveTheScalarLoopsFloats) {
  for (const char* file : {"togyz.pt", "kalah.pt", "togyz-human.pt"})
    for (const InferencePrecision precision :
         {InferencePrecision::kFp32, InferencePrecision::kInt8}) {
      const PlainModel m = load_plain_model(model(file));
      const GameSpec spec = GameSpec::parse(m.meta.game);
      const FoldedWeights folded = fold_network_weights(m.tensors, m.meta.network);
      const PortableNetwork blocked(folded, PortableKernels::kBlocked, precision);
      const PortableNetwork scalar(folded, PortableKernels::kScalar, precision);
      EXPECT_EQ(blocked.precision(), precision);
      const std::vector<Position> positions = positions_of(spec, 50, 5);
      const int64_t L = ring_length(positions[0]);
      const size_t per = size_t(kNumPlanes * L);
      std::vector<float> features(positions.size() * per);
      for (size_t i = 0; i < positions.size(); ++i)
        encode_features(positions[i], std::span<float>(features.data() + i * per, per));
      const int64_t n = int64_t(positions.size()), H = blocked.head_outputs();
      std::vector<float> p1(size_t(n * spec.pits)), p2(p1.size()), h1(size_t(n * H)), h2(h1.size());
      blocked.forward(features.data(), n, L, spec.pits, p1.data(), h1.data());
      scalar.forward(features.data(), n, L, spec.pits, p2.data(), h2.data());
      EXPECT_EQ(p1, p2) << file;
      EXPECT_EQ(h1, h2) << file;
      std::vector<float> t1(size_t(L * blocked.channels())), t2(t1.size());
      std::vector<float> cells(size_t(kNumPlanes * L));
      for (int64_t c = 0; c < kNumPlanes; ++c)
        for (int64_t l = 0; l < L; ++l)
          cells[size_t(l * kNumPlanes + c)] = features[size_t(c * L + l)];
      blocked.trunk(cells.data(), L, t1.data());
      scalar.trunk(cells.data(), L, t2.data());
      EXPECT_EQ(t1, t2) << file;
    }
}

// The input convolution adds only each cell's non-zero features (run_sparse): the same
// sums in the same order as the plain loop, so the trunk's floats are the same to the bit
// (compared as bytes, the sign of a zero included), in fp32 and int8, from the start
// (where the stores' and the tuzdyks' planes are 0 everywhere) and later positions.
TEST(PlainNetwork, TheInputConvolutionOverNonZeroFeaturesGivesThePlainLoopsBits) {
  for (const char* file : {"togyz.pt", "kalah.pt"}) {
    const PlainModel m = load_plain_model(model(file));
    const GameSpec spec = GameSpec::parse(m.meta.game);
    const FoldedWeights folded = fold_network_weights(m.tensors, m.meta.network);
    std::vector<Position> positions = positions_of(spec, 10, 9);
    positions.push_back(Position::start(spec));
    for (const InferencePrecision precision :
         {InferencePrecision::kFp32, InferencePrecision::kInt8}) {
      const PortableNetwork blocked(folded, PortableKernels::kBlocked, precision);
      const PortableNetwork scalar(folded, PortableKernels::kScalar, precision);
      for (const Position& p : positions) {
        const int64_t L = ring_length(p);
        std::vector<float> cells(size_t(kNumPlanes * L));
        encode_features_cells_major(p, std::span<float>(cells));
        std::vector<float> t1(size_t(L * blocked.channels())), t2(t1.size());
        blocked.trunk(cells.data(), L, t1.data());
        scalar.trunk(cells.data(), L, t2.data());
        EXPECT_EQ(std::memcmp(t1.data(), t2.data(), t1.size() * sizeof(float)), 0) << file;
      }
    }
  }
}

TEST(PlainNetwork, TheLevelsLoaderTakesTheShippedModelAndRefusesAnotherGames) {
  const auto evaluator = load_model_evaluator(GameSpec::togyz(), model("togyz.pt"), 1);
  EXPECT_NE(evaluator->describe().find("net 32x4"), std::string::npos) << evaluator->describe();
  try {
    load_model_evaluator(GameSpec::kalah(6, 4), model("togyz.pt"), 1);
    ADD_FAILURE() << "a Togyz model loaded for Kalah";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("was trained for game 'togyz'"), std::string::npos);
  }
}

TEST(PlainNetwork, TheHumanHeadGivesProbabilitiesThatMoveWithTheRating) {
  const HumanHead head(load_plain_model(model("togyz-human.pt")));
  EXPECT_EQ(head.game(), "togyz");
  const std::vector<Position> positions = positions_of(GameSpec::togyz(), 30, 5);
  const auto low = head.probabilities(positions, 900), high = head.probabilities(positions, 2000);
  double moved = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    EXPECT_NEAR(std::accumulate(low[i].begin(), low[i].end(), 0.0), 1.0, 1e-5);
    for (int k = 0; k < 9; ++k) moved += std::abs(low[i][size_t(k)] - high[i][size_t(k)]);
  }
  EXPECT_GT(moved, 0.1);  // the rating is an input that matters
}

// Every byte region of a model file damaged (the CRC made right again where it is not the
// CRC itself that is hit): each load refused with a message naming the file.
TEST(PlainNetwork, ADamagedModelFileIsRefusedWithItsName) {
  const std::string bytes = test::read_bytes(model("kalah.pt"));
  const std::string dir = test::temp_dir("kz-damaged");
  const uint32_t meta_len = get_le<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 12);
  const size_t payload = kModelHeaderBytes + meta_len;
  for (const size_t at :
       {size_t(3), size_t(10), size_t(14), size_t(20), size_t(25), kModelHeaderBytes + 5,
        payload + 2, payload + 9, payload + 200, bytes.size() - 5}) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x21);
    if (at >= kModelHeaderBytes)
      put_le(reinterpret_cast<uint8_t*>(damaged.data()) + 24,
             crc32(damaged.data() + payload, damaged.size() - payload,
                   crc32(damaged.data() + kModelHeaderBytes, meta_len)));
    const std::string path = dir + "/damaged-" + std::to_string(at) + ".pt";
    test::write_bytes(path, damaged);
    try {
      load_plain_model(path);
      ADD_FAILURE() << "byte " << at << " damaged and loaded";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  for (const size_t keep : {size_t(0), size_t(20), payload, payload + 100, bytes.size() - 1}) {
    const std::string path = dir + "/truncated-" + std::to_string(keep) + ".pt";
    test::write_bytes(path, bytes.substr(0, keep));
    EXPECT_THROW(load_plain_model(path), ModelError) << keep;
  }
}

}  // namespace
}  // namespace kz
