// Every key of a run config (configs/*.toml), declared once: its section, name, type,
// accepted range, default and help. Reading and range checks (train/config.cpp),
// `--help-config` of the training executables, `--get` for tools/loop.sh, the key table
// in docs/training.md and the tests that every key is in configs/ all come from this
// table (train/config_schema.cpp).
//
// Defaults are those of the structs the keys fill (train/config.h, nn/net_config.h,
// mcts/search.h), read from a default-built RunConfig, so a default is written once;
// the margin keys of [search] default to what the game is played with
// (game_search_params()).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "train/config.h"

namespace kz {

enum class ConfigType { kBool, kInteger, kNumber, kString };

// Where a key's value lives in a RunConfig.
using ConfigField =
    std::variant<bool& (*)(RunConfig&), int& (*)(RunConfig&), int64_t& (*)(RunConfig&),
                 uint64_t& (*)(RunConfig&), float& (*)(RunConfig&), double& (*)(RunConfig&),
                 std::string& (*)(RunConfig&), GameSpec& (*)(RunConfig&)>;

struct ConfigKey {
  const char* section;  // "" for the top level
  const char* key;
  ConfigField field;
  double min = 0, max = 0;  // the accepted range of a number (both ends included)
  const char* help = "";
  // The default is the game's (game_search_params in mcts/search.h), not the struct's.
  bool default_by_game = false;
  // A string's own check beyond its type: "" when `value` is fine, else why not.
  std::string (*check)(const std::string& value) = nullptr;

  bool has_range() const { return min < max; }
  ConfigType type() const;
  // "seed" for a top-level key, "loop.generations" otherwise (what --get takes).
  std::string path() const;
};

// The table, in the order of a config file: top level, [network], [search], [selfplay],
// [train], [gate], [loop].
std::span<const ConfigKey> config_schema();
// The sections, in that order ("network", ..., "loop"; the top level is not one).
std::span<const char* const> config_sections();
// The key named `path` ("seed", "loop.generations"); nullptr when there is none.
const ConfigKey* find_config_key(std::string_view path);

// A value as TOML writes it: true, 42, 0.25, "cpu"; the game (a string) as its name.
// `quote_strings` false gives strings bare, for shell scripts (kumalak-train --get).
std::string config_value_text(const RunConfig& config, const ConfigKey& key,
                              bool quote_strings = true);
// The default as `--help-config` shows it ("by game: ..." for default_by_game keys).
std::string config_default_text(const ConfigKey& key);
// The range as text: "1..1024", "" for strings and booleans.
std::string config_range_text(const ConfigKey& key);

// `--help-config`: every key with type, range, default and help, by section.
std::string config_help_text();
// The key table of docs/training.md (Markdown), kept equal by a test.
std::string config_markdown_table();
// Every key and its value as a TOML file that loads back to the same config.
std::string config_as_toml(const RunConfig& config);

}  // namespace kz
