#include "core/human_games.h"

#include <cmath>

namespace kz {

bool titled_side(const GameRecord& record, const RatedGame& rated, int side) {
  return rated.sides[size_t(side)].status == RatingStatus::kMissing &&
         record.tag("TimeControl", "\x01") == "\x01";
}

namespace {
// A side's result from a record's result ("1-0", "0-1", "1/2-1/2"): 1, 0.5 or 0; -1 else.
float game_score(const std::string& result, int side) {
  const float white = result == "1-0"       ? 1.f
                      : result == "0-1"     ? 0.f
                      : result == "1/2-1/2" ? 0.5f
                                            : -1.f;
  return white < 0 ? -1.f : side == 0 ? white : 1.f - white;
}
}  // namespace

HumanData read_human_data(const std::vector<std::vector<GameRecord>>& files, const GameSpec& spec,
                          FoldSelection fold, bool titled, HeldOut held_out) {
  HumanData data;
  for (const auto& records : files) {
    for (const auto& g : records) {
      const RatedGame rated = read_rated_game(g, held_out);
      if (!fold_selected(fold, rated.fold)) continue;
      Position start;
      ReplayResult replay;
      try {
        start = record_start(g, spec);
        replay = replay_record(g, start);
      } catch (const ParseError& e) {
        data.skipped.push_back(e.what());
        ++data.skipped_games;
        continue;
      }
      ++data.games;
      int side_index[2] = {-1, -1};
      for (int s = 0; s < 2; ++s) {
        const SideRating& r = rated.sides[size_t(s)];
        const bool is_titled = titled && !r.rated() && titled_side(g, rated, s);
        if (!r.rated() && !is_titled) {
          data.unrated.add(r);
          continue;
        }
        side_index[s] = int(data.sides.size());
        data.sides.push_back(
            {r.rated() ? r.rating : 0, is_titled, 0, game_score(g.result, s), data.games, s});
      }
      Position pos = start;
      for (int move : replay.moves) {
        const int s = side_index[pos.to_move];
        if (s >= 0) {
          HumanSide& side = data.sides[size_t(s)];
          data.samples.push_back({pos, move, side.rating, side.titled, s});
          ++side.moves;
        }
        pos.play(move);
      }
    }
  }
  return data;
}

int mean_rating(const std::vector<HumanSample>& samples) {
  double sum = 0;
  int64_t n = 0;
  for (const auto& s : samples)
    if (!s.titled) sum += s.rating, ++n;
  return n ? int(std::lround(sum / double(n))) : 0;
}

}  // namespace kz
