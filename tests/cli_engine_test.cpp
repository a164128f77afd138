// `kumalak engine`: a conversation over pipes, as a GUI would hold it, reading each
// answer before sending the next command (docs/protocol.md).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_util.h"

namespace kz {
namespace {

using Clock = std::chrono::steady_clock;

// A child process with its stdin and stdout on pipes.
class Engine {
 public:
  // `env`: "NAME=value " assignments for the child's shell, or "".
  explicit Engine(const std::string& args, const std::string& env = "") {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(out[1], 2);
      close(in[1]);
      close(out[0]);
      const std::string cmd = env + test::bin("kumalak") + " engine " + args;
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Engine() {
    if (to_ >= 0) close(to_);
    if (pid_ > 0) {
      // Give it a moment to leave on its own (EOF), then make sure.
      for (int i = 0; i < 100 && waitpid(pid_, nullptr, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (waitpid(pid_, nullptr, WNOHANG) == 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
      }
    }
    if (from_ >= 0) close(from_);
  }
  bool ok() const { return pid_ > 0 && to_ >= 0; }

  void send(const std::string& line) {
    const std::string s = line + "\n";
    ASSERT_EQ(write(to_, s.data(), s.size()), ssize_t(s.size()));
  }
  void close_input() {
    close(to_);
    to_ = -1;
  }

  // Reads lines until one satisfies `done` (returned), or "" after `timeout_s`. Every
  // line read is appended to `seen`.
  std::string read_until(const std::function<bool(const std::string&)>& done, double timeout_s,
                         std::vector<std::string>* seen = nullptr) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      const size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        if (seen) seen->push_back(line);
        if (done(line)) return line;
        continue;
      }
      const int left = int(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
      if (left <= 0) return "";
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, left) <= 0) return "";
      char tmp[4096];
      const ssize_t n = read(from_, tmp, sizeof tmp);
      if (n <= 0) return "";
      buf_.append(tmp, size_t(n));
    }
  }
  std::string expect_line(const std::string& prefix, double timeout_s = 20,
                          std::vector<std::string>* seen = nullptr) {
    return read_until([&](const std::string& l) { return l.rfind(prefix, 0) == 0; }, timeout_s,
                      seen);
  }
  // Exit status once it has left (within timeout_s), or -1.
  int wait_exit(double timeout_s) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (Clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;
};

int bestmove_of(const std::string& line) {
  if (line.rfind("bestmove ", 0) != 0) return -1;
  try {
    return std::stoi(line.substr(9));
  } catch (...) {
    return -1;
  }
}

TEST(CliEngine, ScriptedSession) {
  Engine e("--level medium");
  ASSERT_TRUE(e.ok());
  e.send("kumalak");
  std::vector<std::string> hello;
  ASSERT_EQ(e.expect_line("kumalakok", 20, &hello), "kumalakok");
  ASSERT_GE(hello.size(), 3u);
  EXPECT_EQ(hello[0].rfind("id name KumalakZero", 0), 0u) << hello[0];
  bool has_level = false;
  for (const auto& l : hello) has_level |= l.rfind("option name Level type combo", 0) == 0;
  EXPECT_TRUE(has_level);

  e.send("isready");
  EXPECT_EQ(e.expect_line("readyok"), "readyok");

  e.send("position startpos moves 7 87");
  e.send("d");
  EXPECT_EQ(e.expect_line("position "),
            "position 10,10,10,10,10,10,0,10,10/10,10,10,10,10,0,9,1,10 10 2 w");
  EXPECT_EQ(e.expect_line("legal "), "legal 1 2 3 4 5 6 8 9");

  e.send("go depth 4");
  std::vector<std::string> lines;
  const std::string best = e.expect_line("bestmove ", 20, &lines);
  const int move = bestmove_of(best);
  EXPECT_TRUE(move >= 1 && move <= 9 && move != 7) << best;
  int infos = 0;
  for (const auto& l : lines) {
    if (l.rfind("info ", 0) != 0) continue;
    ++infos;
    for (const char* field : {" depth ", " nodes ", " nps ", " time ", " wdl ", " margin ", " pv "})
      EXPECT_NE(l.find(field), std::string::npos) << l;
  }
  EXPECT_GE(infos, 4) << "one info line per completed depth";
  EXPECT_NE(lines[lines.size() - 2].find("info depth 4 "), std::string::npos)
      << lines[lines.size() - 2];

  // Kalah: a new game, an extra turn in the moves, limits by nodes and by time.
  e.send("newgame kalah");
  e.send("position startpos moves 3");
  e.send("d");
  EXPECT_EQ(e.expect_line("position "), "position 4,4,0,5,5,5/4,4,4,4,4,4 1 0 s");
  e.send("go nodes 3000");
  EXPECT_GE(bestmove_of(e.expect_line("bestmove ")), 1);
  e.send("setoption name MoveTime value 100");
  e.send("position fen 0,0,0,0,0,1/1,0,0,0,0,0 23 23 s");
  const auto t0 = Clock::now();
  e.send("go");
  EXPECT_EQ(e.expect_line("bestmove "), "bestmove 6");
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 3.0);
  e.send("quit");
  EXPECT_EQ(e.wait_exit(5), 0);
}

TEST(CliEngine, ErrorsAreReportedAndTheEngineKeepsRunning) {
  Engine e("");
  ASSERT_TRUE(e.ok());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"frobnicate", "error unknown command 'frobnicate'"},
      {"position startpos moves 1 1 1 1 1", "error move '1' is illegal: pit 1 is empty"},
      {"position startpos moves 0", "error move '0': pits are numbered 1..9"},
      {"position fen 9,9,9/9,9,9 0 0 w", "error position '9,9,9/9,9,9 0 0 w'"},
      {"position sideways", "error position: expected startpos or fen"},
      {"setoption name Hash value lots", "error option Hash: 'lots' is not a whole number"},
      {"setoption name Colour value blue", "error unknown option 'Colour'"},
      {"setoption name Level value grandmaster", "error unknown level 'grandmaster'"},
      {"go depth deep", "error go: depth: 'deep' is not a whole number"},
      {"go sideways 3", "error go: unknown limit 'sideways'"},
      {"newgame chess", "error unknown game 'chess'"},
  };
  for (const auto& [command, reply] : cases) {
    e.send(command);
    const std::string got = e.expect_line("error ", 20);
    EXPECT_EQ(got.rfind(reply, 0), 0u) << command << " -> " << got;
  }
  // A bad position leaves the last good one in place.
  e.send("position startpos moves 9");
  e.send("position startpos moves 1 1 1 1 1");
  EXPECT_NE(e.expect_line("error ").find("illegal"), std::string::npos);
  e.send("d");
  // 9: nine stones from White's hole 9 end on Black's hole 8 (10 stones): captured.
  EXPECT_EQ(e.expect_line("position "),
            "position 9,9,9,9,9,9,9,9,1/10,10,10,10,10,10,10,0,9 10 0 b");
  e.send("isready");
  EXPECT_EQ(e.expect_line("readyok"), "readyok");
  // A finished game has no move to give.
  e.send("position fen 0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 90 72 b");
  e.send("go depth 3");
  EXPECT_EQ(e.expect_line("bestmove "), "bestmove none");
  e.close_input();  // EOF ends the session like quit
  EXPECT_EQ(e.wait_exit(5), 0);
}

TEST(CliEngine, StopDuringInfiniteAnswersAtOnce) {
  Engine e("");
  ASSERT_TRUE(e.ok());
  e.send("isready");
  ASSERT_EQ(e.expect_line("readyok"), "readyok");  // the executable has started
  e.send("position startpos");
  e.send("go infinite");
  ASSERT_NE(e.expect_line("info "), "");
  // An infinite search never answers by itself...
  std::vector<std::string> early;
  EXPECT_EQ(e.expect_line("bestmove ", 0.4, &early), "");
  // ...but the reader still answers while it runs.
  e.send("isready");
  EXPECT_EQ(e.expect_line("readyok", 2), "readyok");
  e.send("position startpos moves 1");
  EXPECT_EQ(e.expect_line("error ", 2).rfind("error 'position' during a search", 0), 0u);
  const auto t0 = Clock::now();
  e.send("stop");
  const std::string best = e.expect_line("bestmove ", 5);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_GE(bestmove_of(best), 1) << best;
  EXPECT_LT(took, 0.5) << "stop must answer at once";
  // The position is unchanged and a new search works.
  e.send("go depth 2");
  EXPECT_GE(bestmove_of(e.expect_line("bestmove ")), 1);
  // quit during a search leaves promptly.
  e.send("go infinite");
  ASSERT_NE(e.expect_line("info "), "");
  e.send("quit");
  EXPECT_EQ(e.wait_exit(2), 0);
}

// `go` used to set up the search (a Hash of 16 GiB cleared entry by
// entry, 255 threads started) on the reader's thread, so nothing was answered meanwhile.
TEST(CliEngine, SetupOfALargeSearchNeverBlocksTheReader) {
  Engine e("--game togyz");
  ASSERT_TRUE(e.ok());
  e.send("isready");
  ASSERT_EQ(e.expect_line("readyok"), "readyok");  // the executable has started
  e.send("setoption name Engine value ab");
  e.send("setoption name Hash value 16384");  // the advertised maximum
  e.send("go depth 2");
  auto t0 = Clock::now();
  e.send("isready");
  std::vector<std::string> seen;
  EXPECT_EQ(e.expect_line("readyok", 5, &seen), "readyok");
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0);
  bool answered = false;
  for (const auto& l : seen) answered |= bestmove_of(l) >= 1;
  if (!answered) {
    EXPECT_GE(bestmove_of(e.expect_line("bestmove ", 10)), 1);
  }

  e.send("setoption name Engine value auto");
  e.send("setoption name Threads value 255");
  e.send("go infinite");
  t0 = Clock::now();
  e.send("isready");
  EXPECT_EQ(e.expect_line("readyok", 5), "readyok");
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0);
  e.send("stop");
  EXPECT_GE(bestmove_of(e.expect_line("bestmove ", 20)), 1);
  e.close_input();  // the end of input ends the session
  EXPECT_EQ(e.wait_exit(10), 0);
}

TEST(CliEngine, HostileCommandsAreRefusedWithTheRightWords) {
  Engine e("--game togyz");
  ASSERT_TRUE(e.ok());
  e.send("isready");
  ASSERT_EQ(e.expect_line("readyok"), "readyok");
  // A movetime beyond any clock is refused (it overflowed alpha-beta's deadline).
  e.send("go movetime 9300000000000");
  EXPECT_NE(e.expect_line("error ", 5).find("movetime"), std::string::npos);
  // The same (n) check as `kumalak replay`: 76 takes nothing at the start, so (11) lies.
  e.send("position startpos moves 76(11)");
  EXPECT_NE(e.expect_line("error ", 5).find("kazan is 11"), std::string::npos);
  e.send("setoption name Hash value -0");
  EXPECT_NE(e.expect_line("error ", 5).find("whole number"), std::string::npos);
  // A bad Model is reported when it is set, not at the next go.
  e.send("setoption name Model value /nonexistent/model.pt");
  EXPECT_NE(e.expect_line("error ", 5).find("no such file"), std::string::npos);
  // An unknown command is unknown, also during a search.
  e.send("go infinite");
  e.send("frobnicate");
  EXPECT_EQ(e.expect_line("error ", 5), "error unknown command 'frobnicate'");
  e.send("stop");
  EXPECT_GE(bestmove_of(e.expect_line("bestmove ", 10)), 1);
  e.send("quit");
  EXPECT_EQ(e.wait_exit(5), 0);
}

// Level perfect solves a Kalah position and plays its maximum-margin move,
// saying so in the info line; Togyz has no perfect level.
TEST(CliEngine, LevelPerfectPlaysTheProvenMaximumMargin) {
  const std::string dir = test::temp_dir("engine-perfect");
  // The perfect level builds Kalah(3,3)'s whole database (134,596 positions) into
  // KZ_EGTB_DIR on first use: a blink, and the user's cache plays no part.
  Engine e("--game kalah:3,3", "KZ_EGTB_DIR=" + dir + " ");
  ASSERT_TRUE(e.ok());
  e.send("isready");
  ASSERT_EQ(e.expect_line("readyok"), "readyok");
  e.send("setoption name Level value perfect");
  // `kumalak solve --game kalah:3,3 --all`: pit 1 keeps +8, pit 2 drops to +6, pit 3 to +2.
  e.send("position fen 2,1,4/0,3,3 3 2 s");
  e.send("go");
  std::vector<std::string> lines;
  EXPECT_EQ(e.expect_line("bestmove ", 30, &lines), "bestmove 1");
  ASSERT_GE(lines.size(), 2u);
  const std::string& info = lines[lines.size() - 2];
  EXPECT_EQ(info.rfind("info ", 0), 0u) << info;
  EXPECT_NE(info.find(" wdl 1000 0 0 margin 8 proven exact pv 1 "), std::string::npos) << info;
  // North to move in the mirror position: the same value from North's side.
  e.send("position fen 0,3,3/2,1,4 2 3 n");
  e.send("go");
  lines.clear();
  EXPECT_EQ(e.expect_line("bestmove ", 30, &lines), "bestmove 1");
  ASSERT_GE(lines.size(), 2u);
  EXPECT_NE(lines[lines.size() - 2].find(" margin 8 proven "), std::string::npos)
      << lines[lines.size() - 2];
  // Togyz Kumalak cannot be solved: the next go says so and the engine keeps running.
  e.send("newgame togyz");
  e.send("position startpos");
  e.send("go depth 2");
  EXPECT_NE(e.expect_line("error ", 20).find("level perfect is for Kalah games only"),
            std::string::npos);
  e.send("isready");
  EXPECT_EQ(e.expect_line("readyok"), "readyok");
  e.send("quit");
  EXPECT_EQ(e.wait_exit(5), 0);
  std::filesystem::remove_all(dir);
}

// The reported search time of the last info line before bestmove, in ms (-1: none).
int64_t last_info_time(const std::vector<std::string>& lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const size_t at = it->find(" time ");
    if (it->rfind("info ", 0) == 0 && at != std::string::npos)
      return std::stoll(it->substr(at + 6));
  }
  return -1;
}

// `go wtime 50 btime 50 winc 0 binc 0`: the side to move has 50 ms on its clock, so the
// engine must answer with a legal move well inside them (50 ms less MoveOverhead).
// Wall-clock times on a shared machine can stall, so the answer must come within the
// 50 ms in at least one of three tries, and its own search time in every one.
void expect_moves_within_fifty_ms(Engine& e, const std::string& position) {
  int in_time = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    e.send("position " + position);
    e.send("isready");
    ASSERT_EQ(e.expect_line("readyok"), "readyok");
    std::vector<std::string> lines;
    const auto t0 = Clock::now();
    e.send("go wtime 50 btime 50 winc 0 binc 0");
    const std::string best = e.expect_line("bestmove ", 20, &lines);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const int move = bestmove_of(best);
    EXPECT_TRUE(move >= 1 && move <= 9) << best;
    EXPECT_LE(last_info_time(lines), 50) << (lines.empty() ? "" : lines[lines.size() - 2]);
    in_time += ms < 50;
  }
  EXPECT_GE(in_time, 1) << "no answer within 50 ms in three tries";
}

TEST(CliEngine, GoOnAClockAnswersWithinTheTime) {
  Engine e("--level expert");
  ASSERT_TRUE(e.ok());
  e.send("setoption name Engine value ab");
  e.send("position startpos");
  e.send("go depth 1");  // builds the engine (the table), as a GUI's first move would
  ASSERT_GE(bestmove_of(e.expect_line("bestmove ")), 1);
  expect_moves_within_fifty_ms(e, "startpos");
  expect_moves_within_fifty_ms(e, "startpos moves 7 87");  // later in the game
  // Plenty of time: the level's own budget (expert, 1 s) is kept, not the clock's share.
  std::vector<std::string> lines;
  e.send("position startpos");
  e.send("go wtime 3600000 btime 3600000 winc 0 binc 0");
  ASSERT_GE(bestmove_of(e.expect_line("bestmove ", 20, &lines)), 1);
  const int64_t plenty = last_info_time(lines);
  EXPECT_GT(plenty, 300) << "the 1 s level stopped early on a long clock";
  EXPECT_LE(plenty, 1100);
  // A level of depth (medium: depth 3) keeps its depth on a long clock.
  e.send("setoption name Level value medium");
  e.send("go wtime 3600000 btime 3600000");
  lines.clear();
  ASSERT_GE(bestmove_of(e.expect_line("bestmove ", 20, &lines)), 1);
  EXPECT_NE(lines[lines.size() - 2].find("info depth 3 "), std::string::npos)
      << lines[lines.size() - 2];
  // Black to move reads btime; a flag already fallen (negative) still gets a move.
  e.send("position startpos moves 9");
  e.send("go wtime 100000 btime -20 binc 0 movestogo 5");
  ASSERT_GE(bestmove_of(e.expect_line("bestmove ", 20)), 1);
  e.send("quit");
  EXPECT_EQ(e.wait_exit(5), 0);
}

// The network MCTS engine under the same 50 ms (the shipped model, where there is one).
TEST(CliEngine, GoOnAClockAnswersWithinTheTimeWithTheNetwork) {
  const std::string models = test::source_dir() + "/models";
  if (!std::filesystem::exists(models + "/togyz.pt")) GTEST_SKIP() << "no models/togyz.pt";
  Engine e("--level expert", "KZ_MODELS_DIR=" + models + " ");
  ASSERT_TRUE(e.ok());
  e.send("setoption name Engine value mcts");
  e.send("position startpos");
  e.send("go nodes 2");  // loads the model
  ASSERT_GE(bestmove_of(e.expect_line("bestmove ", 60)), 1);
  expect_moves_within_fifty_ms(e, "startpos moves 7 87");
  e.send("quit");
  EXPECT_EQ(e.wait_exit(5), 0);
}

TEST(CliEngine, MalformedClockWordsAreRefused) {
  Engine e("");
  ASSERT_TRUE(e.ok());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"go wtime soon", "error go: wtime: 'soon' is not a whole number"},
      {"go wtime 1000 btime", "error go: 'btime' needs a value"},
      {"go winc -5 wtime 1000", "error go: winc: '-5' is not a whole number"},
      {"go wtime 1e3", "error go: wtime: '1e3' is not a whole number"},
      {"go wtime 99999999999999", "error go: wtime: '99999999999999' is not a whole number"},
      {"go wtime 1000 movestogo 0", "error go: movestogo: '0' is not a whole number in 1..100000"},
      {"go btime 1000 binc 10", "error go: the side to move has no time: give wtime"},
      {"go movestogo 3", "error go: the side to move has no time: give wtime"},
      {"go byoyomi 30", "error go: unknown limit 'byoyomi'"},
  };
  for (const auto& [command, reply] : cases) {
    e.send(command);
    const std::string got = e.expect_line("error ", 20);
    EXPECT_EQ(got.rfind(reply, 0), 0u) << command << " -> " << got;
  }
  e.send("setoption name MoveOverhead value 10001");
  EXPECT_NE(e.expect_line("error ", 5).find("MoveOverhead"), std::string::npos);
  e.send("setoption name MoveOverhead value 0");
  e.send("isready");
  EXPECT_EQ(e.expect_line("readyok"), "readyok");
  e.send("quit");
  EXPECT_EQ(e.wait_exit(5), 0);
}

}  // namespace
}  // namespace kz
