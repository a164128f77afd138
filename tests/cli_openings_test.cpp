// `kumalak openings build` and `kumalak openings` end to end through the built binary: a
// tiny rated file with a broken game and a tournament file labelled titled, the counts
// the query prints and answers in JSON, a damaged file refused with its name, bad
// options refused, and self-play shards read as the engine's games.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/opening_explorer.h"
#include "tests/test_util.h"

namespace kz {
namespace {

const char* kRated = R"([Event "t"]
[White "a"]
[Black "b"]
[WhiteElo "1300"]
[BlackElo "1600"]
[TimeControl "300"]
[Result "1-0"]

1. 19 19 2. 12 12 3. 33 12 1-0

[Event "t"]
[White "c"]
[Black "d"]
[WhiteElo "1500"]
[BlackElo "1500"]
[TimeControl "60"]
[Result "1-0"]

1. 19 19 2. 12 12 3. 11 1-0

[Event "t"]
[White "e"]
[Black "f"]
[WhiteElo "1850"]
[BlackElo "?"]
[TimeControl "300"]
[Result "1/2-1/2"]

1. 19 19 2. 33 12 3. 12 12 1/2-1/2
)";

// With rating tags and a clock: only the label makes these players titled.
const char* kTournament = R"([Event "cup"]
[White "g"]
[Black "h"]
[WhiteElo "2000"]
[BlackElo "2000"]
[TimeControl "600"]
[Result "0-1"]

1. 19 19 2. 12 12 3. 33 12 0-1
)";

struct Fixture {
  std::string dir = test::temp_dir("cli-openings");
  std::string rated = dir + "/rated.pgn";
  std::string tournament = dir + "/cup.pgn";
  std::string out = dir + "/t.kzo";
  Fixture() {
    test::write_bytes(rated, kRated);
    test::write_bytes(tournament, kTournament);
  }
  // Runs `kumalak ARGS`; *output gets what it printed (stdout, and stderr when `merge`).
  int run(const std::string& args, std::string* output, bool merge = true) const {
    output->clear();  // run_command appends
    return test::run_command(test::bin("kumalak") + " " + args, output, merge);
  }
  int build(std::string* output) const {
    return run("openings build --out " + out +
                   " --min-games 1 --max-plies 10 --source-label cup.pgn=titled " + rated + " " +
                   tournament,
               output);
  }
};

TEST(CliOpenings, BuildThenQuery) {
  Fixture f;
  std::string out;
  ASSERT_EQ(f.build(&out), 0) << out;
  EXPECT_NE(out.find("skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("game 2"), std::string::npos) << out;
  EXPECT_NE(out.find("rated.pgn"), std::string::npos) << out;
  EXPECT_NE(out.find("4 games read, 1 skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("median"), std::string::npos) << out;

  ASSERT_EQ(f.run("openings --explorer " + f.out + " --json", &out, false), 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["games"], 3);
  ASSERT_EQ(j["moves"].size(), 1u);
  const auto& m = j["moves"][0];
  EXPECT_EQ(m["move"], 1);
  EXPECT_EQ(m["notation"], "19");
  EXPECT_EQ(m["wins"], 1);
  EXPECT_EQ(m["draws"], 1);
  EXPECT_EQ(m["losses"], 1);
  EXPECT_DOUBLE_EQ(m["score"].get<double>(), 0.5);
  EXPECT_EQ(m["mean_rating"], (1300 + 1850) / 2);  // the titled player's 2000 left out of it
  EXPECT_EQ(m["by_source"]["titled"]["losses"], 1);
  EXPECT_EQ(m["by_source"]["rated-1800-up"]["draws"], 1);
  EXPECT_EQ(j["explorer"]["min_games"], 1);
  EXPECT_EQ(j["explorer"]["sources"].size(), 2u);
  EXPECT_EQ(j["explorer"]["sources"][0]["file"], "rated.pgn");
  EXPECT_EQ(j["explorer"]["sources"][0]["skipped"], 1);
  EXPECT_EQ(j["explorer"]["sources"][1]["label"], "titled");

  // The transposed position, reached by the other move order, with one source.
  ASSERT_EQ(f.run("openings --explorer " + f.out + " --moves '1 1 3 1 1' --source titled --json",
                  &out, false),
            0)
      << out;
  const auto t = nlohmann::json::parse(out);
  EXPECT_EQ(t["games"], 1);
  EXPECT_EQ(t["moves"][0]["wins"], 1);  // Black won the titled game

  ASSERT_EQ(f.run("openings --explorer " + f.out + " --moves '1 1 3 1 1'", &out), 0) << out;
  EXPECT_NE(out.find("(black to move)"), std::string::npos) << out;
  EXPECT_NE(out.find("3 games go through this position (source: all)."), std::string::npos) << out;
  EXPECT_NE(out.find("12"), std::string::npos) << out;
  EXPECT_NE(out.find("3 (100%)"), std::string::npos) << out;
  EXPECT_NE(out.find("1/1/1"), std::string::npos) << out;

  ASSERT_EQ(f.run("openings --explorer " + f.out + " --moves 5", &out), 0) << out;
  EXPECT_NE(out.find("No game in the explorer reaches this position"), std::string::npos) << out;
}

TEST(CliOpenings, DamagedFileAndBadOptionsAreRefused) {
  Fixture f;
  std::string out;
  ASSERT_EQ(f.build(&out), 0) << out;
  std::string bytes = test::read_bytes(f.out);
  bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 1);
  test::write_bytes(f.out, bytes);
  EXPECT_EQ(f.run("openings --explorer " + f.out, &out), 1) << out;
  EXPECT_NE(out.find(f.out + ": checksum mismatch"), std::string::npos) << out;

  EXPECT_EQ(f.run("openings --explorer " + f.out + " --source players", &out), 2) << out;
  EXPECT_NE(out.find("unknown source 'players'"), std::string::npos) << out;
  EXPECT_EQ(
      f.run("openings build --out " + f.out + " --source-label none.pgn=titled " + f.rated, &out),
      2)
      << out;
  EXPECT_NE(out.find("none.pgn"), std::string::npos) << out;
  EXPECT_EQ(f.run("openings build --out " + f.out + " " + f.dir + "/missing.pgn", &out), 1) << out;
  EXPECT_NE(out.find("missing.pgn"), std::string::npos) << out;
  EXPECT_EQ(f.run("openings --explorer " + f.dir + "/missing.kzo", &out), 1) << out;
  EXPECT_NE(out.find("missing.kzo"), std::string::npos) << out;
}

TEST(CliOpenings, SelfPlayShardsAreTheEnginesGames) {
  // The committed run folder's shards (Kalah(3,3) self-play of a tiny run).
  Fixture f;
  const std::string shards = test::source_dir() + "/tests/data/run-view/data";
  std::string out;
  ASSERT_EQ(f.run("openings build --game kalah:3,3 --out " + f.out +
                      " --min-games 2 --max-plies 4 " + shards,
                  &out),
            0)
      << out;
  // The folder holds one truncated shard, left out with its name and reason.
  EXPECT_NE(out.find("1 shards left out"), std::string::npos) << out;
  EXPECT_NE(out.find("skipped " + shards +
                     "/gen0009/selfplay-gen000009-vm-30842-231c7e2e-005681.kzshard: truncated"),
            std::string::npos)
      << out;
  // Self-play opens with random plies, which are not the engine's choices and are not
  // in the shards: ask for the position most games went through.
  const OpeningExplorer e = OpeningExplorer::read(f.out);
  ASSERT_FALSE(e.positions().empty());
  const ExplorerPosition* most = &e.positions()[0];
  for (const ExplorerPosition& p : e.positions())
    if (p.games() > most->games()) most = &p;
  ASSERT_EQ(f.run("openings --game kalah:3,3 --explorer " + f.out + " --position '" +
                      most->position.to_string() + "' --source engine --json",
                  &out, false),
            0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["games"].get<uint64_t>(), most->games()) << out;
  EXPECT_GE(most->games(), 2u);
  EXPECT_EQ(j["explorer"]["sources"].size(), 8u) << out;
  for (const auto& m : j["moves"]) {
    EXPECT_EQ(m["by_source"].size(), 1u) << out;
    EXPECT_TRUE(m["by_source"].contains("engine")) << out;
  }
}

}  // namespace
}  // namespace kz
