// The opening explorer: for every position reached early in recorded games, each move
// that was played from it with the number of games, their results from the mover's
// view and the mean rating of the players who chose it, the sources kept apart (rated
// players by rating band, unrated players, titled over-the-board players, the engine's
// own games). `kumalak openings build` makes the file, `kumalak openings` reads it;
// docs/openings.md is the page (the file format, the figures).
//
// Positions are keyed by the whole position (rows, kazans, tuzdyks, side to move), not by
// the moves that led there, so that transpositions meet. The file holds every position
// whole, beside its 64-bit key: two positions that share a key (a chance of about
// n^2 / 2^65, some 10^-11 for the shipped few thousand) are both kept and told apart by
// comparing the positions, so a collision can never merge two positions' counts.
//
// Nothing here reads a network or a shard: the command feeds self-play games in through
// add_move, so this library needs the standard library only.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/notation.h"
#include "core/position.h"

namespace kz {

// Who chose a move. Rated players are banded by the mover's own rating tag; a side with
// no usable rating is unrated, unless the record is an over-the-board tournament game
// (rating tag missing, no TimeControl: the rule of human_training's titled_side), whose
// players are titled. The engine is the engine's own self-play.
enum class ExplorerBucket : uint8_t {
  kRatedBelow1200 = 0,
  kRated1200 = 1,  // 1200-1499
  kRated1500 = 2,  // 1500-1799
  kRated1800 = 3,  // 1800 and above
  kUnrated = 4,
  kTitled = 5,
  kEngine = 6,
};
inline constexpr int kExplorerBuckets = 7;
inline constexpr int kExplorerRatedBands = 4;
// The first rating of each rated band above the lowest (the lowest is "below 1200").
inline constexpr std::array<int, 3> kExplorerBandStarts = {1200, 1500, 1800};

// The band of a rated player of `rating`.
ExplorerBucket explorer_rating_bucket(int rating);
// "rated-below-1200", "rated-1200-1499", "rated-1500-1799", "rated-1800-up", "unrated",
// "titled", "engine": the JSON keys of the command's by_source.
const char* explorer_bucket_name(ExplorerBucket bucket);
// The band names --rating-band accepts: "below-1200", "1200-1499", "1500-1799",
// "1800-up" (index = the bucket's number).
const char* explorer_band_name(int band);

// A set of buckets (bit b = ExplorerBucket b).
using ExplorerBuckets = uint32_t;
inline constexpr ExplorerBuckets kAllExplorerBuckets = (1u << kExplorerBuckets) - 1;
// The buckets a query selects: `source` one of all, rated, unrated, titled, engine; `band`
// "" (every band) or a band name above, allowed with source rated or all (then: that
// band of the rated players). Throws ParseError naming the accepted words.
ExplorerBuckets explorer_selection(std::string_view source, std::string_view band);

// What was played from one position by one bucket's players, results from the mover's
// view. `games` is wins + draws + losses + no_result.
struct ExplorerCounts {
  uint32_t wins = 0, draws = 0, losses = 0;
  uint32_t no_result = 0;   // games whose record has no result ("*")
  uint32_t rated = 0;       // games in which the mover had a rating...
  uint64_t rating_sum = 0;  // ...and the sum of those ratings
  uint64_t games() const { return uint64_t(wins) + draws + losses + no_result; }
  // (wins + draws / 2) / (wins + draws + losses); 0 when no game has a result.
  double score() const;
  // The mean rating of the rated movers; 0 when none was rated.
  double mean_rating() const;
  void add(const ExplorerCounts& other);
  bool operator==(const ExplorerCounts&) const = default;
};

struct ExplorerMove {
  int move = 0;  // 0-based pit
  std::array<ExplorerCounts, kExplorerBuckets> by_bucket{};
  // The counts of the buckets in `selection`, added up.
  ExplorerCounts total(ExplorerBuckets selection = kAllExplorerBuckets) const;
  bool operator==(const ExplorerMove&) const = default;
};

struct ExplorerPosition {
  uint64_t key = 0;  // explorer_key(position)
  Position position;
  std::vector<ExplorerMove> moves;  // by pit, each played at least once
  // Games through this position (each game plays one move from it) in `selection`.
  uint64_t games(ExplorerBuckets selection = kAllExplorerBuckets) const;
  // The moves with games in `selection`, most played first (ties by pit).
  std::vector<const ExplorerMove*> moves_by_games(ExplorerBuckets selection) const;
  bool operator==(const ExplorerPosition&) const = default;
};

// The file's key of a position: mix64 of the FNV-1a 64 of its 26 state bytes as the file
// stores them (docs/openings.md), so that it never depends on Position::hash().
uint64_t explorer_key(const Position& pos);

inline constexpr uint32_t kExplorerVersion = 1;
inline constexpr char kExplorerMagic[8] = {'K', 'Z', 'O', 'P', 'E', 'N', 'S', '\0'};
inline constexpr uint32_t kExplorerHeaderBytes = 48;
inline constexpr uint32_t kExplorerPositionBytes = 36;
// The metadata is a short JSON object; more than this is taken for a damaged length.
inline constexpr uint32_t kExplorerMaxMetadataBytes = 1u << 20;

// A finished explorer: what a file holds. Positions are ordered by key (then by their
// bytes), so that a lookup is a binary search.
class OpeningExplorer {
 public:
  OpeningExplorer() = default;
  OpeningExplorer(GameSpec game, int min_games, int max_plies, std::string metadata_json,
                  std::vector<ExplorerPosition> positions);

  // The position's entry, or null when the explorer does not hold it.
  const ExplorerPosition* find(const Position& pos) const;

  const GameSpec& game() const { return game_; }
  int min_games() const { return min_games_; }
  int max_plies() const { return max_plies_; }
  // The JSON object naming the sources (files, game counts, date, threshold), as given.
  const std::string& metadata_json() const { return metadata_json_; }
  // A JSON object; encode() refuses one a reader would (no braces, over 1 MiB).
  void set_metadata_json(std::string json) { metadata_json_ = std::move(json); }
  const std::vector<ExplorerPosition>& positions() const { return positions_; }
  size_t move_count() const;

  // The file's bytes (docs/openings.md, "File format"). Throws std::invalid_argument for
  // metadata that a reader would refuse.
  std::string encode() const;
  // Writes the file atomically (core/atomic_file.h); throws std::runtime_error naming it.
  void write(const std::string& path) const;
  // Checks every length before allocating, the checksum, and every position and count;
  // throws std::runtime_error "NAME: what is wrong" for anything else.
  static OpeningExplorer decode(std::string_view bytes, const std::string& name);
  static OpeningExplorer read(const std::string& path);

  bool operator==(const OpeningExplorer&) const = default;

 private:
  GameSpec game_;
  int min_games_ = 1;
  int max_plies_ = 0;
  std::string metadata_json_ = "{}";
  std::vector<ExplorerPosition> positions_;
};

// Collects games and keeps, of the first `max_plies` plies of each, every position and
// the move played from it. finish() keeps the positions that `min_games` games or more
// went through (all sources together), with every move played from them.
class OpeningTreeBuilder {
 public:
  // `max_plies`: positions after this many plies are not collected (1..1000);
  // `min_games`: a position needs this many games to be kept (1..1000000).
  OpeningTreeBuilder(const GameSpec& game, int max_plies, int min_games);

  // One game's moves (0-based pits) from `start`, which must all be legal (a record that
  // replay_record accepted). `result`: the game's outcome, kOngoing when it has none;
  // `buckets[s]`, `ratings[s]`: the bucket of side s's moves and its rating (0 = none).
  void add_game(const Position& start, std::span<const int> moves, Outcome result,
                const std::array<ExplorerBucket, 2>& buckets, const std::array<int, 2>& ratings);

  // One move seen on its own (a self-play shard's row). Rows of one game share `game`
  // (any number unique per game); a game is counted once per position and move however
  // many of its rows repeat them. `ply`: plies before `pos` (rows at max_plies or beyond
  // are left out); `mover_result`: +1 won, 0 drawn, -1 lost for the mover, anything else
  // no result. Throws std::invalid_argument for a position of another game or an illegal
  // move.
  void add_move(uint64_t game, int ply, const Position& pos, int move, int mover_result,
                ExplorerBucket bucket, int rating);

  // Positions collected so far (before the threshold).
  size_t positions() const { return by_position_.size(); }

  OpeningExplorer finish(std::string metadata_json) const;

 private:
  struct PositionHash {
    size_t operator()(const Position& p) const { return size_t(explorer_key(p)); }
  };
  void count(const Position& pos, int move, int mover_result, ExplorerBucket bucket, int rating);

  GameSpec game_;
  int max_plies_;
  int min_games_;
  std::unordered_map<Position, std::array<std::array<ExplorerCounts, kExplorerBuckets>, kMaxPits>,
                     PositionHash>
      by_position_;
  // add_move's one-game memory: the game being read and the (position, move) pairs of
  // it already counted.
  uint64_t current_game_ = ~0ull;
  std::unordered_set<uint64_t> seen_in_game_;
};

// How the games of one record file count: by their rating tags (auto: rated sides by
// band, unrated ones apart, tournament records' players as titled), all as titled
// players, or as the engine's.
enum class ExplorerLabel { kAuto, kTitled, kEngine };
// "auto", "titled", "engine"; parse throws ParseError naming the accepted words.
const char* explorer_label_name(ExplorerLabel label);
ExplorerLabel parse_explorer_label(std::string_view text);

// What one input file gave.
struct ExplorerSourceReport {
  std::string file;  // the name as given
  ExplorerLabel label = ExplorerLabel::kAuto;
  int64_t games = 0;      // games read
  int64_t used = 0;       // games added
  int64_t no_result = 0;  // of those, games without a result
  // "FILE game N (White vs Black, line L): reason", one per game left out.
  std::vector<std::string> skipped;
};

// A record as an explorer counts it: its start (its FEN tag's position, or the game's
// start), its moves replayed under the rules and its result (kOngoing without one).
struct ExplorerGame {
  Position start;
  ReplayResult replay;
  Outcome result = Outcome::kOngoing;
};
// `record` replayed for an explorer; nullopt when it does not replay, its reason (naming
// the game, its line and ply) appended to `skipped`.
std::optional<ExplorerGame> replay_for_explorer(const GameRecord& record, const GameSpec& game,
                                                std::vector<std::string>& skipped);

// Adds every game of `records` (one file, read_pgn) that replays under the rules (from
// its FEN tag where it has one); a game that does not is left out and its reason kept
// in `report.skipped`, which names the file and the game's number.
void add_records(OpeningTreeBuilder& builder, const std::vector<GameRecord>& records,
                 const GameSpec& game, ExplorerLabel label, ExplorerSourceReport& report);

// The shipped explorer of a game: <dir>/openings/<stem>.kzo, dir $KZ_MODELS_DIR or
// "models", stem "togyz", "kalah" (Kalah 6,4) or the game's name with ':' and ',' as '-'
// (the stems of shipped_puzzle_path).
std::string shipped_explorer_path(const GameSpec& game);

}  // namespace kz
