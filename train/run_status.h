// What a training run folder says about its run, as one JSON object for a person watching
// it (`kumalak serve --run`, docs/serve.md): the Elo ladder of its generations, its gate
// matches, the training losses, each self-play worker's output and the newest models'
// metadata. It reads the files the writers of the run folder leave (train/follow.h lists
// the layout: gates/genNNNN.json, logs/train.jsonl, data/genNNNN/*.kzshard, models/*.pt)
// and never writes. A run goes on while it is read, and files can be damaged, so a file
// that cannot be read is skipped and counted ("skipped"), with a message naming it by
// its path inside the run ("problems"); reading never fails because of what a run folder
// holds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace kz {

struct RunStatusOptions {
  // Loss series are thinned to at most this many points (every k-th row and the last).
  int max_loss_points = 800;
  // A worker's recent rate counts the games of its shards written in this last stretch.
  double rate_window_seconds = 3600;
  // At most this many messages in "problems" (the counts in "skipped" are complete).
  int max_problems = 20;
};

// Reads run folders, keeping what cannot change between two reads (a shard is written
// once; a model or metrics file is read again only when its size or time changed), so
// polling a long run every few seconds costs one directory listing and the new files.
// Thread-safe: one reader may serve several runs and requests.
class RunStatusReader {
 public:
  explicit RunStatusReader(RunStatusOptions options = {}) : options_(options) {}

  // The run folder `run_dir` now, as the object docs/serve.md describes ("ladder",
  // "gates", "losses", "workers", "models", "skipped", "problems"). `now_unix_ms` is
  // the time recent rates and ages are measured from. Paths in the answer are relative
  // to the run folder.
  nlohmann::ordered_json read(const std::string& run_dir, int64_t now_unix_ms);

 private:
  struct FileStamp {
    int64_t size = -1, mtime_ns = -1;
    bool operator==(const FileStamp&) const = default;
  };
  struct CachedShard {
    bool readable = false;
    std::string writer, problem;
    int64_t created_unix_ms = 0, rows = 0, games = 0;
    int generation = -1;
  };
  struct CachedFile {  // a model's metadata or a metrics file's thinned series
    FileStamp stamp;
    nlohmann::ordered_json value;
    int skipped = 0;
    std::string problem;
  };
  struct RunCache {
    std::map<std::string, CachedShard> shards;  // by path; a shard never changes
    std::map<std::string, CachedFile> files;    // models and metrics, by path
  };
  static FileStamp stamp_of(const std::string& path);

  // The steps of read(). `problem` is called with the message of each file that
  // cannot be read, in the order of the answer.
  using ProblemSink = std::function<void(const std::string&)>;
  // The trainer's metrics of `run_dir`: the first metrics file there, thinned, read
  // again only when it changed (cached in `cache`); null when there is none. Adds the
  // lines it skipped to `skipped_lines`.
  nlohmann::ordered_json read_losses(const std::string& run_dir, RunCache& cache,
                                     const ProblemSink& problem, int& skipped_lines);
  // The shards of `run_dir` now, by path: their headers, each read once (cache.shards);
  // a shard that cannot be read is read again next time.
  static std::map<std::string, CachedShard> read_shards(const std::string& run_dir,
                                                        RunCache& cache);
  // What the shards `seen` (by path) say of the self-play workers at `now_unix_ms`;
  // an unreadable shard is a problem and is counted (run_status.cpp).
  struct SelfPlaySummary;
  SelfPlaySummary summarise_self_play(const std::map<std::string, CachedShard>& seen,
                                      int64_t now_unix_ms, const ProblemSink& problem) const;
  // The header of the model file `path` as JSON, read again only when it changed
  // (cache.files); null when there is no such file. A model that cannot be read is a
  // problem and counts in `skipped_models`.
  static nlohmann::ordered_json read_model_meta(const std::string& path, RunCache& cache,
                                                const ProblemSink& problem, int& skipped_models);

  RunStatusOptions options_;
  std::mutex mutex_;
  std::map<std::string, RunCache> runs_;  // by run folder
};

}  // namespace kz
