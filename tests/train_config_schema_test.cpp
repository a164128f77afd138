// The config schema (train/config_schema.h): every key declared once, and everything
// else (reading, range checks, --help-config, the docs table, configs/) following it;
// and base configs (`extends`).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "tests/test_util.h"
#include "train/config.h"
#include "train/config_schema.h"

namespace kz {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string source_file(const std::string& relative) {
  return test::source_dir() + "/" + relative;
}

std::string error_of(const std::string& text, const std::string& source = "run.toml") {
  try {
    parse_config(text, source);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// The keys a TOML file sets ("seed", "loop.generations"), read as plain text so that the
// test does not rely on the reader it checks.
std::set<std::string> keys_set_in(const std::string& text) {
  std::set<std::string> keys;
  std::istringstream in(text);
  std::string section;
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (line[first] == '[') {
      section = line.substr(first + 1, line.find(']') - first - 1);
      continue;
    }
    const size_t eq = line.find(" =");
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(first, eq - first);
    keys.insert(section.empty() ? key : section + "." + key);
  }
  return keys;
}

TEST(ConfigSchema, EveryKeyIsInTheRealConfigsAndNothingElse) {
  const std::string base = read_text(source_file("configs/base.toml"));
  for (const char* name : {"togyz", "kalah"}) {
    const std::string text = read_text(source_file(std::string("configs/") + name + ".toml"));
    EXPECT_NE(text.find("extends = \"base.toml\""), std::string::npos) << name;
    std::set<std::string> set = keys_set_in(base);
    for (const std::string& k : keys_set_in(text)) set.insert(k);
    for (const ConfigKey& key : config_schema()) {
      if (key.default_by_game) {
        // Left to the game (mcts/search.h game_search_params), and said so in the base.
        EXPECT_FALSE(set.count(key.path())) << name << ": " << key.path();
        EXPECT_NE(base.find(key.key), std::string::npos) << key.path();
      } else {
        EXPECT_TRUE(set.count(key.path()))
            << key.path() << " is in neither configs/" << name << ".toml nor configs/base.toml";
      }
    }
    for (const std::string& k : set)
      EXPECT_TRUE(k == "extends" || find_config_key(k)) << name << ": " << k << " is no key";
  }
}

// The configs give exactly the values recorded when they moved onto configs/base.toml
// (tests/data/config/README.md), and a dump loads back to itself.
TEST(ConfigSchema, ConfigsLoadAsRecorded) {
  for (const char* name : {"togyz", "kalah", "tiny"}) {
    const RunConfig c = load_config(source_file(std::string("configs/") + name + ".toml"));
    const std::string dump = config_as_toml(c);
    EXPECT_EQ(dump, read_text(source_file(std::string("tests/data/config/") + name + ".toml")))
        << name;
    EXPECT_EQ(config_as_toml(parse_config(dump, "dump.toml")), dump) << name;
  }
}

TEST(ConfigSchema, TableIsWellFormed) {
  std::set<std::string> paths;
  for (const ConfigKey& key : config_schema()) {
    EXPECT_TRUE(paths.insert(key.path()).second) << key.path() << " twice";
    EXPECT_GT(std::string(key.help).size(), 5u) << key.path();
    EXPECT_EQ(find_config_key(key.path()), &key);
    const bool number = key.type() == ConfigType::kInteger || key.type() == ConfigType::kNumber;
    // Every number but the seed has a range; no other type has one.
    EXPECT_EQ(key.has_range(), number && key.path() != "seed") << key.path();
  }
  // Every default is inside its key's range: an empty config loads.
  EXPECT_EQ(error_of(""), "");
  EXPECT_EQ(find_config_key("loop.nope"), nullptr);
  EXPECT_EQ(find_config_key("loop"), nullptr);
}

// Each ranged key refuses a value past either end, naming the key, the file and line.
TEST(ConfigSchema, RangesComeFromTheTable) {
  for (const ConfigKey& key : config_schema()) {
    if (!key.has_range()) continue;
    const bool integer = key.type() == ConfigType::kInteger;
    for (double bad : {key.min - 1, key.max + 1}) {
      std::ostringstream text;
      text << "game = \"kalah\"\n\n[" << key.section << "]\n" << key.key << " = ";
      if (integer)
        text << int64_t(bad);
      else
        text << std::fixed << bad;
      const std::string e = error_of(text.str());
      EXPECT_NE(e.find("run.toml:4: [" + std::string(key.section) + "] " + key.key + " = "),
                std::string::npos)
          << key.path() << ": " << e;
      EXPECT_NE(e.find("is outside " + config_range_text(key)), std::string::npos) << e;
    }
    // Both ends are accepted.
    for (double good : {key.min, key.max}) {
      std::ostringstream text;
      text << "[" << key.section << "]\n" << key.key << " = ";
      if (integer)
        text << int64_t(good);
      else
        text << std::fixed << std::setprecision(6) << good;
      EXPECT_EQ(error_of(text.str()), "") << key.path() << " = " << good;
    }
  }
}

TEST(ConfigSchema, HelpAndDocsListEveryKey) {
  const std::string help = config_help_text();
  for (const ConfigKey& key : config_schema()) {
    EXPECT_NE(help.find("  " + std::string(key.key) + " ("), std::string::npos) << key.path();
  }
  EXPECT_NE(help.find("margin_scale (number, 0.1..1000, default by game: 20.0 Togyz, 8.0 Kalah)"),
            std::string::npos)
      << help;
  // docs/training.md carries the generated table verbatim.
  const std::string docs = read_text(source_file("docs/training.md"));
  EXPECT_NE(docs.find(config_markdown_table()), std::string::npos)
      << "docs/training.md's key table differs from the schema; the table is:\n"
      << config_markdown_table();
}

TEST(ConfigSchema, MarginDefaultsFollowTheGame) {
  const RunConfig togyz = parse_config("game = \"togyz\"\n", "a.toml");
  const RunConfig kalah = parse_config("game = \"kalah\"\n", "b.toml");
  EXPECT_EQ(togyz.search.margin_scale, 20.f);
  EXPECT_EQ(kalah.search.margin_scale, 8.f);
  EXPECT_EQ(kalah.search.margin_utility, 0.05f);
  // Set, they are what the file says, whichever file of the chain sets them.
  EXPECT_EQ(parse_config("game = \"kalah\"\n[search]\nmargin_scale = 3.0\n", "c.toml")
                .search.margin_scale,
            3.f);
}

class ConfigBase : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("kz-config-base"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  std::string load_error(const std::string& path) {
    try {
      load_config(path);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }
  std::string dir_;
};

TEST_F(ConfigBase, TheIncludingFileOverridesItsBase) {
  write("shared/base.toml", "seed = 3\n[loop]\ngenerations = 5\ngames_per_generation = 7\n");
  write("shared/mid.toml", "extends = \"base.toml\"\n[loop]\ngenerations = 6\n");
  const std::string top = write("top.toml",
                                "extends = \"shared/mid.toml\"\ngame = \"kalah\"\n"
                                "[loop]\ngames_per_generation = 9\n");
  const RunConfig c = load_config(top);
  EXPECT_EQ(c.seed, 3u);
  EXPECT_EQ(c.loop.generations, 6);
  EXPECT_EQ(c.loop.games_per_generation, 9);
  EXPECT_EQ(c.game, GameSpec::kalah(6, 4));
  EXPECT_EQ(c.source, top);
}

TEST_F(ConfigBase, ErrorsNameTheFileThatHasThem) {
  const std::string base = write("base.toml", "seed = 1\n[selfplay]\nmax_plies = 0\n");
  const std::string top = write("top.toml", "extends = \"base.toml\"\n");
  EXPECT_EQ(load_error(top), base + ":3: [selfplay] max_plies = 0 is outside 1..100000");
  // Overridden in the including file, the base's bad value is gone.
  EXPECT_EQ(load_error(write("fixed.toml", "extends = \"base.toml\"\n[selfplay]\nmax_plies = 5\n")),
            "");
  write("typo.toml", "[selfplay]\nmax_pliez = 5\n");
  EXPECT_EQ(load_error(write("t2.toml", "extends = \"typo.toml\"\n")),
            dir_ + "/typo.toml:2: unknown key 'max_pliez' in [selfplay]");
}

TEST_F(ConfigBase, MissingBasesAndCyclesAreErrors) {
  const std::string top = write("top.toml", "seed = 2\nextends = \"nowhere.toml\"\n");
  const std::string e = load_error(top);
  EXPECT_NE(e.find(top + ":2: extends 'nowhere.toml': cannot open config"), std::string::npos) << e;
  const std::string a = write("a.toml", "extends = \"b.toml\"\n");
  write("b.toml", "extends = \"a.toml\"\n");
  EXPECT_NE(load_error(a).find("a cycle"), std::string::npos) << load_error(a);
  const std::string self = write("self.toml", "extends = \"self.toml\"\n");
  EXPECT_NE(load_error(self).find(self + ":1: extends 'self.toml': a cycle"), std::string::npos)
      << load_error(self);
  EXPECT_NE(load_error(write("num.toml", "extends = 3\n")).find("extends: expected a string"),
            std::string::npos);
  EXPECT_NE(load_error(write("dev.toml", "extends = \"/dev/zero\"\n")).find("not a regular file"),
            std::string::npos);
  // A name longer than the file system allows is refused by name, never thrown past.
  const std::string long_name(5000, 'a');
  const std::string too_long = write("long.toml", "extends = \"" + long_name + "\"\n");
  EXPECT_NE(load_error(too_long).find(too_long + ":1: extends '" + long_name + "': cannot open"),
            std::string::npos)
      << load_error(too_long);
  write("dir.toml/x", "");
  EXPECT_NE(load_error(write("d.toml", "extends = \"dir.toml\"\n")).find("is a directory"),
            std::string::npos);
}

}  // namespace
}  // namespace kz
