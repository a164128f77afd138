// Match statistics for gating and the strength ladder: score and Elo with intervals,
// likelihood of superiority, the sequential probability ratio test, and a maximum
// likelihood fit of one Elo per model from many pairwise matches.
//
// Elo is the logistic scale throughout: expected score s = 1 / (1 + 10^(-elo/400)). All
// intervals are normal approximations, which is what engine-testing frameworks report and
// is accurate once a few dozen decisive games are in.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kz {

// Game results of one side of a match.
struct WDL {
  int64_t wins = 0, draws = 0, losses = 0;
  int64_t games() const { return wins + draws + losses; }
  double score() const;  // (wins + draws/2) / games; 0.5 with no games
};

// Results of game pairs played from the same opening with colours swapped, counted by the
// pair's total points: counts[k] = pairs that scored k/2 points out of 2 (k = 0: lost both,
// 1: one loss and one draw, 2: two draws or a win and a loss, 3: a win and a draw, 4: won
// both). Pairing removes the opening's bias from the variance, so intervals are tighter.
struct Pentanomial {
  std::array<int64_t, 5> counts{};
  int64_t pairs() const;
  double score() const;  // mean points per game, in [0, 1]; 0.5 with no pairs
};

double elo_from_score(double score);  // -400 log10(1/s - 1); +-infinity at 1 and 0
double score_from_elo(double elo);
// Standard normal quantile (inverse CDF) for p in (0, 1).
double normal_quantile(double p);

struct EloEstimate {
  int64_t n = 0;                  // games (WDL) or game pairs (pentanomial)
  double score = 0.5;             // mean score per game
  double score_stderr = 0;        // standard error of `score` (trinomial/pentanomial variance)
  double elo = 0;                 // elo_from_score(score)
  double elo_lo = 0, elo_hi = 0;  // interval at the requested confidence (score +- z*stderr,
                                  // clamped to [0, 1], mapped to Elo: may be +-infinity)
  double los = 0.5;               // likelihood of superiority: P(true Elo > 0)
};

// Trinomial estimate. LOS is the classic Phi((W - L) / sqrt(W + L)), which ignores draws.
EloEstimate estimate_elo(const WDL& r, double confidence = 0.95);
// Pentanomial estimate over pairs; LOS = Phi((score - 1/2) / stderr).
EloEstimate estimate_elo(const Pentanomial& r, double confidence = 0.95);

// SPRT of H0: Elo = elo0 against H1: Elo = elo1, with error rates alpha (accepting H1
// when H0 holds) and beta (accepting H0 when H1 holds).
struct SprtParams {
  double elo0 = 0;
  double elo1 = 10;
  double alpha = 0.05;
  double beta = 0.05;
  // Below this many games (WDL) or pairs (pentanomial) the decision is always "continue".
  // The approximation uses the observed variance, which collapses while a result is still
  // missing: after one win it would accept H1 outright. In simulations, checking after
  // every game, 10-30 restores the nominal error rates.
  int64_t min_samples = 20;
};

enum class SprtDecision { kContinue, kAcceptH0, kAcceptH1 };
const char* sprt_decision_string(SprtDecision d);  // "continue", "H0", "H1"

struct SprtResult {
  double llr = 0;    // log-likelihood ratio of H1 to H0
  double lower = 0;  // log(beta / (1 - alpha)): at or below it H0 is accepted
  double upper = 0;  // log((1 - beta) / alpha): at or above it H1 is accepted
  SprtDecision decision = SprtDecision::kContinue;
};

// The GSPRT normal approximation used by fishtest/OpenBench with logistic Elo:
//   LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)
// where s0, s1 are the expected scores under elo0 and elo1, m the observed mean score and
// v the observed variance of one game's (or one pair's) score. Counts of zero are replaced
// by 1e-3 for the variance, as fishtest does, so that early lopsided results still give a
// finite LLR. Throws std::invalid_argument for alpha/beta outside (0, 1) or elo0 >= elo1.
SprtResult sprt(const WDL& r, const SprtParams& p);
SprtResult sprt(const Pentanomial& r, const SprtParams& p);

// ---------------------------------------------------------------------------------
// Ladder: one Elo per model from pairwise results.

struct PairResult {
  std::string a{}, b{};                     // model names
  int64_t wins = 0, draws = 0, losses = 0;  // from a's point of view
  // What decided the games (a ladder's fingerprint of its config and budgets); "" when
  // unknown. Two matches of one pair with equal settings are the same games.
  std::string settings{};
};

struct LadderOptions {
  std::string anchor{};  // this model's Elo is fixed at 0 (e.g. generation 0)
  // Virtual draws added to every listed pair (half a point each way), a weak prior that
  // keeps the fit finite when a model won or lost every game. 0 = pure maximum likelihood.
  double prior_draws = 1.0;
  double confidence = 0.95;
  int max_iterations = 200;
};

struct LadderRating {
  std::string name;
  int generation = -1;            // generation_from_name(name) unless set otherwise
  double elo = 0;                 // relative to the anchor
  double elo_lo = 0, elo_hi = 0;  // interval from the curvature of the likelihood
  double stderr_elo = 0;          // standard error relative to the anchor (0 for the anchor)
  int64_t games = 0;              // real games played (prior excluded)
  double score = 0;               // points per game over those games
  bool shipped = false;           // was once the shipped model (`ladder --shipped`)
};

struct LadderFit {
  std::vector<LadderRating> ratings;  // sorted by generation, then name
  int iterations = 0;
  bool converged = false;
  double log_likelihood = 0;  // at the fit, prior included
};

// Bradley-Terry (logistic Elo) fit with draws counted as half a win and half a loss,
// maximised by Newton's method with step halving; the intervals come from the inverse
// Hessian (they treat a draw like half a win plus half a loss, so they are slightly wide
// when draws are common). Throws std::invalid_argument naming the problem: negative
// counts, a model playing itself, an anchor that is not in any pair, or a model with no
// chain of matches to the anchor (its Elo would be undetermined).
LadderFit fit_ladder(const std::vector<PairResult>& results, const LadderOptions& options);

// The number in a model name: the last run of digits ("gen0012" -> 12); -1 when none.
int generation_from_name(const std::string& name);
// The run a model belongs to: its name without that number ("gen0012" -> "gen",
// "blend-gen0069" -> "blend-gen"); "" for players without a generation (ab:4). A run
// continued from another one's model names its models on with the generations counted
// from the first run's generation 0, so both lie on one axis as two lines.
std::string chain_from_name(const std::string& name);

// The ladder as a fixed-width text table for terminals (one header line, one line per
// model: rank by Elo, name, generation, Elo, interval, games, score).
std::string ladder_table_text(const LadderFit& fit);

// Ladder CSV with the header "name,generation,elo,elo_lo,elo_hi,stderr,games,score,shipped"
// (shipped 1 or 0), written atomically. Throws std::runtime_error naming the file on failure.
void write_ladder_csv(const std::string& path, const std::vector<LadderRating>& ratings);
// Reads that CSV back (columns found by header name, so extra columns are fine). Throws
// std::runtime_error naming the file and line for malformed input.
std::vector<LadderRating> read_ladder_csv(const std::string& path);

}  // namespace kz
