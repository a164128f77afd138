// Helpers for the train tests: real positions from random games, so shard rows pass the
// same checks self-play rows must pass.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/position.h"
#include "tests/test_util.h"  // read_bytes, write_bytes
#include "train/shard.h"

namespace kz::test {

// One random game's rows with its result, as self-play would record them (result and
// margins are filled in by ShardWriter::add_game). `marker` goes into every row's visits
// so tests can tell which shard a row came from.
struct RandomGame {
  std::vector<ShardRow> rows;
  Outcome outcome = Outcome::kDraw;
  int white_margin = 0;
  int length = 0;
};

inline RandomGame random_game(const GameSpec& spec, std::mt19937_64& rng, uint32_t marker,
                              int max_plies = 400) {
  RandomGame g;
  Position p = Position::start(spec);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  int ply = 0;
  while (!p.is_over() && ply < max_plies) {
    ShardRow r;
    r.pos = p;
    const uint32_t mask = p.legal_mask();
    std::array<uint32_t, kMaxMoves> counts{};
    for (int i = 0; i < kMaxMoves; ++i)
      if (mask >> i & 1) counts[i] = 1 + uint32_t(rng() % 50);
    r.set_policy_from_visits(counts);
    r.visits = marker;
    r.root_win = u(rng);
    r.root_loss = u(rng) * (1 - r.root_win);
    r.root_draw = 1 - r.root_win - r.root_loss;
    r.root_margin = (u(rng) - 0.5f) * 20;
    r.ply = uint16_t(ply);
    r.flags = (rng() & 1) ? ShardRow::kRowFullSearch : 0;
    std::vector<int> legal;
    for (int i = 0; i < kMaxMoves; ++i)
      if (mask >> i & 1) legal.push_back(i);
    const int move = legal[rng() % legal.size()];
    r.played_move = int8_t(move);
    g.rows.push_back(r);
    p.play(move);
    ++ply;
  }
  g.outcome = p.outcome();
  if (g.outcome == Outcome::kOngoing) g.outcome = Outcome::kDraw;  // capped game
  g.white_margin = p.margin();
  g.length = ply;
  return g;
}

// A shard of `games` random games (random_game, every row marked `marker`) written to
// `path`, as a generation-0 self-play shard.
inline void write_random_shard(const GameSpec& spec, std::mt19937_64& rng, int games,
                               const std::string& path, uint32_t marker = 0) {
  ShardWriter w(spec, 0);
  for (int g = 0; g < games; ++g) {
    RandomGame game = random_game(spec, rng, marker);
    w.add_game(std::move(game.rows), game.outcome, game.white_margin, game.length);
  }
  w.write(path);
}

// Files in a folder (recursively), for "no temporary file remains" checks.
inline std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path().filename().string());
  return out;
}

}  // namespace kz::test
