// The training window: the most recent self-play rows, loaded from every shard under a
// data folder, sampled uniformly for training, with a held-out validation slice.
//
// Why a window rather than all data: early generations' games are played by much weaker
// nets, and their value targets describe positions the current net no longer reaches.
// Why hold out validation by game (not by row): positions of one game are strongly
// correlated, so a row-level split would let training see near-copies of validation rows.
//
// No augmentation hook: neither Togyz Kumalak nor Kalah has a board symmetry (sowing runs
// one way round and the two rows are not interchangeable), so every row is used as is.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "train/shard.h"

namespace kz {

struct ReplayConfig {
  GameSpec game{};  // shards of any other game are skipped and reported
  // Keep the most recent `window_rows` rows (0 = no limit). Whole shards are taken newest
  // first; the oldest shard taken contributes only its last rows so the total is exact.
  uint64_t window_rows = 0;
  // Keep only shards whose generation is within the newest `window_generations`
  // generations found (0 = no limit). Applied before window_rows.
  int window_generations = 0;
  // Share of games held out for validation, decided per (shard file name, game id) by a
  // hash, so a game is wholly in one side and the split is the same on every load.
  double validation_fraction = 0.0;
  uint64_t validation_seed = 0;  // salt of that hash; another seed draws another split
};

// What a load() found and used.
struct ReplayLoadReport {
  size_t shards_found = 0;  // files named *.kzshard under the folder
  size_t shards_used = 0;   // shards contributing rows to the window
  uint64_t rows_train = 0;
  uint64_t rows_validation = 0;
  int32_t newest_generation = -1;  // among shards used (-1: none)
  int32_t oldest_generation = -1;
  std::vector<std::string> skipped;  // "path: reason" for each unreadable or wrong-game shard
};

// Not thread-safe across load(): call load() and sampling from one thread, or guard them.
// Sampling alone is const and may run from several threads, each with its own RNG.
class ReplayBuffer {
 public:
  explicit ReplayBuffer(ReplayConfig config);

  // Scans `dir` recursively for *.kzshard (any number of worker subfolders; temporary
  // files of writers in progress are ignored), orders shards by (generation, modification
  // time, path), fills the window newest first and splits it. Shards that fail to read
  // are skipped, logged once (spdlog warning) and listed in the report; a missing folder
  // gives an empty buffer. Calling load() again rescans; shards already loaded and
  // unchanged (same size and mtime) are not read again. `only` (when given) limits the
  // window to those shard paths as the scan spells them: ranks of one job load the
  // shards their leader listed, not shards that arrived after its scan.
  ReplayLoadReport load(const std::string& dir, const std::vector<std::string>* only = nullptr);

  size_t size() const { return train_.size(); }  // training rows
  size_t validation_size() const { return validation_.size(); }
  const ShardRow& row(size_t i) const { return *train_.at(i); }
  const ShardRow& validation_row(size_t i) const { return *validation_.at(i); }
  // The row of the position that follows row(i)'s move in the same game (the
  // opponent's reply is played from it), or nullptr: at the end of a game, or when that
  // position has no row (surprise weighting writes a full-search row zero times, or
  // once or more: copies of one row have the same ply and are skipped). Found once per
  // load, so that sampling pays nothing for it.
  const ShardRow* next_row(size_t i) const { return train_next_.at(i); }
  const ShardRow* validation_next_row(size_t i) const { return validation_next_.at(i); }
  const ReplayConfig& config() const { return config_; }

  // `batch` training rows drawn uniformly with replacement. Throws std::runtime_error when
  // the buffer is empty.
  template <class Rng>
  std::vector<ShardRow> sample(size_t batch, Rng& rng) const {
    std::vector<ShardRow> out;
    out.reserve(batch);
    for (size_t i : sample_indices(batch, rng)) out.push_back(*train_[i]);
    return out;
  }

  // The same draws as sample(), as indices for row(): the trainer draws a step's whole
  // batch and each rank reads only its slice of it (train/trainer.h).
  template <class Rng>
  std::vector<size_t> sample_indices(size_t batch, Rng& rng) const {
    if (train_.empty()) throw std::runtime_error("replay buffer: no training rows to sample");
    std::uniform_int_distribution<size_t> pick(0, train_.size() - 1);
    std::vector<size_t> out(batch);
    for (size_t i = 0; i < batch; ++i) out[i] = pick(rng);
    return out;
  }

  // All validation rows (copies), in window order.
  std::vector<ShardRow> validation_rows() const;

  // Whether game `game_id` of the shard named `shard_file_name` (file name only, no
  // folder, so moving data folders keeps the split) is held out.
  static bool is_validation_game(const std::string& shard_file_name, uint32_t game_id,
                                 double fraction, uint64_t seed);

 private:
  // What is known about one file, kept between loads and reused while size and mtime
  // stay the same.
  struct CachedShard {
    uint64_t size = 0;
    int64_t mtime = 0;
    std::optional<ShardInfo> info;                      // header, when it read cleanly
    std::shared_ptr<const std::vector<ShardRow>> rows;  // loaded while in the window
    std::string error;                                  // why the shard is unusable
    bool warned = false;                                // error already logged
  };
  // A shard whose header read cleanly: a candidate for the window.
  struct Candidate {
    int32_t generation;
    int64_t mtime;
    std::string path;
    CachedShard* entry;  // in the cache being built
  };
  // The rows one load() chose, with the shards that hold them.
  struct RowWindow {
    std::vector<std::shared_ptr<const std::vector<ShardRow>>> held;
    std::vector<const ShardRow*> train, validation, train_next, validation_next;
  };

  // The steps of load(), in the order it takes them.
  // The shard headers of `paths` (cache_'s while a file's size and time stay the same,
  // moved from it) into `next_cache`, by path; returns the shards that read cleanly.
  std::vector<Candidate> read_headers(const std::vector<std::string>& paths,
                                      std::map<std::string, CachedShard>& next_cache);
  // Sorts `candidates` newest first and drops those below the generation window.
  void keep_generation_window(std::vector<Candidate>& candidates) const;
  // The row window filled from `candidates`, newest first, loading rows on demand; a
  // shard whose body turns out to be corrupt gets its error and is passed over. Counts
  // the shards used and their generations in `report`.
  RowWindow fill_row_window(const std::vector<Candidate>& candidates,
                            ReplayLoadReport& report) const;

  ReplayConfig config_;
  std::map<std::string, CachedShard> cache_;
  std::vector<std::shared_ptr<const std::vector<ShardRow>>> held_;  // keeps rows alive
  std::vector<const ShardRow*> train_;
  std::vector<const ShardRow*> validation_;
  std::vector<const ShardRow*> train_next_;  // by index: next_row()
  std::vector<const ShardRow*> validation_next_;
};

// For each row of a shard (rows of a game contiguous and in ply order, as written), the
// row of the next ply of the same game, or nullptr (ReplayBuffer::next_row).
std::vector<const ShardRow*> next_position_rows(const std::vector<ShardRow>& rows);

}  // namespace kz
