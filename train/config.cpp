#include "train/config.h"

#include <toml++/toml.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/numbers.h"

namespace kz {

namespace {

// Reads the keys of one TOML table into fields, remembering which it consumed so that
// leftovers (typos) can be reported.
class Section {
 public:
  Section(const toml::table* table, std::string name, std::string source)
      : table_(table), name_(std::move(name)), source_(std::move(source)) {}

  template <class T>
  void get(const char* key, T& out) {
    used_.insert(key);
    if (!table_) return;
    const toml::node* node = table_->get(key);
    if (!node) return;
    lines_[key] = node->source().begin.line;
    if constexpr (std::is_same_v<T, bool>) {
      if (!node->is_boolean()) fail(node, key, "expected true or false");
      out = node->value<bool>().value();
    } else if constexpr (std::is_integral_v<T>) {
      if (!node->is_integer()) fail(node, key, "expected an integer");
      const std::optional<int64_t> as_integer = node->value<int64_t>();
      if (!as_integer) fail(node, key, "out of range");
      const int64_t v = *as_integer;
      bool ok;
      if constexpr (std::is_unsigned_v<T>)
        ok = v >= 0 && (sizeof(T) >= sizeof(int64_t) ||
                        uint64_t(v) <= uint64_t(std::numeric_limits<T>::max()));
      else
        ok = v >= int64_t(std::numeric_limits<T>::min()) &&
             v <= int64_t(std::numeric_limits<T>::max());
      if (!ok) fail(node, key, "out of range");
      out = T(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!node->is_number()) fail(node, key, "expected a number");
      // An integer is converted here: toml++'s value<double>() gives nothing for one that
      // a double cannot hold exactly (1000000000000000004), which ended the program
      // (found by tests/fuzz/fuzz_config).
      const std::optional<double> as_double =
          node->is_integer() ? std::optional<double>(double(*node->value<int64_t>()))
                             : node->value<double>();
      if (!as_double) fail(node, key, "expected a number");
      const double v = *as_double;
      // TOML writes nan and inf as numbers; no key of ours means either.
      if (!std::isfinite(v)) fail(node, key, "expected a finite number, not " + number_text(v));
      out = T(v);
    } else {
      if (!node->is_string()) fail(node, key, "expected a string");
      out = node->value<std::string>().value_or("");
    }
  }

  // Range checks after reading (core/numbers.h, as for command lines and the protocol);
  // the message names the file and the line of the key (or only the file for a default).
  template <class T>
  void require(const char* key, T value, T lo, T hi) {
    try {
      require_in_range(double(value), double(lo), double(hi), "[" + name_ + "] " + key);
    } catch (const ParseError& e) {
      const auto line = lines_.find(key);
      throw ConfigError(source_ + (line == lines_.end() ? "" : ":" + std::to_string(line->second)) +
                        ": " + e.what());
    }
  }

  void check_unknown() const {
    if (!table_) return;
    for (const auto& [k, v] : *table_) {
      if (!used_.count(std::string(k.str())))
        throw ConfigError(where(&v) + "unknown key '" + std::string(k.str()) + "' in [" + name_ +
                          "]");
    }
  }

 private:
  std::string where(const toml::node* node) const {
    return source_ + ":" + std::to_string(node->source().begin.line) + ": ";
  }
  [[noreturn]] void fail(const toml::node* node, const char* key, const std::string& why) const {
    throw ConfigError(where(node) + "[" + name_ + "] " + key + ": " + why);
  }

  const toml::table* table_;
  std::string name_, source_;
  std::set<std::string> used_;
  std::map<std::string, int> lines_;  // key -> line, for the keys the file sets
};

bool valid_device_name(const std::string& name) {
  if (name == "cpu" || name == "cuda") return true;
  if (name.rfind("cuda:", 0) != 0 || name.size() == 5 || name.size() > 8) return false;
  for (size_t i = 5; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return true;
}

}  // namespace

RunConfig parse_config(const std::string& text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ConfigError(source + ":" + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()));
  }
  RunConfig c;
  c.source = source;
  static const std::set<std::string> kSections = {"network", "search", "selfplay",
                                                  "train",   "gate",   "loop"};
  Section top(&root, "top level", source);
  std::string game = c.game.name();
  top.get("game", game);
  top.get("device", c.device);
  top.get("seed", c.seed);
  try {
    c.game = GameSpec::parse(game);
  } catch (const ParseError& e) {
    throw ConfigError(source + ": game: " + e.what());
  }
  // The same device names every tool accepts (nn/model_file.h parse_device), checked
  // here so that no tool of a run starts with a device another refuses.
  if (!valid_device_name(c.device))
    throw ConfigError(source + ": device '" + c.device + "': expected cpu, cuda or cuda:N");
  auto table = [&](const char* name) -> const toml::table* {
    const toml::node* n = root.get(name);
    if (!n) return nullptr;
    if (!n->is_table())
      throw ConfigError(source + ":" + std::to_string(n->source().begin.line) + ": '" + name +
                        "' must be a [section]");
    return n->as_table();
  };
  // Top-level keys other than sections.
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (v.is_table() && !kSections.count(key))
      throw ConfigError(source + ":" + std::to_string(v.source().begin.line) +
                        ": unknown section [" + key + "]");
    if (!v.is_table() && key != "game" && key != "device" && key != "seed")
      throw ConfigError(source + ":" + std::to_string(v.source().begin.line) + ": unknown key '" +
                        key + "'");
  }

  Section net(table("network"), "network", source);
  net.get("channels", c.network.channels);
  net.get("blocks", c.network.blocks);
  net.get("policy_channels", c.network.policy_channels);
  net.get("value_channels", c.network.value_channels);
  net.get("value_hidden", c.network.value_hidden);
  net.require("channels", c.network.channels, 1, 1024);
  net.require("blocks", c.network.blocks, 0, 64);
  net.require("policy_channels", c.network.policy_channels, 1, 1024);
  net.require("value_channels", c.network.value_channels, 1, 1024);
  net.require("value_hidden", c.network.value_hidden, 1, 8192);
  net.check_unknown();

  Section se(table("search"), "search", source);
  auto& sp = c.search;
  se.get("c_puct", sp.c_puct);
  se.get("fpu_reduction", sp.fpu_reduction);
  se.get("root_fpu_reduction", sp.root_fpu_reduction);
  se.get("root_policy_temperature", sp.root_policy_temperature);
  se.get("leaves_per_batch", sp.leaves_per_batch);
  se.get("solver", sp.solver);
  se.get("stop_at_decided", sp.stop_at_decided);
  se.get("margin_utility", sp.margin_utility);
  se.get("margin_scale", sp.margin_scale);
  se.require("c_puct", sp.c_puct, 0.f, 100.f);
  se.require("leaves_per_batch", sp.leaves_per_batch, 1, 4096);
  se.require("root_policy_temperature", sp.root_policy_temperature, 0.05f, 20.f);
  se.require("margin_scale", sp.margin_scale, 0.1f, 1000.f);
  se.require("fpu_reduction", sp.fpu_reduction, -10.f, 10.f);
  se.require("root_fpu_reduction", sp.root_fpu_reduction, -10.f, 10.f);
  se.require("margin_utility", sp.margin_utility, 0.f, 10.f);
  se.check_unknown();

  Section sl(table("selfplay"), "selfplay", source);
  auto& s = c.selfplay;
  sl.get("games_in_parallel", s.games_in_parallel);
  sl.get("max_batch", s.max_batch);
  sl.get("full_visits", s.full_visits);
  sl.get("fast_visits", s.fast_visits);
  sl.get("full_search_fraction", s.full_search_fraction);
  sl.get("dirichlet_alpha", s.dirichlet_alpha);
  sl.get("dirichlet_fraction", s.dirichlet_fraction);
  sl.get("opening_temperature", s.opening_temperature);
  sl.get("temperature_plies", s.temperature_plies);
  sl.get("final_temperature", s.final_temperature);
  sl.get("resign_threshold", s.resign_threshold);
  sl.get("resign_consecutive", s.resign_consecutive);
  sl.get("no_resign_fraction", s.no_resign_fraction);
  sl.get("random_opening_plies", s.random_opening_plies);
  sl.get("openings_file", s.openings_file);
  sl.get("max_plies", s.max_plies);
  sl.get("games_per_shard", s.games_per_shard);
  sl.require("games_in_parallel", s.games_in_parallel, 1, 100000);
  sl.require("max_batch", s.max_batch, 1, 65536);
  sl.require("full_visits", s.full_visits, 1, 10000000);
  sl.require("fast_visits", s.fast_visits, 1, 10000000);
  sl.require("full_search_fraction", s.full_search_fraction, 0.f, 1.f);
  // Noise needs alpha > 0 (a Dirichlet with alpha <= 0 does not exist); to turn the
  // noise off, set dirichlet_fraction = 0.
  sl.require("dirichlet_alpha", s.dirichlet_alpha, 0.001f, 1000.f);
  sl.require("dirichlet_fraction", s.dirichlet_fraction, 0.f, 1.f);
  sl.require("no_resign_fraction", s.no_resign_fraction, 0.f, 1.f);
  sl.require("opening_temperature", s.opening_temperature, 0.f, 100.f);
  sl.require("final_temperature", s.final_temperature, 0.f, 100.f);
  sl.require("temperature_plies", s.temperature_plies, 0, 100000);
  sl.require("resign_threshold", s.resign_threshold, 0.f, 1.f);
  sl.require("resign_consecutive", s.resign_consecutive, 1, 100000);
  sl.require("random_opening_plies", s.random_opening_plies, 0, 200);
  sl.require("max_plies", s.max_plies, 1, 100000);
  sl.require("games_per_shard", s.games_per_shard, 1, 1000000);
  sl.check_unknown();

  Section tr(table("train"), "train", source);
  auto& t = c.train;
  tr.get("batch_size", t.batch_size);
  tr.get("steps_per_generation", t.steps_per_generation);
  tr.get("learning_rate", t.learning_rate);
  tr.get("momentum", t.momentum);
  tr.get("weight_decay", t.weight_decay);
  tr.get("warmup_steps", t.warmup_steps);
  tr.get("lr_decay_steps", t.lr_decay_steps);
  tr.get("lr_decay", t.lr_decay);
  tr.get("policy_weight", t.policy_weight);
  tr.get("value_weight", t.value_weight);
  tr.get("margin_weight", t.margin_weight);
  tr.get("window_rows", t.window_rows);
  tr.get("window_generations", t.window_generations);
  tr.get("validation_fraction", t.validation_fraction);
  tr.get("validation_every", t.validation_every);
  tr.get("threads", t.threads);
  tr.get("precision", t.precision);
  tr.require("batch_size", t.batch_size, 1, 65536);
  tr.require("steps_per_generation", t.steps_per_generation, 1, 100000000);
  tr.require("learning_rate", t.learning_rate, 0.f, 10.f);
  tr.require("momentum", t.momentum, 0.f, 1.f);
  tr.require("weight_decay", t.weight_decay, 0.f, 1.f);
  tr.require("warmup_steps", t.warmup_steps, 0, 1000000000);
  tr.require("policy_weight", t.policy_weight, 0.f, 1000.f);
  tr.require("value_weight", t.value_weight, 0.f, 1000.f);
  tr.require("margin_weight", t.margin_weight, 0.f, 1000.f);
  tr.require("window_generations", t.window_generations, 0, 100000000);
  tr.require("lr_decay_steps", t.lr_decay_steps, 1, 1000000000);
  tr.require("lr_decay", t.lr_decay, 0.f, 1.f);
  tr.require("window_rows", t.window_rows, int64_t(1), int64_t(1) << 40);
  tr.require("validation_fraction", t.validation_fraction, 0.f, 0.5f);
  tr.require("validation_every", t.validation_every, 1, 100000000);
  tr.require("threads", t.threads, 1, 1024);
  if (t.precision != "fp32" && t.precision != "bf16")
    throw ConfigError(source + ": [train] precision = \"" + t.precision +
                      "\": expected \"fp32\" or \"bf16\"");
  tr.check_unknown();

  Section ga(table("gate"), "gate", source);
  auto& g = c.gate;
  ga.get("games", g.games);
  ga.get("visits", g.visits);
  ga.get("games_in_parallel", g.games_in_parallel);
  ga.get("opening_plies", g.opening_plies);
  ga.get("elo0", g.elo0);
  ga.get("elo1", g.elo1);
  ga.get("alpha", g.alpha);
  ga.get("beta", g.beta);
  ga.get("promote_min_score", g.promote_min_score);
  ga.require("games", g.games, 2, 10000000);
  ga.require("visits", g.visits, 1, 10000000);
  ga.require("games_in_parallel", g.games_in_parallel, 1, 100000);
  ga.require("alpha", g.alpha, 0.0001f, 0.5f);
  ga.require("beta", g.beta, 0.0001f, 0.5f);
  ga.require("opening_plies", g.opening_plies, 0, 200);
  ga.require("elo0", g.elo0, -4000.f, 4000.f);
  ga.require("elo1", g.elo1, -4000.f, 4000.f);
  ga.require("promote_min_score", g.promote_min_score, 0.0, 1.0);
  ga.check_unknown();

  Section lo(table("loop"), "loop", source);
  lo.get("generations", c.loop.generations);
  lo.get("games_per_generation", c.loop.games_per_generation);
  lo.require("generations", c.loop.generations, 1, 1000000);
  lo.require("games_per_generation", c.loop.games_per_generation, 1, 100000000);
  lo.check_unknown();
  return c;
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
