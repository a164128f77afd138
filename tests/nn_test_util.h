// Helpers for the network tests: positions to evaluate, one batched evaluation, the
// tiny network they build, and model files edited to lie or refused with a message.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/checksum.h"
#include "core/position.h"
#include "nn/human_rating.h"
#include "nn/inference_network.h"
#include "nn/model_file.h"
#include "nn/nn_evaluator.h"
#include "tests/random_positions.h"

namespace kz::test {

// A float tensor as the kernels without LibTorch take it.
inline PlainTensor plain_tensor(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  return PlainTensor(c.sizes().vec(),
                     std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel()));
}

// A human head's rating range alone (no prior, value term or search mixture).
inline HumanHeadInfo human_range(int rating_min, int rating_max, int rating_mean) {
  HumanHeadInfo info;
  info.rating_min = rating_min;
  info.rating_max = rating_max;
  info.rating_mean = rating_mean;
  return info;
}

// `n` undecided positions, each after up to 29 random plies from the start (seeded).
inline std::vector<Position> random_positions(const GameSpec& spec, int n, uint64_t seed) {
  return undecided_random_positions(spec, n, seed, 30);
}

// Sets the process's default inference precision (nn/inference_network.h) for one
// test's scope and puts the one before back however the test ends. The default is auto
// (bf16 on CPUs that have it): tests that hold the forward to the fp32 reference with
// fp32 tolerances, or compare runs through two backends, pin kFp32 with it.
class PrecisionGuard {
 public:
  explicit PrecisionGuard(InferencePrecision precision) {
    set_default_inference_precision(precision);
  }
  ~PrecisionGuard() { set_default_inference_precision(saved_); }
  PrecisionGuard(const PrecisionGuard&) = delete;
  PrecisionGuard& operator=(const PrecisionGuard&) = delete;

 private:
  InferencePrecision saved_ = default_inference_precision();
};

// The evaluator's outputs for `positions`, in one batch, on the default backend in fp32:
// the tests that call it compare against the model's own forward or against another
// network's outputs with fp32 tolerances.
inline std::vector<EvalOutput> evaluate(Model model, const std::vector<Position>& positions) {
  NnEvaluator eval(std::move(model), torch::kCPU,
                   InferenceOptions{default_inference_backend(), InferencePrecision::kFp32});
  std::vector<EvalOutput> out(positions.size());
  eval.evaluate(positions, out);
  return out;
}

// The network the model tests build: 16 channels, 2 blocks, small heads (the
// NetConfig fields in order), fast enough to build many times in a test.
inline NetConfig tiny_net_config() {
  return NetConfig{16, 2, 8, 8, 16};
}

// The message with which load_model refuses `path` (checking the game when `game` is
// given), or "" when it loads.
inline std::string load_error(const std::string& path, const GameSpec* game = nullptr) {
  try {
    load_model(path, game);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

// A model file's bytes with the first `from` in its metadata replaced by `to` and the
// CRC recomputed: valid as a container, lying about the network. A test failure (and
// the bytes unchanged) when the metadata holds no `from`.
inline std::string with_metadata(const std::string& bytes, const std::string& from,
                                 const std::string& to) {
  uint32_t meta_len = 0;
  std::memcpy(&meta_len, bytes.data() + 12, 4);
  std::string meta = bytes.substr(kModelHeaderBytes, meta_len);
  const size_t at = meta.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in " << meta;
  if (at == std::string::npos) return bytes;
  meta.replace(at, from.size(), to);
  const std::string payload = bytes.substr(kModelHeaderBytes + meta_len);
  std::string out = bytes.substr(0, kModelHeaderBytes) + meta + payload;
  const uint32_t new_len = uint32_t(meta.size());
  std::memcpy(out.data() + 12, &new_len, 4);
  const uint32_t crc = crc32(payload.data(), payload.size(), crc32(meta.data(), meta.size()));
  std::memcpy(out.data() + 24, &crc, 4);
  return out;
}

}  // namespace kz::test
