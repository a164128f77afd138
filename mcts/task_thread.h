// One long-lived thread that runs one task at a time for its owner: the search driver's
// pipeline runs network batches on it, a match runs one side's search rounds on it.
//
// Long-lived rather than a thread per task because the network library keeps
// per-thread state (OpenMP thread pools, inference-mode flags) that is costly to build:
// a gating match that started a thread per search round ran six times slower.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace kz {

class TaskThread {
 public:
  TaskThread() : thread_([this] { loop(); }) {}
  // Lets a running task finish (a task handed over but not yet begun is dropped), so
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

  // Hands `task` to the thread. The previous task must have been waited for.
  void start(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = std::move(task);
      done_ = false;
    }
    cv_.notify_all();
  }
  // Waits for the task given to start() (returns at once if there is none) and rethrows
  // what it threw.
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return done_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return quit_ || task_ != nullptr; });
      if (quit_) return;
      std::function<void()> task = std::exchange(task_, nullptr);
      lock.unlock();
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      error_ = error;
      done_ = true;
      cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::function<void()> task_;
  bool done_ = true;
  bool quit_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts running in the constructor
};

}  // namespace kz
