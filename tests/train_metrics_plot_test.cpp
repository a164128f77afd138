#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/metrics_log.h"
#include "train/plot.h"
#include "train/progress.h"

namespace kz {
namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(TrainMetricsLog, CsvAppendsAndResumes) {
  const std::string path = test::temp_dir("kz-metrics") + "/run/metrics.csv";
  {
    MetricsLog log(path, {.columns = {"loss", "policy_loss"}});
    EXPECT_EQ(log.last_step(), -1);
    log.log(1, {{"loss", 2.5}, {"policy_loss", 1.25}});
    log.log(2, {{"loss", 2.0}});  // policy_loss left empty
    // Flushed at once: another reader sees both lines while the log is still open.
    EXPECT_EQ(lines_of(path).size(), 3u);
  }
  {
    MetricsLog log(path);  // no columns given: the file's header decides
    EXPECT_EQ(log.last_step(), 2);
    EXPECT_EQ(log.columns(), (std::vector<std::string>{"step", "time", "loss", "policy_loss"}));
    log.log(3, {{"loss", 1.5}, {"unknown", 9.0}});  // unknown column: dropped, warned
  }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "step,time,loss,policy_loss");
  const MetricsTable t = read_metrics(path);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.columns[0], "step");
  const int loss = t.column("loss"), pol = t.column("policy_loss");
  EXPECT_EQ(t.rows[2][0], 3.0);
  EXPECT_EQ(t.rows[2][size_t(loss)], 1.5);
  EXPECT_EQ(t.rows[0][size_t(pol)], 1.25);
  EXPECT_TRUE(std::isnan(t.rows[1][size_t(pol)]));
  EXPECT_GT(t.rows[0][size_t(t.column("time"))], 1.6e9);  // Unix seconds

  // An existing CSV cannot grow a column.
  EXPECT_THROW(MetricsLog(path, {.columns = {"new_column"}}), std::runtime_error);
}

TEST(TrainMetricsLog, DropsATornLineAndStepsAfterTheCheckpoint) {
  const std::string path = test::temp_dir("kz-metrics") + "/m.csv";
  {
    MetricsLog log(path, {.columns = {"loss"}, .add_time = false});
    for (int s = 1; s <= 5; ++s) log.log(s * 100, {{"loss", 1.0 / s}});
  }
  {  // a writer killed mid-line
    std::ofstream out(path, std::ios::app);
    out << "600,0.1";
  }
  {
    MetricsLog log(path);
    EXPECT_EQ(log.last_step(), 500);
    log.log(600, {{"loss", 0.125}});
  }
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[6], "600,0.125");
  // Resuming from a checkpoint at step 300: later lines go, new ones follow.
  {
    MetricsLog log(path, {.truncate_after_step = 300});
    EXPECT_EQ(log.last_step(), 300);
    log.log(400, {{"loss", 0.3}});
  }
  lines = lines_of(path);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3], "300,0.3333333333333333");
  EXPECT_EQ(lines[4], "400,0.3");
}

TEST(TrainMetricsLog, JsonLinesResumeAndMissingValues) {
  const std::string path = test::temp_dir("kz-metrics") + "/m.jsonl";
  {
    MetricsLog log(path);
    log.log(10, {{"loss", 1.0}});
    log.log(20, {{"loss", 0.5}, {"val_loss", 0.75}, {"bad", std::nan("")}});
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"step\": 30, \"lo";  // torn
  }
  {
    MetricsLog log(path);
    EXPECT_EQ(log.last_step(), 20);
    log.log(30, {{"loss", 0.25}});
  }
  const MetricsTable t = read_metrics(path);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"step", "time", "loss", "val_loss", "bad"}));
  EXPECT_EQ(t.rows[2][0], 30.0);
  EXPECT_EQ(t.rows[2][2], 0.25);
  EXPECT_TRUE(std::isnan(t.rows[0][3]));  // val_loss not logged at step 10
  EXPECT_EQ(t.rows[1][3], 0.75);
  EXPECT_TRUE(std::isnan(t.rows[1][4]));  // NaN written as null
  EXPECT_THROW(read_metrics("/nonexistent/kz/m.jsonl"), std::runtime_error);
}

TEST(TrainMetricsLog, ConcurrentLinesStayWhole) {
  const std::string path = test::temp_dir("kz-metrics") + "/m.jsonl";
  {
    MetricsLog log(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 200; ++i) log.log(t * 1000 + i, {{"x", double(i)}});
      });
    for (auto& th : threads) th.join();
  }
  EXPECT_EQ(read_metrics(path).rows.size(), 800u);
}

// ------------------------------------------------------------------ plots

bool is_png(const std::string& path) {
  const std::string bytes = test::read_bytes(path);
  return bytes.size() > 1000 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* v = getenv(name.c_str())) old = v;
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

TEST(TrainPlot, LossCurvesPng) {
  if (gnuplot_path().empty()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = test::temp_dir("kz-plot");
  {
    MetricsLog log(dir + "/metrics.jsonl");
    for (int s = 0; s <= 50; ++s) {
      std::vector<std::pair<std::string, double>> v = {{"loss", 3.0 * std::exp(-s / 20.0)},
                                                       {"policy_loss", 2.0 * std::exp(-s / 25.0)}};
      if (s % 10 == 0) v.push_back({"val_loss", 3.2 * std::exp(-s / 22.0)});
      log.log(s * 100, v);
    }
  }
  EXPECT_FALSE(gnuplot_png_terminal().empty());
  const std::string png = dir + "/plots/loss.png";
  ASSERT_TRUE(plot_metrics_file(dir + "/metrics.jsonl", png, {},
                                {.title = "loss of run 'x'", .log_y = true}));
  EXPECT_TRUE(is_png(png));
  // Only the PNG and the metrics file remain: temporaries are cleaned up.
  auto files = test::files_in(dir);
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"loss.png", "metrics.jsonl"}));
  // A column that does not exist is left out; all missing -> false, no file.
  EXPECT_FALSE(plot_metrics_file(dir + "/metrics.jsonl", dir + "/none.png", {"nope"}));
  EXPECT_FALSE(std::filesystem::exists(dir + "/none.png"));
}

TEST(TrainPlot, EloLadderPng) {
  if (gnuplot_path().empty()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = test::temp_dir("kz-plot");
  std::vector<PairResult> results;
  for (int g = 1; g <= 6; ++g)
    results.push_back({"gen" + std::to_string(g), "gen" + std::to_string(g - 1), 60, 20, 20});
  const LadderFit fit = fit_ladder(results, {.anchor = "gen0"});
  write_ladder_csv(dir + "/ladder.csv", fit.ratings);
  const std::string png = dir + "/elo.png";
  ASSERT_TRUE(plot_ladder_file(dir + "/ladder.csv", png, {.title = "Elo by generation"}));
  EXPECT_TRUE(is_png(png));
  EXPECT_EQ(test::files_in(dir).size(), 2u);
}

// A run continued from another one's model is its own line; shipped models are ringed.
TEST(TrainPlot, EloLadderTwoRunsAndShippedModels) {
  if (gnuplot_path().empty()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = test::temp_dir("kz-plot");
  std::vector<PairResult> results;
  for (int g = 1; g <= 4; ++g)
    results.push_back({"gen" + std::to_string(g), "gen" + std::to_string(g - 1), 60, 20, 20});
  results.push_back({"blend-gen3", "gen2", 70, 10, 20});
  results.push_back({"blend-gen4", "blend-gen3", 60, 10, 30});
  results.push_back({"gen4", "ab:4", 50, 0, 50});
  LadderFit fit = fit_ladder(results, {.anchor = "gen0"});
  for (auto& r : fit.ratings) r.shipped = r.name == "gen2" || r.name == "blend-gen4";
  const std::string png = dir + "/elo.png";
  ASSERT_TRUE(plot_ladder(fit.ratings, png, {.title = "two runs"}));
  EXPECT_TRUE(is_png(png));
  EXPECT_EQ(test::files_in(dir).size(), 1u);  // no data or script file left behind
}

TEST(TrainPlot, MissingGnuplotReturnsFalse) {
  const std::string dir = test::temp_dir("kz-plot");
  MetricsTable t;
  t.columns = {"step", "loss"};
  t.rows = {{1, 2}, {2, 1}};
  {
    ScopedEnv env("KZ_GNUPLOT", "/nonexistent/gnuplot");
    EXPECT_EQ(gnuplot_path(), "");
    EXPECT_FALSE(plot_metrics(t, dir + "/a.png"));
  }
  {
    ScopedEnv env("KZ_GNUPLOT", "/bin/false");  // runs, but cannot plot
    EXPECT_FALSE(plot_metrics(t, dir + "/b.png"));
  }
  EXPECT_TRUE(test::files_in(dir).empty());
  EXPECT_FALSE(plot_metrics_file(dir + "/missing.csv", dir + "/c.png"));
  EXPECT_FALSE(plot_ladder({}, dir + "/d.png"));
}

// ------------------------------------------------------------------ progress

TEST(TrainProgress, FormatsDurationsAndCounts) {
  EXPECT_EQ(format_duration(5), "5s");
  EXPECT_EQ(format_duration(65), "1m05s");
  EXPECT_EQ(format_duration(3723), "1h02m03s");
  EXPECT_EQ(format_duration(2 * 86400 + 5 * 3600), "2d05h");
  EXPECT_EQ(format_duration(-1), "?");
  EXPECT_EQ(format_duration(std::nan("")), "?");
  EXPECT_EQ(format_count(950), "950");
  EXPECT_EQ(format_count(12345), "12.3k");
  EXPECT_EQ(format_count(4.56e6), "4.56M");
}

TEST(TrainProgress, PlainLinesEveryInterval) {
  std::ostringstream out;
  double now = 100;
  {
    Progress p("selfplay", 1000,
               {.mode = Progress::Mode::kLines,
                .line_interval_s = 10,
                .unit = "games",
                .out = &out,
                .clock = [&] { return now; }});
    p.set_field("gen", "3");
    now = 105;
    p.add(100);  // 5 s: too early for a line
    EXPECT_EQ(out.str(), "");
    now = 110;
    p.add(100);  // 200 done after 10 s: 20 games/s, 800 left -> ETA 40 s
    EXPECT_EQ(out.str(), "selfplay: 200/1000 (20.0%) 20 games/s elapsed 10s ETA 40s gen=3\n");
    EXPECT_NEAR(p.rate(), 20.0, 1e-12);
    EXPECT_NEAR(p.eta_seconds(), 40.0, 1e-12);
    now = 112;
    p.add(10);
    const std::string so_far = out.str();
    EXPECT_EQ(std::count(so_far.begin(), so_far.end(), '\n'), 1);
    p.set_field("gen", 4.0);
    now = 150;
    p.set_done(1000);
  }  // the destructor prints the final line
  const std::string s = out.str();
  EXPECT_NE(s.find("selfplay: 1000/1000 (100.0%) 20 games/s in 50s gen=4\n"), std::string::npos)
      << s;
  EXPECT_EQ(s.find('\r'), std::string::npos);
}

TEST(TrainProgress, BarRedrawsInPlace) {
  std::ostringstream out;
  double now = 0;
  Progress p("train", 10,
             {.mode = Progress::Mode::kBar,
              .bar_interval_s = 0,
              .bar_width = 10,
              .out = &out,
              .clock = [&] { return now; }});
  now = 1;
  p.add(5);
  EXPECT_EQ(out.str().substr(0, 26), "\rtrain: [=====>    ] 5/10 ");
  p.finish();
  p.add(100);  // ignored after finish
  EXPECT_EQ(p.done(), 5);
  EXPECT_EQ(out.str().back(), '\n');
}

TEST(TrainProgress, UnknownTotalAndManyThreads) {
  std::ostringstream out;
  Progress p("scan", 0, {.mode = Progress::Mode::kLines, .line_interval_s = 1e9, .out = &out});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) p.add();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(p.done(), 40000);
  EXPECT_EQ(p.eta_seconds(), -1.0);
  EXPECT_EQ(p.text().find("%"), std::string::npos);
  EXPECT_EQ(p.text().find("ETA"), std::string::npos);
}

}  // namespace
}  // namespace kz
