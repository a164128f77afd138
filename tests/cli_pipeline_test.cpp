// The training system end to end on configs/tiny.toml: self-play (with resumption),
// training (with exact resumption and a corrupted shard in the data), gating, the
// ladder, the generation loop, bench and model-info.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/test_util.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

std::string tiny_config() {
  return test::source_dir() + "/configs/tiny.toml";
}

struct CommandResult {
  int status;
  std::string out;
};
CommandResult run(const std::string& cmd) {
  CommandResult r;
  r.status = test::run_command(cmd, &r.out, true);
  return r;
}

std::string checksum_of(const std::string& model) {
  const CommandResult r = run(test::bin("kumalak") + " model-info " + model);
  EXPECT_EQ(r.status, 0) << r.out;
  std::smatch m;
  if (std::regex_search(r.out, m, std::regex("\"weights_checksum\":\"([0-9]+)\""))) return m[1];
  return "";
}

// "CxB" of a model file, from `kumalak model-info`.
std::string size_of(const std::string& model) {
  const CommandResult r = run(test::bin("kumalak") + " model-info " + model);
  EXPECT_EQ(r.status, 0) << r.out;
  std::smatch m;
  if (std::regex_search(r.out, m, std::regex("\"channels\":([0-9]+),\"blocks\":([0-9]+)")))
    return m[1].str() + "x" + m[2].str();
  return "";
}

int count_files(const std::string& dir, const std::string& ext) {
  int n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.path().extension() == ext;
  return n;
}

class Pipeline : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("kz-pipeline"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(Pipeline, SelfplayTrainGateAndLadder) {
  const std::string cfg = " --config " + tiny_config();
  const std::string data = dir_ + "/data";
  CommandResult r =
      run(test::bin("kumalak-train") + cfg + " --init-only --out " + dir_ + "/gen0.pt");
  ASSERT_EQ(r.status, 0) << r.out;

  // Self-play, then the same command again: nothing left to do. More games: only the rest.
  r = run(test::bin("kumalak-selfplay") + cfg + " --model " + dir_ + "/gen0.pt --out " + data +
          " --games 8");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("selfplay: 8 games (0 found done)"), std::string::npos) << r.out;
  EXPECT_EQ(count_files(data, ".kzshard"), 2);  // games_per_shard = 4
  r = run(test::bin("kumalak-selfplay") + cfg + " --model " + dir_ + "/gen0.pt --out " + data +
          " --games 8");
  EXPECT_NE(r.out.find("selfplay: 0 games (8 found done)"), std::string::npos) << r.out;
  r = run(test::bin("kumalak-selfplay") + cfg + " --model " + dir_ + "/gen0.pt --out " + data +
          " --games 12");
  EXPECT_NE(r.out.find("selfplay: 4 games (8 found done)"), std::string::npos) << r.out;
  EXPECT_EQ(count_files(data, ".kzshard"), 3);
  for (const auto& e : fs::recursive_directory_iterator(data))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "temporary left: " << e.path();

  // A corrupted shard and a shard of another game are reported by name and skipped.
  std::ofstream(data + "/broken.kzshard", std::ios::binary) << "KZSHARD garbage";
  {
    std::ifstream in(tiny_config());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text = std::regex_replace(text, std::regex("game = \"kalah:3,3\""), "game = \"kalah:4,2\"");
    std::ofstream(dir_ + "/other.toml") << text;
  }
  r = run(test::bin("kumalak-selfplay") + " --config " + dir_ + "/other.toml --out " + data +
          "/other --games 2");
  ASSERT_EQ(r.status, 0) << r.out;

  // Training straight through and training interrupted then resumed end identically.
  const std::string train =
      test::bin("kumalak-train") + cfg + " --data " + data + " --init " + dir_ + "/gen0.pt";
  r = run(train + " --out " + dir_ + "/straight.pt --steps 60 --metrics " + dir_ +
          "/m.jsonl --plot " + dir_ + "/loss.png");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("broken.kzshard"), std::string::npos) << "corrupted shard not named:\n"
                                                             << r.out;
  EXPECT_NE(r.out.find("skipped shards 2"), std::string::npos)
      << r.out;  // broken + the kalah:4,2 one
  EXPECT_TRUE(fs::exists(dir_ + "/m.jsonl"));
  r = run(train + " --out " + dir_ + "/resumed.pt --steps 60 --stop-after 50");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(fs::exists(dir_ + "/resumed.pt"));
  EXPECT_TRUE(fs::exists(dir_ + "/resumed.pt.ckpt"));
  r = run(train + " --out " + dir_ + "/resumed.pt --steps 60 --resume");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("resumed from 50"), std::string::npos) << r.out;
  EXPECT_EQ(checksum_of(dir_ + "/straight.pt"), checksum_of(dir_ + "/resumed.pt"));
  EXPECT_FALSE(fs::exists(dir_ + "/resumed.pt.ckpt"));

  // A larger network grown from the trained one (nn/model_file.h grown_model): written
  // alone with --init-only, or trained with --grow; without --grow the init model trains
  // at its own size, with a warning; a smaller size is refused.
  auto sized = [&](const std::string& name, int channels, int blocks) {
    std::ofstream(dir_ + "/" + name)
        << "extends = \"" << tiny_config() << "\"\n[network]\nchannels = " << channels
        << "\nblocks = " << blocks << "\n";
    return " --config " + dir_ + "/" + name;
  };
  const std::string wide = sized("wide.toml", 12, 2);
  r = run(test::bin("kumalak-train") + wide + " --init " + dir_ +
          "/straight.pt --grow --init-only --out " + dir_ + "/grown0.pt");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("grown from 8 x 1 to 12 x 2"), std::string::npos) << r.out;
  EXPECT_EQ(size_of(dir_ + "/grown0.pt"), "12x2");
  r = run(test::bin("kumalak-train") + wide + " --data " + data + " --init " + dir_ +
          "/straight.pt --grow --out " + dir_ + "/grown.pt --steps 5");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("growing"), std::string::npos) << r.out;
  EXPECT_EQ(size_of(dir_ + "/grown.pt"), "12x2");
  r = run(test::bin("kumalak-train") + wide + " --data " + data + " --init " + dir_ +
          "/straight.pt --out " + dir_ + "/same.pt --steps 5");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("trains at its own size (--grow grows it"), std::string::npos) << r.out;
  EXPECT_EQ(size_of(dir_ + "/same.pt"), "8x1");
  r = run(test::bin("kumalak-train") + sized("narrow.toml", 4, 1) + " --data " + data + " --init " +
          dir_ + "/straight.pt --grow --out " + dir_ + "/narrow.pt --steps 5");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("can only grow: 8 x 1"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ + "/narrow.pt"));
  r = run(test::bin("kumalak-train") + cfg + " --grow --init-only --out " + dir_ + "/x.pt");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--grow needs --init"), std::string::npos) << r.out;

  // A gating match with SPRT, JSON and promotion.
  fs::copy_file(dir_ + "/gen0.pt", dir_ + "/best.pt");
  r = run(test::bin("kumalak-gate") + cfg + " match --candidate " + dir_ +
          "/straight.pt --baseline " + dir_ + "/best.pt --sprt --json " + dir_ +
          "/gate.json --promote " + dir_ + "/best.pt");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("W \\d+ D \\d+ L \\d+  score [0-9.]+  Elo")))
      << r.out;
  EXPECT_TRUE(r.out.find("PASS") != std::string::npos || r.out.find("FAIL") != std::string::npos);
  const bool passed = r.out.find("PASS") != std::string::npos;
  EXPECT_EQ(checksum_of(dir_ + "/best.pt"),
            checksum_of(dir_ + (passed ? "/straight.pt" : "/gen0.pt")));
  std::ifstream gate(dir_ + "/gate.json");
  std::string gate_json((std::istreambuf_iterator<char>(gate)), std::istreambuf_iterator<char>());
  EXPECT_NE(gate_json.find("\"elo\""), std::string::npos);
  EXPECT_NE(gate_json.find("\"sprt\""), std::string::npos);

  // Against the alpha-beta baseline, and a ladder of three models plus that anchor.
  r = run(test::bin("kumalak-gate") + cfg + " match --candidate " + dir_ +
          "/straight.pt --baseline ab:2");
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(test::bin("kumalak-gate") + cfg + " ladder --models " + dir_ + "/gen0.pt " + dir_ +
          "/straight.pt " + dir_ + "/resumed.pt --anchor-ab 1 --out " + dir_ + "/ladder");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream csv(dir_ + "/ladder/ladder.csv");
  std::string line;
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 1 + 4);  // header, three models, ab:1
  EXPECT_NE(r.out.find("gen0"), std::string::npos);

  // A second run continued from `resumed` grows the same ladder: its matches join the
  // first ladder's without replaying them, gen0 stays the anchor, and the shipped models
  // are marked.
  std::filesystem::copy_file(dir_ + "/straight.pt", dir_ + "/next-gen3.pt");
  r = run(test::bin("kumalak-gate") + cfg + " ladder --models " + dir_ + "/resumed.pt " + dir_ +
          "/next-gen3.pt --matches " + dir_ + "/ladder/matches.jsonl --anchor gen0 --shipped " +
          dir_ + "/resumed.pt --shipped next-gen3 --out " + dir_ + "/ladder2");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream csv2(dir_ + "/ladder2/ladder.csv");
  std::getline(csv2, line);
  EXPECT_EQ(line, "name,generation,elo,elo_lo,elo_hi,stderr,games,score,shipped");
  std::vector<std::string> names;
  while (std::getline(csv2, line)) {
    const std::string name = line.substr(0, line.find(','));
    names.push_back(name);
    if (name == "gen0") {
      EXPECT_EQ(line.substr(0, 15), "gen0,0,0.000,0.") << line;
    }
    const bool shipped = name == "resumed" || name == "next-gen3";
    EXPECT_EQ(line.back(), shipped ? '1' : '0') << line;
  }
  EXPECT_EQ(names.size(), 4u + 1u) << r.out;  // the first ladder's players and next-gen3
  // A pair the earlier ladder played (resumed against straight) is not played again.
  r = run(test::bin("kumalak-gate") + cfg + " ladder --models " + dir_ + "/straight.pt " + dir_ +
          "/resumed.pt --matches " + dir_ + "/ladder/matches.jsonl --anchor gen0 --out " + dir_ +
          "/ladder4");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("resumed vs straight: played with these settings in --matches, not "
                       "replayed"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(test::read_bytes(dir_ + "/ladder4/matches.jsonl"),
            test::read_bytes(dir_ + "/ladder/matches.jsonl"));
  // With other settings (more games) the pair is a new measurement, and is played.
  r = run(test::bin("kumalak-gate") + cfg + " --games 6 ladder --models " + dir_ + "/straight.pt " +
          dir_ + "/resumed.pt --matches " + dir_ + "/ladder/matches.jsonl --anchor gen0 --out " +
          dir_ + "/ladder5");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("not replayed"), std::string::npos) << r.out;
  const std::string first = test::read_bytes(dir_ + "/ladder/matches.jsonl"),
                    five = test::read_bytes(dir_ + "/ladder5/matches.jsonl");
  EXPECT_EQ(std::count(five.begin(), five.end(), '\n'),
            std::count(first.begin(), first.end(), '\n') + 1);
  EXPECT_NE(first.find("\"settings\":\""), std::string::npos) << first;
  r = run(test::bin("kumalak-gate") + cfg + " ladder --matches " + dir_ +
          "/ladder/matches.jsonl --anchor gen0 --shipped nobody --out " + dir_ + "/ladder3");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--shipped nobody: no such player"), std::string::npos) << r.out;

  // Bad inputs: a wrong-game model, a missing config key type.
  r = run(test::bin("kumalak-selfplay") + " --config " + dir_ + "/other.toml --model " + dir_ +
          "/gen0.pt --out " + dir_ + "/x --games 1");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("trained for game 'kalah:3,3'"), std::string::npos) << r.out;
  std::ofstream(dir_ + "/bad.toml") << "game = \"kalah:3,3\"\n[search]\nc_puct = \"high\"\n";
  r = run(test::bin("kumalak-train") + " --config " + dir_ + "/bad.toml --init-only --out " + dir_ +
          "/z.pt");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("bad.toml:3"), std::string::npos) << r.out;
  std::ofstream(dir_ + "/typo.toml") << "game = \"kalah:3,3\"\n[train]\nlearning_rat = 0.1\n";
  r = run(test::bin("kumalak-train") + " --config " + dir_ + "/typo.toml --init-only --out " +
          dir_ + "/z.pt");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("unknown key 'learning_rat'"), std::string::npos) << r.out;
}

TEST_F(Pipeline, TheGenerationLoopRunsAndResumes) {
  const std::string loop = test::source_dir() + "/tools/loop.sh --bin " + test::bin_dir() +
                           " --config " + tiny_config() + " --run " + dir_ + "/run";
  CommandResult r = run(loop);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir_ + "/run/gates/gen0001.json"));
  EXPECT_TRUE(fs::exists(dir_ + "/run/gates/gen0002.json"));
  EXPECT_TRUE(fs::exists(dir_ + "/run/models/best.pt"));
  // configs/tiny.toml's [loop] retrain_every = 2: generation 1 continues generation 0,
  // generation 2 is a fresh network trained its retrain_steps (3) on its own window.
  EXPECT_NE(r.out.find("gen0001: training from gen0000.pt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gen0002: training from scratch (retrain_every = 2)"), std::string::npos)
      << r.out;
  EXPECT_NE(test::read_bytes(dir_ + "/run/retrain.toml").find("window_rows = 100000"),
            std::string::npos);
  const std::string steps_of_gen2 =
      run(test::bin("kumalak") + " model-info " + dir_ + "/run/models/gen0002.pt").out;
  EXPECT_NE(steps_of_gen2.find("\"training_steps\":3,"), std::string::npos) << steps_of_gen2;
  // As if killed during generation 2's gate: its result is gone, the rest is kept.
  fs::remove(dir_ + "/run/gates/gen0002.json");
  r = run(loop);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("gen0001:"), std::string::npos) << "generation 1 was redone:\n" << r.out;
  EXPECT_NE(r.out.find("selfplay: 0 games (8 found done)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("gen0002: training"), std::string::npos)
      << "the trained model was not kept:\n"
      << r.out;
  EXPECT_NE(r.out.find("gen0002: gating"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir_ + "/run/gates/gen0002.json"));
}

TEST(Bench, PrintsTheFiguresAsJson) {
  CommandResult r =
      run(test::bin("kumalak") +
          " bench --game kalah --seconds 1 --channels 8 --blocks 1 --batch 32 --threads 1");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* key : {"net_evals_per_s", "search_evals_per_s", "search_visits_per_s",
                          "\"batch\":32", "cache_hit_rate", "bytes_per_node"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " missing in " << r.out;
  r = run(test::bin("kumalak") + " bench --model /nonexistent.pt --seconds 1");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("no such file"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kz
