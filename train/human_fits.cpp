#include "train/human_fits.h"

#include <algorithm>
#include <cmath>

#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "nn/search_mixture.h"
#include "train/progress.h"

namespace kz {

void drop_search_mix(HumanHeadInfo& info) {
  info.search_mix_weights.clear();
  info.search_mix_play_weights.clear();
  info.search_filter_play_weights.clear();
  info.search_mix_visits = 0;
  info.search_play_visits = 0;
}

ValueHeadComparison compare_value_heads(Model& model, const HumanData& validation,
                                        const GameSpec& spec) {
  ValueHeadComparison c;
  c.own = value_accuracy(model, validation.samples, validation.sides);
  c.reference_path = shipped_model_path(spec);
  if (!c.reference_path.empty()) {
    try {
      Model reference = load_model(c.reference_path, &spec);
      c.reference = value_accuracy(reference, validation.samples, validation.sides);
    } catch (const std::exception& e) {
      c.reference_error = e.what();
    }
  }
  return c;
}

ValueWeightsFit fit_value_term(Model& model, const HumanData& train) {
  model.meta.human.value_weights.clear();
  HumanPolicy policy(model);
  ValueWeightsFit fit = fit_value_weights(policy, train.samples);
  model.meta.human.value_weights = fit.weights;
  return fit;
}

std::vector<MixRow> search_mix_rows(HumanPolicy& policy, HumanSearch& search,
                                    const std::vector<HumanSample>& samples, int every,
                                    const std::string& what) {
  std::vector<const HumanSample*> chosen;
  for (size_t i = 0; i < samples.size(); i += size_t(every)) chosen.push_back(&samples[i]);
  std::vector<MixRow> rows(chosen.size());
  constexpr size_t kChunk = 256;
  Progress::Options po;
  po.unit = "positions";
  po.line_interval_s = 10;
  Progress progress("human-train: " + what + " searched", int64_t(chosen.size()), po);
  std::vector<Position> positions;
  std::vector<int> ratings;
  std::vector<char> titled;
  for (size_t first = 0; first < chosen.size(); first += kChunk) {
    const size_t n = std::min(kChunk, chosen.size() - first);
    positions.clear();
    ratings.clear();
    titled.clear();
    for (size_t i = first; i < first + n; ++i) {
      positions.push_back(chosen[i]->position);
      ratings.push_back(chosen[i]->rating);
      titled.push_back(chosen[i]->titled ? 1 : 0);
    }
    const auto probabilities = policy.probabilities(positions, ratings, titled);
    for (size_t i = 0; i < n; ++i) {
      MixRow& row = rows[first + i];
      row.sample = chosen[first + i];
      row.policy = probabilities[i];
      row.search = search.search(row.sample->position);
      progress.set_done(int64_t(first + i + 1));
    }
  }
  progress.finish();
  return rows;
}

// The search's probability of `move`: its visit share, or 1 for its best move alone.
double search_probability(const SearchAnswer& a, int move, bool shares) {
  return shares ? a.share[size_t(move)] : a.best_move == move ? 1.0 : 0.0;
}

SearchMixReport fit_search_mix_rows(const HumanHeadInfo& info,
                                    const std::vector<MixRow>& train_rows,
                                    const std::vector<MixRow>& validation_rows, bool shares,
                                    int64_t visits) {
  SearchMixReport report;
  std::vector<SearchMixSample> mix;
  for (const MixRow& row : train_rows)
    mix.push_back({row.policy[size_t(row.sample->move)],
                   search_probability(row.search, row.sample->move, shares), row.sample->rating,
                   row.sample->titled});
  report.fit = fit_search_mix(info, mix);
  report.info = info;
  report.info.search_mix_weights = report.fit.weights;
  report.info.search_mix_visits = int(visits);
  const HumanHeadInfo& fitted = report.info;
  for (const MixRow& row : validation_rows) {
    const HumanSample& s = *row.sample;
    const double lambda = human_search_mix(fitted, s.rating, s.titled);
    std::array<float, kMaxPits> mixed{};
    for (int k = 0; k < s.position.npits; ++k)
      mixed[size_t(k)] = float(mix_with_search(row.policy[size_t(k)], lambda,
                                               search_probability(row.search, k, shares)));
    for (int key : {s.titled ? -1 : rating_bin_from(s.rating), -2}) {
      SearchMixBin& b = report.bins[key];
      ++b.n;
      b.top1_before += top_human_move(row.policy, s.position) == s.move;
      b.top1_after += top_human_move(mixed, s.position) == s.move;
      b.ll_before += std::log(std::max(double(row.policy[size_t(s.move)]), 1e-9));
      b.ll_after += std::log(std::max(double(mixed[size_t(s.move)]), 1e-9));
    }
  }
  return report;
}

SearchMixFits fit_search_mixtures(Model& model, const HumanData& train, const HumanData& validation,
                                  const GameSpec& spec, const std::string& engine_path,
                                  int64_t visits, int every) {
  HumanSearch search(spec, load_model_evaluator(spec, engine_path, 1), visits);
  const int play_visits = human_search_visits(model.meta.human, true);
  const bool calibrated = !model.meta.human.search_mix_play_weights.empty() ||
                          !model.meta.human.search_filter_play_weights.empty();
  model.meta.human.search_mix_weights.clear();
  model.meta.human.search_mix_visits = 0;
  HumanPolicy policy(model);
  const auto train_rows = search_mix_rows(policy, search, train.samples, every, "train");
  const auto val_rows = search_mix_rows(policy, search, validation.samples, 1, "validation");
  SearchMixFits fits;
  fits.best_move = fit_search_mix_rows(model.meta.human, train_rows, val_rows, false, visits);
  const HumanHeadInfo& info = fits.best_move.info;
  model.meta.human.search_mix_weights = info.search_mix_weights;
  model.meta.human.search_mix_visits = info.search_mix_visits;
  model.meta.human.search_play_visits =
      calibrated && play_visits != info.search_mix_visits ? play_visits : 0;
  // Measured from the model as it now is, as the command always did.
  fits.shares = fit_search_mix_rows(model.meta.human, train_rows, val_rows, true, visits);
  return fits;
}

}  // namespace kz
