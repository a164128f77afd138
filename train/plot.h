// PNG plots of training runs through gnuplot (Debian gnuplot-nox): loss curves from a
// metrics log and Elo by generation from a ladder table.
//
// Why gnuplot through a child process: no plotting library to link, and a missing or
// broken gnuplot can only cost the picture, never the training run. Every function here
// returns false (with a spdlog warning saying why) instead of throwing or crashing, and
// writes the PNG atomically, so a dashboard polling the file never shows half an image.
#pragma once

#include <string>
#include <vector>

#include "train/elo.h"
#include "train/metrics_log.h"

namespace kz {

// The gnuplot executable: $KZ_GNUPLOT when set, else "gnuplot" found in $PATH; "" when
// there is none. Looked up on every call (cheap), so tests can change the variable.
std::string gnuplot_path();

// The PNG terminal the installed gnuplot has: "pngcairo" (antialiased) when it works,
// else "png" (libgd); "" when gnuplot is missing or has neither. Probed once per
// executable path.
std::string gnuplot_png_terminal();

struct PlotStyle {
  std::string title{};  // above the plot; empty = none
  int width = 1000;     // pixels
  int height = 600;
  bool log_y = false;  // losses over many orders of magnitude read better on a log axis
};

// Line plot of `y_columns` against `x_column` (default "step") of a metrics table; empty
// `y_columns` = every column except x and "time". Missing values (NaN) are skipped, so
// columns logged at different intervals (e.g. validation loss) still draw as lines.
bool plot_metrics(const MetricsTable& table, const std::string& png_path,
                  const std::vector<std::string>& y_columns = {}, const PlotStyle& style = {},
                  const std::string& x_column = "step");
// Same, reading a metrics .csv or .jsonl file.
bool plot_metrics_file(const std::string& metrics_path, const std::string& png_path,
                       const std::vector<std::string>& y_columns = {}, const PlotStyle& style = {},
                       const std::string& x_column = "step");

// Elo against generation with interval error bars, one point per rating with generation
// >= 0, joined in generation order. Non-finite interval ends are drawn at the Elo.
bool plot_ladder(const std::vector<LadderRating>& ratings, const std::string& png_path,
                 const PlotStyle& style = {});
// Same, reading a ladder CSV (write_ladder_csv's format).
bool plot_ladder_file(const std::string& ladder_csv, const std::string& png_path,
                      const PlotStyle& style = {});

}  // namespace kz
