#include "tools/perfect_check.h"

#include <algorithm>
#include <cstdio>
#include <random>

namespace kz::cli {

void MarginTally::add(int best, int got) {
  ++n;
  const auto cls = [](int m) { return m > 0 ? 1 : m < 0 ? -1 : 0; };
  keep_result += cls(best) == cls(got);
  keep_margin += best == got;
  lost += best - got;
  worst = std::max(worst, best - got);
}

std::string MarginTally::text(const std::string& what) const {
  char buf[256];
  if (n == 0)
    std::snprintf(buf, sizeof buf, "%s: no positions\n", what.c_str());
  else
    std::snprintf(
        buf, sizeof buf,
        "%s: %d positions, result kept %.1f %%, margin kept %.1f %%, mean loss %.2f, worst %d\n",
        what.c_str(), n, 100.0 * keep_result / n, 100.0 * keep_margin / n, double(lost) / n, worst);
  return buf;
}

namespace {

// The margin of the move `move` in `p` for its mover, by `referee` (kUnknownMargin when
// not solved). The reference needs only two values, the position's and the played move's
// (the move's child solved on its own), not every move's, which costs about three times
// as much in the opening.
int played_margin(KalahSolver& referee, const SolveLimits& limits, const Position& p, int move,
                  const SolveResult& ref) {
  if (!ref.solved) return kUnknownMargin;
  if (ref.best_move == move) return ref.margin;
  Position c = p;
  c.play(move);
  const SolveResult after = referee.solve(c, limits);
  if (!after.solved) return kUnknownMargin;
  return c.to_move == p.to_move ? after.margin : -after.margin;
}

}  // namespace

PositionsCheck check_positions(const GameSpec& spec, Player& player, KalahSolver& referee,
                               const SolveLimits& limits, int positions, uint64_t seed,
                               const std::function<void(const PositionsCheck&)>& after_game) {
  PositionsCheck out;
  std::mt19937_64 rng(seed);
  // The level's own games: it plays both sides after two random opening plies (so that
  // the games differ), and every position it meets is judged.
  while (out.all.n < positions) {
    ++out.games;
    player.new_game();
    Position p = random_opening(Position::start(spec), 2, rng);
    while (!p.is_over() && out.all.n < positions) {
      const ThinkResult r = player.think(p, {});
      out.think_s += r.seconds;
      ++out.think_n;
      const SolveResult ref = referee.solve(p, limits);
      const int played = played_margin(referee, limits, p, r.best_move, ref);
      if (played == kUnknownMargin) {
        ++out.unsolved;
      } else {
        out.all.add(ref.margin, played);
        const int total = spec.total_seeds();
        if (2 * p.store[0] > total || 2 * p.store[1] > total) out.decided.add(ref.margin, played);
      }
      p.play(r.best_move);
    }
    if (after_game) after_game(out);
  }
  return out;
}

std::optional<int> perfect_start_margin(const GameSpec& spec, KalahSolver& referee,
                                        const SolveLimits& limits) {
  const SolveResult start = referee.solve(Position::start(spec), limits);
  if (!start.solved) return std::nullopt;
  return start.margin;
}

int play_against_perfect(const GameSpec& spec, Player& player, KalahSolver& referee, int side) {
  player.new_game();
  Position p = Position::start(spec);
  while (!p.is_over())
    p.play(p.to_move == side ? player.think(p, {}).best_move : referee.solve(p, {}).best_move);
  return side == 0 ? p.margin() : -p.margin();
}

}  // namespace kz::cli
