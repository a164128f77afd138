// The search of the rating levels' search mixture (HumanHeadInfo::search_mix_weights,
// nn/search_mixture.h), apart from the levels (tools/human_level.h) so that the fits of
// the mixture (train/human_fits.h) search the same way.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "core/position.h"
#include "mcts/evaluator.h"
#include "mcts/mcts_player.h"

namespace kz {

// What a HumanSearch answers about a position.
struct SearchAnswer {
  int best_move = -1;                   // the most visited move (-1: the game is over)
  std::array<float, kMaxPits> share{};  // each pit's share of the root's visits
};

// A small search of the engine's network (the expert's MCTS settings, a fixed number of
// visits, no noise, a fresh tree every time), so that a rating level can play what a
// player who calculates would: the search mixture (HumanHeadInfo::search_mix_weights).
// Deterministic: the same position gives the same answer.
class HumanSearch {
 public:
  // `engine`: the engine's network; `visits`: each search's.
  HumanSearch(const GameSpec& spec, std::shared_ptr<Evaluator> engine, int64_t visits);
  SearchAnswer search(const Position& pos);
  int64_t visits() const { return visits_; }

 private:
  int64_t visits_;
  MctsPlayer player_;
};

}  // namespace kz
