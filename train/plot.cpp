#include "train/plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/numbers.h"

extern char** environ;

namespace kz {

namespace {

constexpr double kGnuplotTimeoutS = 60;  // a plot takes well under a second

bool is_executable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Runs argv[0] (an absolute path) with stdin from /dev/null and stdout+stderr into
// `output_file`; kills it after `timeout_s`. Returns the exit status, or -1 when it could
// not run or did not exit normally.
int spawn_wait(const std::vector<std::string>& args, const std::string& output_file,
               double timeout_s) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A gnuplot single-quoted string literal (a quote inside is doubled).
std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    if (c == '\n' || c == '\r') c = ' ';
    out += c;
  }
  return out + "'";
}

std::string num(double v) {
  return shortest_number_text(v);
}

std::string read_small_file(const std::string& path, size_t max_chars) {
  std::ifstream in(path);
  std::string s(max_chars, '\0');
  in.read(s.data(), std::streamsize(max_chars));
  s.resize(size_t(in.gcount()));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Writes the data and script beside the target, runs gnuplot and renames the PNG into
// place. `body` is the script after terminal/output setup; it reads `data_path()`.
bool render(const std::string& png_path, const std::string& data, const std::string& body,
            const PlotStyle& style) {
  const std::string gp = gnuplot_path();
  if (gp.empty()) {
    spdlog::warn("plot: gnuplot not found (install gnuplot-nox or set KZ_GNUPLOT); {} not written",
                 png_path);
    return false;
  }
  const std::string term = gnuplot_png_terminal();
  if (term.empty()) {
    spdlog::warn("plot: {} has no PNG terminal; {} not written", gp, png_path);
    return false;
  }
  std::error_code ec;
  const auto parent = std::filesystem::path(png_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);

  const std::string tmp_png = temp_name_for(png_path);
  const std::string dat = tmp_png + ".dat", script = tmp_png + ".gp", err = tmp_png + ".log";
  bool ok = false;
  std::string why;
  {
    std::ofstream d(dat);
    d << data;
    std::ofstream s(script);
    s << "set terminal " << term << " size " << std::max(64, style.width) << ","
      << std::max(64, style.height) << " noenhanced\n"
      << "set output " << gp_quote(tmp_png) << "\n"
      << "set grid\nset key top left\n";
    if (!style.title.empty()) s << "set title " << gp_quote(style.title) << "\n";
    if (style.log_y) s << "set logscale y\n";
    s << "datafile = " << gp_quote(dat) << "\n" << body << "\nunset output\n";
    if (!d || !s) why = "cannot write temporary files beside " + png_path;
  }
  if (why.empty()) {
    const int rc = spawn_wait({gp, script}, err, kGnuplotTimeoutS);
    if (rc != 0)
      why = "gnuplot failed (exit " + std::to_string(rc) + "): " + read_small_file(err, 600);
    else if (std::filesystem::file_size(tmp_png, ec) == 0 || ec)
      why = "gnuplot wrote no image: " + read_small_file(err, 600);
  }
  if (why.empty()) {
    try {
      commit_temp_file(tmp_png, png_path);
      ok = true;
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  for (const auto& f : {tmp_png, dat, script, err}) std::filesystem::remove(f, ec);
  if (!ok) spdlog::warn("plot: {} not written: {}", png_path, why);
  return ok;
}

}  // namespace

std::string gnuplot_path() {
  if (const char* env = std::getenv("KZ_GNUPLOT"); env && *env) {
    const std::string p = env;
    if (p.find('/') != std::string::npos) return is_executable(p) ? p : "";
  }
  const char* env = std::getenv("KZ_GNUPLOT");
  const std::string name = env && *env ? env : "gnuplot";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (is_executable(candidate)) return candidate;
  }
  return "";
}

std::string gnuplot_png_terminal() {
  static std::mutex mutex;
  static std::map<std::string, std::string> cache;
  const std::string gp = gnuplot_path();
  if (gp.empty()) return "";
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(gp); it != cache.end()) return it->second;
  std::string found;
  for (const char* term : {"pngcairo", "png"}) {
    if (spawn_wait({gp, "-e", std::string("set terminal ") + term}, "/dev/null", 20) == 0) {
      found = term;
      break;
    }
  }
  cache[gp] = found;
  return found;
}

bool plot_metrics(const MetricsTable& table, const std::string& png_path,
                  const std::vector<std::string>& y_columns, const PlotStyle& style,
                  const std::string& x_column) {
  const int xc = table.column(x_column);
  if (xc < 0) {
    spdlog::warn("plot: no column '{}' to plot against; {} not written", x_column, png_path);
    return false;
  }
  std::vector<std::string> ys = y_columns;
  if (ys.empty())
    for (const auto& c : table.columns)
      if (c != x_column && c != "time") ys.push_back(c);
  // One data block per series holding only its finite points: lines then join across
  // steps where the series was not logged.
  std::string data, plot = "plot ";
  int block = 0;
  for (const std::string& y : ys) {
    const int yc = table.column(y);
    if (yc < 0) {
      spdlog::warn("plot: metrics have no column '{}'; it is left out of {}", y, png_path);
      continue;
    }
    std::string points;
    for (const auto& row : table.rows) {
      const double x = row[size_t(xc)], v = row[size_t(yc)];
      if (std::isfinite(x) && std::isfinite(v) && (!style.log_y || v > 0))
        points += num(x) + " " + num(v) + "\n";
    }
    if (points.empty()) continue;
    data += points + "\n\n";
    plot += std::string(block ? ", " : "") + "datafile index " + std::to_string(block) +
            " using 1:2 with lines lw 2 title " + gp_quote(y);
    ++block;
  }
  if (block == 0) {
    spdlog::warn("plot: nothing to plot (no finite values); {} not written", png_path);
    return false;
  }
  const std::string body = "set xlabel " + gp_quote(x_column) + "\n" + plot;
  return render(png_path, data, body, style);
}

bool plot_metrics_file(const std::string& metrics_path, const std::string& png_path,
                       const std::vector<std::string>& y_columns, const PlotStyle& style,
                       const std::string& x_column) {
  MetricsTable table;
  try {
    table = read_metrics(metrics_path);
  } catch (const std::exception& e) {
    spdlog::warn("plot: {}; {} not written", e.what(), png_path);
    return false;
  }
  return plot_metrics(table, png_path, y_columns, style, x_column);
}

bool plot_ladder(const std::vector<LadderRating>& ratings, const std::string& png_path,
                 const PlotStyle& style) {
  auto quoted_label = [](const std::string& text) {  // gnuplot-safe: no quotes, no '\\'
    std::string label;
    for (char c : text)
      if (c != '\'' && c != '"' && c != '\\') label += c;
    return "'" + label + "'";
  };
  std::vector<LadderRating> rs;
  std::string references;  // players without a generation (ab:4 ...): horizontal lines
  for (const auto& r : ratings) {
    if (!std::isfinite(r.elo)) continue;
    if (r.generation >= 0)
      rs.push_back(r);
    else
      references += ", " + num(r.elo) + " with lines dt 2 lw 1.5 title " + quoted_label(r.name);
  }
  if (rs.empty()) {
    spdlog::warn("plot: no ratings with a generation; {} not written", png_path);
    return false;
  }
  std::sort(rs.begin(), rs.end(),
            [](const auto& a, const auto& b) { return a.generation < b.generation; });
  // One line per run (chain_from_name): a run continued from another's model is drawn
  // as its own line from where it branched, on the same generation axis. Chains are
  // gnuplot data blocks (two blank lines apart), in order of their first generation.
  std::vector<std::string> chains;
  for (const auto& r : rs)
    if (std::find(chains.begin(), chains.end(), chain_from_name(r.name)) == chains.end())
      chains.push_back(chain_from_name(r.name));
  std::string data, series, shipped;
  for (size_t c = 0; c < chains.size(); ++c) {
    if (c > 0) data += "\n\n";
    for (const auto& r : rs) {
      if (chain_from_name(r.name) != chains[c]) continue;
      const double lo = std::isfinite(r.elo_lo) ? r.elo_lo : r.elo;
      const double hi = std::isfinite(r.elo_hi) ? r.elo_hi : r.elo;
      data +=
          std::to_string(r.generation) + " " + num(r.elo) + " " + num(lo) + " " + num(hi) + "\n";
    }
    const std::string block = "datafile index " + std::to_string(c);
    const std::string color = " lc " + std::to_string(c + 1);
    const std::string title =
        chains.size() == 1 ? "'Elo (interval)'" : quoted_label(chains[c] + "*");
    series += std::string(c ? ", " : "") + block + " using 1:2 with lines lw 2" + color +
              " notitle, " + block + " using 1:2:3:4 with yerrorbars pt 7" + color + " title " +
              title;
  }
  // The models that were once shipped: a ring and their name (a quoted third column).
  std::string shipped_data;
  for (const auto& r : rs)
    if (r.shipped) {
      const std::string label = quoted_label(r.name);
      shipped_data += std::to_string(r.generation) + " " + num(r.elo) + " \"" +
                      label.substr(1, label.size() - 2) + "\"\n";
    }
  if (!shipped_data.empty()) {
    data += "\n\n" + shipped_data;
    const std::string block = "datafile index " + std::to_string(chains.size());
    shipped = ", " + block + " using 1:2 with points pt 6 ps 2.5 lc rgb 'black' title 'shipped', " +
              block + " using 1:2:3 with labels offset 0,-1.6 notitle";
  }
  const std::string body =
      "set xlabel 'generation (counted from generation 0 of the first run)'\nset ylabel "
      "'Elo'\nset key left top\nset offsets graph 0.02, graph "
      "0.02, graph "
      "0.05, graph 0.05\n"
      "plot " +
      series + shipped + references;
  return render(png_path, data, body, style);
}

bool plot_ladder_file(const std::string& ladder_csv, const std::string& png_path,
                      const PlotStyle& style) {
  try {
    return plot_ladder(read_ladder_csv(ladder_csv), png_path, style);
  } catch (const std::exception& e) {
    spdlog::warn("plot: {}; {} not written", e.what(), png_path);
    return false;
  }
}

}  // namespace kz
