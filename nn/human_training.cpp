#include "nn/human_training.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "nn/features.h"

namespace kz {

bool titled_side(const GameRecord& record, const RatedGame& rated, int side) {
  return rated.sides[size_t(side)].status == RatingStatus::kMissing &&
         record.tag("TimeControl", "\x01") == "\x01";
}

HumanData read_human_data(const std::vector<std::vector<GameRecord>>& files, const GameSpec& spec,
                          FoldSelection fold, bool titled) {
  HumanData data;
  for (const auto& records : files) {
    for (const auto& g : records) {
      const RatedGame rated = read_rated_game(g);
      if (!fold_selected(fold, rated.fold)) continue;
      Position start;
      ReplayResult replay;
      try {
        start = record_start(g, spec);
        replay = replay_record(g, start);
      } catch (const ParseError& e) {
        data.skipped.push_back(e.what());
        ++data.skipped_games;
        continue;
      }
      ++data.games;
      int side_index[2] = {-1, -1};
      for (int s = 0; s < 2; ++s) {
        const SideRating& r = rated.sides[size_t(s)];
        const bool is_titled = titled && !r.rated() && titled_side(g, rated, s);
        if (!r.rated() && !is_titled) {
          data.unrated.add(r);
          continue;
        }
        side_index[s] = int(data.sides.size());
        data.sides.push_back({r.rated() ? r.rating : 0, is_titled, 0});
      }
      Position pos = start;
      for (int move : replay.moves) {
        const int s = side_index[pos.to_move];
        if (s >= 0) {
          HumanSide& side = data.sides[size_t(s)];
          data.samples.push_back({pos, move, side.rating, side.titled, s});
          ++side.moves;
        }
        pos.play(move);
      }
    }
  }
  return data;
}

int mean_rating(const std::vector<HumanSample>& samples) {
  double sum = 0;
  int64_t n = 0;
  for (const auto& s : samples)
    if (!s.titled) sum += s.rating, ++n;
  return n ? int(std::lround(sum / double(n))) : 0;
}

std::vector<int> rating_prior_counts(const std::vector<HumanSide>& sides,
                                     const HumanHeadInfo& info) {
  const int bins =
      (info.rating_max - info.rating_min + kHumanPriorBinWidth - 1) / kHumanPriorBinWidth;
  std::vector<int> counts(size_t(std::max(bins, 1)), 0);
  for (const HumanSide& side : sides) {
    if (side.titled) continue;
    const int bin = std::clamp((side.rating - info.rating_min) / kHumanPriorBinWidth, 0,
                               int(counts.size()) - 1);
    ++counts[size_t(bin)];
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

HumanFit human_fit(HumanPolicy& policy, const std::vector<HumanSample>& samples) {
  HumanFit fit;
  constexpr size_t kBatch = 512;
  std::vector<Position> positions;
  std::vector<int> ratings;
  std::vector<char> titled;
  for (size_t first = 0; first < samples.size(); first += kBatch) {
    const size_t n = std::min(kBatch, samples.size() - first);
    positions.clear();
    ratings.clear();
    titled.clear();
    for (size_t i = first; i < first + n; ++i) {
      positions.push_back(samples[i].position);
      ratings.push_back(samples[i].rating);
      titled.push_back(samples[i].titled);
    }
    const auto probs = policy.probabilities(positions, ratings, titled);
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

}  // namespace kz
