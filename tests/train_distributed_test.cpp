// Data-parallel training (train/distributed.h, train/trainer.h): the launch variables,
// the collectives, and kumalak-train run as two ranks over loopback: the same weights as
// one process computing the same global batches in two slices, exact resumption across
// ranks, a dead or hung rank ending the other within its timeout, and ranks that
// disagree refusing to start. Skips when the build has no Gloo (libgloo-dev).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "nn/model_file.h"
#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/config.h"
#include "train/distributed.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

// A port nobody listens on now (the kernel's choice for port 0), for one rendezvous.
int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(s);
  return port;
}

#define SKIP_WITHOUT_GLOO() \
  if (!gloo_available()) GTEST_SKIP() << "built without Gloo headers (libgloo-dev)"

// Sets (or, for nullptr, unsets) environment variables for one scope.
class ScopedEnv {
 public:
  explicit ScopedEnv(std::vector<std::pair<std::string, const char*>> vars) {
    for (auto& [k, v] : vars) {
      const char* old = std::getenv(k.c_str());
      saved_.push_back({k, old ? std::optional<std::string>(old) : std::nullopt});
      v ? setenv(k.c_str(), v, 1) : unsetenv(k.c_str());
    }
  }
  ~ScopedEnv() {
    for (auto& [k, v] : saved_) v ? setenv(k.c_str(), v->c_str(), 1) : unsetenv(k.c_str());
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(Distributed, LaunchVariablesOfTorchrunAndSlurm) {
  {
    ScopedEnv env({{"RANK", "3"},
                   {"WORLD_SIZE", "4"},
                   {"MASTER_ADDR", "node7"},
                   {"MASTER_PORT", "1234"},
                   {"LOCAL_RANK", "1"},
                   {"SLURM_PROCID", "1"},
                   {"SLURM_NTASKS", "2"}});
    const DistributedOptions o = distributed_from_environment();
    EXPECT_EQ(o.rank, 3);  // torchrun's names win over SLURM's
    EXPECT_EQ(o.world_size, 4);
    EXPECT_EQ(o.master_addr, "node7");
    EXPECT_EQ(o.master_port, 1234);
    EXPECT_EQ(o.local_rank, 1);
  }
  {
    ScopedEnv env({{"RANK", nullptr},
                   {"WORLD_SIZE", nullptr},
                   {"MASTER_ADDR", nullptr},
                   {"MASTER_PORT", nullptr},
                   {"LOCAL_RANK", nullptr},
                   {"SLURM_LOCALID", "0"},
                   {"SLURM_PROCID", "1"},
                   {"SLURM_NTASKS", "2"}});
    const DistributedOptions o = distributed_from_environment();
    EXPECT_EQ(o.rank, 1);
    EXPECT_EQ(o.world_size, 2);
    EXPECT_EQ(o.master_addr, "127.0.0.1");  // unset: the default
    EXPECT_EQ(o.local_rank, 0);
  }
  {
    ScopedEnv env({{"RANK", "one"}, {"WORLD_SIZE", nullptr}});
    try {
      distributed_from_environment();
      FAIL() << "a malformed RANK was accepted";
    } catch (const DistributedError& e) {
      EXPECT_NE(std::string(e.what()).find("RANK"), std::string::npos) << e.what();
    }
  }
  DistributedOptions bad;
  bad.world_size = 2;
  bad.rank = 2;
  EXPECT_NE(distributed_problem(bad).find("rank 2 is outside 0..1"), std::string::npos);
  bad.rank = 0;
  bad.master_port = 70000;
  EXPECT_NE(distributed_problem(bad).find("port"), std::string::npos);
  EXPECT_EQ(distributed_problem(DistributedOptions{}), "");
}

TEST(Distributed, AllReduceAndAllGatherBetweenTwoRanks) {
  SKIP_WITHOUT_GLOO();
  DistributedOptions o;
  o.world_size = 2;
  o.master_port = free_port();
  o.timeout_s = 30;
  torch::Tensor sums[2];
  std::vector<std::vector<int64_t>> gathered[2];
  std::string errors[2];
  auto rank_main = [&](int r) {
    try {
      DistributedOptions mine = o;
      mine.rank = r;
      Communicator comm(mine, torch::kCPU);
      sums[r] = torch::full({5}, float(r + 1));
      comm.all_reduce_sum(sums[r], "a test tensor");
      gathered[r] = comm.all_gather({r, 10 * r}, "test values");
    } catch (const std::exception& e) {
      errors[r] = e.what();
    }
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(errors[r], "") << "rank " << r;
    EXPECT_TRUE(torch::equal(sums[r], torch::full({5}, 3.f))) << sums[r];
    EXPECT_EQ(gathered[r], (std::vector<std::vector<int64_t>>{{0, 0}, {1, 10}}));
  }
}

// Shards of random Kalah(3,3) games (configs/tiny.toml's game) and a config whose
// batch (16) splits into two ranks' 8 rows.
class DistributedTraining : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_dir("kz-distributed");
    const GameSpec spec = parse_config("game = \"kalah:3,3\"", "inline").game;
    std::mt19937_64 rng(11);
    fs::create_directories(dir_ + "/data");
    for (int s = 0; s < 3; ++s)
      test::write_random_shard(spec, rng, 8, dir_ + "/data/s" + std::to_string(s) + ".kzshard",
                               uint32_t(s));
    train_ = test::bin("kumalak-train") + " --config " + test::source_dir() +
             "/configs/tiny.toml --data " + dir_ + "/data";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Both ranks of a job, each with its own extra flags; returns both outputs.
  std::pair<std::string, std::string> two_ranks(const std::string& flags0,
                                                const std::string& flags1, int* status0,
                                                int* status1) {
    const std::string job = " --world-size 2 --master-port " + std::to_string(free_port());
    const std::string log0 = dir_ + "/rank0.log", log1 = dir_ + "/rank1.log";
    std::string out;
    test::run_command(train_ + job + " --rank 1 " + flags1 + " > " + log1 + " 2>&1 & " + train_ +
                          job + " --rank 0 " + flags0 + " > " + log0 + " 2>&1; echo rc0=$?; " +
                          "wait $!; echo rc1=$?",
                      &out);
    *status0 = std::stoi(out.substr(out.find("rc0=") + 4));
    *status1 = std::stoi(out.substr(out.find("rc1=") + 4));
    return {test::read_bytes(log0), test::read_bytes(log1)};
  }

  std::string dir_, train_;
};

// The largest difference between two models' parameters and buffers.
double max_difference(const std::string& a, const std::string& b) {
  Model ma = load_model(a), mb = load_model(b);
  double worst = 0;
  const auto pa = ma.net->parameters(), pb = mb.net->parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
  const auto ba = ma.net->buffers(), bb = mb.net->buffers();
  for (size_t i = 0; i < ba.size(); ++i)
    worst = std::max(
        worst, (ba[i].to(torch::kDouble) - bb[i].to(torch::kDouble)).abs().max().item<double>());
  return worst;
}

TEST_F(DistributedTraining, TwoRanksEqualOneProcessInTwoSlicesAndResumeTogether) {
  SKIP_WITHOUT_GLOO();
  std::string out;
  ASSERT_EQ(test::run_command(train_ + " --steps 30 --batch-slices 2 --out " + dir_ + "/one.pt",
                              &out, true),
            0)
      << out;
  int s0 = -1, s1 = -1;
  auto [log0, log1] = two_ranks("--steps 30 --out " + dir_ + "/two.pt",
                                "--steps 30 --out " + dir_ + "/two.pt", &s0, &s1);
  ASSERT_EQ(s0, 0) << log0;
  ASSERT_EQ(s1, 0) << log1;
  EXPECT_NE(log0.find("2 ranks; all-reduce"), std::string::npos) << log0;
  EXPECT_NE(log1.find("rank 1 of 2: 30 steps done"), std::string::npos) << log1;
  // docs/training.md: the tolerance. Summing two ranks' gradients is the same float
  // addition as accumulating two slices', so on one machine the weights are in fact
  // identical; 1e-5 leaves room for a reduction order that differs elsewhere.
  const double diff = max_difference(dir_ + "/one.pt", dir_ + "/two.pt");
  EXPECT_LE(diff, 1e-5);
  std::cout << "largest parameter/buffer difference, 2 ranks vs 1 process in 2 slices: " << diff
            << "\n";

  // Stopped at step 20 (rank 0 writes the checkpoint), resumed by both ranks.
  auto [l0, l1] = two_ranks("--steps 30 --stop-after 20 --out " + dir_ + "/resumed.pt",
                            "--steps 30 --stop-after 20 --out " + dir_ + "/resumed.pt", &s0, &s1);
  ASSERT_EQ(s0, 0) << l0;
  ASSERT_EQ(s1, 0) << l1;
  ASSERT_TRUE(fs::exists(dir_ + "/resumed.pt.ckpt"));
  auto [r0, r1] = two_ranks("--steps 30 --resume --out " + dir_ + "/resumed.pt",
                            "--steps 30 --resume --out " + dir_ + "/resumed.pt", &s0, &s1);
  ASSERT_EQ(s0, 0) << r0;
  ASSERT_EQ(s1, 0) << r1;
  EXPECT_NE(r0.find("resumed from 20"), std::string::npos) << r0;
  EXPECT_EQ(max_difference(dir_ + "/two.pt", dir_ + "/resumed.pt"), 0.0);
}

TEST_F(DistributedTraining, RanksThatDisagreeRefuseToStart) {
  SKIP_WITHOUT_GLOO();
  int s0 = -1, s1 = -1;
  auto [log0, log1] = two_ranks("--steps 30 --out " + dir_ + "/m.pt",
                                "--steps 40 --out " + dir_ + "/m.pt", &s0, &s1);
  EXPECT_EQ(s0, 1) << log0;
  EXPECT_EQ(s1, 1) << log1;
  for (const std::string& log : {log0, log1})
    EXPECT_NE(log.find("rank 1 disagrees with rank 0 about the steps to train (40 vs 30)"),
              std::string::npos)
        << log;
  // A batch that does not split evenly is refused before any rendezvous.
  std::string out;
  EXPECT_EQ(
      test::run_command(train_ + " --steps 5 --batch-slices 3 --out " + dir_ + "/x.pt", &out, true),
      1);
  EXPECT_NE(out.find("batch_size 16 is not a multiple of ranks x batch slices = 3"),
            std::string::npos)
      << out;
}

// Rank 1 is killed (or stopped, which closes no socket) once rank 0 trains; rank 0 must
// exit with status 1 and say why, well within the time a hang would take.
void expect_rank0_gives_up(const std::string& dir, const std::string& train,
                           const std::string& signal, int timeout_s, double within_s) {
  const std::string job = train + " --steps 100000 --world-size 2 --dist-timeout " +
                          std::to_string(timeout_s) + " --master-port " +
                          std::to_string(free_port()) + " --out " + dir + "/m.pt";
  const std::string log0 = dir + "/dead0.log";
  const std::string script =
      job + " --rank 0 > " + log0 + " 2>&1 & p0=$!; " + job +
      " --rank 1 > /dev/null 2>&1 & p1=$!; " +
      // Wait (at most 60 s) until rank 0 has joined and begun training.
      "for i in $(seq 600); do grep -q 'rank 0 of 2' " + log0 + " && break; sleep 0.1; done; " +
      "sleep 1; kill -" + signal + " $p1; start=$(date +%s%N); wait $p0; rc=$?; " +
      "end=$(date +%s%N); kill -KILL $p1 2>/dev/null; wait $p1 2>/dev/null; " +
      "echo rc=$rc; echo ms=$(( (end - start) / 1000000 ))";
  std::string out;
  test::run_command(script, &out);
  const std::string log = test::read_bytes(log0);
  ASSERT_NE(out.find("rc="), std::string::npos) << out;
  EXPECT_EQ(std::stoi(out.substr(out.find("rc=") + 3)), 1) << out << log;
  const double seconds = std::stod(out.substr(out.find("ms=") + 3)) / 1000;
  EXPECT_LT(seconds, within_s) << log;
  EXPECT_NE(log.find("rank 0 of 2: the all-reduce of step"), std::string::npos) << log;
  EXPECT_NE(log.find("another rank died, was killed or did not answer within " +
                     std::to_string(timeout_s) + " s"),
            std::string::npos)
      << log;
}

TEST_F(DistributedTraining, AKilledRankEndsTheOtherAtOnce) {
  SKIP_WITHOUT_GLOO();
  expect_rank0_gives_up(dir_, train_, "KILL", 60, 10);  // closed sockets: no timeout needed
}

TEST_F(DistributedTraining, AHungRankEndsTheOtherAtTheTimeout) {
  SKIP_WITHOUT_GLOO();
  expect_rank0_gives_up(dir_, train_, "STOP", 3, 15);
}

// torchrun (Debian's python3-torch: /usr/bin/torchrun, or KZ_TORCHRUN) starting 2 ranks
// on this machine, as `--standalone` does but on a free port (standalone's is always
// 29400). Debian's 1.13 needs the underscore spellings and --redirects: with the
// default `--redirects 0` its agent crashes at start under Python 3.11.
// `extra`: more torchrun flags.
std::string torchrun_command(const std::string& extra = "") {
  const char* custom = std::getenv("KZ_TORCHRUN");
  const std::string path = custom && *custom ? custom : "/usr/bin/torchrun";
  if (!fs::exists(path)) return "";
  return "OMP_NUM_THREADS=1 " + path +
         " --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:" + std::to_string(free_port()) +
         " --rdzv_id kz-test --nnodes 1 --nproc_per_node 2 --no_python --redirects 1 --tee 1 " +
         extra + " ";
}

// One test, so that its two torchrun jobs never run at once: the same weights as the
// ranks started by flags; then a rank killed under --max_restarts 1: torchrun restarts
// both, they resume from rank 0's checkpoint and end with the weights of a run that was
// never interrupted.
TEST_F(DistributedTraining, TorchrunRanksEqualFlagRanksAndRestartFromTheCheckpoint) {
  SKIP_WITHOUT_GLOO();
  const std::string torchrun = torchrun_command();
  if (torchrun.empty()) GTEST_SKIP() << "no torchrun (apt-get install python3-torch)";
  std::string out;
  const std::string train_by_torchrun = torchrun + train_ + " --threads 1";
  ASSERT_EQ(test::run_command(train_by_torchrun + " --steps 30 --out " + dir_ + "/torchrun.pt",
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("2 ranks; all-reduce"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 1 of 2: 30 steps done"), std::string::npos) << out;
  int s0 = -1, s1 = -1;
  auto [log0, log1] = two_ranks("--steps 30 --out " + dir_ + "/flags.pt",
                                "--steps 30 --out " + dir_ + "/flags.pt", &s0, &s1);
  ASSERT_EQ(s0, 0) << log0;
  ASSERT_EQ(s1, 0) << log1;
  const double diff = max_difference(dir_ + "/torchrun.pt", dir_ + "/flags.pt");
  EXPECT_LE(diff, 1e-6);
  std::cout << "largest parameter/buffer difference, torchrun vs ranks by flags: " << diff << "\n";

  // 600 steps: a checkpoint every 150. Once the first is on disk, rank 1 (the process
  // whose environment says RANK=1) is killed; rank 0 fails at its next all-reduce and
  // torchrun starts both again (attempt 1), which resume from the checkpoint.
  const std::string restarted = dir_ + "/restarted.pt";
  const std::string script =
      torchrun_command("--max_restarts 1") + train_ + " --threads 1 --steps 600 --resume --out " +
      restarted + " > " + dir_ + "/restart.log 2>&1 & job=$!; " + "for i in $(seq 1200); do [ -f " +
      restarted + ".ckpt ] && break; sleep 0.05; done; " + "for p in $(pgrep -f 'kumalak-train.*" +
      restarted + "'); do " +
      "if tr '\\0' '\\n' < /proc/$p/environ | grep -qx RANK=1; then kill -9 $p && echo killed; "
      "fi; " +
      "done; wait $job; echo rc=$?";
  ASSERT_EQ(test::run_command(script, &out), 0) << out;
  const std::string log = test::read_bytes(dir_ + "/restart.log");
  EXPECT_NE(out.find("killed"), std::string::npos) << out << log;
  EXPECT_NE(out.find("rc=0"), std::string::npos) << out << log;
  EXPECT_NE(log.find("rank 0 of 2: the all-reduce of step"), std::string::npos) << log;
  EXPECT_EQ(log.find("resumed from 0)"), std::string::npos) << log;
  EXPECT_NE(log.find("600 steps (resumed from "), std::string::npos) << log;
  auto [u0, u1] =
      two_ranks("--steps 600 --threads 1 --out " + dir_ + "/uninterrupted.pt",
                "--steps 600 --threads 1 --out " + dir_ + "/uninterrupted.pt", &s0, &s1);
  ASSERT_EQ(s0, 0) << u0;
  ASSERT_EQ(s1, 0) << u1;
  EXPECT_EQ(max_difference(restarted, dir_ + "/uninterrupted.pt"), 0.0);
}

// The continuous trainer (kumalak-train --follow) as 2 ranks on a run whose shards are
// already there: one candidate, written once by rank 0, with the weights of one process
// in 2 slices; and a killed rank 0 ends rank 1 at once with an error (not a hang).
class FollowRanks : public DistributedTraining {
 protected:
  // A run folder holding the fixture's shards and a config that grants a candidate of
  // 10 steps on them; `--follow RUN` then opens it.
  std::string make_run(const std::string& name) {
    const std::string run = dir_ + "/" + name;
    fs::create_directories(run + "/data/gen0000");
    // The copies keep their sources' times: the replay buffer orders a generation's
    // shards newest first, and copies made a clock tick apart would otherwise put the
    // rows of two runs in different orders (and so draw different batches).
    for (const auto& e : fs::directory_iterator(dir_ + "/data")) {
      const std::string copy = run + "/data/gen0000/" + e.path().filename().string();
      fs::copy_file(e.path(), copy);
      fs::last_write_time(copy, fs::last_write_time(e.path()));
    }
    std::ofstream(dir_ + "/follow.toml")
        << "extends = \"" << test::source_dir() << "/configs/tiny.toml\"\n"
        << "[follow]\ncandidate_every_steps = 10\nmax_samples_per_new_position = 100.0\n"
        << "poll_seconds = 0.2\n";
    return run;
  }
  std::string follow(const std::string& run) {
    return test::bin("kumalak-train") + " --config " + dir_ + "/follow.toml --threads 1 --follow " +
           run;
  }
};

TEST_F(FollowRanks, TwoRanksWriteOneCandidateEqualToOneProcessInTwoSlices) {
  SKIP_WITHOUT_GLOO();
  const std::string one = make_run("one"), two = make_run("two");
  std::string out, out_one;
  ASSERT_EQ(test::run_command(follow(one) + " --max-candidates 1 --batch-slices 2", &out_one, true),
            0)
      << out_one;
  const std::string job = " --world-size 2 --dist-timeout 60 --max-candidates 1 --master-port " +
                          std::to_string(free_port());
  const std::string log0 = dir_ + "/rank0.log", log1 = dir_ + "/rank1.log";
  test::run_command(follow(two) + job + " --rank 1 > " + log1 + " 2>&1 & " + follow(two) + job +
                        " --rank 0 > " + log0 + " 2>&1; echo rc0=$?; wait $!; echo rc1=$?",
                    &out);
  const std::string l0 = test::read_bytes(log0), l1 = test::read_bytes(log1);
  EXPECT_NE(out.find("rc0=0"), std::string::npos) << out << l0;
  EXPECT_NE(out.find("rc1=0"), std::string::npos) << out << l1;
  EXPECT_NE(l0.find("(rank 0 of 2)"), std::string::npos) << l0;
  EXPECT_NE(l0.find("wrote " + two + "/models/gen0001.pt"), std::string::npos) << l0;
  EXPECT_EQ(l1.find("wrote"), std::string::npos) << l1;  // rank 1 writes nothing
  EXPECT_NE(l1.find("rank 1 stopped after 1 candidates"), std::string::npos) << l1;
  // Exactly the files one process leaves (no second writer's temporaries or checkpoints).
  auto files_of = [](const std::string& folder) {
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(folder)) files.insert(e.path().filename().string());
    return files;
  };
  EXPECT_EQ(files_of(two + "/models"), files_of(one + "/models"));
  EXPECT_TRUE(files_of(two + "/models").count("gen0001.pt"));
  // As TwoRanksEqualOneProcessInTwoSlicesAndResumeTogether: identical on one machine.
  EXPECT_LE(max_difference(one + "/models/gen0001.pt", two + "/models/gen0001.pt"), 1e-5)
      << "one process:\n"
      << out_one << "rank 0:\n"
      << l0 << "rank 1:\n"
      << l1;
}

TEST_F(FollowRanks, AKilledRankZeroEndsTheOtherRankWithAnError) {
  SKIP_WITHOUT_GLOO();
  const std::string run = make_run("run");
  // One candidate, then rank 0 waits for new positions (none come) until SIGKILL at 8 s.
  const std::string job =
      " --world-size 2 --dist-timeout 120 --master-port " + std::to_string(free_port());
  const std::string log1 = dir_ + "/rank1.log";
  std::string out;
  const auto t0 = std::chrono::steady_clock::now();
  test::run_command("timeout 100 " + follow(run) + job + " --rank 1 > " + log1 +
                        " 2>&1 & timeout -s KILL 8 " + follow(run) + job +
                        " --rank 0 >/dev/null 2>&1; wait $!; echo rc1=$?",
                    &out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string l1 = test::read_bytes(log1);
  EXPECT_TRUE(fs::exists(run + "/models/gen0001.pt"));
  EXPECT_EQ(out.find("rc1=0"), std::string::npos) << out << l1;
  EXPECT_EQ(out.find("rc1=124"), std::string::npos) << out << l1;  // not a hang
  EXPECT_NE(l1.find("another rank died"), std::string::npos) << l1;
  EXPECT_LT(seconds, 60) << l1;  // well before --dist-timeout: Gloo sees the closed socket
}

}  // namespace
}  // namespace kz
