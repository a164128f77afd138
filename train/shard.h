// Training-data shards: the files self-play writes and training reads. The byte layout is
// specified in docs/data-format.md; this header is the one implementation of it.
//
// Why rows hold the raw 26-byte Position rather than network input planes: the features
// can change (new planes, other normalisation) without regenerating any data, and a row
// stays small (96 bytes). Why one file per batch of games, written whole: a shard either
// exists complete (with a checksum) or not at all, so readers never see half a file and
// writers on many machines never coordinate beyond unique names.
//
// Nothing here needs torch; the training loop turns ShardRows into tensors itself.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/checksum.h"  // crc32
#include "core/position.h"

namespace kz {

inline constexpr uint32_t kShardVersion = 1;    // bumped on any layout change
inline constexpr uint32_t kShardRowBytes = 96;  // bytes of one encoded row (version 1)
inline constexpr std::string_view kShardExtension = ".kzshard";
inline constexpr char kShardMagic[8] = {'K', 'Z', 'S', 'H', 'A', 'R', 'D', '\0'};

// One recorded position with its training targets. Every "mover" value is from the point
// of view of pos.to_move, so targets never need flipping by the reader.
struct ShardRow {
  Position pos;  // the position as searched, before the move was played

  // Search policy target: the share of root visits per pit (pit i = index i, 0-based), in
  // [0, 1], summing to 1 over legal moves for full-search rows. Stored as float32 rather
  // than visit counts so that a writer may prune or temper the target (e.g. KataGo's
  // forced-playout pruning) and so that searches over 65535 visits fit.
  std::array<float, kMaxMoves> policy{};
  uint32_t visits = 0;  // root visits of the search that produced the row

  // Root value estimate for the mover (probabilities) and expected final margin in stones
  // (mover's store minus opponent's). Lets training mix in search values as targets.
  float root_win = 0, root_draw = 0, root_loss = 0;
  float root_margin = 0;

  int8_t result = 0;         // final game result for the mover: +1 win, 0 draw, -1 loss
  int16_t final_margin = 0;  // final mover's store minus opponent's store, in stones
  uint16_t ply = 0;          // plies played before pos (0 = start position)
  // Plies in the whole game; game_length - ply is the "moves left" target. 0 = unknown.
  uint16_t game_length = 0;
  int8_t played_move = -1;  // the pit actually played from pos (-1: none recorded)

  // Row flag bits (kRow*). The full-search bit marks rows whose policy is a valid policy
  // target; fast-search rows (playout cap randomisation) train only the value heads.
  uint8_t flags = 0;
  uint32_t game_id = 0;  // 0-based game number within its shard; rows of a game share it

  bool full_search() const { return flags & kRowFullSearch; }

  static constexpr uint8_t kRowFullSearch = 1;  // policy is a search target
  static constexpr uint8_t kRowProven = 2;      // root value was proven (exact), not estimated
  static constexpr uint8_t kRowKnownFlags = kRowFullSearch | kRowProven;

  bool operator==(const ShardRow&) const = default;

  // Sets policy to counts normalised to sum 1 (all zero when the counts are) and visits to
  // their sum. Counts are per pit, index = 0-based pit.
  void set_policy_from_visits(const std::array<uint32_t, kMaxMoves>& counts);
};

// Encodes/decodes one row into exactly kShardRowBytes little-endian bytes. decode checks
// the row's own consistency (see docs/data-format.md, "Row checks") against `game` and
// returns an explanation instead of a row when it fails.
void encode_shard_row(const ShardRow& row, uint8_t* out);
std::optional<ShardRow> decode_shard_row(const uint8_t* in, const GameSpec& game, std::string* why);

// Everything in a shard's header.
struct ShardInfo {
  uint32_t version = kShardVersion;
  GameSpec game;
  // Generation of the model that played the games (0 = the random/initial net); drives the
  // training window's ordering. -1 when not produced by a numbered model (e.g. imported).
  int32_t generation = 0;
  uint64_t row_count = 0;
  uint32_t game_count = 0;      // games recorded (game ids are 0..game_count-1)
  int64_t created_unix_ms = 0;  // wall-clock time the shard was written
  uint32_t header_flags = 0;    // reserved for compression etc.; must be 0 in version 1
  std::string writer;           // who wrote it: "<host>-<pid>" unless set; for debugging
  std::string model;            // the model file or name that played (free text)
  uint64_t file_bytes = 0;      // total file size (filled in by readers)
};

// Accumulates the rows of whole games and writes them as one shard, atomically.
//
// Typical self-play use: per game, collect rows with result/final_margin unset, then
// add_game() fills the outcome-dependent targets; every N games, write_to_dir().
class ShardWriter {
 public:
  // `writer` identifies the producer in the header; empty = "<host>-<pid>".
  ShardWriter(const GameSpec& game, int32_t generation, std::string model = "",
              std::string writer = "");

  // Appends one finished game. Sets each row's game_id (the next game number), result and
  // final_margin from its mover's point of view, and game_length (when game_length > 0).
  // `white_margin` is the final store[0] - store[1]; `outcome` must not be kOngoing.
  // Every row gets the reader's checks (docs/data-format.md, "Row checks"); throws
  // std::invalid_argument with the reason, keeping none of the game's rows, for a row that
  // fails them (e.g. a position of another game, a NaN value) or an ongoing outcome.
  void add_game(std::vector<ShardRow> rows, Outcome outcome, int white_margin, int game_length = 0);

  // Appends a row as it is (game_id, result etc. already set by the caller); the game
  // count becomes at least game_id + 1. Same checks and exceptions as add_game.
  void add_row(const ShardRow& row);

  size_t rows() const { return rows_.size(); }
  uint32_t games() const { return games_; }
  const GameSpec& game() const { return info_.game; }

  // Writes all rows to `path` atomically (temporary file + fsync + rename); the rows are
  // kept, so a failed write can be retried. Throws std::runtime_error naming the file.
  void write(const std::string& path) const;

  // Writes to a new unique file in `dir` (created if missing), named by shard_file_name,
  // then clears the rows. Returns the path written.
  std::string write_to_dir(const std::string& dir, const std::string& prefix = "selfplay");

  void clear();

  // Sets the creation time recorded in the header (default: the time of writing). For
  // reproducible files in tests and tools.
  void set_created_unix_ms(int64_t ms) { fixed_time_ms_ = ms; }

 private:
  ShardInfo info_;
  std::vector<ShardRow> rows_;
  uint32_t games_ = 0;
  int64_t fixed_time_ms_ = -1;
};

// "<prefix>-gen<G, 6 digits>-<host>-<pid>-<random 8 hex>-<seq, 6 digits>.kzshard". The
// random part is drawn once per process, so a restarted process that reuses a pid on the
// same host still cannot produce a name that exists; seq counts up within the process.
// Host characters other than [A-Za-z0-9._] become '_'.
std::string shard_file_name(const std::string& prefix, int32_t generation);

// Reads and validates shards. Every failure throws std::runtime_error whose message starts
// with the file's path and says what is wrong (bad magic, bad version, truncated, row count
// mismatch, checksum mismatch, wrong game, bad row k).
class ShardReader {
 public:
  // Header only (reads a few hundred bytes): cheap enough to scan thousands of shards.
  // Checks magic, version, header fields and that the file size matches the row count;
  // when `expected_game` is given, also that the shard is for that game.
  static ShardInfo read_info(const std::string& path,
                             const std::optional<GameSpec>& expected_game = std::nullopt);

  // Whole file: everything read_info checks, plus the checksum and every row.
  static std::vector<ShardRow> read(const std::string& path, ShardInfo* info = nullptr,
                                    const std::optional<GameSpec>& expected_game = std::nullopt);
};


}  // namespace kz
