// A progress line for long jobs (self-play, training epochs, gating matches, conversions):
// done/total, rate, ETA and key=value fields.
//
// On a terminal it redraws one bar in place; when stderr is a file or pipe (batch jobs,
// `tee`, cluster logs) it prints a plain line every N seconds instead, since carriage
// returns turn log files into one enormous unreadable line.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace kz {

// "45s", "4m05s", "1h02m03s", "3d04h"; "?" for negative or non-finite input.
std::string format_duration(double seconds);
// "950", "12.3k", "4.56M": rates and counts in a few characters.
std::string format_count(double value);

class Progress {
 public:
  enum class Mode {
    kAuto,   // kBar when writing to std::cerr and stderr is a terminal, else kLines
    kBar,    // one line redrawn with '\r'
    kLines,  // a full line every line_interval_s
  };
  struct Options {
    Mode mode = Mode::kAuto;
    double line_interval_s = 30;   // kLines: at most one line per interval
    double bar_interval_s = 0.25;  // kBar: redraws at most this often (drawing costs syscalls)
    int bar_width = 30;            // characters between the brackets
    std::string unit{};            // shown with the rate, e.g. "games" -> "12.3 games/s"
    std::ostream* out = nullptr;   // nullptr = std::cerr
    // Seconds on a monotonic clock; default std::chrono::steady_clock. Tests inject one.
    std::function<double()> clock{};
  };

  // `total` <= 0 means unknown: no percentage, bar or ETA, just count and rate.
  Progress(std::string label, int64_t total) : Progress(std::move(label), total, Options{}) {}
  Progress(std::string label, int64_t total, Options options);
  ~Progress();  // calls finish() unless already finished
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // All updates are thread-safe (workers may report directly) and print only when the
  // interval has passed, so calling them per item is cheap.
  void add(int64_t n = 1);
  void set_done(int64_t done);
  void set_total(int64_t total);
  // A field shown after the rate, kept until changed; fields appear in order of first set.
  void set_field(const std::string& key, const std::string& value);
  void set_field(const std::string& key, double value, int precision = 3);

  // Prints the final line (always) with elapsed time and average rate; later updates are
  // ignored.
  void finish();

  int64_t done() const;
  double rate() const;         // items per second since the start (0 before any time passes)
  double eta_seconds() const;  // -1 when unknown (no total or no rate yet)
  std::string text() const;    // the current status text, without bar or line break

 private:
  double now() const;
  void maybe_print_locked(bool force);
  std::string text_locked(double t) const;

  std::string label_;
  Options options_;
  bool bar_ = false;
  std::ostream* out_;
  int64_t total_ = 0;
  int64_t done_ = 0;
  double start_ = 0;
  double last_print_ = 0;
  bool finished_ = false;
  size_t last_bar_chars_ = 0;
  std::vector<std::pair<std::string, std::string>> fields_;
  mutable std::mutex mutex_;
};

}  // namespace kz
