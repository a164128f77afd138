// Continuous mode end to end (train/follow.h) on configs/tiny.toml: two self-play
// workers, a trainer and a gatekeeper run at once on one run folder; each is killed
// with SIGKILL in turn and restarted; a second trainer and a second gatekeeper are
// refused by their locks; at the end (SIGTERM) every game a worker reported as written
// is in a readable shard, at least one candidate was promoted, and best.pt is it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/test_util.h"

namespace kz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A background process with its output appended to `log` (a restart appends to the same
// log, so the log holds every line each incarnation printed).
struct Proc {
  std::string command, log;
  pid_t pid = -1;

  void start() {
    const std::string line = "exec " + command + " >>" + log + " 2>&1";
    pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    ASSERT_GT(pid, 0);
  }
  // Sends `sig` and waits; the exit status as waitpid gives it.
  int stop(int sig) {
    if (pid <= 0) return -1;
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return status;
  }
  ~Proc() {
    if (pid > 0) stop(SIGKILL);
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int count_matching(const std::string& dir, const std::regex& name) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    n += std::regex_match(e.path().filename().string(), name);
  return n;
}

// Waits until `ready` or `seconds` pass; true when ready.
template <class F>
bool wait_for(F ready, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ready();
}

TEST(Follow, TwoWorkersTrainerGatekeeperSurviveKillsAndLoseNoGame) {
  const std::string dir = test::temp_dir("kz-follow");
  const std::string run = dir + "/run";
  // configs/tiny-follow.toml: candidates every few steps and a gate that always promotes.
  // The test checks the plumbing, not learning.
  const std::string cfg = test::source_dir() + "/configs/tiny-follow.toml";
  const std::string common = " --follow " + run + " --config " + cfg;
  Proc w1{test::bin("kumalak-selfplay") + common + " --worker w1", dir + "/w1.log"};
  Proc w2{test::bin("kumalak-selfplay") + common + " --worker w2", dir + "/w2.log"};
  Proc trainer{test::bin("kumalak-train") + common, dir + "/trainer.log"};
  Proc gate{test::bin("kumalak-gate") + common, dir + "/gate.log"};
  for (Proc* p : {&w1, &w2, &trainer, &gate}) p->start();

  const std::regex candidate("gen[0-9]{4}\\.pt"), record("gen[0-9]{4}\\.json");
  auto candidates = [&] { return count_matching(run + "/models", candidate) - 1; };
  auto records = [&] { return count_matching(run + "/gates", record); };
  ASSERT_TRUE(wait_for([&] { return candidates() >= 1; }, 40)) << read_text(trainer.log);

  // Each process killed in turn, mid-work, and restarted with the same arguments.
  int worker_kills = 0;
  for (Proc* p : {&w1, &trainer, &gate, &w2}) {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    const int status = p->stop(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << p->command;
    worker_kills += p == &w1 || p == &w2;
    p->start();
  }

  // A second trainer, gatekeeper or worker w1 by mistake (once the restarted ones hold
  // their locks): refused at once, naming the lock.
  auto started_twice = [](const Proc& p, const std::string& what) {
    return [&p, what] {
      const std::string text = read_text(p.log);
      size_t n = 0;
      for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
      return n >= 2;
    };
  };
  ASSERT_TRUE(wait_for(started_twice(trainer, "train-follow: started"), 30))
      << read_text(trainer.log);
  ASSERT_TRUE(wait_for(started_twice(gate, "gate-follow: started"), 30)) << read_text(gate.log);
  ASSERT_TRUE(wait_for(started_twice(w1, "selfplay-follow: worker w1 started"), 30))
      << read_text(w1.log);
  {
    std::string out;
    EXPECT_NE(test::run_command(test::bin("kumalak-selfplay") + " --follow " + run + " --worker w1",
                                &out, true),
              0)
        << out;
    EXPECT_NE(out.find("lock"), std::string::npos) << out;
  }
  for (const std::string exe : {"kumalak-train", "kumalak-gate"}) {
    std::string out;
    EXPECT_NE(test::run_command(test::bin(exe) + " --follow " + run, &out, true), 0) << out;
    EXPECT_NE(out.find("lock"), std::string::npos) << out;
  }

  const int candidates_before = candidates();
  ASSERT_TRUE(wait_for([&] { return records() >= 1 && candidates() > candidates_before; }, 40))
      << read_text(gate.log) << read_text(trainer.log);

  // SIGTERM: the workers finish their games in flight and write them; all exit cleanly.
  for (Proc* p : {&w1, &w2, &trainer, &gate}) {
    const int status = p->stop(SIGTERM);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << p->command << " status " << status << "\n"
        << read_text(p->log);
  }

  // Every shard a worker reported is there; the shards nobody reported can only be those
  // written just before a kill -9 (written, not yet printed), of at most 4 games each.
  const std::regex wrote("selfplay-follow: wrote (\\S+) games=([0-9]+) rows=([0-9]+)");
  std::set<std::string> reported;
  int64_t reported_games = 0;
  for (const Proc* p : {&w1, &w2}) {
    const std::string text = read_text(p->log);
    for (std::sregex_iterator it(text.begin(), text.end(), wrote), end; it != end; ++it) {
      EXPECT_TRUE(fs::exists((*it)[1].str())) << (*it)[1];
      reported.insert((*it)[1].str());
      reported_games += std::stoll((*it)[2].str());
    }
  }
  int shard_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(run + "/data"))
    shard_files += e.path().extension() == ".kzshard";
  EXPECT_GE(shard_files, int(reported.size()));
  EXPECT_LE(shard_files, int(reported.size()) + worker_kills);

  std::string summary;
  ASSERT_EQ(test::run_command(test::bin("kumalak-selfplay") + " --follow " + run + " --summary",
                              &summary, true),
            0)
      << summary;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(summary, m, std::regex("games=([0-9]+) rows=([0-9]+) unreadable=0")))
      << summary;
  const int64_t games_in_shards = std::stoll(m[1].str());
  EXPECT_GE(games_in_shards, reported_games) << summary;
  EXPECT_LE(games_in_shards, reported_games + 4 * (shard_files - int64_t(reported.size())))
      << summary;
  EXPECT_GT(reported_games, 0);

  // At least one promotion; best.pt is the newest promoted candidate, byte for byte.
  const std::string gate_log = read_text(gate.log);
  const std::regex promoted("gate-follow: (gen[0-9]{4}) vs best: .* -> PASS, promoted");
  std::string last_promoted;
  for (std::sregex_iterator it(gate_log.begin(), gate_log.end(), promoted), end; it != end; ++it)
    last_promoted = (*it)[1];
  ASSERT_FALSE(last_promoted.empty()) << gate_log;
  // A kill may have come between a later record and its promotion: the newest passing
  // record is what best.pt must be after the restart.
  std::string newest_pass;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(run + "/gates"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    if (read_text(f.string()).find("\"pass\":true") != std::string::npos)
      newest_pass = f.stem().string();
  ASSERT_FALSE(newest_pass.empty());
  EXPECT_EQ(read_text(run + "/models/best.pt"), read_text(run + "/models/" + newest_pass + ".pt"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
