#include "train/ladder_run.h"

#include <algorithm>
#include <stdexcept>

#include "train/gate.h"

namespace kz {

std::string ladder_anchor(const std::string& anchor, const std::vector<std::string>& models) {
  if (!anchor.empty()) return anchor;
  return models.empty() ? "gen0000" : player_display_name(models[0]);
}

EarlierLadders read_earlier_ladders(const std::vector<std::string>& files,
                                    const std::string& settings) {
  EarlierLadders earlier;
  for (const auto& file : files) {
    const std::vector<PairResult> matches = read_ladder_matches(file, &earlier.log_text);
    earlier.results.insert(earlier.results.end(), matches.begin(), matches.end());
    for (const auto& m : matches)
      if (m.settings == settings) earlier.played.insert(std::minmax(m.a, m.b));
  }
  return earlier;
}

void mark_shipped(LadderFit& fit, const std::vector<std::string>& shipped) {
  for (const auto& name : shipped) {
    const std::string wanted = player_display_name(name);
    auto it = std::find_if(fit.ratings.begin(), fit.ratings.end(),
                           [&](const LadderRating& r) { return r.name == wanted; });
    if (it == fit.ratings.end())
      throw std::invalid_argument("--shipped " + name + ": no such player in the ladder");
    it->shipped = true;
  }
}

}  // namespace kz
