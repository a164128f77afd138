#include "nn/human_policy.h"

#include "nn/features.h"

namespace kz {

torch::Tensor human_rating_tensor(const HumanHeadInfo& info, std::span<const int> ratings,
                                  std::span<const char> titled) {
  auto t = torch::empty({int64_t(ratings.size()), kHumanRatingInputs}, torch::kFloat32);
  float* p = t.data_ptr<float>();
  for (size_t i = 0; i < ratings.size(); ++i) {
    const auto in = human_rating_inputs(info, ratings[i], !titled.empty() && titled[i]);
    std::copy(in.begin(), in.end(), p + i * kHumanRatingInputs);
  }
  return t;
}

HumanPolicy::HumanPolicy(Model model) : model_(std::move(model)) {
  if (!model_.meta.network.human_policy_head)
    throw ModelError("this model has no human policy head (train one with kumalak human-train)");
  model_.net->eval();
}

torch::Tensor HumanPolicy::features(std::span<const Position> positions) const {
  const int64_t B = int64_t(positions.size());
  const int64_t L = B ? ring_length(positions[0]) : 0;
  auto t = torch::empty({B, kNumPlanes, L}, torch::kFloat32);
  const size_t per = size_t(kNumPlanes * L);
  float* p = t.data_ptr<float>();
  for (size_t i = 0; i < positions.size(); ++i)
    encode_features(positions[i], std::span<float>(p + per * i, per));
  return t;
}

torch::Tensor HumanPolicy::legal_mask(std::span<const Position> positions) const {
  const int64_t m = positions.empty() ? 0 : positions[0].npits;
  auto t = torch::zeros({int64_t(positions.size()), m}, torch::kBool);
  bool* p = t.data_ptr<bool>();
  for (size_t i = 0; i < positions.size(); ++i)
    for (uint32_t mm = positions[i].legal_mask(); mm; mm &= mm - 1)
      p[i * size_t(m) + size_t(__builtin_ctz(mm))] = true;
  return t;
}

std::vector<std::array<float, kMaxPits>> HumanPolicy::probabilities(
    std::span<const Position> positions, int rating, bool titled) {
  const std::vector<int> ratings(positions.size(), rating);
  const std::vector<char> titles(positions.size(), char(titled));
  return probabilities(positions, ratings, titles);
}

std::vector<std::array<float, kMaxPits>> HumanPolicy::probabilities(
    std::span<const Position> positions, std::span<const int> ratings,
    std::span<const char> titled) {
  std::vector<std::array<float, kMaxPits>> out(positions.size());
  if (positions.empty()) return out;
  c10::InferenceMode guard;
  const int m = positions[0].npits;
  const auto r = human_rating_tensor(info(), ratings, titled);
  auto logits = model_.net->human_policy(model_.net->trunk(features(positions)), r, m);
  if (!info().value_weights.empty()) {
    const auto w = torch::tensor(info().value_weights, torch::kFloat32);
    logits = logits + r.matmul(w).unsqueeze(1) * move_value_tensor(positions);
  }
  logits = logits.masked_fill(legal_mask(positions).logical_not(), -1e30);
  const auto probs = torch::softmax(logits, 1).contiguous();
  const float* p = probs.data_ptr<float>();
  for (size_t i = 0; i < positions.size(); ++i)
    for (int k = 0; k < m; ++k)
      out[i][size_t(k)] = positions[i].legal_mask() >> k & 1 ? p[i * size_t(m) + size_t(k)] : 0.f;
  return out;
}

std::vector<std::vector<double>> HumanPolicy::move_logprobs(std::span<const Position> positions,
                                                            std::span<const int> moves,
                                                            const std::vector<int>& ratings) {
  std::vector<std::vector<double>> out(ratings.size(), std::vector<double>(positions.size()));
  if (positions.empty() || ratings.empty()) return out;
  c10::InferenceMode guard;
  const int m = positions[0].npits;
  const auto r = human_rating_tensor(info(), ratings);
  auto logits = model_.net->human_policy_grid(model_.net->trunk(features(positions)), r, m);
  if (!info().value_weights.empty()) {
    const auto w = torch::tensor(info().value_weights, torch::kFloat32);
    logits = logits + r.matmul(w).view({-1, 1, 1}) * move_value_tensor(positions).unsqueeze(0);
  }
  logits = logits.masked_fill(legal_mask(positions).logical_not().unsqueeze(0), -1e30);
  const auto logp = torch::log_softmax(logits, 2).contiguous();  // [G, B, m]
  const float* p = logp.data_ptr<float>();
  const size_t B = positions.size();
  for (size_t g = 0; g < ratings.size(); ++g)
    for (size_t b = 0; b < B; ++b) out[g][b] = p[(g * B + b) * size_t(m) + size_t(moves[b])];
  return out;
}

torch::Tensor HumanPolicy::move_value_tensor(std::span<const Position> positions) {
  const int64_t B = int64_t(positions.size());
  const int m = B ? positions[0].npits : 0;
  auto q = torch::zeros({B, int64_t(m)}, torch::kFloat32);
  if (B == 0) return q;
  float* qp = q.data_ptr<float>();
  // Every child the network must judge; a finished or decided one is scored exactly.
  std::vector<Position> children;
  std::vector<std::pair<size_t, int>> where;  // (row, pit) of each child asked
  std::vector<char> flip;                     // the child's mover is the opponent
  children.reserve(size_t(B) * size_t(m));
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& pos = positions[i];
    for (uint32_t mm = pos.legal_mask(); mm; mm &= mm - 1) {
      const int k = __builtin_ctz(mm);
      Position child = pos;
      child.play(k);
      const bool opponent = child.to_move != pos.to_move;
      if (child.is_over() || child.is_decided()) {
        qp[i * size_t(m) + size_t(k)] = float(outcome_score(child.outcome(), pos.to_move));
        continue;
      }
      children.push_back(child);
      where.emplace_back(i, k);
      flip.push_back(opponent);
    }
  }
  if (children.empty()) return q;
  const auto out = model_.net->forward(features(children), m);
  const auto wdl = torch::softmax(out.wdl_logits, 1).contiguous();
  const float* p = wdl.data_ptr<float>();
  for (size_t c = 0; c < children.size(); ++c) {
    const float v = p[c * 3] - p[c * 3 + 2];  // win - loss, the child's mover's view
    qp[where[c].first * size_t(m) + size_t(where[c].second)] = flip[c] ? -v : v;
  }
  return q;
}

std::vector<std::array<float, kMaxPits>> HumanPolicy::move_values(
    std::span<const Position> positions) {
  std::vector<std::array<float, kMaxPits>> out(positions.size());
  if (positions.empty()) return out;
  c10::InferenceMode guard;
  const int m = positions[0].npits;
  const auto q = move_value_tensor(positions).contiguous();
  const float* p = q.data_ptr<float>();
  for (size_t i = 0; i < positions.size(); ++i)
    for (int k = 0; k < m; ++k) out[i][size_t(k)] = p[i * size_t(m) + size_t(k)];
  return out;
}

torch::Tensor HumanPolicy::head_logprobs(std::span<const Position> positions,
                                         std::span<const int> ratings,
                                         std::span<const char> titled) {
  c10::InferenceMode guard;
  const int m = positions.empty() ? 0 : positions[0].npits;
  if (positions.empty()) return torch::zeros({0, 0});
  const auto r = human_rating_tensor(info(), ratings, titled);
  auto logits = model_.net->human_policy(model_.net->trunk(features(positions)), r, m);
  logits = logits.masked_fill(legal_mask(positions).logical_not(), -1e30);
  return torch::log_softmax(logits, 1).contiguous();
}

}  // namespace kz
