// Continuous mode's run folder (train/follow.h): a run is created once and never
// rewritten by a later start, a start without a config or with another game's is refused,
// and the shard summary counts games and rows and names unreadable files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "test_util.h"
#include "train/follow.h"
#include "train_test_util.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string tiny() {
  return test::source_dir() + "/configs/tiny.toml";
}

TEST(FollowRun, CreatedOnceAndNeverRewritten) {
  const std::string dir = test::temp_dir("follow_run");
  const std::string run = dir + "/run";
  EXPECT_THROW(open_follow_run(run, ""), std::invalid_argument);  // a new run needs a config
  const RunConfig cfg = open_follow_run(run, tiny());
  EXPECT_EQ(cfg.game, GameSpec::kalah(3, 3));
  for (const char* f : {"config.toml", "models/gen0000.pt", "models/best.pt"})
    EXPECT_TRUE(fs::exists(run + "/" + f)) << f;
  EXPECT_EQ(bytes_of(run + "/models/best.pt"), bytes_of(run + "/models/gen0000.pt"));

  // A promoted best.pt survives any later start (the files are created once only).
  { std::ofstream(run + "/models/best.pt", std::ios::binary | std::ios::trunc) << "promoted"; }
  const std::string gen0 = bytes_of(run + "/models/gen0000.pt");
  open_follow_run(run, tiny());
  open_follow_run(run, "");  // the run's config.toml suffices now
  EXPECT_EQ(bytes_of(run + "/models/best.pt"), "promoted");
  EXPECT_EQ(bytes_of(run + "/models/gen0000.pt"), gen0);

  // Another game's config on this run: refused, naming both files.
  try {
    open_follow_run(run, test::source_dir() + "/configs/togyz.toml");
    ADD_FAILURE() << "another game's config was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("togyz.toml"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(FollowRun, ShardSummaryCountsGamesAndUnreadableFiles) {
  const std::string dir = test::temp_dir("follow_summary");
  const GameSpec spec = GameSpec::kalah(3, 3);
  std::mt19937_64 rng(3);
  int64_t rows = 0;
  for (int shard = 0; shard < 3; ++shard) {
    ShardWriter w(spec, shard, "test", "t");
    for (int g = 0; g < 2 + shard; ++g) {
      auto game = test::random_game(spec, rng, uint32_t(g), 60);
      rows += int64_t(game.rows.size());
      w.add_game(std::move(game.rows), game.outcome, game.white_margin, game.length);
    }
    w.write_to_dir(dir + "/gen" + std::to_string(shard));
  }
  ShardSummary s = summarize_shards(dir, spec);
  EXPECT_EQ(s.shards, 3);
  EXPECT_EQ(s.games, 2 + 3 + 4);
  EXPECT_EQ(s.rows, rows);
  EXPECT_EQ(s.unreadable, 0);
  // A cut shard is reported, not counted.
  { std::ofstream(dir + "/gen0/cut.kzshard", std::ios::binary) << "KZSHARD"; }
  s = summarize_shards(dir, spec);
  EXPECT_EQ(s.shards, 3);
  EXPECT_EQ(s.unreadable, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
