#include "nn/human_rating.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kz {

int human_prior_bins(const HumanHeadInfo& h) {
  return (h.rating_max - h.rating_min + kHumanPriorBinWidth - 1) / kHumanPriorBinWidth;
}

std::string human_head_problem(const HumanHeadInfo& h) {
  if (h.rating_min < 100 || h.rating_max > 3500 || h.rating_min >= h.rating_max)
    return "human rating range " + std::to_string(h.rating_min) + ".." +
           std::to_string(h.rating_max) + " is not a range inside 100..3500";
  if (h.rating_mean < h.rating_min || h.rating_mean > h.rating_max)
    return "human mean rating " + std::to_string(h.rating_mean) + " is outside its range";
  if (!h.rating_prior.empty()) {
    const int bins = human_prior_bins(h);
    if (int(h.rating_prior.size()) != bins)
      return "human rating prior has " + std::to_string(h.rating_prior.size()) +
             " bins, the range " + std::to_string(h.rating_min) + ".." +
             std::to_string(h.rating_max) + " has " + std::to_string(bins);
    long long total = 0;
    for (int c : h.rating_prior) {
      if (c < 0) return "human rating prior has a negative count";
      total += c;
    }
    if (total == 0) return "human rating prior counts no player";
  }
  if (!h.rating_pair_prior.empty()) {
    const size_t bins = size_t(human_prior_bins(h));
    if (h.rating_pair_prior.size() != bins * bins)
      return "human.rating_pair_prior has " + std::to_string(h.rating_pair_prior.size()) +
             " counts, the range " + std::to_string(h.rating_min) + ".." +
             std::to_string(h.rating_max) + " has " + std::to_string(bins) + " x " +
             std::to_string(bins) + " = " + std::to_string(bins * bins) + " pairs of bins";
    long long total = 0;
    for (int c : h.rating_pair_prior) {
      if (c < 0) return "human.rating_pair_prior has a negative count (" + std::to_string(c) + ")";
      total += c;
    }
    if (total == 0) return "human.rating_pair_prior counts no game";
  }
  if (!h.value_weights.empty()) {
    if (h.value_weights.size() != size_t(kHumanRatingInputs))
      return "human.value_weights has " + std::to_string(h.value_weights.size()) +
             " numbers, the rating inputs are " + std::to_string(kHumanRatingInputs);
    for (float w : h.value_weights)
      if (!std::isfinite(w) || std::abs(w) > kHumanMaxValueWeight)
        return "human.value_weights holds " + std::to_string(w) +
               ", not a finite number of magnitude at most " +
               std::to_string(int(kHumanMaxValueWeight));
  }
  if (!h.search_mix_play_weights.empty() && h.search_mix_weights.empty())
    return "human.search_mix.play_weights without fitted weights";
  if (!h.search_filter_play_weights.empty() && h.search_mix_weights.empty())
    return "human.search_mix.play_filter without fitted weights";
  if (!h.search_mix_weights.empty() || h.search_mix_visits != 0) {
    // The fitted lambda, the levels' calibrated one and their filter's tau share a basis
    // and a clamp.
    const auto mix_problem = [](const std::vector<float>& weights, const std::string& name) {
      if (weights.size() != size_t(kHumanRatingInputs))
        return name + " has " + std::to_string(weights.size()) +
               " numbers, the rating inputs are " + std::to_string(kHumanRatingInputs);
      for (float w : weights)
        if (!std::isfinite(w) || std::abs(w) > 1.f)
          return name + " holds " + std::to_string(w) +
                 ", not a finite number of magnitude at most 1";
      return std::string();
    };
    if (std::string why = mix_problem(h.search_mix_weights, "human.search_mix.weights");
        !why.empty())
      return why;
    for (const auto& [weights, name] :
         {std::pair{&h.search_mix_play_weights, "human.search_mix.play_weights"},
          std::pair{&h.search_filter_play_weights, "human.search_mix.play_filter"}})
      if (!weights->empty())
        if (std::string why = mix_problem(*weights, name); !why.empty()) return why;
    if (h.search_mix_visits < 1 || h.search_mix_visits > kHumanMaxSearchMixVisits)
      return "human.search_mix.visits is " + std::to_string(h.search_mix_visits) + ", not 1.." +
             std::to_string(kHumanMaxSearchMixVisits);
  }
  if (h.search_play_visits != 0) {
    if (h.search_mix_play_weights.empty() && h.search_filter_play_weights.empty())
      return "human.search_mix.play_visits without play weights or a play filter";
    if (h.search_play_visits < 1 || h.search_play_visits > kHumanMaxSearchMixVisits)
      return "human.search_mix.play_visits is " + std::to_string(h.search_play_visits) +
             ", not 1.." + std::to_string(kHumanMaxSearchMixVisits);
  }
  return "";
}

double human_value_beta(const HumanHeadInfo& h, int rating, bool titled) {
  if (h.value_weights.empty()) return 0;
  const auto in = human_rating_inputs(h, rating, titled);
  double beta = 0;
  for (size_t i = 0; i < in.size(); ++i) beta += double(h.value_weights[i]) * in[i];
  return beta;
}

namespace {
double mix_at(const HumanHeadInfo& h, const std::vector<float>& weights, int rating, bool titled) {
  if (weights.empty()) return 0;
  const auto in = human_rating_inputs(h, rating, titled);
  double lambda = 0;
  for (size_t i = 0; i < in.size(); ++i) lambda += double(weights[i]) * in[i];
  return std::clamp(lambda, 0.0, 1.0);
}
}  // namespace

double human_search_mix(const HumanHeadInfo& h, int rating, bool titled) {
  return mix_at(h, h.search_mix_weights, rating, titled);
}

double human_play_mix(const HumanHeadInfo& h, int rating) {
  return h.search_mix_play_weights.empty() ? human_search_mix(h, rating)
                                           : mix_at(h, h.search_mix_play_weights, rating, false);
}

double human_play_filter(const HumanHeadInfo& h, int rating) {
  return mix_at(h, h.search_filter_play_weights, rating, false);
}

int human_search_visits(const HumanHeadInfo& h, bool play) {
  return play && h.search_play_visits > 0 ? h.search_play_visits : h.search_mix_visits;
}

std::vector<int> human_rating_knots(const HumanHeadInfo& h) {
  std::vector<int> knots;
  for (int k = 0; k < kHumanRatingKnots; ++k)
    knots.push_back(h.rating_min + int(std::lround(double(k) * (h.rating_max - h.rating_min) /
                                                   (kHumanRatingKnots - 1))));
  return knots;
}

std::array<float, kHumanRatingInputs> human_rating_inputs(const HumanHeadInfo& h, int rating,
                                                          bool titled) {
  std::array<float, kHumanRatingInputs> in{};
  const double r = titled ? h.rating_max : std::clamp(rating, h.rating_min, h.rating_max);
  const double u = (r - h.rating_min) / double(h.rating_max - h.rating_min);  // 0..1
  in[0] = float(2 * u - 1);
  const double spacing = 1.0 / (kHumanRatingKnots - 1);
  for (int k = 0; k < kHumanRatingKnots; ++k)
    in[size_t(1 + k)] = float(std::max(0.0, 1 - std::abs(u - k * spacing) / spacing));
  in[kHumanRatingInputs - 1] = titled ? 1.f : 0.f;
  return in;
}

std::vector<double> rating_log_prior(const HumanHeadInfo& h, const std::vector<int>& grid) {
  std::vector<double> out;
  if (h.rating_prior.empty()) return out;
  const size_t bins = h.rating_prior.size();
  auto density = [&](size_t bin) { return h.rating_prior[bin] + 0.5; };
  for (int r : grid) {
    // Position among the bins' centres, in bins.
    const double x = (r - h.rating_min) / double(kHumanPriorBinWidth) - 0.5;
    double d;
    if (x <= 0) {
      d = density(0);
    } else if (x >= double(bins - 1)) {
      d = density(bins - 1);
    } else {
      const size_t i = size_t(x);
      const double f = x - double(i);
      d = (1 - f) * density(i) + f * density(i + 1);
    }
    out.push_back(std::log(d));
  }
  return out;
}

namespace {

// A posterior given as (unnormalised) masses at the grid's points: its median and
// 2.5 % / 97.5 % quantiles, each point's mass spread evenly over the half-way marks to
// its neighbours (the grid's ends at the ends); `loglik` the log-likelihood at the point
// of highest mass.
RatingEstimate summarise_posterior(const std::vector<int>& grid, const std::vector<double>& mass,
                                   const std::vector<double>& ll) {
  const size_t n = grid.size();
  const size_t best = size_t(std::max_element(mass.begin(), mass.end()) - mass.begin());
  RatingEstimate e;
  e.loglik = ll[best];
  if (n == 1) {
    e.rating = e.low = e.high = grid[0];
    return e;
  }
  std::vector<double> edge(n + 1);
  edge[0] = grid[0];
  edge[n] = grid[n - 1];
  for (size_t i = 1; i < n; ++i) edge[i] = 0.5 * (grid[i - 1] + grid[i]);
  double total = 0;
  for (double m : mass) total += m;
  auto quantile = [&](double q) {
    double below = 0;
    for (size_t i = 0; i < n; ++i) {
      const double m = mass[i] / total;
      if (below + m >= q && m > 0) return edge[i] + (edge[i + 1] - edge[i]) * (q - below) / m;
      below += m;
    }
    return edge[n];
  };
  e.rating = quantile(0.5);
  e.low = quantile(0.025);
  e.high = quantile(0.975);
  return e;
}

// Where rating r falls among the prior's bins' centres: the two bins around it and the
// weight of the upper one (flat beyond the outer centres: both bins the same).
struct BinPosition {
  size_t lower = 0, upper = 0;
  double f = 0;
};
BinPosition bin_position(const HumanHeadInfo& h, size_t bins, int r) {
  const double x = (r - h.rating_min) / double(kHumanPriorBinWidth) - 0.5;
  if (x <= 0) return {0, 0, 0};
  if (x >= double(bins - 1)) return {bins - 1, bins - 1, 0};
  const size_t i = size_t(x);
  return {i, i + 1, x - double(i)};
}

}  // namespace

RatingEstimate estimate_rating_posterior(const std::vector<int>& grid,
                                         const std::vector<double>& ll,
                                         const std::vector<double>& log_prior) {
  if (log_prior.empty()) return estimate_rating(grid, ll);
  if (grid.empty() || grid.size() != ll.size() || grid.size() != log_prior.size())
    throw std::invalid_argument(
        "estimate_rating_posterior: grid, log-likelihoods and prior differ");
  const size_t n = grid.size();
  std::vector<double> lp(n);
  for (size_t i = 0; i < n; ++i) lp[i] = ll[i] + log_prior[i];
  const double top = *std::max_element(lp.begin(), lp.end());
  std::vector<double> mass(n);
  for (size_t i = 0; i < n; ++i) mass[i] = std::exp(lp[i] - top);
  return summarise_posterior(grid, mass, ll);
}

std::vector<double> rating_pair_log_density(const HumanHeadInfo& h, const std::vector<int>& grid) {
  if (h.rating_pair_prior.empty()) return {};
  const size_t bins = size_t(human_prior_bins(h));
  if (h.rating_pair_prior.size() != bins * bins)
    throw std::invalid_argument("rating_pair_log_density: " + human_head_problem(h));
  // The smoothed density per pair of bins: symmetric counts, a separable Gaussian, + 1/2.
  std::vector<double> density(bins * bins);
  for (size_t i = 0; i < bins; ++i)
    for (size_t j = 0; j < bins; ++j)
      density[i * bins + j] =
          0.5 * (double(h.rating_pair_prior[i * bins + j]) + h.rating_pair_prior[j * bins + i]);
  const int reach = int(std::ceil(3 * kPairPriorSmoothingBins));
  std::vector<double> kernel(size_t(2 * reach + 1));
  for (int k = -reach; k <= reach; ++k)
    kernel[size_t(k + reach)] =
        std::exp(-0.5 * (k / kPairPriorSmoothingBins) * (k / kPairPriorSmoothingBins));
  // One dimension at a time: out[i][j] from in[i + k][j] (rows) or in[i][j + k] (columns).
  auto smooth = [&](const std::vector<double>& in, bool along_rows) {
    std::vector<double> out(in.size());
    for (size_t i = 0; i < bins; ++i)
      for (size_t j = 0; j < bins; ++j) {
        double sum = 0, weight = 0;
        for (int k = -reach; k <= reach; ++k) {
          const long at = long(along_rows ? i : j) + k;
          if (at < 0 || at >= long(bins)) continue;
          const double w = kernel[size_t(k + reach)];
          sum += w * (along_rows ? in[size_t(at) * bins + j] : in[i * bins + size_t(at)]);
          weight += w;
        }
        out[i * bins + j] = sum / weight;
      }
    return out;
  };
  density = smooth(smooth(density, true), false);
  for (double& d : density) d += 0.5;

  const size_t n = grid.size();
  std::vector<BinPosition> at(n);
  for (size_t g = 0; g < n; ++g) at[g] = bin_position(h, bins, grid[g]);
  auto pair_density = [&](const BinPosition& a, const BinPosition& b) {
    auto cell = [&](size_t i, size_t j) { return density[i * bins + j]; };
    return (1 - a.f) * ((1 - b.f) * cell(a.lower, b.lower) + b.f * cell(a.lower, b.upper)) +
           a.f * ((1 - b.f) * cell(a.upper, b.lower) + b.f * cell(a.upper, b.upper));
  };
  std::vector<double> out(n * n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) out[a * n + b] = std::log(pair_density(at[a], at[b]));
  return out;
}

std::array<RatingEstimate, 2> estimate_ratings_jointly(const std::vector<int>& grid,
                                                       const std::vector<double>& ll_white,
                                                       const std::vector<double>& ll_black,
                                                       const HumanHeadInfo& h) {
  if (h.rating_pair_prior.empty()) {
    const std::vector<double> log_prior = rating_log_prior(h, grid);
    return {estimate_rating_posterior(grid, ll_white, log_prior),
            estimate_rating_posterior(grid, ll_black, log_prior)};
  }
  if (grid.empty() || grid.size() != ll_white.size() || grid.size() != ll_black.size())
    throw std::invalid_argument("estimate_ratings_jointly: grid and log-likelihoods differ");
  const size_t bins = size_t(human_prior_bins(h));
  if (h.rating_pair_prior.size() != bins * bins)
    throw std::invalid_argument("estimate_ratings_jointly: " + human_head_problem(h));
  const size_t n = grid.size();
  const std::vector<double> log_density = rating_pair_log_density(h, grid);
  std::vector<double> lp(n * n);
  double top = -std::numeric_limits<double>::infinity();
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      const double v = log_density[a * n + b] + ll_white[a] + ll_black[b];
      lp[a * n + b] = v;
      top = std::max(top, v);
    }
  std::vector<double> white(n, 0.0), black(n, 0.0);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      const double m = std::exp(lp[a * n + b] - top);
      white[a] += m;
      black[b] += m;
    }
  return {summarise_posterior(grid, white, ll_white), summarise_posterior(grid, black, ll_black)};
}

std::vector<int> human_rating_grid(const HumanHeadInfo& h, int step) {
  if (step <= 0) throw std::invalid_argument("rating grid step must be positive");
  std::vector<int> grid;
  for (int r = h.rating_min; r < h.rating_max; r += step) grid.push_back(r);
  grid.push_back(h.rating_max);
  return grid;
}

RatingEstimate estimate_rating(const std::vector<int>& grid, const std::vector<double>& ll) {
  if (grid.empty() || grid.size() != ll.size())
    throw std::invalid_argument("estimate_rating: grid and log-likelihoods differ in size");
  const size_t n = grid.size();
  const size_t best = size_t(std::max_element(ll.begin(), ll.end()) - ll.begin());
  RatingEstimate e;
  e.loglik = ll[best];
  e.rating = grid[best];
  if (best > 0 && best + 1 < n) {
    // The vertex of the parabola through the three points (equal spacing not assumed).
    const double x0 = grid[best - 1], x1 = grid[best], x2 = grid[best + 1];
    const double y0 = ll[best - 1], y1 = ll[best], y2 = ll[best + 1];
    const double d = (x0 - x1) * (x0 - x2) * (x1 - x2);
    const double a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / d;
    const double b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / d;
    if (a < 0) e.rating = std::clamp(-b / (2 * a), x0, x2);
  }
  const double cut = ll[best] - 1.92;
  e.low = grid.front();
  for (size_t i = best; i > 0; --i)
    if (ll[i - 1] < cut) {
      e.low = grid[i - 1] + (grid[i] - grid[i - 1]) * (cut - ll[i - 1]) / (ll[i] - ll[i - 1]);
      break;
    }
  e.high = grid.back();
  for (size_t i = best; i + 1 < n; ++i)
    if (ll[i + 1] < cut) {
      e.high = grid[i] + (grid[i + 1] - grid[i]) * (ll[i] - cut) / (ll[i] - ll[i + 1]);
      break;
    }
  return e;
}

}  // namespace kz

namespace kz {

namespace {
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2 + 1;
    i = j + 1;
  }
  return r;
}
}  // namespace

double spearman_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  const auto ra = ranks(a), rb = ranks(b);
  const double n = double(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < ra.size(); ++i) ma += ra[i], mb += rb[i];
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace kz
