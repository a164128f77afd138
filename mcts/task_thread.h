// One long-lived thread that runs one task at a time for its owner: the search driver's
// pipeline runs network batches on it, a match runs one side's search rounds on it.
//
// Long-lived rather than a thread per task because the network library keeps
// per-thread state (OpenMP thread pools, inference-mode flags) that is costly to build:
// a gating match that started a thread per search round ran six times slower.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace kz {

// Tasks may be queued behind the one running (start() returns a ticket, wait(ticket)
// waits for that one): the pipeline hands the network its next batch before the current
// one ends, so the thread goes from one batch to the next without waiting for its owner
// to wake up and hand it over (two thread wake-ups per batch, a few percent of a batch of
// a fast network: docs/performance.md).
class TaskThread {
 public:
  TaskThread() : thread_([this] { loop(); }) {}
  // Lets a running task finish (tasks handed over but not yet begun are dropped), so
  // whatever a task reads must outlive the TaskThread.
  ~TaskThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  TaskThread(const TaskThread&) = delete;
  TaskThread& operator=(const TaskThread&) = delete;

  // Hands `task` to the thread, which runs it after the tasks handed over before it.
  // Returns its ticket for wait(ticket).
  uint64_t start(std::function<void()> task) {
    uint64_t ticket;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(task));
      ticket = ++started_;
    }
    cv_.notify_all();
    return ticket;
  }
  // Waits for every task handed over (returns at once if there is none) and rethrows
  // the first error a task threw since the last rethrow.
  void wait() { wait(kAll); }
  // Waits for the task of `ticket` and those before it, and rethrows as wait() does.
  void wait(uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return finished_ >= std::min(ticket, started_); });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  static constexpr uint64_t kAll = UINT64_MAX;

  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return quit_ || !queue_.empty(); });
      if (quit_) return;
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !error_) error_ = error;
      ++finished_;
      cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  uint64_t started_ = 0, finished_ = 0;  // tickets handed out and tasks finished
  bool quit_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts running in the constructor
};

}  // namespace kz
