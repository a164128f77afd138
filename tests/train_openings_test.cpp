// Self-play's openings (train/selfplay.h): a PGN cut at `openings_plies`, the recorded
// Togyz games of ../shared/data as an openings file, and `openings_fraction`, the share
// of games that start from the file (the rest start from random plies).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "tests/test_util.h"
#include "train/config.h"
#include "train/selfplay.h"
#include "train/shard.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

// Two Togyz games (the first plies of the first two games of the PlayOK file).
const char* const kTwoGames = R"([Event "?"]
[White "a"]
[Black "b"]
[Result "*"]

1. 76(10) 87(2) 2. 99 91 3. 78 91(14) 4. 45(22) 77(16) *

[Event "?"]
[White "b"]
[Black "a"]
[Result "*"]

1. 98(10) 98(10) 2. 11 12(22) 3. 89 12 4. 56(22) 78(24) *
)";

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(SelfplayOpenings, PgnGamesAreCutAtThePlies) {
  const std::string dir = test::temp_dir("kz-openings");
  const std::string pgn = write_file(dir, "two.pgn", kTwoGames);
  const GameSpec togyz = GameSpec::togyz();
  for (int plies : {0, 1, 3, 8}) {
    const std::vector<Position> openings = load_openings(pgn, togyz, plies);
    ASSERT_EQ(openings.size(), 2u) << plies;
    // The first game's moves by hand: 76 87 99 91 78 91 45 77 (pit numbers 1-based).
    Position p = Position::start(togyz);
    const int moves[] = {7, 8, 9, 9, 7, 9, 4, 7};
    for (int i = 0; i < plies; ++i) p.play(moves[i] - 1);
    EXPECT_EQ(openings[0], p) << plies;
  }
  // A cut past a record's end gives its last position.
  EXPECT_EQ(load_openings(pgn, togyz, 50)[0], load_openings(pgn, togyz, 8)[0]);
  fs::remove_all(dir);
}

// The recorded games of ../shared/data/togyz work as an openings file: every game that
// replays gives a position, and cut at 10 plies many differ.
TEST(SelfplayOpenings, RecordedTogyzGamesAsOpenings) {
  const std::string path = test::configured_shared_data_dir() + "/togyz/tournament-2018.pgn";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const std::vector<Position> openings = load_openings(path, GameSpec::togyz(), 10);
  EXPECT_GT(openings.size(), 500u);
  std::set<std::string> distinct;
  for (const Position& p : openings) {
    EXPECT_FALSE(p.is_over());
    distinct.insert(p.to_string());
  }
  // Tournament players favour a few openings: about 200 of the 742 games are distinct
  // after 10 plies.
  EXPECT_GT(distinct.size(), 100u) << "distinct of " << openings.size();
}

// A position file with `openings_fraction` 0.5: about half the games start from one of
// its positions, the others from random plies; 1 starts every game from the file.
TEST(SelfplayOpenings, FractionMixesFileAndRandomOpenings) {
  const std::string dir = test::temp_dir("kz-openings");
  RunConfig config = load_config(test::source_dir() + "/configs/tiny.toml");
  // Two positions a random opening of one ply cannot reach (two plies from the start,
  // unless the first move gave another turn).
  std::mt19937_64 rng(3);
  std::set<std::string> file_positions;
  std::string text;
  while (file_positions.size() < 2) {
    Position p = random_opening(Position::start(config.game), 2, rng);
    if (p.to_move != 0 || p.is_over()) continue;  // White to move after 2 plies: no extra turn
    if (file_positions.insert(p.to_string()).second) text += p.to_string() + "\n";
  }
  config.selfplay.openings_file = write_file(dir, "openings.txt", text);
  config.selfplay.random_opening_plies = 1;
  config.search_threads = 1;
  auto first_positions = [&](float fraction, const std::string& out) {
    SelfplayOptions o;
    o.config = config;
    o.config.selfplay.openings_fraction = fraction;
    o.out_dir = dir + "/" + out;
    o.show_progress = false;
    const SelfplayReport r = play_selfplay_games(o, "w", 0, 40);
    std::map<std::string, std::string> first;  // "shard:game" -> its first position
    for (const std::string& shard : r.shards)
      for (const ShardRow& row : ShardReader::read(shard))
        if (row.ply == 0) first[shard + ":" + std::to_string(row.game_id)] = row.pos.to_string();
    EXPECT_EQ(first.size(), 40u);
    int from_file = 0;
    for (const auto& [game, pos] : first) from_file += file_positions.count(pos) > 0;
    return from_file;
  };
  EXPECT_EQ(first_positions(1, "all"), 40);
  const int half = first_positions(0.5f, "half");
  EXPECT_GT(half, 10);
  EXPECT_LT(half, 30);
  EXPECT_EQ(first_positions(0, "none"), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
