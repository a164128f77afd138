#include "train/run_status.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <functional>
#include <set>
#include <vector>

#include "nn/model_header.h"
#include "nn/model_summary.h"
#include "train/elo.h"
#include "train/gate.h"
#include "train/metrics_log.h"
#include "train/shard.h"

namespace kz {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

// The files a run's writers leave, relative to the run folder (train/follow.h).
constexpr const char* kGatesDir = "gates";
constexpr const char* kDataDir = "data";
constexpr const char* kModelsDir = "models";
// The trainer's metrics, in the order they are looked for: continuous mode and
// tools/loop.sh write JSON Lines; a CSV is what `kumalak-train --metrics x.csv` makes.
constexpr const char* kMetricsFiles[] = {"logs/train.jsonl", "logs/train.csv"};

// A number for JSON: NaN and infinities (an interval without an end) become null.
ojson number_or_null(double v) {
  return std::isfinite(v) ? ojson(v) : ojson(nullptr);
}

// `text` with every mention of the run folder removed, so that messages name files by
// their path inside the run and the answer shows nothing of the server's disk.
std::string inside_run(std::string text, const std::string& run_dir) {
  const std::string prefix = run_dir + "/";
  if (prefix == "/") return text;
  for (size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
  return text;
}

int64_t mtime_unix_ms(const struct stat& st) {
  return int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// "2026-12-02" for a time in Unix milliseconds (UTC).
std::string utc_day(int64_t unix_ms) {
  const std::time_t t = std::time_t(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// The files of `dir` whose names end in `extension`, in name order (genNNNN sorts by
// generation); none when the folder is missing. Temporaries of writers in flight end in
// ".tmp-..." and are not listed.
std::vector<fs::path> files_in(const fs::path& dir, const std::string& extension, bool recursive) {
  std::vector<fs::path> files;
  std::error_code ec;
  auto take = [&](const fs::directory_entry& e) {
    std::error_code fec;
    if (e.path().extension() == extension && e.is_regular_file(fec)) files.push_back(e.path());
  };
  if (recursive) {
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec))
      take(*it);
  } else {
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::end(it); it.increment(ec))
      take(*it);
  }
  std::sort(files.begin(), files.end());
  return files;
}

using ProblemCallback = std::function<void(const std::string&)>;

// One gate record of `candidate` against `baseline` as the answer shows it; `file` is
// the record's file, whose time tells when the match ended.
ojson gate_json(const fs::path& file, const std::string& candidate, const std::string& baseline,
                const GateRecord& g) {
  struct stat st {};
  const bool dated = ::stat(file.c_str(), &st) == 0;
  return {{"file", std::string(kGatesDir) + "/" + file.filename().string()},
          {"candidate", candidate},
          {"generation", generation_from_name(candidate)},
          {"baseline", baseline},
          {"wins", g.wins},
          {"draws", g.draws},
          {"losses", g.losses},
          {"games", g.wins + g.draws + g.losses},
          {"score", number_or_null(g.score)},
          {"elo", number_or_null(g.elo)},
          {"elo_lo", number_or_null(g.elo_lo)},
          {"elo_hi", number_or_null(g.elo_hi)},
          {"los", number_or_null(g.los)},
          {"llr", number_or_null(g.llr)},
          {"sprt", g.sprt},
          {"pass", g.pass},
          {"seconds", number_or_null(g.seconds)},
          {"written_unix_ms", dated ? ojson(mtime_unix_ms(st)) : ojson(nullptr)}};
}

// The gate records of a run, in generation order: each candidate played the best
// before it, and became the best if it passed.
struct GateHistory {
  ojson gates = ojson::array();   // as the answer shows them
  std::vector<PairResult> pairs;  // the matches with games, for the ladder
  std::set<std::string> promoted;
  std::string best = "gen0000";
  int skipped = 0;  // records that cannot be read
};

GateHistory read_gates(const fs::path& run, const ProblemCallback& problem) {
  GateHistory h;
  for (const fs::path& file : files_in(run / kGatesDir, ".json", false)) {
    GateRecord g;
    try {
      g = read_gate_record(file.string());
    } catch (const std::exception& e) {
      ++h.skipped;
      problem(e.what());
      continue;
    }
    // The file name names the generation (as read_gate_history): runs move between folders.
    const std::string candidate = file.stem().string();
    h.gates.push_back(gate_json(file, candidate, h.best, g));
    if (g.wins + g.draws + g.losses > 0)
      h.pairs.push_back({candidate, h.best, g.wins, g.draws, g.losses});
    if (g.pass) {
      h.promoted.insert(candidate);
      h.best = candidate;
    }
  }
  return h;
}

// The ladder: one Elo per generation from the gate matches, gen0000 = 0; empty without
// matches, and a problem when the fit fails.
ojson ladder_json(const GateHistory& h, const ProblemCallback& problem) {
  ojson ladder = ojson::array();
  if (h.pairs.empty()) return ladder;
  try {
    LadderOptions lo;
    lo.anchor = "gen0000";
    const LadderFit fit = fit_ladder(h.pairs, lo);
    for (const LadderRating& r : fit.ratings)
      ladder.push_back({{"name", r.name},
                        {"generation", r.generation},
                        {"elo", number_or_null(r.elo)},
                        {"elo_lo", number_or_null(r.elo_lo)},
                        {"elo_hi", number_or_null(r.elo_hi)},
                        {"games", r.games},
                        {"score", number_or_null(r.score)},
                        {"promoted", h.promoted.count(r.name) > 0},
                        {"best", r.name == h.best}});
  } catch (const std::exception& e) {
    problem(std::string("the ladder cannot be fitted: ") + e.what());
  }
  return ladder;
}

// Every column of the metrics `t` but the step (column 0) and the time, as [step, value]
// points thinned to about `max_points`, the last row kept. Each column is thinned on its
// own rows: the trainer logs its losses and its validation losses on separate lines, so
// one stride over all lines would miss one kind or the other.
ojson thinned_series(const MetricsTable& t, int max_points) {
  const int time_col = t.column("time");
  const size_t n = t.rows.size();
  ojson series = ojson::object();
  for (size_t col = 1; col < t.columns.size(); ++col) {
    if (int(col) == time_col) continue;
    std::vector<size_t> rows;
    for (size_t i = 0; i < n; ++i)
      if (std::isfinite(t.rows[i][col]) && std::isfinite(t.rows[i][0])) rows.push_back(i);
    if (rows.empty()) continue;
    const size_t limit = size_t(std::max(2, max_points));
    const size_t stride = (rows.size() + limit - 1) / limit;
    ojson points = ojson::array();
    for (size_t k = 0; k < rows.size(); k += stride)
      points.push_back({t.rows[rows[k]][0], t.rows[rows[k]][col]});
    if ((rows.size() - 1) % stride != 0)
      points.push_back({t.rows[rows.back()][0], t.rows[rows.back()][col]});
    series[t.columns[col]] = std::move(points);
  }
  return series;
}

// The losses part of the answer for the metrics `t` of the file `name` (inside the run):
// its series, the newest step and its time.
ojson losses_json(const char* name, const MetricsTable& t, int max_points) {
  const int time_col = t.column("time");
  const size_t n = t.rows.size();
  ojson series = thinned_series(t, max_points);
  return {{"file", name},
          {"rows", n},
          {"last_step", n ? number_or_null(t.rows[n - 1][0]) : ojson(nullptr)},
          {"last_time_unix_ms",
           n && time_col >= 0 ? number_or_null(std::round(t.rows[n - 1][size_t(time_col)] * 1000))
                              : ojson(nullptr)},
          {"series", std::move(series)}};
}

// The models of a run to show besides the best: the one of the highest generation
// (models/genNNNN.pt); empty when there is none.
fs::path newest_model(const fs::path& run) {
  fs::path newest;
  int newest_generation = -1;
  for (const fs::path& file : files_in(run / kModelsDir, ".pt", false)) {
    const std::string stem = file.stem().string();
    const int g = generation_from_name(stem);
    if (stem.rfind("gen", 0) == 0 && g > newest_generation) {
      newest_generation = g;
      newest = file;
    }
  }
  return newest;
}

}  // namespace

RunStatusReader::FileStamp RunStatusReader::stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {int64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

struct RunStatusReader::SelfPlaySummary {
  ojson workers = ojson::array();
  ojson games_per_day = ojson::array();
  int64_t games = 0, rows = 0, shards = 0;
  int skipped = 0;  // shards that cannot be read
};

ojson RunStatusReader::read_losses(const std::string& run_dir, RunCache& cache,
                                   const ProblemSink& problem, int& skipped_lines) {
  const fs::path run(run_dir);
  for (const char* name : kMetricsFiles) {
    const std::string path = (run / name).string();
    const FileStamp stamp = stamp_of(path);
    if (stamp.size < 0) continue;
    CachedFile& c = cache.files[path];
    if (!(c.stamp == stamp)) {
      c = CachedFile{stamp, nullptr, 0, ""};
      try {
        const MetricsTable t = read_metrics(path);
        c.skipped = t.skipped_lines;
        c.value = losses_json(name, t, options_.max_loss_points);
      } catch (const std::exception& e) {
        c.problem = e.what();
      }
    }
    skipped_lines += c.skipped;
    if (!c.problem.empty()) problem(c.problem);
    return c.value;
  }
  return nullptr;
}

std::map<std::string, RunStatusReader::CachedShard> RunStatusReader::read_shards(
    const std::string& run_dir, RunCache& cache) {
  std::map<std::string, CachedShard> seen;
  for (const fs::path& file :
       files_in(fs::path(run_dir) / kDataDir, std::string(kShardExtension), true)) {
    const std::string path = file.string();
    auto it = cache.shards.find(path);
    CachedShard s;
    if (it != cache.shards.end() && (it->second.readable || stamp_of(path).size < 0)) {
      s = it->second;
    } else {
      try {
        const ShardInfo info = ShardReader::read_info(path);
        s.readable = true;
        s.writer = info.writer;
        s.created_unix_ms = info.created_unix_ms;
        s.rows = int64_t(info.row_count);
        s.games = int64_t(info.game_count);
        s.generation = info.generation;
      } catch (const std::exception& e) {
        s.problem = e.what();  // read again next time: it may be a copy still arriving
      }
    }
    seen[path] = s;
  }
  return seen;
}

RunStatusReader::SelfPlaySummary RunStatusReader::summarise_self_play(
    const std::map<std::string, CachedShard>& seen, int64_t now_unix_ms,
    const ProblemSink& problem) const {
  struct WorkerTotals {
    int64_t shards = 0, games = 0, rows = 0, recent_games = 0;
    int64_t first_ms = INT64_MAX, last_ms = INT64_MIN;
    int newest_generation = -1;
  };
  SelfPlaySummary out;
  std::map<std::string, WorkerTotals> workers;
  std::map<std::string, int64_t> per_day;
  const int64_t window_ms = int64_t(options_.rate_window_seconds * 1000);
  for (const auto& [path, s] : seen) {
    if (!s.readable) {
      ++out.skipped;
      problem(s.problem);
      continue;
    }
    WorkerTotals& w = workers[s.writer];
    ++w.shards;
    w.games += s.games;
    w.rows += s.rows;
    w.first_ms = std::min(w.first_ms, s.created_unix_ms);
    w.last_ms = std::max(w.last_ms, s.created_unix_ms);
    w.newest_generation = std::max(w.newest_generation, s.generation);
    if (s.created_unix_ms > now_unix_ms - window_ms) w.recent_games += s.games;
    per_day[utc_day(s.created_unix_ms)] += s.games;
    out.games += s.games;
    out.rows += s.rows;
    ++out.shards;
  }
  for (const auto& [id, w] : workers) {
    // Games over the worker's life: from its first shard to its last (the first shard's
    // games were played before it was written, so they are left out of the rate).
    ojson lifetime = nullptr;
    if (w.last_ms > w.first_ms && w.shards > 1) {
      int64_t after_first = 0;
      for (const auto& [path, s] : seen)
        if (s.readable && s.writer == id && s.created_unix_ms > w.first_ms) after_first += s.games;
      lifetime = double(after_first) * 3600000.0 / double(w.last_ms - w.first_ms);
    }
    // The recent window starts no earlier than the worker's first shard.
    const int64_t span = std::min(window_ms, now_unix_ms - w.first_ms);
    out.workers.push_back({{"worker", id},
                           {"shards", w.shards},
                           {"games", w.games},
                           {"rows", w.rows},
                           {"newest_generation", w.newest_generation},
                           {"first_unix_ms", w.first_ms},
                           {"last_unix_ms", w.last_ms},
                           {"games_per_hour", lifetime},
                           {"recent_games_per_hour",
                            span >= 1000 ? ojson(double(w.recent_games) * 3600000.0 / double(span))
                                         : ojson(nullptr)}});
  }
  for (const auto& [day, games] : per_day)
    out.games_per_day.push_back({{"day", day}, {"games", games}});
  return out;
}

ojson RunStatusReader::read_model_meta(const std::string& path, RunCache& cache,
                                       const ProblemSink& problem, int& skipped_models) {
  const FileStamp stamp = stamp_of(path);
  if (stamp.size < 0) return nullptr;
  CachedFile& c = cache.files[path];
  if (!(c.stamp == stamp)) {
    c = CachedFile{stamp, nullptr, 0, ""};
    try {
      std::string bytes;
      const CheckedModel m = read_checked_model(path, bytes);
      c.value = {{"file", std::string(kModelsDir) + "/" + fs::path(path).filename().string()}};
      c.value.update(model_summary_json(m.meta, m.weights_checksum));
      c.value["bytes"] = stamp.size;
      c.value["modified_unix_ms"] = stamp.mtime_ns / 1000000;
    } catch (const std::exception& e) {
      c.problem = e.what();
    }
  }
  if (!c.problem.empty()) {
    ++skipped_models;
    problem(c.problem);
  }
  return c.value;
}

ojson RunStatusReader::read(const std::string& run_dir_arg, int64_t now_unix_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string run_dir = run_dir_arg;
  while (run_dir.size() > 1 && run_dir.back() == '/') run_dir.pop_back();
  const fs::path run(run_dir);
  RunCache& cache = runs_[run_dir];
  // The problems, in the order of the parts of the answer: gates, ladder, losses,
  // shards, models.
  ojson problems = ojson::array();
  const ProblemSink problem = [&](const std::string& message) {
    if (int(problems.size()) < options_.max_problems)
      problems.push_back(inside_run(message, run_dir));
  };

  GateHistory history = read_gates(run, problem);
  ojson ladder = ladder_json(history, problem);

  // Training losses: every column but the time, thinned; the newest step and its time.
  int skipped_metrics_lines = 0;
  ojson losses = read_losses(run_dir, cache, problem, skipped_metrics_lines);

  // Self-play: every shard's header, by writer; a shard is read once.
  cache.shards = read_shards(run_dir, cache);
  SelfPlaySummary selfplay = summarise_self_play(cache.shards, now_unix_ms, problem);

  // The best model and the newest candidate: their headers, read when they change.
  const fs::path newest = newest_model(run);
  // Files of models no longer there are forgotten.
  for (auto it = cache.files.begin(); it != cache.files.end();)
    it = stamp_of(it->first).size < 0 ? cache.files.erase(it) : std::next(it);
  int skipped_models = 0;
  ojson best_model =
      read_model_meta((run / kModelsDir / "best.pt").string(), cache, problem, skipped_models);
  ojson newest_meta = newest.empty()
                          ? ojson(nullptr)
                          : read_model_meta(newest.string(), cache, problem, skipped_models);
  ojson models = {{"best", std::move(best_model)}, {"newest", std::move(newest_meta)}};

  return {{"name", run.filename().string()},
          {"now_unix_ms", now_unix_ms},
          {"best", history.best},
          {"ladder", std::move(ladder)},
          {"gates", std::move(history.gates)},
          {"losses", std::move(losses)},
          {"selfplay",
           {{"shards", selfplay.shards},
            {"games", selfplay.games},
            {"rows", selfplay.rows},
            {"rate_window_seconds", options_.rate_window_seconds},
            {"games_per_day", std::move(selfplay.games_per_day)}}},
          {"workers", std::move(selfplay.workers)},
          {"models", std::move(models)},
          {"skipped",
           {{"gate_records", history.skipped},
            {"metrics_lines", skipped_metrics_lines},
            {"shards", selfplay.skipped},
            {"models", skipped_models}}},
          {"problems", std::move(problems)}};
}

}  // namespace kz
