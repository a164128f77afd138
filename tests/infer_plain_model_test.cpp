// The engine's network without LibTorch, in every build (the player's build has no
// LibTorch to compare with: tests/nn_plain_weights_test.cpp holds these paths to
// LibTorch's): the shipped models load, the portable forward and the CPU's fastest
// forward agree in fp32, the evaluator's answers are probabilities, the human head's
// are too, and a model file damaged anywhere is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
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
#include "tests/winograd_matrices.h"

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

// The input convolution's weights and the features rounded so that Winograd's every
// step is exact (the weights to multiples of 3 / 32, so that G g's sixths, twelfths and
// twenty-fourths are multiples of 1 / 256; the features to halves; the biases to 1 / 512;
// the sums far below 2^24 of their units), as the plain loop's are: the input
// convolution's blocked kernel (Winograd, tests below) then gives the plain loop's floats,
// so the rest of the forward is held to the bit.
void round_for_exact_winograd(FoldedWeights& folded) {
  for (float& w : folded.input.weight.f32) w = std::round(w * 32 / 3) * 3 / 32;
  for (float& b : folded.input.bias.f32) b = std::round(b * 512) / 512;
}
void round_features_to_halves(std::vector<float>& features) {
  for (float& f : features) f = std::round(f * 2) / 2;
}

// In fp32 and in the integer path (nn/portable_int_convolution.h): its integer sums are
// exact, then the same fp32 steps in the same order.
TEST(PlainNetwork, ThePortableForwardsBlockedConvolutionsGiveTheScalarLoopsFloats) {
  for (const char* file : {"togyz.pt", "kalah.pt", "togyz-human.pt"})
    for (const InferencePrecision precision :
         {InferencePrecision::kFp32, InferencePrecision::kInt8}) {
      const PlainModel m = load_plain_model(model(file));
      const GameSpec spec = GameSpec::parse(m.meta.game);
      FoldedWeights folded = fold_network_weights(m.tensors, m.meta.network);
      round_for_exact_winograd(folded);
      const PortableNetwork blocked(folded, PortableKernels::kBlocked, precision);
      const PortableNetwork scalar(folded, PortableKernels::kScalar, precision);
      EXPECT_EQ(blocked.precision(), precision);
      const std::vector<Position> positions = positions_of(spec, 50, 5);
      const int64_t L = ring_length(positions[0]);
      const size_t per = size_t(kNumPlanes * L);
      std::vector<float> features(positions.size() * per);
      for (size_t i = 0; i < positions.size(); ++i)
        encode_features(positions[i], std::span<float>(features.data() + i * per, per));
      round_features_to_halves(features);
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

// The input convolution in Winograd F(4,3) (kBlocked) against its exact sums, in double,
// within its rounding bound: a network without its tower, whose trunk is the input
// convolution through a ReLU (which can only bring two values closer). Each output is
// A^T [(G g) . (B^T d)]: along each path from a weight and a feature to the output at
// most in + 9 roundings (G g rounded once from double, B^T d 3, the product 1, the sum
// over the inputs in, A^T 3, the bias 1), so |computed - exact| <= gamma(in + 9) x the
// same expression over the absolute values of every matrix and number (gamma(n) =
// n u / (1 - n u), u = 2^-24): rigorous, and about 1e-5 of the terms' sizes here, where a
// wrong coefficient or a misplaced tile would be off by their size. The plain loop
// (kScalar), the reference the other tests hold the rest of the forward to, is held to
// the direct sum's bound, gamma(3 in + 1) x (|bias| + sum |x w|).
TEST(PlainNetwork, TheWinogradInputConvolutionIsWithinItsRoundingBoundOfTheExactSums) {
  using test::kAt, test::kBt, test::kG;
  const auto gamma = [](double n) {
    const double u = std::ldexp(1.0, -24);
    return n * u / (1 - n * u);
  };
  for (const char* file : {"togyz.pt", "kalah.pt"}) {
    const PlainModel m = load_plain_model(model(file));
    const GameSpec spec = GameSpec::parse(m.meta.game);
    FoldedWeights folded = fold_network_weights(m.tensors, m.meta.network);
    folded.tower.clear();
    const PortableNetwork winograd(folded, PortableKernels::kBlocked);
    const PortableNetwork plain(folded, PortableKernels::kScalar);
    const PlainTensor& w = folded.input.weight;  // [out][in][3]
    const std::vector<float>& bias = folded.input.bias.f32;
    const int64_t C = w.size(0), I = w.size(1);
    ASSERT_EQ(w.size(2), 3);
    ASSERT_EQ(C % 16, 0);  // so that kBlocked runs it in Winograd
    std::vector<Position> positions = positions_of(spec, 40, 11);
    positions.push_back(Position::start(spec));
    double worst = 0, worst_plain = 0;  // the largest error as a fraction of its bound
    for (const Position& p : positions) {
      const int64_t L = ring_length(p);
      std::vector<float> cells(size_t(kNumPlanes * L));
      encode_features_cells_major(p, std::span<float>(cells));
      // Features outside [0, 1] too (the counts' planes reach several), and of both signs.
      for (size_t i = 0; i < cells.size(); i += 7) cells[i] = cells[i] * 3.5f - 0.75f;
      const auto x = [&](int64_t l, int64_t i) {
        return l >= 0 && l < L ? double(cells[size_t(l * I + i)]) : 0.0;
      };
      std::vector<float> t1(size_t(L * C)), t2(t1.size());
      winograd.trunk(cells.data(), L, t1.data());
      plain.trunk(cells.data(), L, t2.data());
      for (int64_t l = 0; l < L; ++l)
        for (int64_t o = 0; o < C; ++o) {
          double exact = bias[size_t(o)], direct = std::abs(exact), tiled = std::abs(exact);
          const int64_t t = l / 4, r = l % 4;
          for (int64_t i = 0; i < I; ++i) {
            const auto g = [&](int64_t k) { return double(w.f32[size_t((o * I + i) * 3 + k)]); };
            for (int64_t k = 0; k < 3; ++k) {
              exact += x(l + k - 1, i) * g(k);
              direct += std::abs(x(l + k - 1, i) * g(k));
            }
            for (int64_t e = 0; e < 6; ++e) {
              double u = 0, v = 0;
              for (int64_t k = 0; k < 3; ++k) u += std::abs(kG[e][k] * g(k));
              for (int64_t j = 0; j < 6; ++j) v += std::abs(kBt[e][j] * x(4 * t - 1 + j, i));
              tiled += std::abs(kAt[r][e]) * u * v;
            }
          }
          const double want = std::max(exact, 0.0);
          const double bound = gamma(double(I + 9)) * tiled + 1e-30;
          const double bound_plain = gamma(double(3 * I + 1)) * direct + 1e-30;
          const double got = t1[size_t(l * C + o)], got_plain = t2[size_t(l * C + o)];
          EXPECT_LE(std::abs(got - want), bound) << file << " cell " << l << " output " << o;
          EXPECT_LE(std::abs(got_plain - want), bound_plain) << file << " cell " << l;
          worst = std::max(worst, std::abs(got - want) / bound);
          worst_plain = std::max(worst_plain, std::abs(got_plain - want) / bound_plain);
        }
    }
    std::cout << file << ": the largest error " << worst << " of the Winograd bound, "
              << worst_plain << " of the plain loop's\n";
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
