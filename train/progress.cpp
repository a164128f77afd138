#include "train/progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace kz {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds > 1e9) return ">30y";
  const int64_t s = int64_t(seconds + 0.5);
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else if (s < 86400)
    std::snprintf(buf, sizeof buf, "%lldh%02lldm%02llds", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lldd%02lldh", static_cast<long long>(s / 86400),
                  static_cast<long long>(s / 3600 % 24));
  return buf;
}

std::string format_count(double v) {
  if (!std::isfinite(v)) return "?";
  char buf[32];
  const double a = std::abs(v);
  if (a < 1000)
    std::snprintf(buf, sizeof buf, a < 10 && v != std::floor(v) ? "%.2f" : "%.4g", v);
  else if (a < 1e6)
    std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  else if (a < 1e9)
    std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
  return buf;
}

Progress::Progress(std::string label, int64_t total, Options options)
    : label_(std::move(label)),
      options_(std::move(options)),
      out_(options_.out ? options_.out : &std::cerr),
      total_(total) {
  switch (options_.mode) {
    case Mode::kBar:
      bar_ = true;
      break;
    case Mode::kLines:
      bar_ = false;
      break;
    case Mode::kAuto:
      bar_ = out_ == &std::cerr && ::isatty(STDERR_FILENO);
      break;
  }
  start_ = now();
  last_print_ = start_;
}

Progress::~Progress() {
  finish();
}

double Progress::now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Progress::add(int64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  done_ += n;
  maybe_print_locked(false);
}

void Progress::set_done(int64_t done) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  done_ = done;
  maybe_print_locked(false);
}

void Progress::set_total(int64_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ = total;
}

void Progress::set_field(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [k, v] : fields_)
    if (k == key) {
      v = value;
      return;
    }
  fields_.emplace_back(key, value);
}

void Progress::set_field(const std::string& key, double value, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", std::clamp(precision, 1, 17), value);
  set_field(key, std::string(buf));
}

int64_t Progress::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

double Progress::rate() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const double dt = now() - start_;
  return dt > 0 ? double(done_) / dt : 0.0;
}

double Progress::eta_seconds() const {
  const double r = rate();
  std::lock_guard<std::mutex> lock(mutex_);
  if (total_ <= 0 || r <= 0) return -1;
  return double(std::max<int64_t>(0, total_ - done_)) / r;
}

std::string Progress::text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return text_locked(now());
}

std::string Progress::text_locked(double t) const {
  const double elapsed = t - start_;
  const double rate = elapsed > 0 ? double(done_) / elapsed : 0.0;
  std::string s = label_ + ": " + std::to_string(done_);
  if (total_ > 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, " (%.1f%%)", 100.0 * double(done_) / double(total_));
    s += '/';
    s += std::to_string(total_);
    s += pct;
  }
  s += ' ';
  s += format_count(rate);
  if (!options_.unit.empty()) {
    s += ' ';
    s += options_.unit;
  }
  s += "/s";
  if (finished_) {
    s += " in " + format_duration(elapsed);
  } else {
    s += " elapsed " + format_duration(elapsed);
    if (total_ > 0 && rate > 0)
      s += " ETA " + format_duration(double(std::max<int64_t>(0, total_ - done_)) / rate);
  }
  for (const auto& [k, v] : fields_) s += " " + k + "=" + v;
  return s;
}

void Progress::maybe_print_locked(bool force) {
  const double t = now();
  const double interval = bar_ ? options_.bar_interval_s : options_.line_interval_s;
  if (!force && t - last_print_ < interval) return;
  last_print_ = t;
  std::string text = text_locked(t);
  if (bar_) {
    if (total_ > 0) {
      const int w = std::max(1, options_.bar_width);
      const double frac = std::clamp(double(done_) / double(total_), 0.0, 1.0);
      const int filled = int(frac * w);
      std::string bar = "[";
      bar.append(size_t(filled), '=');
      if (filled < w) {
        bar += '>';
        bar.append(size_t(w - filled - 1), ' ');
      }
      bar += "] ";
      const size_t colon = text.find(": ");
      text.insert(colon == std::string::npos ? 0 : colon + 2, bar);
    }
    // Pad over the previous, possibly longer, text instead of relying on an escape code.
    const size_t chars = text.size();
    if (chars < last_bar_chars_) text += std::string(last_bar_chars_ - chars, ' ');
    last_bar_chars_ = chars;
    *out_ << '\r' << text << (finished_ ? "\n" : "") << std::flush;
  } else {
    *out_ << text << '\n' << std::flush;
  }
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  maybe_print_locked(true);
}

}  // namespace kz
