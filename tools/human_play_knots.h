// The knots of what the rating levels play, set by hand or by
// tools/calibrate_rating_levels.py through `kumalak human-train --play-mix / --play-filter`
// (tools/cmd_human_train.cpp): the search mixture's lambda or the search filter's tau at
// the knots of a human model's rating inputs (nn/human_rating.h). Without LibTorch, so
// that tests/app_human_play_knots_test.cpp reads the options directly.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "nn/human_rating.h"

namespace kz::cli {

// One kind of knots: the option that sets it, what its values are, and where they live.
struct PlayKnots {
  const char* option;  // "--play-mix"
  const char* value;   // "lambda"
  const char* form;    // "RATING:LAMBDA"
  // The value a level plays at a rating (human_play_mix, human_play_filter).
  double (*at)(const HumanHeadInfo&, int);
  std::vector<float> HumanHeadInfo::*weights;  // the weights the knots set
};
inline constexpr PlayKnots kPlayMix{"--play-mix", "lambda", "RATING:LAMBDA", human_play_mix,
                                    &HumanHeadInfo::search_mix_play_weights};
inline constexpr PlayKnots kPlayFilter{"--play-filter", "tau", "RATING:TAU", human_play_filter,
                                       &HumanHeadInfo::search_filter_play_weights};

// Sets `kind`'s weights in `info` from `spec`, "R:value,..." at the knots of the model's
// range; the knots not named keep their value (for the lambda, the fitted one where there
// are no play weights yet; for tau, 0). Throws ParseError naming what is wrong: no search
// mixture in the model, an item that is not RATING:VALUE, a rating that is not a knot, a
// value outside 0..1.
void set_play_knots(HumanHeadInfo& info, const std::string& spec, const PlayKnots& kind);

// What the levels play of `kind` at every knot of `info`, for human-train's log: "the
// levels play lambda 800: 0.0000 1000: 0.2000 ...".
std::string play_knots_line(const HumanHeadInfo& info, const PlayKnots& kind);

// Sets the knots of --play-mix (`mix`) and then of --play-filter (`filter`) in `info` (an
// empty one: left as it is), saying play_knots_line after each, and at the end that the
// levels play the search filter when they do. Throws set_play_knots's ParseError (what was
// set before it stays set and said).
//   info: the human model's head
//   mix, filter: the options' text, "R:value,..."
//   say: receives each line, without a line break
void set_play_knots_saying(HumanHeadInfo& info, const std::string& mix, const std::string& filter,
                           const std::function<void(const std::string&)>& say);

}  // namespace kz::cli
