// `--help-config` for every executable that reads a run config: the keys come from the
// one schema (train/config_schema.cpp), so each tool lists the same table.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>

#include "train/config_schema.h"

namespace kz {

inline void add_help_config_flag(CLI::App& app) {
  app.add_flag_callback(
      "--help-config",
      [] {
        std::cout << config_help_text();
        throw CLI::Success();
      },
      "list every config key with its type, range, default and meaning, and exit");
}

}  // namespace kz
