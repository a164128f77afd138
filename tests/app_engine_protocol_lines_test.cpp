// The engine protocol's loop one line at a time (tools/engine_protocol.h), in-process: as
// the one-thread WebAssembly engine runs it (no search thread: a go answers in its call,
// go infinite is bounded and holds its bestmove until stop, Threads stays 1; with a host
// that pauses the search, stop ends it), and with a search thread as `kumalak engine`
// runs it.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/position.h"
#include "mcts/search_yield.h"
#include "tools/engine_protocol.h"

namespace kz::cli {
namespace {

using Clock = std::chrono::steady_clock;

// The lines the protocol writes (from its search thread too, when it has one).
class Lines {
 public:
  EngineProtocol::Output output() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(line);
    };
  }
  // The lines written since the last take().
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out(lines_.begin() + taken_, lines_.end());
    taken_ = lines_.size();
    return out;
  }
  // Waits (at most a minute) until a line starts with `prefix`; returns it, or "".
  std::string wait_for(const std::string& prefix) {
    for (int i = 0; i < 6000; ++i) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (size_t j = taken_; j < lines_.size(); ++j)
          if (lines_[j].starts_with(prefix)) {
            taken_ = j + 1;
            return lines_[j];
          }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "";
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
  size_t taken_ = 0;
};

int count_starting(const std::vector<std::string>& lines, const std::string& prefix) {
  int n = 0;
  for (const std::string& line : lines) n += line.starts_with(prefix);
  return n;
}

EngineProtocolSettings without_threads() {
  EngineProtocolSettings settings;
  settings.level = "easy";  // alpha-beta: no network needed
  settings.threads = false;
  return settings;
}

TEST(EngineProtocolLines, WithoutThreadsAGoHasAnsweredWhenItsLineReturns) {
  Lines lines;
  EngineProtocol protocol(without_threads(), lines.output());
  EXPECT_TRUE(protocol.line("isready\r"));
  EXPECT_EQ(lines.take(), std::vector<std::string>{"readyok"});
  EXPECT_TRUE(protocol.line("position startpos moves 76"));
  EXPECT_TRUE(protocol.line("go depth 3"));
  const std::vector<std::string> answer = lines.take();
  ASSERT_FALSE(answer.empty());
  EXPECT_TRUE(answer.front().starts_with("info depth ")) << answer.front();
  ASSERT_TRUE(answer.back().starts_with("bestmove ")) << answer.back();
  EXPECT_EQ(count_starting(answer, "bestmove"), 1);
  Position pos = Position::start(GameSpec::togyz());
  pos.play(6);
  EXPECT_TRUE(pos.is_legal(std::stoi(answer.back().substr(9)) - 1)) << answer.back();
  // The next command is never refused as "during a search".
  EXPECT_TRUE(protocol.line("position startpos"));
  EXPECT_TRUE(lines.take().empty());
  // A stop after the search has answered changes nothing.
  EXPECT_TRUE(protocol.line("stop"));
  EXPECT_TRUE(lines.take().empty());
}

TEST(EngineProtocolLines, WithoutThreadsGoInfiniteIsBoundedAndHoldsItsBestmoveUntilStop) {
  Lines lines;
  EngineProtocol protocol(without_threads(), lines.output());
  EXPECT_TRUE(protocol.line("setoption name MoveTime value 150"));
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(protocol.line("go infinite"));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);  // MoveTime's 0.15 s, not forever
  std::vector<std::string> answer = lines.take();
  EXPECT_GE(count_starting(answer, "info "), 1);
  EXPECT_EQ(count_starting(answer, "bestmove"), 0);  // UCI's rule: only after stop
  // Still a search: isready answered, the session's commands refused until stop.
  EXPECT_TRUE(protocol.line("isready"));
  EXPECT_EQ(lines.take(), std::vector<std::string>{"readyok"});
  EXPECT_TRUE(protocol.line("position startpos moves 76"));
  answer = lines.take();
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_EQ(answer[0], "error 'position' during a search: send stop first");
  EXPECT_TRUE(protocol.line("stop"));
  answer = lines.take();
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_TRUE(answer[0].starts_with("bestmove ")) << answer[0];
  EXPECT_TRUE(Position::start(GameSpec::togyz()).is_legal(std::stoi(answer[0].substr(9)) - 1));
  EXPECT_TRUE(protocol.line("position startpos moves 76"));
  EXPECT_TRUE(lines.take().empty());
}

// A host that pauses the search and passes lines in meanwhile (the one-thread
// WebAssembly engine: mcts/search_yield.h, tools/wasm/worker_yield.h), played by a search
// hook: on its fifth pause it sends isready, a position and stop.
EngineProtocol* paused_protocol = nullptr;
Lines* paused_lines = nullptr;
int pauses = 0;
std::vector<std::string> answers_while_paused;

void answer_on_fifth_pause() {
  if (++pauses != 5) return;
  paused_lines->take();
  for (const char* line : {"isready", "position startpos moves 76", "stop"}) {
    EXPECT_TRUE(paused_protocol->line(line));
    for (const std::string& answer : paused_lines->take()) answers_while_paused.push_back(answer);
  }
}

TEST(EngineProtocolLines, WithoutThreadsAPausingHostStopsGoInfinite) {
  Lines lines;
  EngineProtocol protocol(without_threads(), lines.output());
  EXPECT_TRUE(protocol.line("setoption name MoveTime value 100"));  // bounds no infinite search
  paused_protocol = &protocol;
  paused_lines = &lines;
  pauses = 0;
  answers_while_paused.clear();
  set_search_yield_hook(&answer_on_fifth_pause);
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(protocol.line("go infinite"));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  set_search_yield_hook(nullptr);
  EXPECT_EQ(pauses, 5);  // the search ended at the poll right after the stop
  EXPECT_LT(seconds, 2.0);
  // isready answered at once, the session's commands refused, stop answered by the search.
  ASSERT_EQ(answers_while_paused.size(), 2u);
  EXPECT_EQ(answers_while_paused[0], "readyok");
  EXPECT_EQ(answers_while_paused[1], "error 'position' during a search: send stop first");
  const std::vector<std::string> answer = lines.take();
  ASSERT_FALSE(answer.empty());
  ASSERT_TRUE(answer.back().starts_with("bestmove ")) << answer.back();
  EXPECT_EQ(count_starting(answer, "bestmove"), 1);
  EXPECT_TRUE(Position::start(GameSpec::togyz()).is_legal(std::stoi(answer.back().substr(9)) - 1));
  // Nothing is held for a second stop, and the session takes commands again.
  EXPECT_TRUE(protocol.line("stop"));
  EXPECT_TRUE(lines.take().empty());
  EXPECT_TRUE(protocol.line("position startpos moves 76"));
  EXPECT_TRUE(lines.take().empty());
}

TEST(EngineProtocolLines, WithoutThreadsQuitWritesAHeldBestmoveAndEndsTheProtocol) {
  Lines lines;
  EngineProtocol protocol(without_threads(), lines.output());
  EXPECT_TRUE(protocol.line("setoption name MoveTime value 50"));
  EXPECT_TRUE(protocol.line("go infinite"));
  lines.take();
  EXPECT_FALSE(protocol.line("quit"));
  const std::vector<std::string> answer = lines.take();
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_TRUE(answer[0].starts_with("bestmove ")) << answer[0];
  EXPECT_FALSE(protocol.line("isready"));  // nothing after quit
  EXPECT_TRUE(lines.take().empty());
}

TEST(EngineProtocolLines, WithoutThreadsThreadsIsOneOnly) {
  Lines lines;
  EngineProtocol protocol(without_threads(), lines.output());
  EXPECT_TRUE(protocol.line("uci"));
  std::vector<std::string> greeting = lines.take();
  EXPECT_EQ(count_starting(greeting, "option name Threads type spin default 1 min 1 max 1"), 1);
  EXPECT_EQ(greeting.back(), "uciok");
  EXPECT_TRUE(protocol.line("setoption name Threads value 2"));
  const std::vector<std::string> answer = lines.take();
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_TRUE(answer[0].starts_with("error option Threads")) << answer[0];
  EXPECT_NE(answer[0].find("this engine has no threads"), std::string::npos) << answer[0];
  EXPECT_TRUE(protocol.line("setoption name Threads value 1"));
  EXPECT_TRUE(lines.take().empty());
}

TEST(EngineProtocolLines, WithASearchThreadGoReturnsAtOnceAndStopEndsAnInfiniteSearch) {
  Lines lines;
  EngineProtocolSettings settings = without_threads();
  settings.threads = true;
  EngineProtocol protocol(settings, lines.output());
  EXPECT_TRUE(protocol.line("uci"));
  EXPECT_EQ(count_starting(lines.take(), "option name Threads type spin default 1 min 1 max 256"),
            1);
  EXPECT_TRUE(protocol.line("go infinite"));
  EXPECT_TRUE(protocol.line("isready"));
  EXPECT_EQ(lines.wait_for("readyok"), "readyok");
  EXPECT_TRUE(protocol.line("stop"));
  EXPECT_TRUE(lines.wait_for("bestmove ").starts_with("bestmove "));
  EXPECT_FALSE(protocol.line("quit"));
}

}  // namespace
}  // namespace kz::cli
