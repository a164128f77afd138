#include "train/metrics_log.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/numbers.h"
#include "train/csv.h"

namespace kz {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Shortest text that reads back as the same double.
std::string format_number(double v) {
  if (!std::isfinite(v)) return "";
  return shortest_number_text(v);
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  while (b < e && *b == ' ') ++b;
  auto res = double_from_chars(b, e, out);
  return res.ec == std::errc() && res.ptr == e;
}

bool parse_step(const std::string& s, int64_t& out) {
  double d;
  if (!parse_double(s, d) || !std::isfinite(d) || std::abs(d) > 9e18) return false;
  out = int64_t(d);
  return true;
}

// Complete lines of a file; `torn` is set when the last line had no line break.
std::vector<std::string> read_lines(const std::string& path, bool& torn, bool& exists) {
  std::vector<std::string> lines;
  torn = false;
  std::ifstream in(path, std::ios::binary);
  exists = bool(in);
  if (!in) return lines;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      torn = true;
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string csv_header(const std::vector<std::string>& columns) {
  std::string header;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) header += ',';
    header += csv_escape(columns[i]);
  }
  return header;
}

double now_seconds() {
  return double(std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count()) /
         1000.0;
}

}  // namespace

MetricsLog::MetricsLog(const std::string& path, Options options)
    : path_(path), options_(std::move(options)), csv_(ends_with(path, ".csv")) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
  }
  bool torn = false, exists = false;
  std::vector<std::string> lines = read_lines(path, torn, exists);
  bool rewrite = torn;
  std::vector<std::string> kept;
  std::vector<std::string> fields;

  auto keep_data_line = [&](const std::string& line, bool has_step, int64_t step) {
    if (has_step && options_.truncate_after_step >= 0 && step > options_.truncate_after_step) {
      rewrite = true;
      return;
    }
    if (has_step) last_step_ = std::max(last_step_, step);
    kept.push_back(line);
  };

  if (csv_) {
    if (!lines.empty() && !lines[0].empty()) {
      if (!csv_split(lines[0], columns_) || columns_.empty() || columns_[0] != "step")
        throw std::runtime_error(path +
                                 ": existing CSV metrics file does not start with a "
                                 "'step' column header");
      for (const std::string& c : options_.columns)
        if (std::find(columns_.begin(), columns_.end(), c) == columns_.end())
          throw std::runtime_error(path + ": existing CSV has no column '" + c +
                                   "' (CSV columns are fixed; start a new file)");
      kept.push_back(lines[0]);
      for (size_t i = 1; i < lines.size(); ++i) {
        int64_t step = 0;
        const bool ok =
            csv_split(lines[i], fields) && !fields.empty() && parse_step(fields[0], step);
        keep_data_line(lines[i], ok, step);
      }
    } else {
      rewrite |= !lines.empty();  // an empty first line: start the file afresh
      if (!options_.columns.empty()) {
        columns_ = {"step"};
        if (options_.add_time) columns_.push_back("time");
        for (const auto& c : options_.columns)
          if (c != "step" && c != "time") columns_.push_back(c);
      }
    }
  } else {
    for (const std::string& line : lines) {
      int64_t step = 0;
      bool ok = false;
      try {
        const auto j = nlohmann::json::parse(line);
        if (j.is_object() && j.contains("step") && j["step"].is_number()) {
          const double d = j["step"].get<double>();
          ok = std::isfinite(d) && std::abs(d) < 9e18;
          step = ok ? int64_t(d) : 0;
        }
      } catch (const std::exception&) {
      }
      keep_data_line(line, ok, step);
    }
  }

  if (rewrite) {
    write_file_atomically(path, [&](std::ostream& out) {
      for (const std::string& l : kept) out << l << '\n';
    });
  }
  file_ = std::fopen(path.c_str(), "ab");
  if (!file_) throw std::runtime_error(path + ": cannot open metrics log: " + std::strerror(errno));
  if (csv_ && !columns_.empty() && kept.empty()) {
    write_line(csv_header(columns_));
  }
}

MetricsLog::~MetricsLog() {
  if (file_) std::fclose(file_);
}

void MetricsLog::write_line(const std::string& line) {
  if (std::fputs(line.c_str(), file_) < 0 || std::fputc('\n', file_) == EOF ||
      std::fflush(file_) != 0)
    throw std::runtime_error(path_ + ": cannot write metrics: " + std::strerror(errno));
}

void MetricsLog::log(int64_t step, const std::vector<std::pair<std::string, double>>& values) {
  std::lock_guard<std::mutex> lock(mutex_);
  const double t = now_seconds();
  if (csv_) {
    if (columns_.empty()) {  // the first line decides the columns
      columns_ = {"step"};
      if (options_.add_time) columns_.push_back("time");
      for (const auto& [k, v] : values)
        if (k != "step" && k != "time" &&
            std::find(columns_.begin(), columns_.end(), k) == columns_.end())
          columns_.push_back(k);
      write_line(csv_header(columns_));
    }
    std::vector<std::string> cells(columns_.size());
    cells[0] = std::to_string(step);
    for (size_t i = 1; i < columns_.size(); ++i)
      if (columns_[i] == "time" && options_.add_time) cells[i] = format_number(t);
    for (const auto& [k, v] : values) {
      auto it = std::find(columns_.begin() + 1, columns_.end(), k);
      if (it == columns_.end() || k == "time") {
        if (warned_keys_.insert(k).second)
          spdlog::warn("metrics log {}: no column '{}' in this CSV; the value is dropped", path_,
                       k);
        continue;
      }
      cells[size_t(it - columns_.begin())] = format_number(v);
    }
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) line += ',';
      line += cells[i];
    }
    write_line(line);
  } else {
    nlohmann::ordered_json j;
    j["step"] = step;
    if (options_.add_time) j["time"] = t;
    for (const auto& [k, v] : values) {
      if (k == "step" || k == "time") {
        if (warned_keys_.insert(k).second)
          spdlog::warn("metrics log {}: '{}' is a reserved key; the value is dropped", path_, k);
        continue;
      }
      if (std::isfinite(v))
        j[k] = v;
      else
        j[k] = nullptr;
    }
    write_line(j.dump());
  }
}

int MetricsTable::column(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return int(i);
  return -1;
}

MetricsTable read_metrics(const std::string& path) {
  bool torn = false, exists = false;
  const std::vector<std::string> lines = read_lines(path, torn, exists);
  if (!exists) throw std::runtime_error(path + ": cannot open metrics file");
  MetricsTable t;
  t.columns = {"step"};
  t.skipped_lines = torn ? 1 : 0;
  if (ends_with(path, ".csv")) {
    std::vector<std::string> header, fields;
    if (lines.empty()) return t;
    if (!csv_split(lines[0], header)) throw std::runtime_error(path + ": malformed CSV header");
    auto step_it = std::find(header.begin(), header.end(), "step");
    if (step_it == header.end()) throw std::runtime_error(path + ": CSV has no 'step' column");
    const size_t step_col = size_t(step_it - header.begin());
    std::vector<size_t> source{step_col};  // table column j comes from CSV column source[j]
    for (size_t i = 0; i < header.size(); ++i)
      if (i != step_col) {
        t.columns.push_back(header[i]);
        source.push_back(i);
      }
    for (size_t li = 1; li < lines.size(); ++li) {
      double step;
      if (!csv_split(lines[li], fields) || step_col >= fields.size() ||
          !parse_double(fields[step_col], step)) {
        if (!lines[li].empty()) ++t.skipped_lines;
        continue;
      }
      std::vector<double> row(t.columns.size(), kNaN);
      for (size_t j = 0; j < source.size(); ++j)
        if (source[j] < fields.size() && !parse_double(fields[source[j]], row[j])) row[j] = kNaN;
      t.rows.push_back(std::move(row));
    }
  } else {
    std::map<std::string, size_t> index{{"step", 0}};
    std::vector<std::vector<std::pair<size_t, double>>> parsed;
    for (const std::string& line : lines) {
      nlohmann::ordered_json j;
      try {
        j = nlohmann::ordered_json::parse(line);
      } catch (const std::exception&) {
        if (!line.empty()) ++t.skipped_lines;
        continue;
      }
      if (!j.is_object() || !j.contains("step") || !j["step"].is_number()) {
        ++t.skipped_lines;
        continue;
      }
      std::vector<std::pair<size_t, double>> cells;
      for (auto it = j.begin(); it != j.end(); ++it) {
        auto [pos, inserted] = index.emplace(it.key(), t.columns.size());
        if (inserted) t.columns.push_back(it.key());
        cells.emplace_back(pos->second, it.value().is_number() ? it.value().get<double>() : kNaN);
      }
      parsed.push_back(std::move(cells));
    }
    for (const auto& cells : parsed) {
      std::vector<double> row(t.columns.size(), kNaN);
      for (const auto& [col, v] : cells) row[col] = v;
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

}  // namespace kz
