#include "mcts/accuracy.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kz {

double move_accuracy(double drop) {
  const double points = 100.0 * std::max(0.0, drop);  // in percentage points, as lichess
  return std::clamp(103.1668 * std::exp(-0.04354 * points) - 3.1669, 0.0, 100.0);
}

std::optional<double> game_accuracy(std::span<const double> drops) {
  if (drops.empty()) return std::nullopt;
  double sum = 0, inverse_sum = 0;
  for (double d : drops) {
    const double a = move_accuracy(d);
    sum += a;
    inverse_sum += 1.0 / std::max(a, 1.0);
  }
  const double n = double(drops.size());
  return (sum / n + n / inverse_sum) / 2.0;
}

std::optional<double> game_accuracy(const GameAnalysis& analysis, int side) {
  std::vector<double> drops;
  for (const MoveJudgement& j : analysis.moves)
    if (j.judged && j.mover == side) drops.push_back(j.drop);
  return game_accuracy(drops);
}

}  // namespace kz
