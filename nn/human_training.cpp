#include "nn/human_training.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>

#include "nn/features.h"
#include "nn/search_mixture.h"

namespace kz {

std::vector<int> rating_prior_counts(const std::vector<HumanSide>& sides,
                                     const HumanHeadInfo& info) {
  std::vector<int> counts(size_t(std::max(human_prior_bins(info), 1)), 0);
  for (const HumanSide& side : sides) {
    if (side.titled) continue;
    const int bin = std::clamp((side.rating - info.rating_min) / kHumanPriorBinWidth, 0,
                               int(counts.size()) - 1);
    ++counts[size_t(bin)];
  }
  return counts;
}

std::vector<int> rating_pair_prior_counts(const std::vector<HumanSide>& sides,
                                          const HumanHeadInfo& info) {
  const int bins = std::max(human_prior_bins(info), 1);
  std::vector<int> counts(size_t(bins) * size_t(bins), 0);
  auto bin = [&](int rating) {
    return size_t(std::clamp((rating - info.rating_min) / kHumanPriorBinWidth, 0, bins - 1));
  };
  // A game's sides are consecutive, White's first.
  for (size_t i = 0; i + 1 < sides.size(); ++i) {
    const HumanSide &white = sides[i], &black = sides[i + 1];
    if (white.game != black.game || white.color != 0 || black.color != 1) continue;
    if (white.titled || black.titled) continue;
    ++counts[bin(white.rating) * size_t(bins) + bin(black.rating)];
  }
  return counts;
}

namespace {

struct Batch {
  torch::Tensor features, ratings, legal, moves;
};

Batch make_batch(const HumanHeadInfo& info, const std::vector<HumanSample>& samples,
                 std::span<const size_t> order) {
  const int64_t B = int64_t(order.size());
  const Position& first = samples[order[0]].position;
  const int64_t L = ring_length(first), m = first.npits;
  Batch b;
  b.features = torch::empty({B, kNumPlanes, L}, torch::kFloat32);
  b.ratings = torch::empty({B, kHumanRatingInputs}, torch::kFloat32);
  b.legal = torch::zeros({B, m}, torch::kBool);
  b.moves = torch::empty({B}, torch::kInt64);
  float* f = b.features.data_ptr<float>();
  float* r = b.ratings.data_ptr<float>();
  bool* legal = b.legal.data_ptr<bool>();
  int64_t* mv = b.moves.data_ptr<int64_t>();
  const size_t per = size_t(kNumPlanes * L);
  for (int64_t i = 0; i < B; ++i) {
    const HumanSample& s = samples[order[size_t(i)]];
    encode_features(s.position, std::span<float>(f + per * size_t(i), per));
    const auto in = human_rating_inputs(info, s.rating, s.titled);
    std::copy(in.begin(), in.end(), r + i * kHumanRatingInputs);
    for (uint32_t mm = s.position.legal_mask(); mm; mm &= mm - 1)
      legal[i * m + __builtin_ctz(mm)] = true;
    mv[i] = s.move;
  }
  return b;
}

}  // namespace

void train_human_policy(Model& model, const std::vector<HumanSample>& samples,
                        const HumanTrainOptions& opt) {
  if (!model.meta.network.human_policy_head)
    throw ModelError("human training needs a model with a human policy head");
  if (samples.empty() || opt.epochs <= 0) return;
  const HumanHeadInfo info = model.meta.human;
  const int pits = samples[0].position.npits;
  // Head only: the tower's output (the mover's row: the head's convolutions are 1-wide)
  // is computed once, in eval mode, and every epoch reads it instead of the tower.
  torch::Tensor cached_trunk, cached_ratings, cached_legal, cached_moves;
  std::vector<torch::Tensor> trained = model.net->parameters();
  if (opt.head_only) {
    model.net->eval();
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> trunks, ratings, legal, moves;
    std::vector<size_t> all(samples.size());
    std::iota(all.begin(), all.end(), size_t(0));
    constexpr size_t kChunk = 1024;
    for (size_t first = 0; first < all.size(); first += kChunk) {
      const size_t n = std::min(kChunk, all.size() - first);
      const Batch b = make_batch(info, samples, std::span<const size_t>(all).subspan(first, n));
      trunks.push_back(model.net->trunk(b.features).narrow(2, 0, pits).contiguous());
      ratings.push_back(b.ratings);
      legal.push_back(b.legal);
      moves.push_back(b.moves);
      if (opt.after_batch) opt.after_batch(0, int64_t(first + n), 0.0);
    }
    cached_trunk = torch::cat(trunks);
    cached_ratings = torch::cat(ratings);
    cached_legal = torch::cat(legal);
    cached_moves = torch::cat(moves);
    trained.clear();
    for (const auto& module : {model.net->human_conv.ptr(), model.net->human_out.ptr()})
      for (const auto& p : module->parameters()) trained.push_back(p);
    for (const auto& p : model.net->human_rating_fc->parameters()) trained.push_back(p);
    for (const auto& p : model.net->human_bn->parameters()) trained.push_back(p);
    if (model.net->human_temperature_fc)
      for (const auto& p : model.net->human_temperature_fc->parameters()) trained.push_back(p);
  }
  torch::optim::Adam optimizer(
      trained, torch::optim::AdamOptions(opt.learning_rate).weight_decay(opt.weight_decay));
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::mt19937_64 rng(opt.seed);
  const size_t per_epoch = opt.positions_per_epoch > 0
                               ? std::min(samples.size(), size_t(opt.positions_per_epoch))
                               : samples.size();
  const int64_t steps_per_epoch = (int64_t(per_epoch) + opt.batch - 1) / opt.batch;
  const int64_t total_steps = steps_per_epoch * opt.epochs;
  int64_t step = 0;
  for (int epoch = 1; epoch <= opt.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    model.net->train();
    double loss_sum = 0;
    int64_t loss_n = 0;
    for (size_t first = 0; first < per_epoch; first += size_t(opt.batch)) {
      const size_t n = std::min(size_t(opt.batch), per_epoch - first);
      if (n < 2) break;  // batch norm needs two rows
      const double progress_fraction = double(step) / double(std::max<int64_t>(1, total_steps));
      const double lr =
          opt.learning_rate * (0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * progress_fraction)));
      for (auto& group : optimizer.param_groups())
        static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
      torch::Tensor logits, moves;
      if (opt.head_only) {
        std::vector<int64_t> rows(order.begin() + int64_t(first),
                                  order.begin() + int64_t(first + n));
        const auto idx = torch::tensor(rows, torch::kInt64);
        logits = model.net->human_policy(cached_trunk.index_select(0, idx),
                                         cached_ratings.index_select(0, idx), pits);
        logits = logits.masked_fill(cached_legal.index_select(0, idx).logical_not(), -1e9);
        moves = cached_moves.index_select(0, idx);
      } else {
        const Batch b = make_batch(info, samples, std::span<const size_t>(order).subspan(first, n));
        logits = model.net->human_policy(model.net->trunk(b.features), b.ratings, pits);
        logits = logits.masked_fill(b.legal.logical_not(), -1e9);
        moves = b.moves;
      }
      const auto loss = torch::nn::functional::cross_entropy(logits, moves);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      ++step;
      loss_sum += loss.item<double>() * double(n);
      loss_n += int64_t(n);
      if (opt.after_batch) opt.after_batch(epoch, loss_n, loss_sum / double(loss_n));
    }
    model.net->eval();
    model.meta.training_steps += steps_per_epoch;
    if (opt.after_epoch) opt.after_epoch(epoch, model);
  }
  model.net->eval();
}

namespace {

// The positions, ratings and titled flags of samples[first, first + n): one batched call
// of the human policy.
struct SampleBatch {
  std::vector<Position> positions;
  std::vector<int> ratings;
  std::vector<char> titled;
  void fill(const std::vector<HumanSample>& samples, size_t first, size_t n) {
    positions.clear();
    ratings.clear();
    titled.clear();
    for (size_t i = first; i < first + n; ++i) {
      positions.push_back(samples[i].position);
      ratings.push_back(samples[i].rating);
      titled.push_back(samples[i].titled);
    }
  }
};

}  // namespace

HumanFit human_fit(HumanPolicy& policy, const std::vector<HumanSample>& samples) {
  HumanFit fit;
  constexpr size_t kBatch = 512;
  SampleBatch batch;
  for (size_t first = 0; first < samples.size(); first += kBatch) {
    const size_t n = std::min(kBatch, samples.size() - first);
    batch.fill(samples, first, n);
    const auto probs = policy.probabilities(batch.positions, batch.ratings, batch.titled);
    for (size_t j = 0; j < n; ++j) {
      const HumanSample& s = samples[first + j];
      fit.top1 += top_human_move(probs[j], s.position) == s.move;
      fit.loglik += std::log(std::max(double(probs[j][size_t(s.move)]), 1e-9));
      ++fit.positions;
    }
  }
  if (fit.positions) {
    fit.top1 /= double(fit.positions);
    fit.loglik /= double(fit.positions);
  }
  return fit;
}

namespace {

// The value term's weights over the rating inputs, and the derivatives of the objective.
using ValueWeights = std::array<double, kHumanRatingInputs>;
using ValueHessian = std::array<double, kHumanRatingInputs * kHumanRatingInputs>;

// What fit_value_weights maximises, computed once from the head and the samples: per
// sample the head's log-probability and Q of every pit (illegal: Q = 0 and a
// log-probability of -inf, left out), the rating inputs and the move.
class ValueTermLikelihood {
 public:
  // `samples` (not empty) as `policy` sees them; `l2` the penalty per sample.
  ValueTermLikelihood(HumanPolicy& policy, const std::vector<HumanSample>& samples, double l2)
      : samples_(samples),
        n_(samples.size()),
        m_(samples[0].position.npits),
        l2_(l2),
        lp_(n_ * size_t(m_)),
        q_(n_ * size_t(m_)),
        rin_(n_ * size_t(R)),
        legal_(n_) {
    constexpr size_t kChunk = 512;
    SampleBatch batch;
    for (size_t first = 0; first < n_; first += kChunk) {
      const size_t n = std::min(kChunk, n_ - first);
      batch.fill(samples, first, n);
      const auto head = policy.head_logprobs(batch.positions, batch.ratings, batch.titled);
      const float* h = head.data_ptr<float>();
      std::copy(h, h + n * size_t(m_), lp_.begin() + int64_t(first * size_t(m_)));
      const auto values = policy.move_values(batch.positions);
      for (size_t j = 0; j < n; ++j) {
        const HumanSample& s = samples[first + j];
        legal_[first + j] = s.position.legal_mask();
        for (int k = 0; k < m_; ++k)
          q_[(first + j) * size_t(m_) + size_t(k)] = values[j][size_t(k)];
        const auto in = human_rating_inputs(policy.info(), s.rating, s.titled);
        std::copy(in.begin(), in.end(), rin_.begin() + int64_t((first + j) * size_t(R)));
      }
    }
  }

  // The mean log-likelihood at `w` and the objective (it less the penalty), and when
  // asked the objective's gradient and Hessian.
  std::pair<double, double> evaluate(const ValueWeights& w, ValueWeights* grad,
                                     ValueHessian* hess) const {
    double ll = 0;
    if (grad) grad->fill(0);
    if (hess) hess->fill(0);
    for (size_t i = 0; i < n_; ++i) {
      const float* r = &rin_[i * size_t(R)];
      double beta = 0;
      for (int a = 0; a < R; ++a) beta += w[size_t(a)] * r[a];
      double zmax = -1e300;
      double z[kMaxPits];
      for (uint32_t mm = legal_[i]; mm; mm &= mm - 1) {
        const int k = __builtin_ctz(mm);
        z[k] = lp_[i * size_t(m_) + size_t(k)] + beta * q_[i * size_t(m_) + size_t(k)];
        zmax = std::max(zmax, z[k]);
      }
      double sum = 0, eq = 0, eq2 = 0;
      for (uint32_t mm = legal_[i]; mm; mm &= mm - 1) {
        const int k = __builtin_ctz(mm);
        const double e = std::exp(z[k] - zmax);
        const double qk = q_[i * size_t(m_) + size_t(k)];
        sum += e;
        eq += e * qk;
        eq2 += e * qk * qk;
      }
      eq /= sum;
      eq2 /= sum;
      const int move = samples_[i].move;
      ll += z[move] - zmax - std::log(sum);
      if (grad) {
        // d ll / d w = r (Q(move) - E[Q]).
        const double g = q_[i * size_t(m_) + size_t(move)] - eq;
        for (int a = 0; a < R; ++a) (*grad)[size_t(a)] += g * r[a];
      }
      if (hess) {
        // d2 ll / dw2 = - r r^T Var[Q].
        const double v = std::max(0.0, eq2 - eq * eq);
        for (int a = 0; a < R; ++a)
          for (int b = 0; b < R; ++b) (*hess)[size_t(a * R + b)] -= v * r[a] * r[b];
      }
    }
    const double n = double(n_);
    ll /= n;
    double penalty = 0;
    for (int a = 0; a < R; ++a) penalty += 0.5 * l2_ * w[size_t(a)] * w[size_t(a)];
    if (grad)
      for (int a = 0; a < R; ++a) (*grad)[size_t(a)] = (*grad)[size_t(a)] / n - l2_ * w[size_t(a)];
    if (hess)
      for (int a = 0; a < R; ++a)
        for (int b = 0; b < R; ++b)
          (*hess)[size_t(a * R + b)] = (*hess)[size_t(a * R + b)] / n - (a == b ? l2_ : 0.0);
    return std::pair<double, double>(ll, ll - penalty);
  }

 private:
  static constexpr int R = kHumanRatingInputs;
  const std::vector<HumanSample>& samples_;
  const size_t n_;  // samples
  const int m_;     // pits
  const double l2_;
  std::vector<float> lp_, q_, rin_;  // by sample, then pit or rating input
  std::vector<uint32_t> legal_;      // by sample
};

// Newton's step: the solution d of (-H) d = g by Gaussian elimination with partial
// pivoting; -H is positive definite (the penalty makes it so even along the inputs'
// dependence). Where it is singular to working precision the step is not finite.
ValueWeights newton_step(const ValueHessian& hess, const ValueWeights& grad) {
  constexpr int R = kHumanRatingInputs;
  std::array<double, R*(R + 1)> a{};
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < R; ++j) a[size_t(i * (R + 1) + j)] = -hess[size_t(i * R + j)];
    a[size_t(i * (R + 1) + R)] = grad[size_t(i)];
  }
  for (int c = 0; c < R; ++c) {
    int piv = c;
    for (int i = c + 1; i < R; ++i)
      if (std::abs(a[size_t(i * (R + 1) + c)]) > std::abs(a[size_t(piv * (R + 1) + c)])) piv = i;
    if (piv != c)
      for (int j = 0; j <= R; ++j)
        std::swap(a[size_t(c * (R + 1) + j)], a[size_t(piv * (R + 1) + j)]);
    const double d = a[size_t(c * (R + 1) + c)];
    if (std::abs(d) < 1e-300) break;
    for (int i = 0; i < R; ++i) {
      if (i == c) continue;
      const double f = a[size_t(i * (R + 1) + c)] / d;
      for (int j = c; j <= R; ++j) a[size_t(i * (R + 1) + j)] -= f * a[size_t(c * (R + 1) + j)];
    }
  }
  ValueWeights step{};
  for (int i = 0; i < R; ++i)
    step[size_t(i)] = a[size_t(i * (R + 1) + R)] / a[size_t(i * (R + 1) + i)];
  return step;
}

}  // namespace

ValueWeightsFit fit_value_weights(HumanPolicy& policy, const std::vector<HumanSample>& samples,
                                  double l2) {
  ValueWeightsFit fit;
  fit.positions = int64_t(samples.size());
  constexpr int R = kHumanRatingInputs;
  if (samples.empty()) {
    fit.weights.assign(size_t(R), 0.f);
    return fit;
  }
  const ValueTermLikelihood likelihood(policy, samples, l2);
  ValueWeights w{};
  ValueWeights grad{};
  ValueHessian hess{};
  auto [ll, objective] = likelihood.evaluate(w, &grad, &hess);
  fit.loglik_before = ll;
  constexpr int kMaxIterations = 50;
  for (int it = 0; it < kMaxIterations; ++it) {
    const ValueWeights step = newton_step(hess, grad);
    double largest = 0;
    for (int i = 0; i < R; ++i) largest = std::max(largest, std::abs(step[size_t(i)]));
    if (!std::isfinite(largest)) break;
    // Backtracking: halve the step until the penalised objective does not fall.
    double t = 1;
    bool moved = false;
    for (int half = 0; half < 30; ++half, t *= 0.5) {
      ValueWeights next = w;
      for (int i = 0; i < R; ++i) next[size_t(i)] += t * step[size_t(i)];
      const auto [nll, nobj] = likelihood.evaluate(next, nullptr, nullptr);
      if (nobj >= objective) {
        w = next;
        moved = true;
        break;
      }
    }
    ++fit.iterations;
    if (!moved) break;
    std::tie(ll, objective) = likelihood.evaluate(w, &grad, &hess);
    if (t * largest < 1e-5) break;
  }
  fit.loglik_after = ll;
  fit.weights.resize(size_t(R));
  for (int a = 0; a < R; ++a)
    fit.weights[size_t(a)] = float(
        std::clamp(w[size_t(a)], double(-kHumanMaxValueWeight), double(kHumanMaxValueWeight)));
  return fit;
}

SearchMixFit fit_search_mix(const HumanHeadInfo& info,
                            const std::vector<SearchMixSample>& samples) {
  constexpr int K = kHumanRatingKnots + 1;  // the knots' thetas, then the titled one
  SearchMixFit fit;
  fit.positions = int64_t(samples.size());
  fit.knot_samples.assign(size_t(K), 0.0);
  // Each sample's share in each theta (a rated player's two hats, a titled player's 1).
  std::vector<std::array<float, K>> share(samples.size());
  std::vector<std::vector<size_t>> members(static_cast<size_t>(K));
  for (size_t i = 0; i < samples.size(); ++i) {
    const SearchMixSample& s = samples[i];
    share[i].fill(0.f);
    if (s.titled) {
      share[i][K - 1] = 1.f;
    } else {
      const auto in = human_rating_inputs(info, s.rating);
      for (int k = 0; k < kHumanRatingKnots; ++k) share[i][size_t(k)] = in[size_t(1 + k)];
    }
    for (int k = 0; k < K; ++k)
      if (share[i][size_t(k)] > 0) {
        members[size_t(k)].push_back(i);
        fit.knot_samples[size_t(k)] += share[i][size_t(k)];
      }
  }
  std::array<double, K> theta{};
  auto lambda_of = [&](size_t i) {
    double l = 0;
    for (int k = 0; k < K; ++k) l += double(share[i][size_t(k)]) * theta[size_t(k)];
    return l;
  };
  auto probability = [&](size_t i, double lambda) {
    const SearchMixSample& s = samples[i];
    return mix_with_search(s.policy, lambda, s.search);
  };
  auto mean_loglik = [&] {
    double ll = 0;
    for (size_t i = 0; i < samples.size(); ++i)
      ll += std::log(std::max(probability(i, lambda_of(i)), 1e-9));
    return samples.empty() ? 0.0 : ll / double(samples.size());
  };
  fit.loglik_before = mean_loglik();
  constexpr int kMaxSweeps = 500;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    double largest = 0;
    for (int k = 0; k < K; ++k) {
      const auto& who = members[size_t(k)];
      if (who.empty()) continue;
      // The derivative in theta_k, decreasing (the log-likelihood is concave in it).
      auto derivative = [&](double value) {
        const double saved = theta[size_t(k)];
        theta[size_t(k)] = value;
        double d = 0;
        for (size_t i : who) {
          const SearchMixSample& s = samples[i];
          const double p = std::max(probability(i, lambda_of(i)), 1e-12);
          d += double(share[i][size_t(k)]) * (s.search - s.policy) / p;
        }
        theta[size_t(k)] = saved;
        return d;
      };
      double best;
      if (derivative(0.0) <= 0) {
        best = 0;
      } else if (derivative(kMaxSearchMix) >= 0) {
        best = kMaxSearchMix;
      } else {
        double lo = 0, hi = kMaxSearchMix;
        for (int step = 0; step < 40; ++step) {
          const double mid = 0.5 * (lo + hi);
          (derivative(mid) > 0 ? lo : hi) = mid;
        }
        best = 0.5 * (lo + hi);
      }
      largest = std::max(largest, std::abs(best - theta[size_t(k)]));
      theta[size_t(k)] = best;
    }
    ++fit.sweeps;
    if (largest < 1e-6) break;
  }
  fit.loglik_after = mean_loglik();
  fit.weights.assign(size_t(kHumanRatingInputs), 0.f);
  for (int k = 0; k < kHumanRatingKnots; ++k) fit.weights[size_t(1 + k)] = float(theta[size_t(k)]);
  fit.weights[size_t(kHumanRatingInputs - 1)] =
      float(theta[size_t(K - 1)] - theta[size_t(kHumanRatingKnots - 1)]);
  return fit;
}

ValueAccuracy value_accuracy(Model& model, const std::vector<HumanSample>& samples,
                             const std::vector<HumanSide>& sides) {
  ValueAccuracy acc;
  constexpr size_t kChunk = 512;
  std::vector<const HumanSample*> chunk;
  c10::InferenceMode guard;
  model.net->eval();
  auto flush = [&] {
    if (chunk.empty()) return;
    const int64_t L = ring_length(chunk[0]->position);
    auto f = torch::empty({int64_t(chunk.size()), kNumPlanes, L}, torch::kFloat32);
    const size_t per = size_t(kNumPlanes * L);
    for (size_t i = 0; i < chunk.size(); ++i)
      encode_features(chunk[i]->position, std::span<float>(f.data_ptr<float>() + per * i, per));
    const auto out = model.net->forward(f, chunk[0]->position.npits);
    const auto wdl = torch::softmax(out.wdl_logits, 1).contiguous();
    const float* p = wdl.data_ptr<float>();
    for (size_t i = 0; i < chunk.size(); ++i) {
      const double expected = p[i * 3] + 0.5 * p[i * 3 + 1];
      const double score = sides[size_t(chunk[i]->side)].score;
      acc.brier += (expected - score) * (expected - score);
      if (score != 0.5) acc.right += (expected > 0.5) == (score > 0.5);
      acc.decisive += score != 0.5;
      ++acc.positions;
    }
    chunk.clear();
  };
  for (const HumanSample& s : samples) {
    if (sides[size_t(s.side)].score < 0) continue;
    chunk.push_back(&s);
    if (chunk.size() == kChunk) flush();
  }
  flush();
  if (acc.positions) acc.brier /= double(acc.positions);
  if (acc.decisive) acc.right /= double(acc.decisive);
  return acc;
}

}  // namespace kz
