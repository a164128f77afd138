#include "nn/human_rating.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kz {

std::string human_head_problem(const HumanHeadInfo& h) {
  if (h.rating_min < 100 || h.rating_max > 3500 || h.rating_min >= h.rating_max)
    return "human rating range " + std::to_string(h.rating_min) + ".." +
           std::to_string(h.rating_max) + " is not a range inside 100..3500";
  if (h.rating_mean < h.rating_min || h.rating_mean > h.rating_max)
    return "human mean rating " + std::to_string(h.rating_mean) + " is outside its range";
  return "";
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
