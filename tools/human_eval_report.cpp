#include "tools/human_eval_report.h"

#include <cstdio>
#include <sstream>
#include <utility>

namespace kz::cli {

namespace {

// `part` of `whole` as "12.3 %", "-" when there is no whole.
std::string percent(int64_t part, int64_t whole) {
  if (whole == 0) return "-";
  char s[32];
  std::snprintf(s, sizeof s, "%.1f %%", 100.0 * double(part) / double(whole));
  return s;
}

// The human model's fields of the JSON object: its columns' settings and the rating
// estimate's errors.
void add_human_fields(const HumanEvalReport& m, nlohmann::ordered_json& j) {
  const EstimateSummary& e = m.result.estimates;
  j["human_model"] = m.human_path;
  j["blind_rating"] = m.human->info().rating_mean;
  // Whether the human columns include the rating-dependent value term
  // (HumanHeadInfo::value_weights, docs/human.md).
  j["human_value_term"] = !m.human->info().value_weights.empty();
  if (m.human->info().search_mix_visits > 0) {
    j["human_search_mix_visits"] = m.human->info().search_mix_visits;
    // The search of the columns with --as-played (the levels' own).
    if (m.as_played) j["human_columns_visits"] = human_search_visits(m.human->info(), true);
  }
  j["human_columns_lambda"] = !m.as_played                                         ? "fitted"
                              : m.human->info().search_filter_play_weights.empty() ? "played"
                                                                                   : "filter";
  j["rating_estimate"] = e.pair_prior  ? "joint_posterior"
                         : e.posterior ? "posterior"
                                       : "maximum_likelihood";
  j["joint_sides"] = e.joint_sides;
  j["rating_mae"] = e.model.mae;
  j["baseline_mae"] = e.baseline_mae;
  j["rating_spearman"] = e.model.spearman;
  j["rating_coverage"] = e.model.coverage;
  j["rating_interval_width"] = e.model.width;
  // The other estimates, for comparison: each side alone, and without any prior.
  for (const auto& [prefix, errors] : {std::pair{"single_", &e.single}, std::pair{"ml_", &e.ml}}) {
    const std::string p = prefix;
    j[p + "rating_mae"] = errors->mae;
    j[p + "rating_spearman"] = errors->spearman;
    j[p + "rating_coverage"] = errors->coverage;
    j[p + "rating_interval_width"] = errors->width;
  }
  j["sides"] = e.sides;
}

// The rating estimate's summary under the table, each line ending with its newline.
std::string estimate_lines(const HumanEvalReport& m) {
  const EstimateSummary& e = m.result.estimates;
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "Human model %s (blind at %d): rating estimate (%s) over %lld sides of %d+ "
                "moves: MAE %.0f (predicting the mean: %.0f), Spearman %.3f, 95 %% interval "
                "holds the rating for %.0f %%\n",
                m.human_path.c_str(), m.human->info().rating_mean,
                e.pair_prior  ? "both sides jointly, with the model's pair prior"
                : e.posterior ? "posterior with the model's prior"
                              : "maximum likelihood",
                (long long)e.sides, kMinEstimateMoves, e.model.mae, e.baseline_mae,
                e.model.spearman, 100 * e.model.coverage);
  out += line;
  if (e.pair_prior) {
    std::snprintf(line, sizeof line,
                  "  %lld sides jointly; each side alone (one-sided prior): MAE %.0f, "
                  "Spearman %.3f, interval holds %.0f %%\n",
                  (long long)e.joint_sides, e.single.mae, e.single.spearman,
                  100 * e.single.coverage);
    out += line;
  }
  if (e.posterior) {
    std::snprintf(line, sizeof line,
                  "  maximum likelihood alone: MAE %.0f, Spearman %.3f, interval holds %.0f %%\n",
                  e.ml.mae, e.ml.spearman, 100 * e.ml.coverage);
    out += line;
  }
  return out;
}

}  // namespace

nlohmann::ordered_json human_eval_json(const HumanEvalReport& m) {
  nlohmann::ordered_json j;
  j["model"] = m.model_path;
  j["fold"] = m.fold;
  j["search_visits"] = m.search_visits;
  j["every"] = m.every;
  j["bins"] = nlohmann::ordered_json::array();
  for (const auto& [from, b] : m.result.bins) {
    nlohmann::ordered_json bin;
    bin["from"] = from;
    bin["to"] = from + kRatingBinWidth - 1;
    bin["positions"] = b.positions;
    bin["policy_top1"] = double(b.policy_top1) / double(b.positions);
    bin["policy_loglik"] = b.policy_loglik / double(b.positions);
    if (b.search_positions > 0)
      bin["search_top1"] = double(b.search_top1) / double(b.search_positions);
    else
      bin["search_top1"] = nullptr;
    bin["search_positions"] = b.search_positions;
    if (m.human) {
      bin["human_top1"] = double(b.human_top1) / double(b.positions);
      bin["blind_top1"] = double(b.blind_top1) / double(b.positions);
      bin["human_loglik"] = b.human_loglik / double(b.positions);
      bin["blind_loglik"] = b.blind_loglik / double(b.positions);
    }
    j["bins"].push_back(bin);
  }
  if (m.human) add_human_fields(m, j);
  j["positions"] = int64_t(m.data.samples.size());
  j["games"] = m.data.games;
  j["skipped_games"] = m.data.skipped_games;
  j["unrated_sides"] = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : m.data.unrated.by_reason) j["unrated_sides"][reason] = count;
  return j;
}

std::string human_eval_table(const HumanEvalReport& m) {
  std::ostringstream out;
  out << "Model " << m.model_path << " (" << m.model_description << "), fold " << m.fold << ": "
      << m.data.games << " games (" << m.data.skipped_games << " skipped), "
      << m.data.samples.size()
      << " positions of rated players; unrated sides: " << m.data.unrated.total();
  const char* separator = " (";
  for (const auto& [reason, count] : m.data.unrated.by_reason) {
    out << separator << reason << " " << count;
    separator = ", ";
  }
  out << (m.data.unrated.by_reason.empty() ? "" : ")") << "\n";
  std::string search_head = "search top-1";
  if (m.search_visits > 0)
    search_head +=
        " (" + std::to_string(m.search_visits) + " visits, every " + std::to_string(m.every) + ")";
  char line[512];
  std::snprintf(line, sizeof line, "%-11s %9s %13s %15s", "rating", "positions", "policy top-1",
                "policy loglik");
  out << line;
  if (m.human) {
    std::snprintf(line, sizeof line, " %12s %12s %13s %13s", "human top-1", "blind top-1",
                  "human loglik", "blind loglik");
    out << line;
  }
  out << "  " << search_head << "\n";
  for (const auto& [from, b] : m.result.bins) {
    const std::string range =
        std::to_string(from) + "-" + std::to_string(from + kRatingBinWidth - 1);
    std::string search = "-";
    if (b.search_positions > 0)
      search =
          percent(b.search_top1, b.search_positions) + " of " + std::to_string(b.search_positions);
    std::snprintf(line, sizeof line, "%-11s %9lld %13s %15.3f", range.c_str(),
                  (long long)b.positions, percent(b.policy_top1, b.positions).c_str(),
                  b.policy_loglik / double(b.positions));
    out << line;
    if (m.human) {
      std::snprintf(line, sizeof line, " %12s %12s %13.3f %13.3f",
                    percent(b.human_top1, b.positions).c_str(),
                    percent(b.blind_top1, b.positions).c_str(),
                    b.human_loglik / double(b.positions), b.blind_loglik / double(b.positions));
      out << line;
    }
    out << "  " << search << "\n";
  }
  if (m.human) out << estimate_lines(m);
  return out.str();
}

}  // namespace kz::cli
