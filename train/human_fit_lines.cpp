#include "train/human_fit_lines.h"

#include <cstdio>

namespace kz {

std::string human_data_line(const HumanData& train, const HumanData& validation,
                            const HumanHeadSetup& head) {
  const HumanHeadInfo& info = head.info;
  return std::to_string(train.samples.size()) + " train positions (" + std::to_string(train.games) +
         " games, " + std::to_string(head.titled_positions) + " of titled players), " +
         std::to_string(validation.samples.size()) + " validation positions (" +
         std::to_string(validation.games) + " games); ratings " + std::to_string(info.rating_min) +
         ".." + std::to_string(info.rating_max) + ", mean " + std::to_string(info.rating_mean);
}

std::string pair_prior_line(int64_t paired_games) {
  return "rating pair prior: " + std::to_string(paired_games) +
         " train games with both sides rated" +
         (paired_games == 0 ? " (none: no pair prior written)" : "");
}

std::vector<std::string> stale_terms_lines(const StaleHumanTerms& dropped, bool refit) {
  std::vector<std::string> lines;
  if (dropped.search_mix)
    lines.push_back(
        "the --init model's search mixture is dropped (fitted to its head before this "
        "training)");
  if (dropped.value_weights)
    lines.push_back(
        std::string("the --init model's value weights are dropped (they were fitted to its "
                    "head before this training") +
        (refit ? "; fitted again after it" : "") + ")");
  return lines;
}

void refit_value_term(Model& model, const HumanData& train, const HumanData& validation,
                      const GameSpec& spec, const std::function<void(const std::string&)>& say) {
  // A search mixture was fitted on top of the old term: it goes with it.
  if (!model.meta.human.search_mix_weights.empty()) {
    drop_search_mix(model.meta.human);
    say("the --init model's search mixture is dropped (fitted on top of the value term "
        "fitted again now)");
  }
  // Which value the term can trust: the human model's own head against the shipped
  // model's, on the validation games' results.
  model.meta.human.value_weights.clear();
  say(value_heads_line(compare_value_heads(model, validation, spec)));
  say(value_fit_line(fit_value_term(model, train)));
  // The value term's beta(R) at these ratings, for the log and docs/human.md.
  say(value_beta_line(model.meta.human));
}

std::string validation_fit_line(const std::string& when, const HumanFit& fit) {
  char line[200];
  std::snprintf(line, sizeof line,
                "%s: validation top-1 %.2f %%, log-likelihood %.4f (%lld positions)", when.c_str(),
                100 * fit.top1, fit.loglik, (long long)fit.positions);
  return line;
}

std::string value_heads_line(const ValueHeadComparison& heads) {
  char line[240];
  std::snprintf(line, sizeof line,
                "value head vs the validation games' results: this model's Brier %.4f, "
                "winner's side %.2f %% (%lld positions)",
                heads.own.brier, 100 * heads.own.right, (long long)heads.own.positions);
  std::string out = line;
  if (heads.reference) {
    std::snprintf(line, sizeof line, "; %s's Brier %.4f, winner's side %.2f %%",
                  heads.reference_path.c_str(), heads.reference->brier,
                  100 * heads.reference->right);
    out += line;
  } else if (!heads.reference_path.empty()) {
    out += "; " + heads.reference_error;
  }
  return out;
}

std::string value_fit_line(const ValueWeightsFit& fit) {
  char line[240];
  std::snprintf(line, sizeof line,
                "value weights fitted on %lld train positions in %d Newton steps: train "
                "log-likelihood %.4f -> %.4f",
                (long long)fit.positions, fit.iterations, fit.loglik_before, fit.loglik_after);
  return line;
}

std::string value_beta_line(const HumanHeadInfo& info) {
  std::string line = "value term beta(R):";
  char part[48];
  for (int r = 800; r <= 2200; r += 200) {
    std::snprintf(part, sizeof part, " %d: %.3f", r, human_value_beta(info, r));
    line += part;
  }
  std::snprintf(part, sizeof part, "; titled: %.3f", human_value_beta(info, 0, true));
  return line + part;
}

SearchMixLines search_mix_lines(const SearchMixReport& report, bool shares, int64_t visits) {
  const SearchMixFit& fit = report.fit;
  const HumanHeadInfo& info = report.info;
  SearchMixLines out;
  char line[300];
  std::snprintf(line, sizeof line,
                "search mixture (%s, %lld visits) fitted on %lld train positions in %d "
                "sweeps: train log-likelihood %.4f -> %.4f; lambda(R):",
                shares ? "visit shares" : "best move", (long long)visits, (long long)fit.positions,
                fit.sweeps, fit.loglik_before, fit.loglik_after);
  out.fit = line;
  for (int r = 800; r <= 2200; r += 200) {
    std::snprintf(line, sizeof line, " %d: %.4f", r, human_search_mix(info, r));
    out.fit += line;
  }
  std::snprintf(line, sizeof line, "; titled: %.4f", human_search_mix(info, 0, true));
  out.fit += line;
  out.header = std::string("validation, ") + (shares ? "visit shares" : "best move") +
               ": bin | positions | lambda | top-1 before / after | loglik before / after";
  for (const auto& [key, b] : report.bins) {
    const double lambda = key == -1   ? human_search_mix(info, 0, true)
                          : key == -2 ? 0.0
                                      : human_search_mix(info, key + 50);
    std::snprintf(line, sizeof line, "  %s | %lld | %.4f | %.2f / %.2f %% | %.4f / %.4f",
                  key == -1   ? "titled"
                  : key == -2 ? "all"
                              : (std::to_string(key) + "-" + std::to_string(key + 99)).c_str(),
                  (long long)b.n, lambda, 100.0 * double(b.top1_before) / double(b.n),
                  100.0 * double(b.top1_after) / double(b.n), b.ll_before / double(b.n),
                  b.ll_after / double(b.n));
    out.bins.push_back(line);
  }
  return out;
}

}  // namespace kz
