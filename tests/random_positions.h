// Positions to evaluate in the network tests: reached by random play from the start
// (core's random_opening, so a seed means the same positions everywhere), undecided.
#pragma once

#include <random>
#include <vector>

#include "core/position.h"

namespace kz::test {

// `n` undecided positions, each after rng() % `ply_bound` random plies from the start
// (fewer where the game was decided sooner: that one is drawn again), from `seed`.
inline std::vector<Position> undecided_random_positions(const GameSpec& spec, int n, uint64_t seed,
                                                        int ply_bound) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  while (int(out.size()) < n) {
    const int plies = int(rng() % uint64_t(ply_bound));
    const Position p = random_opening(Position::start(spec), plies, rng);
    if (!p.is_decided()) out.push_back(p);
  }
  return out;
}

}  // namespace kz::test
