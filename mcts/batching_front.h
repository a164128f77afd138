// One evaluator shared by several search threads, so that their leaves still reach the
// network as full batches: the front of the game runner's search threads
// (mcts/game_runner.h).
//
// Each client (one SearchDriver per runner thread) calls evaluate() as it would call the
// network and blocks until its answers are in. A collector thread of its own takes the
// queued requests and evaluates them together, in batches of at most `max_batch`
// positions, as soon as a full batch is queued or every client that is still running is
// waiting (nobody else can add leaves, so waiting longer gains nothing), or after 2 ms
// (a client blocked elsewhere, on another side's front or in a Player, would otherwise
// hold the others up, or deadlock two fronts waiting on each other). While one batch
// is in the network the next requests queue up, so several batches can be in flight.
// The wrapped evaluator is only ever called from the collector thread, one call at a
// time (what NnEvaluator needs), and each position's answer depends on that position
// alone (mcts/evaluator.h), so which requests share a batch does not change the games.
// Inputs the clients made ahead (Evaluator::prepare: the network's features, encoded on
// each search thread) are handed on with the batch, so the collector, the thread that
// runs the network, does not encode them itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "mcts/evaluator.h"

namespace kz {

class BatchingFront : public Evaluator {
 public:
  // `clients`: how many callers there will be; each has at most one request in flight.
  // 0 when they come and go (a server's searches): each then says client_joined()
  // before its first request and client_done() after its last.
  // `max_wait`: how long the oldest request waits for more (2 ms, above); 0 sends what is
  // queued whenever the network is free (many clients that come and go, where waiting
  // for the slowest of them costs more than a smaller batch).
  BatchingFront(Evaluator& inner, int max_batch, int clients,
                std::chrono::microseconds max_wait = std::chrono::microseconds(2000));
  ~BatchingFront() override;
  BatchingFront(const BatchingFront&) = delete;
  BatchingFront& operator=(const BatchingFront&) = delete;

  // Thread-safe; blocks until `out` is filled. Rethrows what the wrapped evaluator threw.
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override;
  std::string describe() const override { return inner_.describe(); }
  // The wrapped evaluator's inputs (Evaluator::prepare), made on the client's thread.
  size_t prepared_floats(const Position& pos) const override { return inner_.prepared_floats(pos); }
  void prepare(const Position& pos, float* out) const override { inner_.prepare(pos, out); }
  // evaluate() with the inputs prepare() made; a batch shared with requests that came
  // without them is completed by the collector.
  void evaluate_prepared(std::span<const Position> positions, const float* inputs,
                         std::span<EvalOutput> out) override;

  // A client that will ask nothing more (its thread is finished): the collector stops
  // waiting for it.
  void client_done();
  // One more client: the collector waits for its request too (up to `max_wait`).
  void client_joined();

  // The wrapped evaluator's calls: how many, positions, seconds inside it.
  uint64_t batches() const;
  uint64_t evaluated() const;
  double eval_seconds() const;

 private:
  struct Request {
    std::span<const Position> positions;
    std::span<EvalOutput> out;
    const float* inputs = nullptr;  // prepared_floats() a position, or none
    bool done = false;
    std::exception_ptr error;
  };
  void collect();
  void submit(Request& request);
  // The floats a position of the taken requests' batch_ takes in inputs_ once they are
  // side by side there (0: evaluate() without inputs).
  size_t gather_inputs(const std::vector<Request*>& taken);

  Evaluator& inner_;
  const size_t max_batch_;
  const std::chrono::microseconds max_wait_;
  mutable std::mutex mutex_;
  std::condition_variable work_;  // the collector waits here
  std::condition_variable done_;  // clients wait here
  std::deque<Request*> queue_;
  size_t queued_positions_ = 0;
  int active_clients_;
  bool quit_ = false;
  uint64_t batches_ = 0, evaluated_ = 0;
  double eval_seconds_ = 0;
  std::vector<Position> batch_;
  std::vector<EvalOutput> batch_out_;
  std::vector<float> inputs_;
  std::thread collector_;  // last: it starts running in the constructor
};

}  // namespace kz
