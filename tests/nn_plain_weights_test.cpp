// Model weights as safetensors and the network without LibTorch: the format's reader
// against malformed headers, the network's tensor list against the LibTorch module's
// own, files written by the trainer read by the plain loader (and old LibTorch-archive
// files by both), and the plain fold and forwards against LibTorch's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/little_endian.h"
#include "nn/features.h"
#include "nn/human_head.h"
#include "nn/human_policy.h"
#include "nn/model_evaluator.h"
#include "nn/network_evaluator.h"
#include "nn/network_layout.h"
#include "nn/plain_model.h"
#include "nn/portable_network.h"
#include "nn/safetensors.h"
#include "nn_test_util.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// Configurations with every optional head.
std::vector<NetConfig> configs() {
  NetConfig tiny = test::tiny_net_config();
  NetConfig heads = tiny;
  heads.opponent_policy_head = true;
  heads.score_distribution_head = true;
  heads.score_max_margin = GameSpec::togyz().total_seeds();
  heads.human_policy_head = true;
  heads.human_rating_temperature = true;
  return {tiny, heads};
}

TEST(NetworkLayout, SpecsAreTheModulesOwnTensorsInTheirOrder) {
  for (const NetConfig& c : configs()) {
    Network net(c);
    const NamedTensors tensors = module_tensors(net);
    const std::vector<TensorSpec> specs = network_tensor_specs(c);
    ASSERT_EQ(tensors.size(), specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      EXPECT_EQ(tensors[i].first, specs[i].name);
      EXPECT_EQ(tensors[i].second.shape, specs[i].shape) << specs[i].name;
      EXPECT_EQ(tensors[i].second.dtype, specs[i].dtype) << specs[i].name;
    }
    EXPECT_EQ(plain_weights_checksum(tensors), weights_checksum(net));
  }
}

TEST(PlainModel, TheTrainersFilesReadWithoutLibTorchAsTheSameTensors) {
  const std::string dir = test::temp_dir("kz-plain");
  for (const NetConfig& c : configs()) {
    Model model = make_random_model(GameSpec::togyz(), c, 5);
    if (c.human_policy_head) model.meta.human = test::human_range(800, 2200, 1400);
    const std::string path = dir + "/m.pt";
    save_model(path, model);
    std::string bytes;
    EXPECT_EQ(read_checked_model(path, bytes).weights_format, WeightsFormat::kSafetensors);
    const PlainModel plain = load_plain_model(path);
    const NamedTensors want = module_tensors(model.net);
    ASSERT_EQ(plain.tensors.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(plain.tensors[i].first, want[i].first);
      EXPECT_EQ(plain.tensors[i].second.f32, want[i].second.f32);
      EXPECT_EQ(plain.tensors[i].second.i64, want[i].second.i64);
    }
    // And back into the trainer's modules.
    Model again = load_model(path);
    EXPECT_EQ(weights_checksum(again.net), weights_checksum(model.net));
  }
}

// `model` written as files were before the plain format: its weights a LibTorch archive,
// no weights_format in the metadata.
void save_as_libtorch_archive(const std::string& path, Model model, const std::string& plain) {
  const std::string bytes = test::read_bytes(plain);
  const uint32_t meta_len = get_le<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 12);
  nlohmann::ordered_json meta =
      nlohmann::ordered_json::parse(bytes.substr(kModelHeaderBytes, meta_len));
  meta.erase("weights_format");
  const std::string metadata = meta.dump();
  torch::serialize::OutputArchive archive;
  model.net->save(archive);
  std::ostringstream payload_stream;
  archive.save_to(payload_stream);
  const std::string payload = payload_stream.str();
  std::string out = bytes.substr(0, kModelHeaderBytes);
  auto* h = reinterpret_cast<uint8_t*>(out.data());
  put_le(h + 12, uint32_t(metadata.size()));
  put_le(h + 16, uint64_t(payload.size()));
  put_le(h + 24, crc32(payload.data(), payload.size(), crc32(metadata.data(), metadata.size())));
  write_file_atomically(path, [&](std::ostream& o) { o << out << metadata << payload; });
}

TEST(PlainModel, LibTorchArchiveFilesLoadWithTheReaderAndAreRefusedWithout) {
  const std::string dir = test::temp_dir("kz-plain");
  Model model = make_random_model(GameSpec::togyz(), test::tiny_net_config(), 9);
  const std::string plain = dir + "/plain.pt", old = dir + "/old.pt";
  save_model(plain, model);
  save_as_libtorch_archive(old, model, plain);
  std::string bytes;
  EXPECT_EQ(read_checked_model(old, bytes).weights_format, WeightsFormat::kLibTorchArchive);
  // The trainer reads it as ever.
  Model old_model = load_model(old);
  EXPECT_EQ(weights_checksum(old_model.net), weights_checksum(model.net));
  // Without LibTorch's reader: refused, saying how to convert.
  set_libtorch_archive_reader(nullptr);
  const std::string why = test::error_message<ModelError>([&] { load_plain_model(old); });
  EXPECT_NE(why.find("LibTorch archive"), std::string::npos) << why;
  EXPECT_NE(why.find("model-info --convert"), std::string::npos) << why;
  // With it: the same tensors, and converted it is a safetensors file of the same weights.
  install_libtorch_model_support();
  const PlainModel read = load_plain_model(old);
  EXPECT_EQ(read.weights_format, WeightsFormat::kLibTorchArchive);
  EXPECT_EQ(plain_weights_checksum(read.tensors), weights_checksum(model.net));
  save_plain_model(old, read.meta, read.tensors);
  EXPECT_EQ(read_checked_model(old, bytes).weights_format, WeightsFormat::kSafetensors);
  EXPECT_EQ(plain_weights_checksum(load_plain_model(old).tensors), weights_checksum(model.net));
}

TEST(PlainModel, DamagedWeightsAreRefusedNamingTheTensor) {
  const std::string dir = test::temp_dir("kz-plain");
  Model model = make_random_model(GameSpec::togyz(), test::tiny_net_config(), 3);
  const std::string path = dir + "/m.pt";
  save_model(path, model);
  const std::string bytes = test::read_bytes(path);
  // The safetensors header lies about one tensor's shape (the container's CRC is made
  // right again, so that only the weights' own checks can see it).
  const uint32_t meta_len = get_le<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 12);
  std::string damaged = bytes;
  const size_t at = damaged.find("\"shape\":[16,28,3]", kModelHeaderBytes + meta_len);
  ASSERT_NE(at, std::string::npos);
  damaged.replace(at, 17, "\"shape\":[16,3,28]");
  const char* meta = damaged.data() + kModelHeaderBytes;
  const uint64_t payload_len = damaged.size() - kModelHeaderBytes - meta_len;
  put_le(reinterpret_cast<uint8_t*>(damaged.data()) + 24,
         crc32(meta + meta_len, payload_len, crc32(meta, meta_len)));
  const std::string bad = dir + "/bad.pt";
  write_file_atomically(bad, [&](std::ostream& o) { o << damaged; });
  const std::string why = test::error_message<ModelError>([&] { load_plain_model(bad); });
  EXPECT_NE(why.find("tensor 'input_conv.weight' has shape [16, 3, 28]"), std::string::npos) << why;
  EXPECT_NE(test::load_error(bad).find("input_conv.weight"), std::string::npos);
  // A value changed: the weights checksum.
  std::string flipped = bytes;
  flipped[flipped.size() - 100] ^= 0x40;
  put_le(reinterpret_cast<uint8_t*>(flipped.data()) + 24,
         crc32(flipped.data() + kModelHeaderBytes + meta_len, payload_len,
               crc32(flipped.data() + kModelHeaderBytes, meta_len)));
  write_file_atomically(bad, [&](std::ostream& o) { o << flipped; });
  EXPECT_NE(test::error_message<ModelError>([&] {
              load_plain_model(bad);
            }).find("weights checksum mismatch"),
            std::string::npos);
}

// The plain path's evaluations against NnEvaluator's (LibTorch's fold) in fp32: the same
// folded weights to the bit, so the same answers to the bit.
TEST(PlainModel, EvaluatesLikeTheLibTorchEvaluatorToTheBitInFp32) {
  const test::PrecisionGuard fp32(InferencePrecision::kFp32);
  for (const char* file : {"togyz.pt", "kalah.pt"}) {
    const std::string path = test::source_dir() + "/models/" + file;
    const PlainModel plain = load_plain_model(path);
    const GameSpec spec = GameSpec::parse(plain.meta.game);
    const std::vector<Position> positions = test::random_positions(spec, 200, 17);
    const std::vector<EvalOutput> want = test::evaluate(load_model(path), positions);
    auto evaluator = make_network_evaluator(plain, InferencePrecision::kFp32);
    std::vector<EvalOutput> got(positions.size());
    evaluator->evaluate(positions, got);
    for (size_t i = 0; i < positions.size(); ++i) {
      EXPECT_EQ(got[i].win, want[i].win) << file << " " << i;
      EXPECT_EQ(got[i].loss, want[i].loss) << file << " " << i;
      EXPECT_EQ(got[i].margin, want[i].margin) << file << " " << i;
      EXPECT_EQ(got[i].policy, want[i].policy) << file << " " << i;
    }
    EXPECT_EQ(evaluator->describe(),
              NnEvaluator(load_model(path), torch::kCPU,
                          InferenceOptions{InferenceBackend::kOneDnn, InferencePrecision::kFp32})
                  .describe());
  }
}

// The portable forward (builds without oneDNN, WebAssembly) against the model's own
// eval-mode forward.
TEST(PortableNetwork, MatchesTheModelsOwnForward) {
  for (const char* file : {"togyz.pt", "kalah.pt"}) {
    const std::string path = test::source_dir() + "/models/" + file;
    const PlainModel plain = load_plain_model(path);
    Model model = load_model(path);
    model.net->eval();
    const GameSpec spec = GameSpec::parse(plain.meta.game);
    const std::vector<Position> positions = test::random_positions(spec, 64, 23);
    const int m = spec.pits, L = 2 * m;
    const size_t per = size_t(kNumPlanes) * L;
    std::vector<float> features(per * positions.size());
    for (size_t i = 0; i < positions.size(); ++i)
      encode_features(positions[i], std::span<float>(features).subspan(per * i, per));
    const PortableNetwork net(fold_network_weights(plain.tensors, plain.meta.network));
    const int64_t B = int64_t(positions.size());
    std::vector<float> policy(size_t(B * m)), heads(size_t(B * net.head_outputs()));
    net.forward(features.data(), B, L, m, policy.data(), heads.data());
    torch::NoGradGuard no_grad;
    const NetOutput want = model.net->forward(
        torch::from_blob(features.data(), {B, kNumPlanes, L}, torch::kFloat32), m);
    double worst = 0;
    for (int64_t i = 0; i < B; ++i) {
      for (int k = 0; k < m; ++k)
        worst = std::max<double>(
            worst, std::abs(policy[size_t(i * m + k)] - want.policy_logits[i][k].item<float>()));
      for (int k = 0; k < 3; ++k)
        worst = std::max<double>(worst, std::abs(heads[size_t(i * net.head_outputs() + k)] -
                                                 want.wdl_logits[i][k].item<float>()));
      worst = std::max<double>(worst, std::abs(heads[size_t(i * net.head_outputs() + 3)] -
                                               want.margin[i].item<float>()));
      if (want.score_logits.defined())
        for (int64_t k = 0; k + 4 < net.head_outputs(); ++k)
          worst = std::max<double>(worst, std::abs(heads[size_t(i * net.head_outputs() + 4 + k)] -
                                                   want.score_logits[i][k].item<float>()));
    }
    EXPECT_LT(worst, 1e-3) << file;
    // The portable forward through the evaluator gives probabilities like the reference's.
    NetworkEvaluator evaluator(std::make_shared<const PortableNetwork>(
                                   fold_network_weights(plain.tensors, plain.meta.network)),
                               "portable");
    std::vector<EvalOutput> got(positions.size());
    evaluator.evaluate(positions, got);
    const test::PrecisionGuard fp32(InferencePrecision::kFp32);
    const std::vector<EvalOutput> reference = test::evaluate(load_model(path), positions);
    for (size_t i = 0; i < positions.size(); ++i) {
      EXPECT_NEAR(got[i].win, reference[i].win, 1e-4);
      EXPECT_NEAR(got[i].margin, reference[i].margin, 1e-2);
      for (int k = 0; k < m; ++k) EXPECT_NEAR(got[i].policy[k], reference[i].policy[k], 1e-4);
    }
  }
}

// The human head without LibTorch against HumanPolicy's LibTorch forward, on the shipped
// human model (value term, temperature and all) and a random one.
TEST(HumanHead, GivesHumanPolicysAnswers) {
  const std::string path = test::source_dir() + "/models/togyz-human.pt";
  const HumanHead head(load_plain_model(path));
  HumanPolicy policy(load_model(path));
  const GameSpec spec = GameSpec::togyz();
  const std::vector<Position> positions = test::random_positions(spec, 40, 31);
  for (const int rating : {900, 1500, 2000}) {
    const auto got = head.probabilities(positions, rating);
    const auto want = policy.probabilities(positions, rating);
    for (size_t i = 0; i < positions.size(); ++i)
      for (int k = 0; k < spec.pits; ++k)
        EXPECT_NEAR(got[i][size_t(k)], want[i][size_t(k)], 2e-4) << rating << " " << i << " " << k;
  }
  const auto titled = head.probabilities(positions, 1500, true);
  const auto titled_want = policy.probabilities(positions, 1500, true);
  EXPECT_NEAR(titled[0][0], titled_want[0][0], 2e-4);
  std::vector<int> moves;
  for (const Position& p : positions) moves.push_back(__builtin_ctz(p.legal_mask()));
  const std::vector<int> ratings{1000, 1400, 1800};
  const auto got = head.move_logprobs(positions, moves, ratings);
  const auto want = policy.move_logprobs(positions, moves, ratings);
  for (size_t g = 0; g < ratings.size(); ++g)
    for (size_t b = 0; b < positions.size(); ++b) EXPECT_NEAR(got[g][b], want[g][b], 1e-3);
  const auto values = head.move_values(positions);
  const auto values_want = policy.move_values(positions);
  for (size_t i = 0; i < positions.size(); ++i)
    for (int k = 0; k < spec.pits; ++k)
      EXPECT_NEAR(values[i][size_t(k)], values_want[i][size_t(k)], 1e-3);
  // No head: refused.
  EXPECT_NE(test::error_message<ModelError>([&] {
              HumanHead(load_plain_model(test::source_dir() + "/models/togyz.pt"));
            }).find("no human policy head"),
            std::string::npos);
}

TEST(PlainModel, LoadModelEvaluatorRunsThePlainPath) {
  const auto evaluator =
      load_model_evaluator(GameSpec::togyz(), test::source_dir() + "/models/togyz.pt", 1);
  EXPECT_NE(dynamic_cast<const NetworkEvaluator*>(evaluator.get()), nullptr);
  EXPECT_EQ(inference_threads(), 1);
}

}  // namespace
}  // namespace kz
