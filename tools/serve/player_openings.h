// "My openings" (docs/openings.md): one player's own games as an opening explorer, built
// in memory with core's OpeningTreeBuilder from a file of records the page sends, so that
// the page walks the player's own tree with the view that walks the shipped one.
//
// The explorer's buckets say who chose a move; here they are four labels of the player's
// games instead of rating bands: the player's own moves as White and as Black, and the
// opponents' moves in the player's games as White and as Black. A colour then selects its
// own moves and the replies they met; the counts stay the mover's, as everywhere in the
// explorer, and player_view() turns an opponent's into the player's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/notation.h"
#include "core/opening_explorer.h"

namespace kz::cli::serve {

inline constexpr ExplorerBucket kPlayerAsWhite = ExplorerBucket::kRatedBelow1200;
inline constexpr ExplorerBucket kPlayerAsBlack = ExplorerBucket::kRated1200;
inline constexpr ExplorerBucket kOpponentOfWhite = ExplorerBucket::kRated1500;  // player White
inline constexpr ExplorerBucket kOpponentOfBlack = ExplorerBucket::kRated1800;  // player Black
// The plies of each game kept: the shipped explorer's (tools/cmd_openings.cpp).
inline constexpr int kPlayerOpeningsPlies = 30;

// The buckets of `colour`: "white" (the player's White games), "black", or "both".
// Throws ParseError naming the accepted words.
ExplorerBuckets player_colour_selection(const std::string& colour);
// Whether `bucket` holds the player's own moves (else the opponents').
bool player_bucket(ExplorerBucket bucket);
// The counts of `move` in `selection` from the player's side: the player's own moves as
// they are, the opponents' with wins and losses swapped.
ExplorerCounts player_view(const ExplorerMove& move, ExplorerBuckets selection);

struct PlayerOpenings {
  OpeningExplorer explorer;
  std::string player;    // the name as the first of the player's records spells it
  int64_t records = 0;   // games in the file
  int64_t as_white = 0;  // the player's games added, by colour
  int64_t as_black = 0;
  int64_t without_player = 0;  // games the player did not play
  std::optional<int> rating;   // the mean of the player's rating tags, none if unrated
  // "game N (White vs Black, line L): reason" for each of the player's games left out.
  std::vector<std::string> skipped;
};

// The name playing most of `records` (White and Black tags, letter case ignored; ties:
// the first met), "" when no record names a player.
std::string most_frequent_player(const std::vector<GameRecord>& records);

// `player`'s games among `records` (its name in the White or Black tag, letter case
// ignored; "" = most_frequent_player) as an explorer of their first kPlayerOpeningsPlies
// plies, every position kept. A game that does not replay under `game`'s rules is left out
// and named in `skipped`. Throws ParseError when the file has no game of the player.
PlayerOpenings build_player_openings(const std::vector<GameRecord>& records, const GameSpec& game,
                                     const std::string& player);

}  // namespace kz::cli::serve
