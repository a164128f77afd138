#include "train/elo.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "core/atomic_file.h"
#include "train/csv.h"

namespace kz {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEloScale = 400.0;  // logistic Elo: 400 points = 10:1 odds
const double kLn10 = std::log(10.0);

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

void check_confidence(double c) {
  if (!(c > 0 && c < 1)) throw std::invalid_argument("confidence must be in (0, 1)");
}

// Mean and variance of a discrete distribution of scores given by (value, weight) pairs.
void weighted_stats(const double* values, const double* weights, int k, double& n, double& mean,
                    double& var) {
  n = 0;
  mean = 0;
  var = 0;
  for (int i = 0; i < k; ++i) n += weights[i];
  if (n <= 0) return;
  for (int i = 0; i < k; ++i) mean += weights[i] * values[i];
  mean /= n;
  for (int i = 0; i < k; ++i) var += weights[i] * (values[i] - mean) * (values[i] - mean);
  var /= n;
}

EloEstimate make_estimate(int64_t n, double score, double per_sample_var, double confidence) {
  check_confidence(confidence);
  EloEstimate e;
  e.n = n;
  e.score = score;
  e.elo = elo_from_score(score);
  if (n == 0) {
    e.elo_lo = -kInf;
    e.elo_hi = kInf;
    return e;
  }
  e.score_stderr = std::sqrt(per_sample_var / double(n));
  const double z = normal_quantile(0.5 + confidence / 2);
  e.elo_lo = elo_from_score(std::clamp(score - z * e.score_stderr, 0.0, 1.0));
  e.elo_hi = elo_from_score(std::clamp(score + z * e.score_stderr, 0.0, 1.0));
  return e;
}

SprtResult sprt_from_stats(double n, double mean, double var, int64_t samples,
                           const SprtParams& p) {
  if (!(p.alpha > 0 && p.alpha < 1 && p.beta > 0 && p.beta < 1))
    throw std::invalid_argument("SPRT: alpha and beta must be in (0, 1)");
  if (!(p.elo0 < p.elo1)) throw std::invalid_argument("SPRT: elo0 must be below elo1");
  SprtResult r;
  r.lower = std::log(p.beta / (1 - p.alpha));
  r.upper = std::log((1 - p.beta) / p.alpha);
  const double s0 = score_from_elo(p.elo0), s1 = score_from_elo(p.elo1);
  r.llr = var > 0 ? n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var) : 0.0;
  if (samples < p.min_samples)
    r.decision = SprtDecision::kContinue;
  else if (r.llr >= r.upper)
    r.decision = SprtDecision::kAcceptH1;
  else if (r.llr <= r.lower)
    r.decision = SprtDecision::kAcceptH0;
  return r;
}

void check_counts(std::initializer_list<int64_t> counts) {
  for (int64_t c : counts)
    if (c < 0) throw std::invalid_argument("result counts must not be negative");
}

}  // namespace

double WDL::score() const {
  const int64_t n = games();
  return n ? (double(wins) + 0.5 * double(draws)) / double(n) : 0.5;
}

int64_t Pentanomial::pairs() const {
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  return n;
}

double Pentanomial::score() const {
  const int64_t n = pairs();
  if (!n) return 0.5;
  double pts = 0;
  for (int k = 0; k < 5; ++k) pts += double(counts[k]) * k / 4.0;
  return pts / double(n);
}

double elo_from_score(double s) {
  if (s <= 0) return -kInf;
  if (s >= 1) return kInf;
  return -kEloScale * std::log10(1.0 / s - 1.0);
}

double score_from_elo(double elo) {
  return 1.0 / (1.0 + std::pow(10.0, -elo / kEloScale));
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: p must be in (0, 1)");
  // Bisection on the CDF: slow (about 100 erfc calls) but simple and accurate to the last
  // bits, and it runs a handful of times per report.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

EloEstimate estimate_elo(const WDL& r, double confidence) {
  check_counts({r.wins, r.draws, r.losses});
  const double v[3] = {1.0, 0.5, 0.0};
  const double w[3] = {double(r.wins), double(r.draws), double(r.losses)};
  double n, mean, var;
  weighted_stats(v, w, 3, n, mean, var);
  EloEstimate e = make_estimate(r.games(), r.score(), var, confidence);
  const int64_t decisive = r.wins + r.losses;
  e.los = decisive ? normal_cdf(double(r.wins - r.losses) / std::sqrt(double(decisive))) : 0.5;
  return e;
}

EloEstimate estimate_elo(const Pentanomial& r, double confidence) {
  check_counts({r.counts[0], r.counts[1], r.counts[2], r.counts[3], r.counts[4]});
  const double v[5] = {0, 0.25, 0.5, 0.75, 1};
  double w[5];
  for (int k = 0; k < 5; ++k) w[k] = double(r.counts[k]);
  double n, mean, var;
  weighted_stats(v, w, 5, n, mean, var);
  EloEstimate e = make_estimate(r.pairs(), r.score(), var, confidence);
  if (e.score_stderr > 0)
    e.los = normal_cdf((e.score - 0.5) / e.score_stderr);
  else if (r.pairs() > 0)
    e.los = e.score > 0.5 ? 1.0 : e.score < 0.5 ? 0.0 : 0.5;
  return e;
}

const char* sprt_decision_string(SprtDecision d) {
  switch (d) {
    case SprtDecision::kAcceptH0:
      return "H0";
    case SprtDecision::kAcceptH1:
      return "H1";
    default:
      return "continue";
  }
}

SprtResult sprt(const WDL& r, const SprtParams& p) {
  check_counts({r.wins, r.draws, r.losses});
  const double v[3] = {1.0, 0.5, 0.0};
  double w[3] = {double(r.wins), double(r.draws), double(r.losses)};
  for (double& x : w) x = x > 0 ? x : 1e-3;
  double n, mean, var;
  weighted_stats(v, w, 3, n, mean, var);
  if (r.games() == 0) n = 0;
  return sprt_from_stats(n, mean, var, r.games(), p);
}

SprtResult sprt(const Pentanomial& r, const SprtParams& p) {
  check_counts({r.counts[0], r.counts[1], r.counts[2], r.counts[3], r.counts[4]});
  const double v[5] = {0, 0.25, 0.5, 0.75, 1};
  double w[5];
  for (int k = 0; k < 5; ++k) w[k] = r.counts[k] > 0 ? double(r.counts[k]) : 1e-3;
  double n, mean, var;
  weighted_stats(v, w, 5, n, mean, var);
  if (r.pairs() == 0) n = 0;
  return sprt_from_stats(n, mean, var, r.pairs(), p);
}

// ---------------------------------------------------------------------------------
// Ladder

int generation_from_name(const std::string& name) {
  // The alpha-beta baseline "ab:4" is a fixed player, not generation 4.
  if (name.rfind("ab:", 0) == 0) return -1;
  int end = int(name.size()) - 1;
  while (end >= 0 && !std::isdigit(static_cast<unsigned char>(name[end]))) --end;
  if (end < 0) return -1;
  int begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
  // Leading zeros do not count towards the digit limit ("gen000012").
  while (begin < end && name[begin] == '0') ++begin;
  if (end - begin >= 9) return -1;  // would overflow int
  return std::stoi(name.substr(begin, end - begin + 1));
}

std::string chain_from_name(const std::string& name) {
  if (generation_from_name(name) < 0) return "";
  size_t end = name.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  return name.substr(0, end);
}

namespace {

// Solves A x = b in place by Gaussian elimination with partial pivoting. Returns false
// when A is singular to working precision.
bool solve(std::vector<std::vector<double>> a, std::vector<double>& b) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r][c]) > std::abs(a[piv][c])) piv = r;
    if (!(std::abs(a[piv][c]) > 1e-300)) return false;
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      if (f == 0) continue;
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  for (size_t c = n; c-- > 0;) {
    double s = b[c];
    for (size_t k = c + 1; k < n; ++k) s -= a[c][k] * b[k];
    b[c] = s / a[c][c];
  }
  return true;
}

struct Edge {
  int a, b;
  double points;  // a's points, prior included
  double games;   // prior included
};

double log_likelihood(const std::vector<Edge>& edges, const std::vector<double>& elo) {
  double ll = 0;
  for (const Edge& e : edges) {
    const double x = kLn10 / kEloScale * (elo[e.a] - elo[e.b]);
    // log p = -log(1 + e^-x), log(1 - p) = -log(1 + e^x), computed without overflow.
    const double log_p = -std::log1p(std::exp(-std::abs(x))) - std::max(-x, 0.0);
    const double log_q = -std::log1p(std::exp(-std::abs(x))) - std::max(x, 0.0);
    ll += e.points * log_p + (e.games - e.points) * log_q;
  }
  return ll;
}

// Gradient and negative Hessian of the log-likelihood over the free models (all but the
// anchor), indexed by free[i] = model index.
void derivatives(const std::vector<Edge>& edges, const std::vector<double>& elo,
                 const std::vector<int>& slot, size_t nfree, std::vector<double>& grad,
                 std::vector<std::vector<double>>& neg_hess) {
  const double c = kLn10 / kEloScale;
  grad.assign(nfree, 0.0);
  neg_hess.assign(nfree, std::vector<double>(nfree, 0.0));
  for (const Edge& e : edges) {
    const double p = 1.0 / (1.0 + std::exp(-c * (elo[e.a] - elo[e.b])));
    const double g = c * (e.points - e.games * p);
    const double h = c * c * e.games * p * (1 - p);
    const int ia = slot[e.a], ib = slot[e.b];
    if (ia >= 0) {
      grad[ia] += g;
      neg_hess[ia][ia] += h;
    }
    if (ib >= 0) {
      grad[ib] -= g;
      neg_hess[ib][ib] += h;
    }
    if (ia >= 0 && ib >= 0) {
      neg_hess[ia][ib] -= h;
      neg_hess[ib][ia] -= h;
    }
  }
}

// The models of a ladder, numbered in order of first appearance, and the edges between
// them: one per listed pair with games or a prior, its points and games prior included.
struct LadderGraph {
  std::map<std::string, int> index;  // model name -> number
  std::vector<std::string> names;    // by number
  std::vector<Edge> edges;
  std::vector<double> real_games, real_points;  // by number, without the prior
};

// The graph of `results`, with `prior_draws` virtual draws on every pair. Throws
// std::invalid_argument for negative counts and a model playing itself.
LadderGraph ladder_graph(const std::vector<PairResult>& results, double prior_draws) {
  LadderGraph g;
  auto id = [&](const std::string& n) {
    auto [it, inserted] = g.index.emplace(n, int(g.names.size()));
    if (inserted) g.names.push_back(n);
    return it->second;
  };
  for (const PairResult& r : results) {
    check_counts({r.wins, r.draws, r.losses});
    if (r.a == r.b) throw std::invalid_argument("ladder: model '" + r.a + "' plays itself");
    const int a = id(r.a), b = id(r.b);
    g.real_games.resize(g.names.size(), 0.0);
    g.real_points.resize(g.names.size(), 0.0);
    const double n = double(r.wins + r.draws + r.losses);
    const double pts = double(r.wins) + 0.5 * double(r.draws);
    g.real_games[a] += n;
    g.real_games[b] += n;
    g.real_points[a] += pts;
    g.real_points[b] += n - pts;
    if (n + prior_draws > 0) g.edges.push_back({a, b, pts + 0.5 * prior_draws, n + prior_draws});
  }
  return g;
}

// Every model must be linked to the anchor (number `anchor`, called `anchor_name`) by
// games (or prior) actually weighing in: otherwise its Elo is not determined. Throws
// std::invalid_argument naming the first model in number order that is not.
void check_linked_to_anchor(const LadderGraph& g, int anchor, const std::string& anchor_name) {
  const size_t m = g.names.size();
  std::vector<std::vector<int>> adj(m);
  for (const Edge& e : g.edges) {
    adj[e.a].push_back(e.b);
    adj[e.b].push_back(e.a);
  }
  std::vector<bool> seen(m, false);
  std::vector<int> stack{anchor};
  seen[anchor] = true;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int w : adj[v]) {
      if (seen[w]) continue;
      seen[w] = true;
      stack.push_back(w);
    }
  }
  for (size_t i = 0; i < m; ++i)
    if (!seen[i])
      throw std::invalid_argument("ladder: model '" + g.names[i] +
                                  "' has no chain of games to the anchor '" + anchor_name + "'");
}

// Maximises the likelihood of `edges` over the Elo of the free models (slot[i] >= 0,
// `nfree` of them; the anchor stays at 0) by Newton's method from `elo`, at most
// `max_iterations` steps. Leaves the fit in `elo` and sets the fit's iterations,
// convergence and log-likelihood.
void maximise_likelihood(const std::vector<Edge>& edges, const std::vector<int>& slot, size_t nfree,
                         int max_iterations, std::vector<double>& elo, LadderFit& fit) {
  const size_t m = elo.size();
  std::vector<double> grad;
  std::vector<std::vector<double>> neg_hess;
  double ll = log_likelihood(edges, elo);
  for (fit.iterations = 0; fit.iterations < max_iterations && nfree > 0;) {
    ++fit.iterations;
    derivatives(edges, elo, slot, nfree, grad, neg_hess);
    std::vector<double> step = grad;
    if (!solve(neg_hess, step)) break;
    // Newton's step, halved until the likelihood does not drop (it is concave, so a short
    // enough step always helps); far from the optimum full steps can overshoot.
    double scale = 1.0, next_ll = ll;
    std::vector<double> next(m);
    for (int tries = 0; tries < 60; ++tries, scale *= 0.5) {
      for (size_t i = 0; i < m; ++i) next[i] = slot[i] >= 0 ? elo[i] + scale * step[slot[i]] : 0;
      next_ll = log_likelihood(edges, next);
      if (next_ll >= ll - 1e-12 * std::abs(ll)) break;
    }
    double max_change = 0;
    for (size_t i = 0; i < m; ++i) max_change = std::max(max_change, std::abs(next[i] - elo[i]));
    elo = next;
    ll = next_ll;
    if (max_change < 1e-7) {
      fit.converged = true;
      break;
    }
  }
  if (nfree == 0) fit.converged = true;
  fit.log_likelihood = ll;
}

// The ratings at the fitted `elo`, in number order, with intervals at `confidence` from
// the covariance: the inverse of the negative Hessian, one column at a time.
std::vector<LadderRating> ratings_with_intervals(const LadderGraph& g,
                                                 const std::vector<double>& elo,
                                                 const std::vector<int>& slot, size_t nfree,
                                                 double confidence) {
  std::vector<double> grad;
  std::vector<std::vector<double>> neg_hess;
  derivatives(g.edges, elo, slot, nfree, grad, neg_hess);
  const double z = normal_quantile(0.5 + confidence / 2);
  std::vector<LadderRating> ratings;
  for (size_t i = 0; i < g.names.size(); ++i) {
    LadderRating r;
    r.name = g.names[i];
    r.generation = generation_from_name(r.name);
    r.elo = elo[i];
    if (slot[i] >= 0) {
      std::vector<double> e(nfree, 0.0);
      e[slot[i]] = 1.0;
      const double var = solve(neg_hess, e) ? e[slot[i]] : kInf;
      r.stderr_elo = var > 0 ? std::sqrt(var) : kInf;
    }
    r.elo_lo = r.elo - z * r.stderr_elo;
    r.elo_hi = r.elo + z * r.stderr_elo;
    r.games = int64_t(g.real_games[i]);
    r.score = g.real_games[i] > 0 ? g.real_points[i] / g.real_games[i] : 0.0;
    ratings.push_back(r);
  }
  return ratings;
}

}  // namespace

LadderFit fit_ladder(const std::vector<PairResult>& results, const LadderOptions& options) {
  check_confidence(options.confidence);
  if (!(options.prior_draws >= 0)) throw std::invalid_argument("ladder: prior_draws must be >= 0");

  const LadderGraph g = ladder_graph(results, options.prior_draws);
  auto anchor_it = g.index.find(options.anchor);
  if (anchor_it == g.index.end())
    throw std::invalid_argument("ladder: anchor '" + options.anchor + "' is in no match");
  const int anchor = anchor_it->second;
  check_linked_to_anchor(g, anchor, options.anchor);

  // The anchor's Elo is fixed at 0; the others are free, numbered in slot.
  const size_t m = g.names.size();
  std::vector<int> slot(m, -1);
  size_t nfree = 0;
  for (size_t i = 0; i < m; ++i)
    if (int(i) != anchor) slot[i] = int(nfree++);

  LadderFit fit;
  std::vector<double> elo(m, 0.0);
  maximise_likelihood(g.edges, slot, nfree, options.max_iterations, elo, fit);
  fit.ratings = ratings_with_intervals(g, elo, slot, nfree, options.confidence);
  std::sort(fit.ratings.begin(), fit.ratings.end(), [](const auto& x, const auto& y) {
    return std::tie(x.generation, x.name) < std::tie(y.generation, y.name);
  });
  return fit;
}

std::string ladder_table_text(const LadderFit& fit) {
  std::vector<const LadderRating*> order;
  size_t width = 5;
  for (const auto& r : fit.ratings) {
    order.push_back(&r);
    width = std::max(width, r.name.size());
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->elo > b->elo; });
  std::ostringstream s;
  char line[512];
  std::snprintf(line, sizeof line, "%4s  %-*s  %5s  %8s  %19s  %7s  %6s\n", "rank", int(width),
                "model", "gen", "elo", "95% interval", "games", "score");
  s << line;
  int rank = 0;
  for (const LadderRating* r : order) {
    const std::string gen = r->generation >= 0 ? std::to_string(r->generation) : "-";
    char interval[64];
    std::snprintf(interval, sizeof interval, "[%7.1f, %7.1f]", r->elo_lo, r->elo_hi);
    std::snprintf(line, sizeof line, "%4d  %-*s  %5s  %+8.1f  %19s  %7lld  %5.1f%%\n", ++rank,
                  int(width), r->name.c_str(), gen.c_str(), r->elo, interval,
                  static_cast<long long>(r->games), 100.0 * r->score);
    s << line;
  }
  if (!fit.converged) s << "(warning: the fit did not converge)\n";
  return s.str();
}

void write_ladder_csv(const std::string& path, const std::vector<LadderRating>& ratings) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "name,generation,elo,elo_lo,elo_hi,stderr,games,score,shipped\n";
    char buf[256];
    for (const auto& r : ratings) {
      std::snprintf(buf, sizeof buf, ",%d,%.3f,%.3f,%.3f,%.3f,%lld,%.6f,%d\n", r.generation, r.elo,
                    r.elo_lo, r.elo_hi, r.stderr_elo, static_cast<long long>(r.games), r.score,
                    r.shipped ? 1 : 0);
      out << csv_escape(r.name) << buf;
    }
  });
}

std::vector<LadderRating> read_ladder_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the ladder table");
  std::string line;
  std::vector<std::string> f;
  if (!std::getline(in, line) || !csv_split(line, f))
    throw std::runtime_error(path + ": empty or malformed ladder table header");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
  for (const char* need : {"name", "elo"})
    if (!col.count(need))
      throw std::runtime_error(path + ": ladder table has no '" + need + "' column");
  std::vector<LadderRating> out;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (!csv_split(line, f)) throw std::runtime_error(where + "malformed CSV line");
    auto num = [&](const char* name, double fallback) {
      auto it = col.find(name);
      if (it == col.end() || it->second >= f.size() || f[it->second].empty()) return fallback;
      try {
        size_t used = 0;
        const double v = std::stod(f[it->second], &used);
        if (used != f[it->second].size()) throw std::invalid_argument("junk");
        return v;
      } catch (const std::exception&) {
        throw std::runtime_error(where + "column '" + name + "' is not a number: '" +
                                 f[it->second] + "'");
      }
    };
    LadderRating r;
    if (col["name"] >= f.size()) throw std::runtime_error(where + "missing the name");
    r.name = f[col["name"]];
    r.elo = num("elo", 0);
    const double gen = num("generation", generation_from_name(r.name));
    r.generation = std::isfinite(gen) && std::abs(gen) < 1e9 ? int(gen) : -1;
    r.elo_lo = num("elo_lo", r.elo);
    r.elo_hi = num("elo_hi", r.elo);
    r.stderr_elo = num("stderr", 0);
    const double games = num("games", 0);
    r.games = std::isfinite(games) && std::abs(games) < 9e18 ? int64_t(games) : 0;
    r.score = num("score", 0);
    r.shipped = num("shipped", 0) != 0;
    out.push_back(r);
  }
  return out;
}

}  // namespace kz
