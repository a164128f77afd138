// command_input() of the WebAssembly build (tools/command_input.h): a stream fed by the
// host. main() runs on a thread of its own (-sPROXY_TO_PTHREAD), so it may wait here for
// input while the JavaScript thread goes on carrying out the writes of every thread;
// the host calls kz_push_input with each chunk it receives (tools/wasm/node_input.js:
// Node's stdin; the page's Web Worker: its messages) and with no bytes at the end.
#include "tools/command_input.h"

#include <emscripten.h>

#include <condition_variable>
#include <mutex>
#include <streambuf>
#include <string>

namespace kz::cli {

namespace {

class PushedInput : public std::streambuf {
 public:
  // size 0: the end of input.
  void push(const char* data, int size) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (size <= 0)
        closed_ = true;
      else
        pending_.append(data, size_t(size));
    }
    ready_.notify_all();
  }

 protected:
  int_type underflow() override {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [this] { return !pending_.empty() || closed_; });
    if (pending_.empty()) return traits_type::eof();
    current_.swap(pending_);
    pending_.clear();
    setg(current_.data(), current_.data(), current_.data() + current_.size());
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_;
  std::string pending_;  // pushed, not yet read
  std::string current_;  // the get area
  bool closed_ = false;
};

PushedInput& pushed_input() {
  static PushedInput input;
  return input;
}

}  // namespace

std::istream& command_input() {
  static std::istream stream(&pushed_input());
  static std::once_flag started;
  // The host starts sending only to a program that reads: a command that never reads
  // leaves stdin alone (and Node free to exit when main returns).
  std::call_once(started, [] { MAIN_THREAD_ASYNC_EM_ASM({ Module['kzStartInput'](); }); });
  return stream;
}

}  // namespace kz::cli

extern "C" EMSCRIPTEN_KEEPALIVE void kz_push_input(const char* data, int size) {
  kz::cli::pushed_input().push(data, size);
}
