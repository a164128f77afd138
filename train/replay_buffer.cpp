#include "train/replay_buffer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <unordered_set>

#include "core/checksum.h"

namespace kz {

namespace fs = std::filesystem;

namespace {

bool has_shard_extension(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.size() > kShardExtension.size() &&
         name.compare(name.size() - kShardExtension.size(), kShardExtension.size(),
                      kShardExtension) == 0;
}

}  // namespace

ReplayBuffer::ReplayBuffer(ReplayConfig config) : config_(std::move(config)) {
  if (!(config_.validation_fraction >= 0.0 && config_.validation_fraction <= 1.0))
    throw std::invalid_argument("replay buffer: validation_fraction must be in [0, 1]");
  if (config_.window_generations < 0)
    throw std::invalid_argument("replay buffer: window_generations must be >= 0");
}

bool ReplayBuffer::is_validation_game(const std::string& shard_file_name, uint32_t game_id,
                                      double fraction, uint64_t seed) {
  if (fraction <= 0) return false;
  if (fraction >= 1) return true;
  // FNV-1a over the name, then mixed with id and seed by splitmix64 steps (the golden
  // gamma added before each mix: the split's formula since it was written, kept so that
  // a run's validation games stay the same).
  const uint64_t name_hash = fnv1a64(shard_file_name);
  const uint64_t h =
      mix64((name_hash ^ mix64(seed + kGoldenGamma) ^ (uint64_t(game_id) << 1)) + kGoldenGamma);
  const double u = double(h >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  return u < fraction;
}

std::vector<const ShardRow*> next_position_rows(const std::vector<ShardRow>& rows) {
  std::vector<const ShardRow*> next(rows.size(), nullptr);
  // Backwards, so that the copies of a row (same game, same ply) all take the next row
  // of the last copy: one pass, however many copies.
  for (size_t i = rows.size(); i-- > 1;) {
    const ShardRow& r = rows[i - 1];
    const ShardRow& after = rows[i];
    if (after.game_id != r.game_id) continue;
    if (after.ply == r.ply)
      next[i - 1] = next[i];
    else if (int(after.ply) == int(r.ply) + 1)
      next[i - 1] = &after;
  }
  return next;
}

std::vector<ShardRow> ReplayBuffer::validation_rows() const {
  std::vector<ShardRow> out;
  out.reserve(validation_.size());
  for (const ShardRow* r : validation_) out.push_back(*r);
  return out;
}

namespace {

// The shard files under `dir` (only those in `only` when it is given), in the order the
// scan meets them. Errors (a folder vanishing mid-scan, no permission) end the scan of
// that branch, never the process.
std::vector<std::string> scan_shard_paths(const std::string& dir,
                                          const std::vector<std::string>* only) {
  std::vector<std::string> paths;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    spdlog::warn("replay buffer: data folder '{}' is a file, not a folder; the window is empty",
                 dir);
  } else if (!fs::is_directory(dir, ec)) {
    spdlog::warn("replay buffer: data folder '{}' does not exist (yet); the window is empty", dir);
  } else {
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code fec;
      if (it->is_regular_file(fec) && has_shard_extension(it->path()))
        paths.push_back(it->path().string());
    }
    if (ec) spdlog::warn("replay buffer: scanning '{}' stopped early: {}", dir, ec.message());
  }
  if (only)
    std::erase_if(paths, [&](const std::string& p) {
      return std::find(only->begin(), only->end(), p) == only->end();
    });
  return paths;
}

}  // namespace

std::vector<ReplayBuffer::Candidate> ReplayBuffer::read_headers(
    const std::vector<std::string>& paths, std::map<std::string, CachedShard>& next_cache) {
  std::vector<Candidate> candidates;
  for (const std::string& path : paths) {
    std::error_code e1, e2;
    const uint64_t size = fs::file_size(path, e1);
    const auto mtime_raw = fs::last_write_time(path, e2);
    if (e1 || e2) continue;  // deleted between scan and stat
    const int64_t mtime = int64_t(mtime_raw.time_since_epoch().count());
    CachedShard entry;
    auto old = cache_.find(path);
    if (old != cache_.end() && old->second.size == size && old->second.mtime == mtime) {
      entry = std::move(old->second);
    } else {
      entry.size = size;
      entry.mtime = mtime;
      try {
        entry.info = ShardReader::read_info(path, config_.game);
      } catch (const std::exception& e) {
        entry.error = e.what();
      }
    }
    CachedShard& slot = next_cache[path] = std::move(entry);
    if (slot.error.empty() && slot.info)
      candidates.push_back({slot.info->generation, mtime, path, &slot});
  }
  return candidates;
}

void ReplayBuffer::keep_generation_window(std::vector<Candidate>& candidates) const {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.generation, a.mtime, a.path) > std::tie(b.generation, b.mtime, b.path);
  });
  if (config_.window_generations > 0 && !candidates.empty()) {
    const int64_t min_gen = int64_t(candidates.front().generation) - config_.window_generations + 1;
    std::erase_if(candidates, [&](const Candidate& c) { return c.generation < min_gen; });
  }
}

ReplayBuffer::RowWindow ReplayBuffer::fill_row_window(const std::vector<Candidate>& candidates,
                                                      ReplayLoadReport& report) const {
  RowWindow w;
  uint64_t taken = 0;
  for (const Candidate& c : candidates) {
    if (config_.window_rows > 0 && taken >= config_.window_rows) break;
    CachedShard& e = *c.entry;
    if (!e.rows) {
      try {
        e.rows = std::make_shared<const std::vector<ShardRow>>(
            ShardReader::read(c.path, nullptr, config_.game));
      } catch (const std::exception& ex) {
        e.error = ex.what();
        continue;
      }
    }
    const std::vector<ShardRow>& rows = *e.rows;
    if (rows.empty()) continue;
    size_t first = 0;
    if (config_.window_rows > 0 && rows.size() > config_.window_rows - taken)
      first = rows.size() - size_t(config_.window_rows - taken);
    const std::string name = fs::path(c.path).filename().string();
    // Over the whole shard: the window may start inside it, but a next row always comes
    // after its row, so it is in the window too.
    const std::vector<const ShardRow*> next = next_position_rows(rows);
    // Games are contiguous in a shard; decide each game once.
    uint32_t last_game = UINT32_MAX;
    bool last_is_val = false;
    for (size_t i = first; i < rows.size(); ++i) {
      const ShardRow& r = rows[i];
      if (r.game_id != last_game) {
        last_game = r.game_id;
        last_is_val = is_validation_game(name, r.game_id, config_.validation_fraction,
                                         config_.validation_seed);
      }
      (last_is_val ? w.validation : w.train).push_back(&r);
      (last_is_val ? w.validation_next : w.train_next).push_back(next[i]);
    }
    taken += rows.size() - first;
    w.held.push_back(e.rows);
    ++report.shards_used;
    if (report.newest_generation < 0) report.newest_generation = c.generation;
    report.oldest_generation = c.generation;
  }
  return w;
}

ReplayLoadReport ReplayBuffer::load(const std::string& dir, const std::vector<std::string>* only) {
  ReplayLoadReport report;

  // 1. Scan.
  const std::vector<std::string> paths = scan_shard_paths(dir, only);
  report.shards_found = paths.size();

  // 2. Headers (cached while the file is unchanged).
  std::map<std::string, CachedShard> next_cache;
  std::vector<Candidate> candidates = read_headers(paths, next_cache);

  // 3. Order newest first and apply the generation window.
  keep_generation_window(candidates);

  // 4. Fill the row window newest first, loading rows on demand. A shard whose body turns
  // out to be corrupt is skipped and the window continues with older shards.
  RowWindow window = fill_row_window(candidates, report);

  // 5. Report skipped shards (log each once), drop rows of shards that left the window.
  for (auto& [path, e] : next_cache) {
    if (!e.error.empty()) {
      report.skipped.push_back(e.error);
      if (!e.warned) spdlog::warn("replay buffer: skipping shard: {}", e.error);
      e.warned = true;
      e.rows.reset();
    }
  }
  std::unordered_set<const void*> in_window;
  for (const auto& h : window.held) in_window.insert(h.get());
  for (auto& [path, e] : next_cache)
    if (!in_window.count(e.rows.get())) e.rows.reset();
  cache_ = std::move(next_cache);
  held_ = std::move(window.held);
  train_ = std::move(window.train);
  validation_ = std::move(window.validation);
  train_next_ = std::move(window.train_next);
  validation_next_ = std::move(window.validation_next);
  report.rows_train = train_.size();
  report.rows_validation = validation_.size();
  spdlog::info(
      "replay buffer: {} shards found, {} used (generations {}..{}), {} training + {} validation "
      "rows, {} skipped",
      report.shards_found, report.shards_used, report.oldest_generation, report.newest_generation,
      report.rows_train, report.rows_validation, report.skipped.size());
  return report;
}

}  // namespace kz
