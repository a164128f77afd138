// Lines of the interactive commands' input (tools/command_input.h) read on a thread of
// their own, so that a command waits for the next line only until a deadline: under a
// clock, `kumalak play` says at once that the player's flag fell instead of when the
// player next presses Enter. Header-only: the tools directory builds only cmd_*.cpp into
// the executable.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "tools/command_input.h"

namespace kz::cli {

// Reads command_input() on a thread it starts. The thread is left behind at the end (it
// may be blocked in a read that nothing will ever answer).
class LineReader {
 public:
  enum class Got { kLine, kEnd, kTimeout };

  LineReader() : state_(std::make_shared<State>()) {
    std::thread([state = state_] {
      std::string line;
      bool more = true;
      while (more) {
        more = bool(std::getline(command_input(), line));
        std::lock_guard<std::mutex> lock(state->mu);
        if (more)
          state->lines.push_back(line);
        else
          state->ended = true;
        state->ready.notify_all();
      }
    }).detach();
  }

  // The next line into `line`; waits at most `timeout_ms` when given (kTimeout when it
  // passes), else until a line or the end of the input.
  Got next(std::string& line, std::optional<int64_t> timeout_ms) {
    std::unique_lock<std::mutex> lock(state_->mu);
    auto have = [&] { return !state_->lines.empty() || state_->ended; };
    if (timeout_ms) {
      if (!state_->ready.wait_for(
              lock, std::chrono::milliseconds(std::max<int64_t>(*timeout_ms, 0)), have))
        return Got::kTimeout;
    } else {
      state_->ready.wait(lock, have);
    }
    if (state_->lines.empty()) return Got::kEnd;
    line = std::move(state_->lines.front());
    state_->lines.pop_front();
    return Got::kLine;
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable ready;
    std::deque<std::string> lines;
    bool ended = false;
  };
  std::shared_ptr<State> state_;
};

}  // namespace kz::cli
