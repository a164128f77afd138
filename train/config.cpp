#include "train/config.h"

#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "core/atomic_file.h"
#include "core/numbers.h"
#include "train/config_schema.h"

namespace kz {

namespace {

constexpr uintmax_t kMaxBaseBytes = uintmax_t(1) << 20;

// Where a key got its value: the file and line, for messages.
struct Origin {
  std::string source;
  int64_t line = 0;
};

// "[selfplay] max_plies", or "seed" for a top-level key (built by appending: GCC 12's
// -Wrestrict misfires on a chain of `+` here).
std::string key_label(const ConfigKey& key) {
  std::string s;
  if (*key.section) {
    s += '[';
    s += key.section;
    s += "] ";
  }
  s += key.key;
  return s;
}

std::string at(const std::string& source, const toml::node& node) {
  return source + ":" + std::to_string(node.source().begin.line) + ": ";
}

// Reads a chain of config files (a file, the base it extends, that base's base...) into
// one RunConfig through the schema (train/config_schema.h): the deepest base first, each
// file then overriding what it sets. Remembers where each key was set, so that the
// checks after the whole chain name the file and line that gave the value.
class ConfigReader {
 public:
  RunConfig config;
  std::map<std::string, Origin> origins;  // key path -> where it was set

  void read(const std::string& text, const std::string& source, std::vector<std::string> chain) {
    toml::table root;
    try {
      root = toml::parse(text, source);
    } catch (const toml::parse_error& e) {
      throw ConfigError(source + ":" + std::to_string(e.source().begin.line) + ": " +
                        std::string(e.description()));
    }
    // A name the file system cannot resolve (too long, say) is kept as written: the cycle
    // check then compares it as such, and opening it fails with its own message.
    std::error_code canonical_error;
    const std::filesystem::path canonical_source =
        std::filesystem::weakly_canonical(source, canonical_error);
    chain.push_back(canonical_error ? source : canonical_source.string());
    if (const toml::node* base = root.get("extends")) read_base(*base, source, chain);

    // Sections and top-level keys the schema does not know are typos.
    for (const auto& [k, v] : root) {
      const std::string key(k.str());
      bool section = false;
      for (const char* s : config_sections()) section = section || key == s;
      if (v.is_table() && !section)
        throw ConfigError(at(source, v) + "unknown section [" + key + "]");
      if (!v.is_table() && section)
        throw ConfigError(at(source, v) + "'" + key + "' must be a [section]");
      if (!v.is_table() && key != "extends" && !find_config_key(key))
        throw ConfigError(at(source, v) + "unknown key '" + key + "'");
      if (v.is_table()) {
        for (const auto& [sk, sv] : *v.as_table())
          if (!find_config_key(key + "." + std::string(sk.str())))
            throw ConfigError(at(source, sv) + "unknown key '" + std::string(sk.str()) + "' in [" +
                              key + "]");
      }
    }
    for (const ConfigKey& key : config_schema()) {
      const toml::node* node = nullptr;
      if (!*key.section) {
        node = root.get(key.key);
      } else if (const toml::node* table = root.get(key.section)) {
        node = table->as_table()->get(key.key);
      }
      if (!node) continue;
      read_value(key, *node, source);
      origins[key.path()] = Origin{source, node->source().begin.line};
    }
  }

  // The checks that need the whole chain: defaults by game, ranges, a string's own check.
  void finish(const std::string& source) {
    const SearchParams played = game_search_params(config.game);
    if (!origins.count("search.margin_utility"))
      config.search.margin_utility = played.margin_utility;
    if (!origins.count("search.margin_scale")) config.search.margin_scale = played.margin_scale;
    for (const ConfigKey& key : config_schema()) {
      const auto origin = origins.find(key.path());
      const std::string where =
          origin == origins.end()
              ? source + ": "
              : origin->second.source + ":" + std::to_string(origin->second.line) + ": ";
      if (key.check) {
        const std::string value = std::get<std::string& (*)(RunConfig&)>(key.field)(config);
        if (const std::string why = key.check(value); !why.empty())
          throw ConfigError(where + key.key + " '" + value + "': " + why);
      }
      if (!key.has_range()) continue;
      // A float key compares with its bounds as floats: `alpha = 0.0001` is the float
      // nearest 0.0001, a little below the double 0.0001, and is meant to be accepted.
      double value = 0, lo = key.min, hi = key.max;
      std::visit(
          [&](auto f) {
            const auto& v = f(config);
            using T = std::remove_cvref_t<decltype(v)>;
            if constexpr (std::is_arithmetic_v<T>) value = double(v);
            if constexpr (std::is_same_v<T, float>) {
              lo = double(float(key.min));
              hi = double(float(key.max));
            }
          },
          key.field);
      if (value >= lo && value <= hi) continue;
      try {
        require_in_range(value, key.min, key.max, key_label(key));
      } catch (const ParseError& e) {
        throw ConfigError(where + e.what());
      }
    }
  }

 private:
  // `extends = "base.toml"`: the base is read first, its path relative to this file.
  void read_base(const toml::node& node, const std::string& source,
                 const std::vector<std::string>& chain) {
    if (!node.is_string())
      throw ConfigError(at(source, node) + "extends: expected a string (a base config file)");
    const std::string name = *node.value<std::string>();
    const std::string path =
        (std::filesystem::path(source).parent_path() / name).lexically_normal().string();
    std::error_code canonical_error;
    const std::string canonical = std::filesystem::weakly_canonical(path, canonical_error).string();
    if (canonical_error)
      throw ConfigError(at(source, node) + "extends '" + name + "': cannot open config '" + path +
                        "': " + canonical_error.message());
    for (const std::string& seen : chain)
      if (seen == canonical)
        throw ConfigError(at(source, node) + "extends '" + name + "': a cycle (" + path +
                          " extends, through its bases, " + source + ")");
    if (const std::string why = why_not_a_file(path); !why.empty())
      throw ConfigError(at(source, node) + "extends '" + name + "': cannot open config '" + path +
                        "': " + why);
    // A base is a small regular file: never a device or a pipe that reads forever.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) ||
        std::filesystem::file_size(path, ec) > kMaxBaseBytes || ec)
      throw ConfigError(at(source, node) + "extends '" + name + "': '" + path +
                        "' is not a regular file of at most 1 MiB");
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in)
      throw ConfigError(at(source, node) + "extends '" + name + "': cannot read '" + path + "'");
    read(ss.str(), path, chain);
  }

  void read_value(const ConfigKey& key, const toml::node& node, const std::string& source) {
    const std::string name = key_label(key);
    auto fail = [&](const std::string& why) {
      throw ConfigError(at(source, node) + name + ": " + why);
    };
    std::visit(
        [&](auto f) {
          auto& out = f(config);
          using T = std::remove_reference_t<decltype(out)>;
          if constexpr (std::is_same_v<T, bool>) {
            if (!node.is_boolean()) fail("expected true or false");
            out = *node.value<bool>();
          } else if constexpr (std::is_integral_v<T>) {
            if (!node.is_integer()) fail("expected an integer");
            const std::optional<int64_t> as_integer = node.value<int64_t>();
            if (!as_integer) fail("out of range");
            const int64_t v = *as_integer;
            bool ok;
            if constexpr (std::is_unsigned_v<T>)
              ok = v >= 0 && (sizeof(T) >= sizeof(int64_t) ||
                              uint64_t(v) <= uint64_t(std::numeric_limits<T>::max()));
            else
              ok = v >= int64_t(std::numeric_limits<T>::min()) &&
                   v <= int64_t(std::numeric_limits<T>::max());
            if (!ok) fail("out of range");
            out = T(v);
          } else if constexpr (std::is_floating_point_v<T>) {
            if (!node.is_number()) fail("expected a number");
            // An integer is converted here: toml++'s value<double>() gives nothing for one
            // that a double cannot hold exactly (1000000000000000004), which ended the
            // program (found by tests/fuzz/fuzz_config).
            const std::optional<double> as_double =
                node.is_integer() ? std::optional<double>(double(*node.value<int64_t>()))
                                  : node.value<double>();
            if (!as_double) fail("expected a number");
            // TOML writes nan and inf as numbers; no key of ours means either.
            if (!std::isfinite(*as_double))
              fail("expected a finite number, not " + number_text(*as_double));
            out = T(*as_double);
          } else if constexpr (std::is_same_v<T, GameSpec>) {
            if (!node.is_string()) fail("expected a string");
            try {
              out = GameSpec::parse(*node.value<std::string>());
            } catch (const ParseError& e) {
              fail(e.what());
            }
          } else {
            if (!node.is_string()) fail("expected a string");
            out = node.value<std::string>().value_or("");
          }
        },
        key.field);
  }
};

}  // namespace

RunConfig parse_config(const std::string& text, const std::string& source) {
  ConfigReader reader;
  reader.read(text, source, {});
  reader.finish(source);
  reader.config.source = source;
  return reader.config;
}

RunConfig load_config(const std::string& path) {
  if (const std::string why = why_not_a_file(path); !why.empty())
    throw ConfigError("cannot open config '" + path + "': " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot open config '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path);
}

}  // namespace kz
