#include "mcts/mcts_player.h"

#include <algorithm>
#include <chrono>

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
  if (!progress_) {
    driver_.run(searches, targets, limits.movetime_s, limits.stop);
  } else {
    // The same search in slices, with a report between slices.
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    double next_report = 0.1;
    while (true) {
      double slice = next_report - elapsed();
      if (limits.movetime_s > 0) slice = std::min(slice, limits.movetime_s - elapsed());
      if (slice > 0) driver_.run(searches, targets, slice, limits.stop);
      const bool done = search_.root_visits() >= target || search_.root_proven() ||
                        search_.root_is_terminal() ||
                        (limits.stop && limits.stop->load(std::memory_order_relaxed)) ||
                        (limits.movetime_s > 0 && elapsed() >= limits.movetime_s);
      if (done) break;
      if (elapsed() >= next_report) {
        ThinkResult progress = search_.result();
        progress.seconds = elapsed();
        progress_(progress);
        next_report = elapsed() + 0.5;
      }
    }
  }
  ThinkResult r = search_.result();
  if (!pos.is_over()) r.best_move = search_.pick_move(options_.temperature, rng_);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kz
