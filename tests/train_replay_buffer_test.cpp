#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/replay_buffer.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

const GameSpec kGame = GameSpec::kalah(6, 4);

// Writes a shard of exactly `rows` rows for generation `gen`; every row's visits field is
// `marker` * 100000 + its index in the shard, so a test can tell where a row came from.
// Games are cut to 10 rows, so a shard holds rows/10 games.
std::string write_shard(const std::string& path, int gen, uint32_t marker, int rows,
                        const GameSpec& spec = kGame) {
  std::mt19937_64 rng(marker);
  ShardWriter w(spec, gen);
  int index = 0;
  while (index < rows) {
    auto g = test::random_game(spec, rng, 0, 10);
    g.rows.resize(std::min<size_t>(g.rows.size(), size_t(rows - index)));
    for (auto& r : g.rows) r.visits = marker * 100000 + uint32_t(index++);
    w.add_game(g.rows, Outcome::kDraw, 0);
  }
  fs::create_directories(fs::path(path).parent_path());
  w.write(path);
  return path;
}

void set_mtime(const std::string& path, int seconds_ago) {
  fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::seconds(seconds_ago));
}

std::multiset<uint32_t> markers(const ReplayBuffer& b, bool validation) {
  std::multiset<uint32_t> out;
  const size_t n = validation ? b.validation_size() : b.size();
  for (size_t i = 0; i < n; ++i) out.insert((validation ? b.validation_row(i) : b.row(i)).visits);
  return out;
}

std::multiset<uint32_t> all_markers(const ReplayBuffer& b) {
  auto t = markers(b, false);
  auto v = markers(b, true);
  t.insert(v.begin(), v.end());
  return t;
}

std::multiset<uint32_t> range_markers(uint32_t marker, int from, int to) {
  std::multiset<uint32_t> out;
  for (int i = from; i < to; ++i) out.insert(marker * 100000 + uint32_t(i));
  return out;
}

// Four generations of 100 rows in two worker folders; gen 3 is the newest.
std::string make_folder() {
  const std::string dir = test::temp_dir("kz-replay");
  write_shard(dir + "/worker-a/g0.kzshard", 0, 1, 100);
  write_shard(dir + "/worker-b/g1.kzshard", 1, 2, 100);
  write_shard(dir + "/worker-a/deep/g2.kzshard", 2, 3, 100);
  write_shard(dir + "/worker-b/g3.kzshard", 3, 4, 100);
  return dir;
}

TEST(TrainReplayBuffer, TakesTheMostRecentRowsUpToTheWindow) {
  const std::string dir = make_folder();
  ReplayBuffer b({.game = kGame, .window_rows = 250});
  const auto report = b.load(dir);
  EXPECT_EQ(report.shards_found, 4u);
  EXPECT_EQ(report.shards_used, 3u);
  EXPECT_TRUE(report.skipped.empty());
  EXPECT_EQ(report.newest_generation, 3);
  EXPECT_EQ(report.oldest_generation, 1);
  EXPECT_EQ(b.size(), 250u);
  EXPECT_EQ(b.validation_size(), 0u);
  // Generations 3 and 2 whole, and the last 50 rows of generation 1.
  auto expect = range_markers(4, 0, 100);
  for (auto m : range_markers(3, 0, 100)) expect.insert(m);
  for (auto m : range_markers(2, 50, 100)) expect.insert(m);
  EXPECT_EQ(all_markers(b), expect);

  ReplayBuffer all({.game = kGame});
  EXPECT_EQ(all.load(dir).shards_used, 4u);
  EXPECT_EQ(all.size(), 400u);
}

TEST(TrainReplayBuffer, GenerationWindow) {
  const std::string dir = make_folder();
  ReplayBuffer b({.game = kGame, .window_generations = 2});
  const auto report = b.load(dir);
  EXPECT_EQ(report.shards_used, 2u);
  auto expect = range_markers(4, 0, 100);
  for (auto m : range_markers(3, 0, 100)) expect.insert(m);
  EXPECT_EQ(all_markers(b), expect);
}

TEST(TrainReplayBuffer, OrdersByGenerationThenModificationTime) {
  const std::string dir = test::temp_dir("kz-replay");
  // Same generation: the more recently written file wins, whatever the names say.
  write_shard(dir + "/a.kzshard", 5, 1, 50);
  write_shard(dir + "/b.kzshard", 5, 2, 50);
  set_mtime(dir + "/a.kzshard", 10);
  set_mtime(dir + "/b.kzshard", 100);
  // An older generation written last does not beat a newer generation.
  write_shard(dir + "/c.kzshard", 4, 3, 50);
  ReplayBuffer b({.game = kGame, .window_rows = 50});
  b.load(dir);
  EXPECT_EQ(all_markers(b), range_markers(1, 0, 50));
  ReplayBuffer b2({.game = kGame, .window_rows = 100});
  b2.load(dir);
  auto expect = range_markers(1, 0, 50);
  for (auto m : range_markers(2, 0, 50)) expect.insert(m);
  EXPECT_EQ(all_markers(b2), expect);
}

TEST(TrainReplayBuffer, SkipsAndReportsBadShardsAndFillsTheWindowFromOlderOnes) {
  const std::string dir = make_folder();
  // The newest shard gets a flipped byte in its rows: the header still reads, the body
  // fails its checksum.
  const std::string corrupt = dir + "/worker-b/g3.kzshard";
  std::string bytes = test::read_bytes(corrupt);
  bytes[bytes.size() - 50] ^= 0x40;
  test::write_bytes(corrupt, bytes);
  const std::string truncated = write_shard(dir + "/worker-c/g9.kzshard", 9, 9, 100);
  test::write_bytes(truncated, test::read_bytes(truncated).substr(0, 500));
  const std::string wrong_game =
      write_shard(dir + "/worker-c/togyz.kzshard", 8, 8, 20, GameSpec::togyz());
  const std::string garbage = dir + "/garbage.kzshard";
  test::write_bytes(garbage, "this is not a shard");
  // A writer's temporary file in progress is not a shard and is not even looked at.
  test::write_bytes(dir + "/worker-a/g5.kzshard.tmp-host-1-0", "half");

  ReplayBuffer b({.game = kGame, .window_rows = 150});
  const auto report = b.load(dir);
  EXPECT_EQ(report.shards_found, 7u);
  ASSERT_EQ(report.skipped.size(), 4u);
  auto reported = [&](const std::string& path, const std::string& why) {
    for (const auto& s : report.skipped)
      if (s.find(path) != std::string::npos && s.find(why) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(reported(corrupt, "checksum mismatch"));
  EXPECT_TRUE(reported(truncated, "truncated"));
  EXPECT_TRUE(reported(wrong_game, "wrong game"));
  EXPECT_TRUE(reported(garbage, "bad magic"));
  auto expect = range_markers(3, 0, 100);
  for (auto m : range_markers(2, 50, 100)) expect.insert(m);
  EXPECT_EQ(all_markers(b), expect);

  // Reloading reports them again but is otherwise unchanged.
  const auto again = b.load(dir);
  EXPECT_EQ(again.skipped.size(), 4u);
  EXPECT_EQ(all_markers(b), expect);
}

TEST(TrainReplayBuffer, ReloadPicksUpNewShardsAndDropsOldOnes) {
  const std::string dir = make_folder();
  ReplayBuffer b({.game = kGame, .window_rows = 200});
  b.load(dir);
  write_shard(dir + "/worker-c/g4.kzshard", 4, 5, 100);
  const auto report = b.load(dir);
  EXPECT_EQ(report.newest_generation, 4);
  EXPECT_EQ(report.oldest_generation, 3);
  auto expect = range_markers(5, 0, 100);
  for (auto m : range_markers(4, 0, 100)) expect.insert(m);
  EXPECT_EQ(all_markers(b), expect);
  // A shard replaced in place (same name, new content) is read again.
  write_shard(dir + "/worker-c/g4.kzshard", 4, 6, 100);
  set_mtime(dir + "/worker-c/g4.kzshard", -5);
  b.load(dir);
  expect = range_markers(6, 0, 100);
  for (auto m : range_markers(4, 0, 100)) expect.insert(m);
  EXPECT_EQ(all_markers(b), expect);
}

TEST(TrainReplayBuffer, ValidationIsDisjointFromTrainingAndStable) {
  const std::string dir = test::temp_dir("kz-replay");
  for (int s = 0; s < 4; ++s)
    write_shard(dir + "/w/s" + std::to_string(s) + ".kzshard", s, uint32_t(10 + s), 1000);
  const ReplayConfig config{.game = kGame, .validation_fraction = 0.25, .validation_seed = 7};
  ReplayBuffer b(config);
  b.load(dir);
  ASSERT_EQ(b.size() + b.validation_size(), 4000u);
  // Games are held out whole: no (shard, game) pair is on both sides.
  auto games = [](const ReplayBuffer& buf, bool validation) {
    std::set<std::pair<uint32_t, uint32_t>> out;
    const size_t n = validation ? buf.validation_size() : buf.size();
    for (size_t i = 0; i < n; ++i) {
      const ShardRow& r = validation ? buf.validation_row(i) : buf.row(i);
      out.insert({r.visits / 100000, r.game_id});
    }
    return out;
  };
  const auto train_games = games(b, false), val_games = games(b, true);
  for (const auto& g : val_games) EXPECT_FALSE(train_games.count(g));
  // 400 games at 25%: expect 100 held out, sd ~8.7.
  EXPECT_GT(val_games.size(), 60u);
  EXPECT_LT(val_games.size(), 140u);
  EXPECT_EQ(train_games.size() + val_games.size(), 400u);

  // The split is the same in another buffer, and for the same games under another window.
  ReplayBuffer again(config);
  again.load(dir);
  EXPECT_EQ(games(again, true), val_games);
  ReplayConfig narrow = config;
  narrow.window_generations = 1;
  ReplayBuffer newest(narrow);
  newest.load(dir);
  for (const auto& g : games(newest, true)) EXPECT_TRUE(val_games.count(g));
  for (const auto& g : games(newest, false)) EXPECT_TRUE(train_games.count(g));
  // Another seed draws another split.
  ReplayConfig other = config;
  other.validation_seed = 8;
  ReplayBuffer b8(other);
  b8.load(dir);
  EXPECT_NE(games(b8, true), val_games);

  EXPECT_FALSE(ReplayBuffer::is_validation_game("x", 3, 0.0, 1));
  EXPECT_TRUE(ReplayBuffer::is_validation_game("x", 3, 1.0, 1));
}

TEST(TrainReplayBuffer, SamplesUniformlyFromTrainingRowsOnly) {
  const std::string dir = test::temp_dir("kz-replay");
  write_shard(dir + "/s.kzshard", 0, 1, 200);
  ReplayBuffer b({.game = kGame, .validation_fraction = 0.3});
  b.load(dir);
  ASSERT_GT(b.size(), 50u);
  ASSERT_GT(b.validation_size(), 0u);
  const auto train = markers(b, false);
  const auto val = markers(b, true);

  std::mt19937_64 rng(123);
  const size_t draws = 200000;
  std::map<uint32_t, int> count;
  for (const ShardRow& r : b.sample(draws, rng)) {
    ASSERT_TRUE(train.count(r.visits)) << "sampled a row outside the training set";
    ASSERT_FALSE(val.count(r.visits));
    ++count[r.visits];
  }
  // Every training row is drawn close to draws/size times (5 standard deviations).
  EXPECT_EQ(count.size(), b.size());
  const double mean = double(draws) / double(b.size());
  for (const auto& [m, c] : count) EXPECT_NEAR(c, mean, 5 * std::sqrt(mean)) << m;

  // The same seed gives the same batch.
  std::mt19937_64 r1(5), r2(5);
  EXPECT_EQ(b.sample(64, r1), b.sample(64, r2));
}

TEST(TrainReplayBuffer, EmptyOrMissingFolder) {
  ReplayBuffer b({.game = kGame});
  const auto report = b.load("/nonexistent/kz-replay-folder");
  EXPECT_EQ(report.shards_found, 0u);
  EXPECT_EQ(b.size(), 0u);
  std::mt19937_64 rng(1);
  EXPECT_THROW(b.sample(1, rng), std::runtime_error);
  EXPECT_THROW(ReplayBuffer({.game = kGame, .validation_fraction = 1.5}), std::invalid_argument);
}

}  // namespace
}  // namespace kz
