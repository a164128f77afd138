// The Run view's API of `kumalak serve --run DIR` (tools/serve/run_api.h) in-process, with
// the reader the executable uses (train/run_status.h) on the committed run folder
// tests/data/run-view: four gate records, metrics, shards of two workers, a model, and
// a damaged file of each kind.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

#include "tests/serve_test_util.h"
#include "tests/test_util.h"
#include "tools/serve/api.h"
#include "tools/serve/run_api.h"
#include "train/run_status.h"

namespace kz::cli::serve {
namespace {

const std::string kFixtureRun = test::source_dir() + "/tests/data/run-view";

// The whole server (ServeApi) on an ephemeral port, watching `dirs`; no engine is asked.
class RunServer {
 public:
  explicit RunServer(const std::vector<std::string>& dirs) {
    ServeApiOptions o;
    o.engine.workers = 1;
    o.runs = name_runs(dirs);
    o.run_reader = [this](const std::string& dir) {
      std::lock_guard<std::mutex> lock(mutex_);
      read_dirs_.push_back(dir);
      return json(reader_.read(dir, 1800000000000));
    };
    server_ = std::make_unique<InProcessApi>(
        o, [](Task, const GameSpec&, Level) -> std::unique_ptr<Player> {
          throw std::logic_error("no engine in these tests");
        });
  }
  std::pair<int, json> get(const std::string& path) { return server_->call("GET", path); }
  // The folders the reader was asked to read, in order.
  std::vector<std::string> read_dirs() {
    std::lock_guard<std::mutex> lock(mutex_);
    return read_dirs_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> read_dirs_;
  RunStatusReader reader_;
  std::unique_ptr<InProcessApi> server_;
};

TEST(ServeRunApi, AnswersTheFixtureRunWithItsDamagedFilesCounted) {
  RunServer server({kFixtureRun});
  auto [status, run] = server.get("/api/run?run=0");
  ASSERT_EQ(status, 200) << run.dump();
  EXPECT_EQ(run["index"], 0);
  EXPECT_EQ(run["name"], "run-view");
  EXPECT_EQ(run["best"], "gen0009");
  ASSERT_EQ(run["gates"].size(), 4u);
  const json& g = run["gates"][2];
  EXPECT_EQ(g["candidate"], "gen0009");
  EXPECT_EQ(g["baseline"], "gen0003");
  EXPECT_EQ(g["wins"], 15);
  EXPECT_EQ(g["draws"], 5);
  EXPECT_EQ(g["losses"], 4);
  EXPECT_EQ(g["pass"], true);
  EXPECT_NEAR(g["elo"].get<double>(), 172.05, 1e-9);
  ASSERT_EQ(run["ladder"].size(), 5u);
  int promoted = 0;
  for (const json& r : run["ladder"]) promoted += r["promoted"].get<bool>();
  EXPECT_EQ(promoted, 2);
  EXPECT_EQ(run["ladder"][3]["name"], "gen0009");
  EXPECT_TRUE(run["ladder"][3]["best"]);
  EXPECT_EQ(run["losses"]["series"]["loss"].size(), 30u);
  EXPECT_EQ(run["losses"]["rows"], 60);
  EXPECT_EQ(run["selfplay"]["games"], 28);
  ASSERT_EQ(run["workers"].size(), 2u);
  EXPECT_EQ(run["workers"][0]["worker"], "vm-w1");
  EXPECT_EQ(run["workers"][0]["games"], 16);
  EXPECT_EQ(run["models"]["best"]["generation"], 9);
  EXPECT_EQ(run["models"]["best"]["weights_checksum"], "6512891179078610788");
  EXPECT_TRUE(run["models"]["newest"].is_null());  // models/gen0013.pt is damaged
  // The damaged files: a gate record and a metrics line cut off mid-write, a metrics line
  // broken in the middle, a shard cut short, a model that is not one.
  EXPECT_EQ(run["skipped"],
            json({{"gate_records", 1}, {"metrics_lines", 2}, {"shards", 1}, {"models", 1}}));
  EXPECT_EQ(run["problems"].size(), 3u);
  EXPECT_EQ(run["problems"].dump().find(kFixtureRun), std::string::npos) << run["problems"];

  // The same run by its name.
  auto [by_name, same] = server.get("/api/run?run=run-view");
  EXPECT_EQ(by_name, 200);
  EXPECT_EQ(same["gates"], run["gates"]);
}

TEST(ServeRunApi, ListsTheRunsAndTheInfoCountsThem) {
  RunServer server({kFixtureRun, kFixtureRun + "/"});
  auto [status, list] = server.get("/api/runs");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(list, json::parse(R"({"runs":[{"index":0,"name":"run-view"},
                                          {"index":1,"name":"run-view-2"}]})"));
  EXPECT_EQ(server.get("/api/info").second["runs"], 2);
  EXPECT_EQ(server.get("/api/run?run=run-view-2").first, 200);
}

TEST(ServeRunApi, ABadRunIsA4xxAndNoPathIsTakenFromTheRequest) {
  RunServer server({kFixtureRun});
  for (const char* bad :
       {"/api/run?run=1", "/api/run?run=-1", "/api/run?run=runs", "/api/run?run=..",
        "/api/run?run=%2Ftmp", "/api/run?run=0x0", "/api/run?run=" /* empty */}) {
    auto [status, body] = server.get(bad);
    EXPECT_GE(status, 400) << bad;
    EXPECT_LT(status, 500) << bad;
    EXPECT_FALSE(body.value("error", "").empty()) << bad;
  }
  auto [missing, body] = server.get("/api/run");
  EXPECT_EQ(missing, 400);
  EXPECT_NE(body["error"].get<std::string>().find("'run' is missing"), std::string::npos);
  auto [unknown, why] = server.get("/api/run?run=7");
  EXPECT_EQ(unknown, 404);
  EXPECT_NE(why["error"].get<std::string>().find("run-view"), std::string::npos) << why;
  // Parameters that look like paths change nothing: the reader only ever sees the
  // folder given at start.
  EXPECT_EQ(server.get("/api/run?run=0&dir=/etc&path=../../etc&run_dir=/").first, 200);
  ASSERT_FALSE(server.read_dirs().empty());
  for (const std::string& dir : server.read_dirs()) EXPECT_EQ(dir, kFixtureRun);
}

TEST(ServeRunApi, WithoutRunsTheCallsSaySo) {
  RunServer server({});
  EXPECT_EQ(server.get("/api/runs").second, json::parse(R"({"runs":[]})"));
  EXPECT_EQ(server.get("/api/info").second["runs"], 0);
  auto [status, body] = server.get("/api/run?run=0");
  EXPECT_EQ(status, 404);
  EXPECT_NE(body["error"].get<std::string>().find("--run"), std::string::npos);
}

TEST(ServeRunApi, RunsAreNamedByTheirFolders) {
  const auto runs = name_runs({"runs/a", "/x/runs/b/", "other/a", "a", "."});
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].name, "a");
  EXPECT_EQ(runs[1].name, "b");
  EXPECT_EQ(runs[2].name, "a-2");
  EXPECT_EQ(runs[3].name, "a-3");
  EXPECT_EQ(runs[1].dir, "/x/runs/b/");
  EXPECT_FALSE(runs[4].name.empty());
}

}  // namespace
}  // namespace kz::cli::serve
