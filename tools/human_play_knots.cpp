#include "tools/human_play_knots.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/position.h"

namespace kz::cli {

void set_play_knots(HumanHeadInfo& info, const std::string& spec, const PlayKnots& kind) {
  const std::string option = kind.option, name = kind.value;
  if (info.search_mix_weights.empty())
    throw ParseError(option + ": the model has no search mixture to play (--fit-search-mix)");
  const std::vector<int> knots = human_rating_knots(info);
  std::vector<double> values;
  for (int r : knots) values.push_back(kind.at(info, r));
  std::string knot_list;
  for (int r : knots) knot_list += (knot_list.empty() ? "" : ", ") + std::to_string(r);
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t colon = item.find(':');
    int rating = 0;
    double value = -1;
    try {
      if (colon == std::string::npos) throw std::invalid_argument("no colon");
      size_t used = 0;
      rating = std::stoi(item.substr(0, colon), &used);
      if (used != colon) throw std::invalid_argument("rating");
      const std::string v = item.substr(colon + 1);
      value = std::stod(v, &used);
      if (used != v.size()) throw std::invalid_argument("value");
    } catch (const std::exception&) {
      throw ParseError(option + ": '" + item + "' is not " + kind.form + " (e.g. 1400:0.2)");
    }
    const auto at = std::find(knots.begin(), knots.end(), rating);
    if (at == knots.end())
      throw ParseError(option + ": " + std::to_string(rating) +
                       " is not a knot of the model's rating inputs (" + knot_list + ")");
    if (!(value >= 0 && value <= 1))
      throw ParseError(option + ": " + name + " at " + std::to_string(rating) + " is " +
                       item.substr(colon + 1) + ", not 0..1");
    values[size_t(at - knots.begin())] = value;
  }
  // The basis of human_rating_inputs: no straight line, each knot's hat its value, and
  // titled players (never a level) as the top knot.
  std::vector<float>& weights = info.*kind.weights;
  weights.assign(size_t(kHumanRatingInputs), 0.f);
  for (size_t k = 0; k < knots.size(); ++k) weights[1 + k] = float(values[k]);
}

std::string play_knots_line(const HumanHeadInfo& info, const PlayKnots& kind) {
  std::string line = "the levels play " + std::string(kind.value);
  for (int r : human_rating_knots(info)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, " %d: %.4f", r, kind.at(info, r));
    line += buf;
  }
  return line;
}

void set_play_knots_saying(HumanHeadInfo& info, const std::string& mix, const std::string& filter,
                           const std::function<void(const std::string&)>& say) {
  for (const auto& [spec, kind] : {std::pair{&mix, &kPlayMix}, std::pair{&filter, &kPlayFilter}}) {
    if (spec->empty()) continue;
    set_play_knots(info, *spec, *kind);
    say(play_knots_line(info, *kind));
  }
  if (!info.search_filter_play_weights.empty())
    say("the levels play the search filter (its tau), not the mixture");
}

}  // namespace kz::cli
