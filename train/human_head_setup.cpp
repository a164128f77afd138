#include "train/human_head_setup.h"

#include <algorithm>

#include "nn/human_training.h"
#include "train/human_fits.h"

namespace kz {

std::optional<HumanHeadInfo> human_head_range(const std::vector<HumanSample>& samples) {
  int lo = kMaxPlausibleRating, hi = kMinPlausibleRating;
  for (const HumanSample& s : samples)
    if (!s.titled) lo = std::min(lo, s.rating), hi = std::max(hi, s.rating);
  if (lo > hi) return std::nullopt;
  HumanHeadInfo info;
  info.rating_min = rating_bin_from(lo);
  info.rating_max = rating_bin_from(hi) + kRatingBinWidth;
  info.rating_mean = mean_rating(samples);
  return info;
}

HumanHeadSetup set_up_human_head(Model& model, const HumanData& train, const HumanHeadInfo& range,
                                 bool pair_prior, bool rating_temperature) {
  HumanHeadSetup out;
  HumanHeadInfo& info = out.info;
  info = model.meta.network.human_policy_head ? model.meta.human : range;
  info.rating_prior = rating_prior_counts(train.sides, info);
  info.rating_pair_prior.clear();
  if (pair_prior) {
    info.rating_pair_prior = rating_pair_prior_counts(train.sides, info);
    for (int c : info.rating_pair_prior) out.paired_games += c;
    if (out.paired_games == 0) info.rating_pair_prior.clear();
  }
  model = with_human_policy_head(model, info);
  model.meta.human.rating_prior = info.rating_prior;
  model.meta.human.rating_pair_prior = info.rating_pair_prior;
  if (rating_temperature) model = with_human_rating_temperature(model);
  for (const HumanSample& s : train.samples) out.titled_positions += s.titled;
  return out;
}

StaleHumanTerms drop_stale_human_terms(HumanHeadInfo& info) {
  StaleHumanTerms dropped;
  if (!info.search_mix_weights.empty()) {
    drop_search_mix(info);
    dropped.search_mix = true;
  }
  if (!info.value_weights.empty()) {
    info.value_weights.clear();
    dropped.value_weights = true;
  }
  return dropped;
}

HumanTrainProgress::HumanTrainProgress(int epochs, int64_t positions, int64_t positions_per_epoch,
                                       Progress::Options options)
    : epochs_(epochs),
      positions_(positions),
      positions_per_epoch_(positions_per_epoch),
      options_(std::move(options)) {
  options_.unit = "positions";
}

void HumanTrainProgress::after_batch(int epoch, int64_t done, double loss) {
  if (epoch != epoch_) {
    progress_ = std::make_unique<Progress>(
        epoch == 0 ? std::string("human-train: the tower's output")
                   : "human-train epoch " + std::to_string(epoch) + "/" + std::to_string(epochs_),
        epoch == 0 || positions_per_epoch_ == 0 ? positions_
                                                : std::min(positions_, positions_per_epoch_),
        options_);
    epoch_ = epoch;
  }
  if (epoch > 0) progress_->set_field("loss", loss);
  progress_->set_done(done);
}

void HumanTrainProgress::finish_epoch() {
  if (progress_) progress_->finish();
}

}  // namespace kz
