// Training metrics as one line per step, appended and flushed as they come, so a crash
// loses at most the line being written and `tail -f` / plots see progress live.
//
// Two formats, chosen by the file name: "*.csv" (fixed columns, opens in anything) and
// anything else as JSON Lines ("*.jsonl": one object per line, columns may come and go).
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kz {

class MetricsLog {
 public:
  struct Options {
    // CSV: the columns after "step" (and "time"). Empty = the keys of the first log() call.
    // When the file already exists its header decides the columns; naming a column the
    // header lacks is an error, since CSV rows cannot grow columns afterwards.
    std::vector<std::string> columns{};
    // Resuming from a checkpoint taken at this step: lines with a larger step were logged
    // after the checkpoint and will be logged again, so they are removed (-1 = keep all).
    int64_t truncate_after_step = -1;
    // Adds "time" (Unix seconds, millisecond resolution) to every line, for rate plots.
    bool add_time = true;
  };

  // Opens `path`, creating it (and its folder) or continuing it. A torn last line (no line
  // break: the writer was killed mid-line) is dropped. Throws std::runtime_error naming the
  // file when it cannot be opened or its CSV header is unusable.
  explicit MetricsLog(const std::string& path) : MetricsLog(path, Options{}) {}
  MetricsLog(const std::string& path, Options options);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  // Appends one line and flushes it. Thread-safe. CSV: keys not among the columns are
  // dropped with a warning (once per key); missing ones are left empty. Non-finite values
  // are written as empty (CSV) or null (JSON) and read back as NaN. Throws
  // std::runtime_error if the write fails (disk full).
  void log(int64_t step, const std::vector<std::pair<std::string, double>>& values);

  // The largest step in the file when it was opened (after truncation); -1 when none.
  int64_t last_step() const { return last_step_; }
  const std::string& path() const { return path_; }
  // CSV columns including "step" (and "time"); empty until known.
  const std::vector<std::string>& columns() const { return columns_; }

 private:
  void write_line(const std::string& line);

  std::string path_;
  Options options_;
  bool csv_ = false;
  std::FILE* file_ = nullptr;
  std::vector<std::string> columns_;
  std::set<std::string> warned_keys_;
  int64_t last_step_ = -1;
  std::mutex mutex_;
};

// A metrics file read back as numbers: columns[0] is "step"; rows[i][j] is column j of
// line i, NaN where missing. JSONL columns are the union of keys, in order of first use;
// non-numeric values are NaN. Malformed lines are skipped. Throws std::runtime_error
// naming the file when it cannot be read or a CSV lacks a "step" column.
struct MetricsTable {
  std::vector<std::string> columns{};
  std::vector<std::vector<double>> rows;
  // Lines not in `rows`: malformed ones and a torn last line (a writer mid-line); blank
  // lines are not counted. A watcher shows it, so a damaged file does not pass unseen.
  int skipped_lines = 0;
  int column(const std::string& name) const;  // index, or -1
};
MetricsTable read_metrics(const std::string& path);

}  // namespace kz
