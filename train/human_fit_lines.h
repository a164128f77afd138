// The lines `kumalak human-train` (tools/cmd_human_train.cpp) writes on stderr about what
// it fitted and measured, built apart from the command so that they are tested directly:
// the validation fold's fit, the value head's comparison and the value term's fit with
// its beta(R), and a search mixture's fit with its validation bins. Each line is without
// the command's "kumalak human-train: " and without a line break.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/human_games.h"
#include "nn/human_training.h"
#include "train/human_fits.h"
#include "train/human_head_setup.h"

namespace kz {

// What the training reads: "N train positions (G games, T of titled players), V
// validation positions (W games); ratings LO..HI, mean M".
//   train, validation: the two folds' samples
//   head: set_up_human_head's answer (the head's range and the titled positions)
std::string human_data_line(const HumanData& train, const HumanData& validation,
                            const HumanHeadSetup& head);

// "rating pair prior: N train games with both sides rated", and that none is written
// when N is 0.
//   paired_games: the train games with both sides rated
std::string pair_prior_line(int64_t paired_games);

// What training drops of an --init model's fitted terms (drop_stale_human_terms), a line
// each: its search mixture, then its value weights (with "fitted again after it" when
// `refit`).
//   dropped: drop_stale_human_terms's answer
//   refit: the value weights are fitted again after the training
std::vector<std::string> stale_terms_lines(const StaleHumanTerms& dropped, bool refit);

// "WHEN: validation top-1 T %, log-likelihood L (N positions)".
//   when: what the model is ("before training", "epoch 2")
//   fit: human_fit's over the validation fold
std::string validation_fit_line(const std::string& when, const HumanFit& fit);

// The value head's Brier score and winner's side on the validation games' results, beside
// the shipped model's (or why that did not load).
std::string value_heads_line(const ValueHeadComparison& heads);

// The value term's fit: its positions, Newton steps and the train log-likelihood before
// and after.
std::string value_fit_line(const ValueWeightsFit& fit);

// Fits the value term of `model` again (train/human_fits.h) and says what it did, a line
// each: that a search mixture fitted on top of the old term is dropped (when there was
// one), the value heads compared on `validation` without the term (value_heads_line), the
// fit on `train` (value_fit_line) and its beta(R) (value_beta_line). Throws what loading
// the shipped model for the comparison or the fit throws.
//   model: the human model, changed in place
//   train, validation: the two folds
//   spec: their game
//   say: receives each line as it is known
void refit_value_term(Model& model, const HumanData& train, const HumanData& validation,
                      const GameSpec& spec, const std::function<void(const std::string&)>& say);

// "value term beta(R): 800: b ... 2200: b; titled: b", every 200 points.
std::string value_beta_line(const HumanHeadInfo& info);

// A search mixture's fit (`fit`: its weights and lambda(R) every 200 points), the header
// of its validation table (`header`) and a row a bin (`bins`, each starting with two
// spaces: the 100-point bins, then "titled" and "all").
struct SearchMixLines {
  std::string fit, header;
  std::vector<std::string> bins;
};
//   report: fit_search_mix_rows's
//   shares: the fit is of the search's visit shares (else of its best move)
//   visits: the search's visits
SearchMixLines search_mix_lines(const SearchMixReport& report, bool shares, int64_t visits);

}  // namespace kz
