// Builds the items of a range of steps (the trainer's batches: rows decoded, features
// encoded) on worker threads ahead of their consumer, and hands them out in step order.
//
// Why ordered by step rather than first come, first served: an item must be a pure
// function of its step (the trainer draws each step's rows from a generator seeded by
// the step), so that the order in which workers finish never changes what the optimizer
// sees; the bit-exact resume test depends on it. At most `depth` items are built or
// waiting at any time, which bounds memory (a Togyz batch of 1024 rows is ~2 MB).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace kz {

template <class T>
class StepPrefetcher {
 public:
  using Make = std::function<T(int64_t step)>;

  // Items of steps [first, last), built by `threads` workers (0 = built by next() itself,
  // on the caller's thread, as before prefetching existed), at most `depth` ahead.
  StepPrefetcher(int64_t first, int64_t last, int threads, int depth, Make make)
      : make_(std::move(make)),
        last_(last),
        depth_(depth < 1 ? 1 : depth),
        next_to_claim_(first),
        next_to_give_(first) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }

  ~StepPrefetcher() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  StepPrefetcher(const StepPrefetcher&) = delete;
  StepPrefetcher& operator=(const StepPrefetcher&) = delete;

  // The next step's item; rethrows what building it threw. Not for use past `last`.
  T next() {
    if (workers_.empty()) return make_(next_to_give_++);
    std::unique_lock lock(mutex_);
    ready_cv_.wait(lock, [&] { return done_.count(next_to_give_) > 0; });
    auto node = done_.extract(next_to_give_);
    ++next_to_give_;
    lock.unlock();
    work_cv_.notify_all();  // a slot is free
    Slot& slot = node.mapped();
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(*slot.item);
  }

 private:
  struct Slot {
    std::optional<T> item;
    std::exception_ptr error;
  };

  void work() {
    for (;;) {
      int64_t step;
      {
        std::unique_lock lock(mutex_);
        work_cv_.wait(lock, [&] {
          return stopping_ || next_to_claim_ >= last_ || next_to_claim_ < next_to_give_ + depth_;
        });
        if (stopping_ || next_to_claim_ >= last_) return;
        step = next_to_claim_++;
      }
      Slot slot;
      try {
        slot.item.emplace(make_(step));
      } catch (...) {
        slot.error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        done_.emplace(step, std::move(slot));
      }
      ready_cv_.notify_all();
    }
  }

  Make make_;
  const int64_t last_;
  const int64_t depth_;
  std::mutex mutex_;
  std::condition_variable work_cv_, ready_cv_;
  int64_t next_to_claim_, next_to_give_;
  std::map<int64_t, Slot> done_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;  // last: started after everything they use
};

}  // namespace kz
