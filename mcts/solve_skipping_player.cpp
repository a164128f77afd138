#include "mcts/solve_skipping_player.h"

#include <filesystem>
#include <stdexcept>

namespace kz {

SolveSkippingPlayer::SolveSkippingPlayer(const GameSpec& spec, std::unique_ptr<PerfectPlayer> inner,
                                         const SolveSkippingOptions& options)
    : inner_(std::move(inner)), opt_(options) {
  if (!inner_ || !inner_->fallback())
    throw std::invalid_argument("SolveSkippingPlayer needs a PerfectPlayer with an engine");
  if (opt_.always_solve_seeds < 0) {
    const std::string dir = default_egtb_dir();
    const int seeds = cached_or_default_egtb_seeds(spec, dir);
    std::error_code ec;
    const bool there = std::filesystem::exists(
        std::filesystem::path(dir) / egtb_file_name(spec.variant, spec.pits, seeds), ec);
    opt_.always_solve_seeds = there ? seeds : 0;
  }
}

void SolveSkippingPlayer::new_game() {
  failed_seeds_ = last_seeds_ = -1;
  inner_->new_game();
}

ThinkResult SolveSkippingPlayer::think(const Position& pos, const ThinkLimits& limits) {
  skipped_last_ = false;
  if (pos.is_togyz() || pos.is_over()) return inner_->think(pos, limits);
  const int seeds = seeds_on_pits(pos);
  // Seeds on the pits never grow within a game: more than last time is another game.
  if (seeds > last_seeds_) failed_seeds_ = -1;
  last_seeds_ = seeds;
  if (failed_seeds_ >= 0 && seeds > opt_.always_solve_seeds &&
      seeds >= failed_seeds_ - opt_.retry_after_seeds) {
    skipped_last_ = true;
    ThinkLimits whole = limits;
    if (limits.movetime_s <= 0 && limits.nodes <= 0 && limits.depth <= 0 &&
        opt_.skipped_movetime_s > 0)
      whole.movetime_s = opt_.skipped_movetime_s;
    return inner_->fallback()->think(pos, whole);
  }
  ThinkResult r = inner_->think(pos, limits);
  if (!inner_->last_solve().solved) failed_seeds_ = seeds;
  return r;
}

}  // namespace kz
