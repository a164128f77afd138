// Self-play and gating evaluate through the one inference path that
// default_inference_backend() picks (nn/inference_network.h). Run through the oneDNN
// forward and through LibTorch's (folded, and the model's own unfolded forward), the
// tiny config's self-play plays legal games, writes shards of the same format and
// agrees within the network outputs' fp32 tolerance (docs/performance.md); a gating
// match gives the same result. Those comparisons pin fp32 (the LibTorch paths have no
// bf16); self-play in the default precision (auto: bf16 where the CPU has it) repeats
// itself to the bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "nn/inference_network.h"
#include "tests/nn_test_util.h"
#include "tests/test_util.h"
#include "train/config.h"
#include "train/match.h"
#include "train/selfplay.h"
#include "train/shard.h"

namespace kz {
namespace {

// Restores the process's default backend when a test ends, however it ends.
struct BackendGuard {
  InferenceBackend saved = default_inference_backend();
  ~BackendGuard() { set_default_inference_backend(saved); }
};

struct SelfplayShards {
  std::vector<ShardInfo> infos;              // by shard, in the order written
  std::vector<std::vector<ShardRow>> games;  // by shard then game id, rows by ply
  SelfplayReport report;
};

SelfplayShards selfplay_through(InferenceBackend backend, const std::string& dir) {
  set_default_inference_backend(backend);
  std::filesystem::remove_all(dir);
  SelfplayOptions o;
  o.config = load_config(test::source_dir() + "/configs/tiny.toml");
  o.out_dir = dir;
  o.games = 8;
  o.generation = 1;
  o.worker_id = "paths";
  o.show_progress = false;
  SelfplayShards s;
  s.report = run_selfplay(o);
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".kzshard") paths.push_back(entry.path().string());
  // The names end in the process's sequence number: name order is writing order.
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    ShardInfo info;
    const std::vector<ShardRow> rows = ShardReader::read(path, &info);
    s.infos.push_back(info);
    std::map<uint32_t, std::vector<ShardRow>> by_game;
    for (const ShardRow& r : rows) by_game[r.game_id].push_back(r);
    for (auto& [id, game] : by_game) {
      std::sort(game.begin(), game.end(),
                [](const ShardRow& a, const ShardRow& b) { return a.ply < b.ply; });
      s.games.push_back(std::move(game));
    }
  }
  std::filesystem::remove_all(dir);
  return s;
}

// Every recorded move is legal and leads to the next row's position.
void expect_legal_games(const SelfplayShards& s, const std::string& path) {
  for (const auto& game : s.games) {
    ASSERT_FALSE(game.empty()) << path;
    for (size_t i = 0; i < game.size(); ++i) {
      const ShardRow& r = game[i];
      ASSERT_GE(r.played_move, 0) << path;
      ASSERT_TRUE(r.pos.legal_mask() >> r.played_move & 1)
          << path << ": ply " << r.ply << " plays an illegal move " << int(r.played_move);
      if (i + 1 < game.size() && game[i + 1].ply == r.ply + 1) {
        Position next = r.pos;
        next.play(r.played_move);
        EXPECT_EQ(next, game[i + 1].pos) << path << ": ply " << r.ply;
      }
    }
  }
}

TEST(InferencePaths, SelfplayThroughOneDnnAndLibTorchAgreeWithinTolerance) {
  BackendGuard guard;
  const test::PrecisionGuard fp32(InferencePrecision::kFp32);
  const std::string base = ::testing::TempDir() + "kz_inference_paths";
  const SelfplayShards onednn = selfplay_through(InferenceBackend::kOneDnn, base + "/onednn");
  for (const InferenceBackend other : {InferenceBackend::kLibTorch, InferenceBackend::kReference}) {
    const std::string name = to_string(other);
    SCOPED_TRACE(name);
    const SelfplayShards s = selfplay_through(other, base + "/" + name);
    expect_legal_games(onednn, "onednn");
    expect_legal_games(s, name);
    EXPECT_EQ(onednn.report.games_played, 8);
    EXPECT_EQ(s.report.games_played, 8);
    // The same shard format: header fields and rows, game by game.
    ASSERT_EQ(onednn.infos.size(), s.infos.size());
    for (size_t k = 0; k < s.infos.size(); ++k) {
      EXPECT_EQ(onednn.infos[k].version, s.infos[k].version);
      EXPECT_EQ(onednn.infos[k].game, s.infos[k].game);
      EXPECT_EQ(onednn.infos[k].generation, s.infos[k].generation);
      EXPECT_EQ(onednn.infos[k].row_count, s.infos[k].row_count);
      EXPECT_EQ(onednn.infos[k].game_count, s.infos[k].game_count);
      EXPECT_EQ(onednn.infos[k].file_bytes, s.infos[k].file_bytes);
    }
    // The same games (the outputs differ by about 1e-6, too little to change a visit
    // count), and root values within the fp32 tolerance of the outputs (1e-5 of a
    // probability; the margin in stones, about 20 at most here, 1e-5 of that).
    ASSERT_EQ(onednn.games.size(), s.games.size());
    float worst_value = 0, worst_margin = 0;
    for (size_t g = 0; g < s.games.size(); ++g) {
      ASSERT_EQ(onednn.games[g].size(), s.games[g].size()) << "game " << g;
      for (size_t i = 0; i < s.games[g].size(); ++i) {
        const ShardRow &a = onednn.games[g][i], &b = s.games[g][i];
        ASSERT_EQ(a.pos, b.pos) << "game " << g << " row " << i;
        EXPECT_EQ(a.played_move, b.played_move) << "game " << g << " row " << i;
        EXPECT_EQ(a.visits, b.visits);
        EXPECT_EQ(a.policy, b.policy) << "game " << g << " row " << i;
        EXPECT_EQ(a.result, b.result);
        EXPECT_EQ(a.final_margin, b.final_margin);
        EXPECT_EQ(a.flags, b.flags);
        worst_value =
            std::max({worst_value, std::abs(a.root_win - b.root_win),
                      std::abs(a.root_draw - b.root_draw), std::abs(a.root_loss - b.root_loss)});
        worst_margin = std::max(worst_margin, std::abs(a.root_margin - b.root_margin));
      }
    }
    EXPECT_LE(worst_value, 1e-5f);
    EXPECT_LE(worst_margin, 2e-4f);
    // And not bit for bit: the switch reached self-play's evaluator, so the two runs
    // rounded differently somewhere.
    EXPECT_GT(worst_value + worst_margin, 0.f) << "both runs used the same forward";
    std::cout << "  self-play onednn - " << name << ": max |diff| of root W/D/L " << worst_value
              << ", of root margins " << worst_margin << " stones\n";
  }
}

TEST(InferencePaths, GatingMatchThroughOneDnnAndLibTorchGivesTheSameResult) {
  BackendGuard guard;
  const test::PrecisionGuard fp32(InferencePrecision::kFp32);
  auto match = [](InferenceBackend backend) {
    set_default_inference_backend(backend);
    MatchOptions o;
    o.config = load_config(test::source_dir() + "/configs/tiny.toml");
    o.a = "init";
    o.b = "rollout";
    o.games = 8;
    o.show_progress = false;
    return play_match(o);
  };
  const MatchResult onednn = match(InferenceBackend::kOneDnn);
  const MatchResult libtorch = match(InferenceBackend::kLibTorch);
  EXPECT_EQ(onednn.wdl.wins + onednn.wdl.draws + onednn.wdl.losses, 8);
  EXPECT_EQ(onednn.wdl.wins, libtorch.wdl.wins);
  EXPECT_EQ(onednn.wdl.draws, libtorch.wdl.draws);
  EXPECT_EQ(onednn.wdl.losses, libtorch.wdl.losses);
  EXPECT_EQ(onednn.plies, libtorch.plies);
  EXPECT_EQ(onednn.pairs.counts, libtorch.pairs.counts);
}

// The default precision, auto, changes self-play's numbers (bf16 where the CPU has it),
// not its reproducibility: the same seed plays the same games with the same root values,
// to the bit.
TEST(InferencePaths, SelfplayInTheDefaultPrecisionRepeatsItself) {
  BackendGuard guard;
  const test::PrecisionGuard automatic(InferencePrecision::kAuto);
  const std::string base = ::testing::TempDir() + "kz_inference_repeat";
  const SelfplayShards a = selfplay_through(InferenceBackend::kOneDnn, base + "/a");
  const SelfplayShards b = selfplay_through(InferenceBackend::kOneDnn, base + "/b");
  expect_legal_games(a, "first");
  EXPECT_EQ(a.report.games_played, 8);
  EXPECT_EQ(b.report.games_played, 8);
  ASSERT_EQ(a.games.size(), b.games.size());
  size_t rows = 0;
  for (size_t g = 0; g < a.games.size(); ++g) {
    ASSERT_EQ(a.games[g].size(), b.games[g].size()) << "game " << g;
    for (size_t i = 0; i < a.games[g].size(); ++i) {
      const ShardRow &x = a.games[g][i], &y = b.games[g][i];
      ASSERT_EQ(x.pos, y.pos) << "game " << g << " row " << i;
      EXPECT_EQ(x.played_move, y.played_move) << "game " << g << " row " << i;
      EXPECT_EQ(x.visits, y.visits);
      EXPECT_EQ(x.policy, y.policy) << "game " << g << " row " << i;
      EXPECT_EQ(x.root_win, y.root_win) << "game " << g << " row " << i;
      EXPECT_EQ(x.root_draw, y.root_draw);
      EXPECT_EQ(x.root_loss, y.root_loss);
      EXPECT_EQ(x.root_margin, y.root_margin) << "game " << g << " row " << i;
      EXPECT_EQ(x.result, y.result);
      EXPECT_EQ(x.final_margin, y.final_margin);
      ++rows;
    }
  }
  EXPECT_GT(rows, 0u);
  std::cout << "  self-play in "
            << to_string(resolve_inference_precision(default_inference_precision()))
            << " twice: " << rows << " rows, equal to the bit\n";
}

// The process-wide default is the one switch: it reaches the evaluators self-play and
// the gate build.
TEST(InferencePaths, TheDefaultBackendParsesAndRoundTrips) {
  BackendGuard guard;
  for (const char* name : {"onednn", "libtorch", "reference"}) {
    const InferenceBackend b = parse_inference_backend(name);
    EXPECT_EQ(to_string(b), name);
    set_default_inference_backend(b);
    EXPECT_EQ(default_inference_backend(), b);
    EXPECT_EQ(InferenceOptions{}.backend, b);
  }
  EXPECT_THROW(parse_inference_backend("cuda"), std::invalid_argument);
}

}  // namespace
}  // namespace kz
