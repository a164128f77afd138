#include "mcts/mcts_player.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace kz {

MctsPlayer::MctsPlayer(std::shared_ptr<Evaluator> evaluator, const MctsPlayerOptions& options)
    : evaluator_(std::move(evaluator)),
      options_(options),
      cache_(options.cache_entries),
      driver_(*evaluator_, &cache_, options.max_batch),
      search_(options.params, options.seed),
      rng_(options.seed ^ 0x5DEECE66Dull) {}

std::string MctsPlayer::name() const {
  return options_.label + " (" + evaluator_->describe() + ")";
}

void MctsPlayer::new_game() {
  search_.clear();
}

ThinkResult MctsPlayer::think(const Position& pos, const ThinkLimits& limits) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!options_.reuse_tree) search_.clear();
  search_.set_root(pos);
  // With only a time limit, visits are unbounded; otherwise the node limit (or the
  // default) is the number of visits at the root, reused ones included.
  int64_t target = limits.nodes > 0 ? limits.nodes : options_.visits;
  if (limits.nodes <= 0 && limits.movetime_s > 0) target = int64_t(1) << 40;
  Search* searches[1] = {&search_};
  const int64_t targets[1] = {target};
  // The search runs in slices that end at the next progress report (if anyone listens)
  // or at the time limit (if any); without either it is one slice to the visit target.
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  constexpr double kNever = std::numeric_limits<double>::infinity();
  double next_report = progress_ ? 0.1 : kNever;
  const double deadline = limits.movetime_s > 0 ? limits.movetime_s : kNever;
  auto report_if_due = [&] {
    if (elapsed() < next_report) return;
    ThinkResult progress = search_.result();
    progress.seconds = elapsed();
    progress_(progress);
    next_report = elapsed() + 0.5;
  };
  auto stopped = [&] { return limits.stop && limits.stop->load(std::memory_order_relaxed); };
  if (options_.pipelined) {
    // One search in both halves: while one batch is in the network the other is
    // delivered and the next gathered. The checks run after every half round (a few
    // milliseconds), so time limits and `stop` are as prompt as in the serial loop.
    driver_.run_pipelined(
        [&](int, std::vector<Search*>& list, std::vector<int64_t>& list_targets) {
          list.push_back(&search_);
          list_targets.push_back(target);
        },
        [&](int) {
          if (search_.done(target) || stopped() || elapsed() >= deadline) return false;
          report_if_due();
          return true;
        });
  } else {
    while (true) {
      const double slice = std::min(next_report, deadline) - elapsed();
      if (slice > 0) driver_.run(searches, targets, slice == kNever ? 0 : slice, limits.stop);
      const bool done = search_.done(target) || stopped() || elapsed() >= deadline;
      if (done) break;
      report_if_due();
    }
  }
  ThinkResult r = search_.result();
  if (!pos.is_over()) r.best_move = search_.pick_move(options_.temperature, rng_);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kz
