#include "mcts/batching_front.h"

#include <algorithm>
#include <chrono>

namespace kz {

BatchingFront::BatchingFront(Evaluator& inner, int max_batch, int clients,
                             std::chrono::microseconds max_wait)
    : inner_(inner),
      max_batch_(size_t(std::max(1, max_batch))),
      max_wait_(std::max(std::chrono::microseconds(0), max_wait)),
      active_clients_(std::max(0, clients)),
      collector_([this] { collect(); }) {}

BatchingFront::~BatchingFront() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  work_.notify_all();
  collector_.join();
}

void BatchingFront::evaluate(std::span<const Position> positions, std::span<EvalOutput> out) {
  if (positions.empty()) return;
  Request request{positions, out, nullptr, false, nullptr};
  submit(request);
}

void BatchingFront::evaluate_prepared(std::span<const Position> positions, const float* inputs,
                                      std::span<EvalOutput> out) {
  if (positions.empty()) return;
  Request request{positions, out, inputs, false, nullptr};
  submit(request);
}

void BatchingFront::submit(Request& request) {
  const size_t n = request.positions.size();
  std::unique_lock<std::mutex> lock(mutex_);
  queue_.push_back(&request);
  queued_positions_ += n;
  work_.notify_one();
  done_.wait(lock, [&] { return request.done; });
  if (request.error) std::rethrow_exception(request.error);
}

void BatchingFront::client_done() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --active_clients_;
  }
  work_.notify_one();
}

void BatchingFront::client_joined() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++active_clients_;
}

uint64_t BatchingFront::batches() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return batches_;
}
uint64_t BatchingFront::evaluated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evaluated_;
}
double BatchingFront::eval_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return eval_seconds_;
}

size_t BatchingFront::gather_inputs(const std::vector<Request*>& taken) {
  size_t per = 0;
  for (const Request* r : taken)
    if (r->inputs) {
      per = inner_.prepared_floats(r->positions[0]);
      break;
    }
  if (per == 0) return 0;
  // Each request's positions are of one size (the driver prepares no mixed batch); a
  // batch mixing requests of two sizes is left to evaluate(), which refuses it.
  for (const Request* r : taken)
    if (inner_.prepared_floats(r->positions[0]) != per) return 0;
  inputs_.resize(per * batch_.size());
  float* at = inputs_.data();
  for (const Request* r : taken) {
    const size_t n = r->positions.size();
    if (r->inputs)
      std::copy_n(r->inputs, n * per, at);
    else
      for (size_t i = 0; i < n; ++i) inner_.prepare(r->positions[i], at + i * per);
    at += n * per;
  }
  return per;
}

void BatchingFront::collect() {
  std::vector<Request*> taken;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // A full batch, or every running client waiting (each has one request at most), or
    // the oldest request has waited max_wait_: a client may be blocked elsewhere (on
    // another side's front, in a Player's think()) and will not add leaves soon.
    auto ready = [&] {
      return quit_ || queued_positions_ >= max_batch_ ||
             (!queue_.empty() && int(queue_.size()) >= active_clients_);
    };
    work_.wait(lock, [&] { return ready() || !queue_.empty(); });
    if (!ready() && max_wait_.count() > 0) work_.wait_for(lock, max_wait_, ready);
    if (quit_) return;
    // Whole requests up to max_batch positions (at least one; a client's request is
    // evaluated in max_batch chunks when it is larger).
    taken.clear();
    size_t count = 0;
    while (!queue_.empty() &&
           (taken.empty() || count + queue_.front()->positions.size() <= max_batch_)) {
      count += queue_.front()->positions.size();
      taken.push_back(queue_.front());
      queue_.pop_front();
    }
    queued_positions_ -= count;
    lock.unlock();

    batch_.clear();
    for (const Request* r : taken)
      batch_.insert(batch_.end(), r->positions.begin(), r->positions.end());
    batch_out_.resize(batch_.size());
    std::exception_ptr error;
    uint64_t calls = 0;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const size_t per = gather_inputs(taken);
      for (size_t start = 0; start < batch_.size(); start += max_batch_) {
        const size_t n = std::min(max_batch_, batch_.size() - start);
        const auto positions = std::span<const Position>(batch_).subspan(start, n);
        const auto out = std::span<EvalOutput>(batch_out_).subspan(start, n);
        if (per > 0)
          inner_.evaluate_prepared(positions, inputs_.data() + start * per, out);
        else
          inner_.evaluate(positions, out);
        ++calls;
      }
    } catch (...) {
      error = std::current_exception();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    size_t offset = 0;
    if (!error)
      for (Request* r : taken) {
        std::copy_n(batch_out_.begin() + std::ptrdiff_t(offset), r->out.size(), r->out.begin());
        offset += r->out.size();
      }

    lock.lock();
    batches_ += calls;
    evaluated_ += batch_.size();
    eval_seconds_ += seconds;
    for (Request* r : taken) {
      r->error = error;
      r->done = true;
    }
    done_.notify_all();
  }
}

}  // namespace kz
