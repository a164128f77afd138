// The human head's fits that need a search or the model's own value head, apart from
// `kumalak human-train`'s options and report (tools/cmd_human_train.cpp): the
// rating-dependent value term (HumanHeadInfo::value_weights) and the search mixture
// (HumanHeadInfo::search_mix_weights) fitted on the train fold and measured on the
// validation fold. nn/human_training.h has the fits' mathematics; docs/human.md the
// figures.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/human_games.h"
#include "mcts/human_search.h"
#include "nn/human_policy.h"
#include "nn/human_training.h"
#include "nn/model_file.h"

namespace kz {

// Drops a model's search mixture with everything fitted or calibrated on top of it.
void drop_search_mix(HumanHeadInfo& info);

// How well the value head of `model` predicts the validation games' results, beside the
// shipped model's, which the value term could trust instead.
struct ValueHeadComparison {
  ValueAccuracy own;
  std::string reference_path;              // the shipped model ("" where there is none)
  std::optional<ValueAccuracy> reference;  // its accuracy, where it loaded
  std::string reference_error;             // why it did not
};
//   model: the human model; validation: the validation fold; spec: its game
ValueHeadComparison compare_value_heads(Model& model, const HumanData& validation,
                                        const GameSpec& spec);

// Fits the value term of `model` on `train` (its old weights dropped first) and writes
// the weights into its metadata.
ValueWeightsFit fit_value_term(Model& model, const HumanData& train);

// What the search mixture is fitted and measured on: per sample, the human policy's
// probabilities (value term included) at the player's own rating and the search's answer.
struct MixRow {
  const HumanSample* sample = nullptr;
  std::array<float, kMaxPits> policy{};
  SearchAnswer search;
};

// The rows of every `every`-th sample of `samples`: `policy`'s probabilities at the
// player's rating and `search`'s answer. Reports its progress on stderr, labelled
// "human-train: WHAT searched".
std::vector<MixRow> search_mix_rows(HumanPolicy& policy, HumanSearch& search,
                                    const std::vector<HumanSample>& samples, int every,
                                    const std::string& what);

// The search's probability of `move`: its visit share, or 1 for its best move alone.
double search_probability(const SearchAnswer& a, int move, bool shares);

// The validation fold's top-1 and log-likelihood without and with the mixture, in one
// bin (summed; divide by n).
struct SearchMixBin {
  int64_t n = 0, top1_before = 0, top1_after = 0;
  double ll_before = 0, ll_after = 0;
};

// One fit of the search mixture: its weights, and the head's metadata with them.
struct SearchMixReport {
  SearchMixFit fit;
  HumanHeadInfo info;  // the model's, with the fitted weights and visits
  // By 100-point bin of the mover's rating; -1: titled players; -2: all of them.
  std::map<int, SearchMixBin> bins;
};

// Fits the search mixture of `info` on `train_rows` (lambda 0 beside them: `info` must
// have none) with the search's best move alone (`shares` false) or its visit shares,
// and measures it on `validation_rows`. `visits`: the search's, written into the result.
SearchMixReport fit_search_mix_rows(const HumanHeadInfo& info,
                                    const std::vector<MixRow>& train_rows,
                                    const std::vector<MixRow>& validation_rows, bool shares,
                                    int64_t visits);

// Both of human-train's search mixtures of `model`'s head, with a search of `visits`
// visits of the network at `engine_path`: fitted on every `every`-th train position on top
// of the policy without a mixture, measured on every validation position, for the
// search's best move alone and for its visit shares. The model takes the best move's (the
// one human_moves plays), and keeps the levels' calibrated play weights or filter with
// the search they were calibrated with (HumanHeadInfo::search_play_visits). Throws what
// loading the engine throws.
struct SearchMixFits {
  SearchMixReport best_move;  // the one the model now holds
  SearchMixReport shares;     // measured beside it only
};
SearchMixFits fit_search_mixtures(Model& model, const HumanData& train, const HumanData& validation,
                                  const GameSpec& spec, const std::string& engine_path,
                                  int64_t visits, int every);

}  // namespace kz
