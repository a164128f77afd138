#include "tools/serve/player_openings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/i18n.h"
#include "core/rated_games.h"

namespace kz::cli::serve {

namespace {

std::string folded(std::string name) {
  const size_t a = name.find_first_not_of(" \t");
  const size_t b = name.find_last_not_of(" \t");
  name = a == std::string::npos ? "" : name.substr(a, b - a + 1);
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

constexpr ExplorerBuckets bit(ExplorerBucket b) {
  return 1u << int(b);
}

}  // namespace

ExplorerBuckets player_colour_selection(const std::string& colour) {
  if (colour == "white") return bit(kPlayerAsWhite) | bit(kOpponentOfWhite);
  if (colour == "black") return bit(kPlayerAsBlack) | bit(kOpponentOfBlack);
  if (colour == "both" || colour.empty())
    return bit(kPlayerAsWhite) | bit(kOpponentOfWhite) | bit(kPlayerAsBlack) |
           bit(kOpponentOfBlack);
  throw ParseError(i18n::tr("colour: white, black or both, not '{colour}'", {{"colour", colour}}));
}

bool player_bucket(ExplorerBucket bucket) {
  return bucket == kPlayerAsWhite || bucket == kPlayerAsBlack;
}

ExplorerCounts player_view(const ExplorerMove& move, ExplorerBuckets selection) {
  ExplorerCounts out;
  for (int b = 0; b < kExplorerBuckets; ++b) {
    if (!(selection & (1u << b))) continue;
    ExplorerCounts c = move.by_bucket[size_t(b)];
    if (!player_bucket(ExplorerBucket(b))) {
      std::swap(c.wins, c.losses);
      c.rated = 0;  // the opponents' ratings are not the player's
      c.rating_sum = 0;
    }
    out.add(c);
  }
  return out;
}

std::string most_frequent_player(const std::vector<GameRecord>& records) {
  std::map<std::string, int> games;
  std::vector<std::string> order;  // names as first met, folded
  for (const GameRecord& r : records)
    for (const char* tag : {"White", "Black"}) {
      const std::string name = folded(r.tag(tag));
      if (name.empty() || name == "?") continue;
      if (games[name]++ == 0) order.push_back(name);
    }
  std::string best;
  int most = 0;
  for (const std::string& name : order)
    if (games[name] > most) most = games[name], best = name;
  return best;
}

PlayerOpenings build_player_openings(const std::vector<GameRecord>& records, const GameSpec& game,
                                     const std::string& player) {
  const std::string wanted = folded(player.empty() ? most_frequent_player(records) : player);
  PlayerOpenings out;
  out.records = int64_t(records.size());
  OpeningTreeBuilder builder(game, kPlayerOpeningsPlies, 1);
  int64_t rating_sum = 0, rated = 0;
  for (const GameRecord& record : records) {
    int side = -1;
    if (!wanted.empty()) {
      if (folded(record.tag("White")) == wanted)
        side = 0;
      else if (folded(record.tag("Black")) == wanted)
        side = 1;
    }
    if (side < 0) {
      ++out.without_player;
      continue;
    }
    if (out.player.empty()) out.player = record.tag(side == 0 ? "White" : "Black");
    const std::optional<ExplorerGame> replayed = replay_for_explorer(record, game, out.skipped);
    if (!replayed) continue;
    const Position& start = replayed->start;
    const ReplayResult& replay = replayed->replay;
    const Outcome result = replayed->result;
    std::array<ExplorerBucket, 2> buckets{};
    buckets[size_t(side)] = side == 0 ? kPlayerAsWhite : kPlayerAsBlack;
    buckets[size_t(1 - side)] = side == 0 ? kOpponentOfWhite : kOpponentOfBlack;
    std::array<int, 2> ratings{0, 0};
    for (int s = 0; s < 2; ++s) {
      const SideRating r = side_rating(record, s);
      if (r.rated()) ratings[size_t(s)] = r.rating;
    }
    if (ratings[size_t(side)] > 0) rating_sum += ratings[size_t(side)], ++rated;
    builder.add_game(start, replay.moves, result, buckets, ratings);
    ++(side == 0 ? out.as_white : out.as_black);
  }
  if (out.as_white + out.as_black == 0) {
    if (wanted.empty()) throw ParseError(i18n::tr("the file names no player"));
    if (out.player.empty())
      throw ParseError(i18n::tr("no game of {player} in the file", {{"player", player}}));
    throw ParseError(i18n::tr("no game of {player} in the file could be read: {why}",
                              {{"player", out.player}, {"why", out.skipped.front()}}));
  }
  if (rated > 0) out.rating = int(std::lround(double(rating_sum) / double(rated)));
  out.explorer = builder.finish("{}");
  return out;
}

}  // namespace kz::cli::serve
