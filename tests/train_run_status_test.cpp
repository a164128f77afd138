// train/run_status.h: a run folder read into one JSON object for the Run view, on a run
// folder made here file by file, with damaged files of every kind among them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "nn/model_file.h"
#include "tests/train_test_util.h"
#include "train/gate.h"
#include "train/metrics_log.h"
#include "train/run_status.h"

namespace kz {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kHourMs = 3600 * 1000;
constexpr int64_t kNow = 1800000000000;  // the reader's "now" in these tests

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

GateRecord gate(int wins, int draws, int losses, bool pass) {
  GateRecord g;
  g.candidate = "/somewhere/else/models/x.pt";  // the file name names the candidate
  g.baseline = "/somewhere/else/models/best.pt";
  g.wins = wins, g.draws = draws, g.losses = losses;
  g.score = (wins + draws / 2.0) / (wins + draws + losses);
  g.elo = elo_from_score(g.score);
  g.elo_lo = g.elo - 100, g.elo_hi = g.elo + 100;
  g.sprt = "continue";
  g.pass = pass;
  return g;
}

// A shard of `games` random Kalah games by `writer`, written `age_ms` before kNow.
void write_shard(const fs::path& dir, const std::string& writer, int games, int64_t age_ms,
                 std::mt19937_64& rng, int generation = 0) {
  const GameSpec spec = GameSpec::parse("kalah:3,3");
  ShardWriter w(spec, generation, "best.pt", writer);
  for (int g = 0; g < games; ++g) {
    test::RandomGame game = test::random_game(spec, rng, 0);
    w.add_game(std::move(game.rows), game.outcome, game.white_margin, game.length);
  }
  w.set_created_unix_ms(kNow - age_ms);
  fs::create_directories(dir);
  w.write_to_dir(dir.string());
}

// The run of these tests: gen3 passes, gen5 fails, gen7 passes; one gate record and one
// metrics line cut off mid-write, one shard cut short, one model that is not a model.
std::string make_run() {
  const fs::path run = test::temp_dir("kz-run-status") + "/myrun";
  fs::create_directories(run / "gates");
  write_gate_record((run / "gates/gen0003.json").string(), gate(14, 4, 6, true));
  write_gate_record((run / "gates/gen0005.json").string(), gate(6, 6, 12, false));
  write_gate_record((run / "gates/gen0007.json").string(), gate(15, 5, 4, true));
  write_text(run / "gates/gen0008.json", "{\"candidate\":\"models/gen0008.pt\",\"wins\":");
  write_text(run / "gates/gen0009.json.tmp-host-12-0", "{");  // a writer in flight: not a record

  {
    MetricsLog log((run / "logs/train.jsonl").string());
    for (int step = 10; step <= 100; step += 10) {
      log.log(step, {{"loss", 2.0 - step / 100.0}, {"lr", 0.02}});
      if (step % 50 == 0) log.log(step, {{"val_loss", 2.5 - step / 100.0}});
    }
  }
  {
    std::ofstream out(run / "logs/train.jsonl", std::ios::app);
    out << "not json at all\n"
        << "{\"no_step\": 1}\n"
        << "{\"step\": 110, \"loss\": 0.";  // torn: the trainer is writing it
  }

  std::mt19937_64 rng(5);
  write_shard(run / "data/gen0000", "w1", 4, 3 * kHourMs, rng);
  write_shard(run / "data/gen0000", "w1", 4, 2 * kHourMs, rng);
  write_shard(run / "data/gen0007", "w1", 2, kHourMs / 2, rng, 7);
  write_shard(run / "data/gen0000", "w2", 3, 5 * kHourMs, rng);
  std::string bytes;
  for (const auto& e : fs::directory_iterator(run / "data/gen0007"))
    bytes = test::read_bytes(e.path());
  write_text(run / "data/gen0007/selfplay-cut.kzshard", bytes.substr(0, 200));

  Model m = make_random_model(GameSpec::parse("kalah:3,3"), NetConfig{8, 1, 4, 4, 8}, 1);
  m.meta.generation = 7;
  m.meta.training_steps = 1400;
  m.meta.note = "the best";
  fs::create_directories(run / "models");
  save_model((run / "models/best.pt").string(), m);
  m.meta.generation = 8;
  m.meta.note = "the newest";
  save_model((run / "models/gen0008.pt").string(), m);
  write_text(run / "models/gen0009.pt", "KZMODEL");  // newer, and not a model
  return run.string();
}

int64_t total_games(const nlohmann::ordered_json& workers) {
  int64_t n = 0;
  for (const auto& w : workers) n += w["games"].get<int64_t>();
  return n;
}

TEST(TrainRunStatus, ReadsGatesLadderLossesWorkersAndModelsOfARunFolder) {
  const std::string run = make_run();
  RunStatusReader reader;
  const auto s = reader.read(run, kNow);
  EXPECT_EQ(s["name"], "myrun");
  EXPECT_EQ(s["best"], "gen0007");

  // Gates: each candidate against the best before it.
  ASSERT_EQ(s["gates"].size(), 3u) << s["gates"].dump();
  EXPECT_EQ(s["gates"][0]["candidate"], "gen0003");
  EXPECT_EQ(s["gates"][0]["baseline"], "gen0000");
  EXPECT_EQ(s["gates"][1]["baseline"], "gen0003");
  EXPECT_EQ(s["gates"][2]["baseline"], "gen0003");
  EXPECT_EQ(s["gates"][1]["wins"], 6);
  EXPECT_EQ(s["gates"][1]["losses"], 12);
  EXPECT_EQ(s["gates"][1]["pass"], false);
  EXPECT_EQ(s["gates"][2]["file"], "gates/gen0007.json");

  // The ladder: gen0000 the anchor, gen0003 and gen0007 promoted, gen0007 the best.
  ASSERT_EQ(s["ladder"].size(), 4u) << s["ladder"].dump();
  EXPECT_EQ(s["ladder"][0]["name"], "gen0000");
  EXPECT_EQ(s["ladder"][0]["elo"], 0.0);
  EXPECT_TRUE(s["ladder"][1]["promoted"]);
  EXPECT_FALSE(s["ladder"][2]["promoted"]);
  EXPECT_TRUE(s["ladder"][3]["best"]);
  for (const auto& r : s["ladder"])
    if (r["name"] != "gen0000") {
      EXPECT_LT(r["elo_lo"].get<double>(), r["elo"].get<double>());
      EXPECT_GT(r["elo_hi"].get<double>(), r["elo"].get<double>());
    }
  EXPECT_GT(s["ladder"][3]["elo"].get<double>(), s["ladder"][2]["elo"].get<double>());

  // Losses: each series on its own steps; the trainer's time is not a series.
  const auto& series = s["losses"]["series"];
  EXPECT_EQ(s["losses"]["file"], "logs/train.jsonl");
  ASSERT_EQ(series["loss"].size(), 10u);
  EXPECT_EQ(series["loss"][9][0], 100.0);
  EXPECT_NEAR(series["loss"][9][1].get<double>(), 1.0, 1e-9);
  ASSERT_EQ(series["val_loss"].size(), 2u);
  EXPECT_EQ(series["val_loss"][1][0], 100.0);
  EXPECT_FALSE(series.contains("time"));
  EXPECT_EQ(s["losses"]["last_step"], 100.0);

  // Workers: w1 wrote 10 games in 3 shards (2 in the last hour), w2 3 games long ago.
  ASSERT_EQ(s["workers"].size(), 2u);
  const auto& w1 = s["workers"][0];
  EXPECT_EQ(w1["worker"], "w1");
  EXPECT_EQ(w1["games"], 10);
  EXPECT_EQ(w1["shards"], 3);
  EXPECT_EQ(w1["newest_generation"], 7);
  EXPECT_EQ(w1["last_unix_ms"], kNow - kHourMs / 2);
  EXPECT_NEAR(w1["recent_games_per_hour"].get<double>(), 2.0, 1e-9);
  // Over its life, the games after its first shard: 6 in 2.5 hours.
  EXPECT_NEAR(w1["games_per_hour"].get<double>(), 6 / 2.5, 1e-9);
  EXPECT_EQ(s["workers"][1]["recent_games_per_hour"], 0.0);
  EXPECT_TRUE(s["workers"][1]["games_per_hour"].is_null());  // one shard: no rate
  EXPECT_EQ(s["selfplay"]["games"], 13);
  EXPECT_EQ(s["selfplay"]["shards"], 4);
  EXPECT_EQ(total_games(s["workers"]), 13);

  // Models: the best one's header; the newest is not a model, so it is skipped.
  EXPECT_EQ(s["models"]["best"]["generation"], 7);
  EXPECT_EQ(s["models"]["best"]["note"], "the best");
  EXPECT_EQ(s["models"]["best"]["channels"], 8);
  EXPECT_EQ(s["models"]["best"]["file"], "models/best.pt");
  EXPECT_TRUE(s["models"]["newest"].is_null());

  // What was damaged is counted and named inside the run, never by the server's path.
  EXPECT_EQ(s["skipped"]["gate_records"], 1);
  EXPECT_EQ(s["skipped"]["metrics_lines"], 3);
  EXPECT_EQ(s["skipped"]["shards"], 1);
  EXPECT_EQ(s["skipped"]["models"], 1);
  ASSERT_EQ(s["problems"].size(), 3u) << s["problems"].dump();
  const std::string problems = s["problems"].dump();
  EXPECT_NE(problems.find("gates/gen0008.json"), std::string::npos) << problems;
  EXPECT_NE(problems.find("data/gen0007/selfplay-cut.kzshard"), std::string::npos) << problems;
  EXPECT_NE(problems.find("models/gen0009.pt"), std::string::npos) << problems;
  EXPECT_EQ(problems.find(run), std::string::npos) << problems;
}

std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

// The page reads the answer by name, but a person reads it raw (docs/serve.md), and
// every part keeps its order; the problems come in the order of the parts.
TEST(TrainRunStatus, TheAnswersKeysAndProblemsKeepTheirOrder) {
  const std::string run = make_run();
  RunStatusReader reader;
  const auto s = reader.read(run, kNow);
  using Keys = std::vector<std::string>;
  EXPECT_EQ(keys_of(s), (Keys{"name", "now_unix_ms", "best", "ladder", "gates", "losses",
                              "selfplay", "workers", "models", "skipped", "problems"}));
  EXPECT_EQ(keys_of(s["gates"][0]),
            (Keys{"file", "candidate", "generation", "baseline", "wins", "draws", "losses", "games",
                  "score", "elo", "elo_lo", "elo_hi", "los", "llr", "sprt", "pass", "seconds",
                  "written_unix_ms"}));
  EXPECT_EQ(keys_of(s["ladder"][0]), (Keys{"name", "generation", "elo", "elo_lo", "elo_hi", "games",
                                           "score", "promoted", "best"}));
  EXPECT_EQ(keys_of(s["losses"]),
            (Keys{"file", "rows", "last_step", "last_time_unix_ms", "series"}));
  EXPECT_EQ(keys_of(s["losses"]["series"]), (Keys{"loss", "lr", "val_loss"}));
  EXPECT_EQ(keys_of(s["selfplay"]),
            (Keys{"shards", "games", "rows", "rate_window_seconds", "games_per_day"}));
  EXPECT_EQ(keys_of(s["selfplay"]["games_per_day"][0]), (Keys{"day", "games"}));
  EXPECT_EQ(keys_of(s["workers"][0]),
            (Keys{"worker", "shards", "games", "rows", "newest_generation", "first_unix_ms",
                  "last_unix_ms", "games_per_hour", "recent_games_per_hour"}));
  EXPECT_EQ(keys_of(s["models"]), (Keys{"best", "newest"}));
  const Keys best = keys_of(s["models"]["best"]);
  ASSERT_GE(best.size(), 3u);
  EXPECT_EQ(best.front(), "file");
  EXPECT_EQ(Keys(best.end() - 2, best.end()), (Keys{"bytes", "modified_unix_ms"}));
  EXPECT_EQ(keys_of(s["skipped"]), (Keys{"gate_records", "metrics_lines", "shards", "models"}));
  ASSERT_EQ(s["problems"].size(), 3u) << s["problems"].dump();
  EXPECT_NE(s["problems"][0].get<std::string>().find("gates/gen0008.json"), std::string::npos);
  EXPECT_NE(s["problems"][1].get<std::string>().find("selfplay-cut.kzshard"), std::string::npos);
  EXPECT_NE(s["problems"][2].get<std::string>().find("models/gen0009.pt"), std::string::npos);

  // With room for one problem, the first.
  RunStatusOptions o;
  o.max_problems = 1;
  RunStatusReader one(o);
  const auto first = one.read(run, kNow)["problems"];
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0], s["problems"][0]);
}

TEST(TrainRunStatus, ARunGoingOnIsSeenAtTheNextRead) {
  const std::string run = make_run();
  RunStatusReader reader;
  const auto before = reader.read(run, kNow);
  write_gate_record(run + "/gates/gen0010.json", gate(20, 2, 2, true));
  std::mt19937_64 rng(9);
  write_shard(run + "/data/gen0007", "w3", 2, 0, rng, 7);
  {
    std::ofstream out(run + "/logs/train.jsonl", std::ios::app);
    out << "5, \"loss\": 0.5}\n{\"step\": 120, \"loss\": 0.4}\n";  // the torn line ends
  }
  fs::remove(run + "/models/gen0009.pt");  // the bad model goes: gen0008 is the newest
  const auto after = reader.read(run, kNow);
  EXPECT_EQ(after["gates"].size(), before["gates"].size() + 1);
  EXPECT_EQ(after["best"], "gen0010");
  EXPECT_EQ(after["ladder"].back()["name"], "gen0010");
  EXPECT_EQ(after["selfplay"]["games"], 15);
  EXPECT_EQ(after["workers"].size(), 3u);
  EXPECT_EQ(after["losses"]["series"]["loss"].size(), 12u);
  EXPECT_EQ(after["losses"]["last_step"], 120.0);
  EXPECT_EQ(after["skipped"]["metrics_lines"], 2);
  EXPECT_EQ(after["skipped"]["models"], 0);
  EXPECT_EQ(after["models"]["newest"]["generation"], 8);
  EXPECT_EQ(after["models"]["newest"]["note"], "the newest");
}

TEST(TrainRunStatus, AnEmptyOrMissingRunFolderIsAnEmptyRun) {
  RunStatusReader reader;
  for (const std::string& run :
       {test::temp_dir("kz-run-status-empty"), test::temp_dir("kz-run-status") + "/missing"}) {
    const auto s = reader.read(run, kNow);
    EXPECT_TRUE(s["gates"].empty());
    EXPECT_TRUE(s["ladder"].empty());
    EXPECT_TRUE(s["losses"].is_null());
    EXPECT_TRUE(s["workers"].empty());
    EXPECT_TRUE(s["models"]["best"].is_null());
    EXPECT_EQ(s["skipped"]["gate_records"], 0);
  }
}

TEST(TrainRunStatus, LongLossSeriesAreThinnedToTheLimitWithTheLastPointKept) {
  const std::string run = test::temp_dir("kz-run-status-long");
  {
    MetricsLog log(run + "/logs/train.jsonl");
    for (int step = 1; step <= 1001; ++step) log.log(step, {{"loss", double(step)}});
  }
  RunStatusOptions o;
  o.max_loss_points = 100;
  RunStatusReader reader(o);
  const auto points = reader.read(run, kNow)["losses"]["series"]["loss"];
  EXPECT_LE(points.size(), 101u);
  EXPECT_GE(points.size(), 90u);
  EXPECT_EQ(points.front()[0], 1.0);
  EXPECT_EQ(points.back()[0], 1001.0);
}

TEST(TrainRunStatus, MetricsCsvSkippedLinesAreCounted) {
  const std::string dir = test::temp_dir("kz-run-status-csv");
  write_text(dir + "/m.csv", "step,loss\n1,0.5\nbroken\n,0.2\n2,0.25\n\n3,0.");
  const MetricsTable t = read_metrics(dir + "/m.csv");
  EXPECT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.skipped_lines, 3);  // "broken", a line without a step, the torn last one
}

}  // namespace
}  // namespace kz
