// The protocol's options come from one table (kOptions in tools/engine_protocol.cpp):
// the greeting announces each, `setoption` applies each within what was announced, and
// docs/protocol.md names each. Also the config commands of kumalak-train that
// tools/loop.sh relies on (train/config_schema.h).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace kz {
namespace {

std::string engine_output(const std::string& commands) {
  std::string out;
  test::run_command("printf '" + commands + "' | " + test::bin("kumalak") + " engine", &out, true);
  return out;
}

struct AnnouncedOption {
  std::string name, type;
  std::vector<std::string> words;  // the rest of the line
};

std::vector<AnnouncedOption> announced_options() {
  std::vector<AnnouncedOption> options;
  std::istringstream in(engine_output("kumalak\\nquit\\n"));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("option name ", 0) != 0) continue;
    std::istringstream words(line.substr(12));
    AnnouncedOption o;
    std::string type_word;
    words >> o.name >> type_word >> o.type;
    for (std::string w; words >> w;) o.words.push_back(w);
    options.push_back(o);
  }
  return options;
}

std::string word_after(const AnnouncedOption& o, const std::string& key) {
  for (size_t i = 0; i + 1 < o.words.size(); ++i)
    if (o.words[i] == key) return o.words[i + 1];
  return "";
}

TEST(CliEngineOptions, DocsNameEveryAnnouncedOption) {
  const auto options = announced_options();
  ASSERT_EQ(options.size(), 7u);
  std::ifstream in(std::string(KZ_SOURCE_DIR) + "/docs/protocol.md");
  std::stringstream docs;
  docs << in.rdbuf();
  for (const auto& o : options)
    EXPECT_NE(docs.str().find("| `" + o.name + "` | "), std::string::npos)
        << "docs/protocol.md's Options table has no row for " << o.name;
}

// Every spin takes its announced ends and refuses one past them; every combo takes each
// announced value.
TEST(CliEngineOptions, SetoptionAcceptsWhatTheGreetingAnnounces) {
  std::string commands, expect_errors;
  int refusals = 0;
  for (const auto& o : announced_options()) {
    if (o.type == "spin") {
      const long lo = std::stol(word_after(o, "min")), hi = std::stol(word_after(o, "max"));
      for (long v : {lo, hi})
        commands += "setoption name " + o.name + " value " + std::to_string(v) + "\\n";
      for (long v : {lo - 1, hi + 1}) {
        commands += "setoption name " + o.name + " value " + std::to_string(v) + "\\n";
        ++refusals;
      }
    } else if (o.type == "combo") {
      for (size_t i = 0; i + 1 < o.words.size(); ++i)
        if (o.words[i] == "var" && o.words[i + 1] != "perfect")  // perfect: Kalah only, at go
          commands += "setoption name " + o.name + " value " + o.words[i + 1] + "\\n";
    }
  }
  commands +=
      "setoption name Level value expert\\nsetoption name Engine value ab\\n"
      "setoption name MoveTime value 0\\nsetoption name Hash value 0\\n"
      "go depth 1\\nquit\\n";
  const std::string out = engine_output(commands);
  int errors = 0;
  for (size_t at = 0; (at = out.find("error ", at)) != std::string::npos; at += 6) ++errors;
  EXPECT_EQ(errors, refusals) << out;
  EXPECT_NE(out.find("option Threads: '257' is not a whole number in 1..256"), std::string::npos)
      << out;
  EXPECT_NE(out.find("bestmove "), std::string::npos) << out;
}

TEST(CliConfig, TrainAnswersConfigValuesForScripts) {
  const std::string train = test::bin("kumalak-train");
  const std::string configs = std::string(KZ_SOURCE_DIR) + "/configs/";
  std::string out;
  // run_command appends to what it is given.
  auto run = [&](const std::string& command, bool merge = false) {
    out.clear();
    return test::run_command(command, &out, merge);
  };
  ASSERT_EQ(run(train + " --config " + configs + "togyz.toml --get loop.games_per_generation"), 0);
  EXPECT_EQ(out, "384\n");
  // From the base, and a default that no file sets (the game's margin scale).
  ASSERT_EQ(run(train + " --config " + configs + "kalah.toml --get seed"), 0);
  EXPECT_EQ(out, "1\n");
  ASSERT_EQ(run(train + " --config " + configs + "kalah.toml --get search.margin_scale"), 0);
  EXPECT_EQ(out, "8.0\n");
  EXPECT_NE(run(train + " --config " + configs + "kalah.toml --get loop.nope", true), 0);
  EXPECT_NE(out.find("no config key 'loop.nope'"), std::string::npos) << out;
  ASSERT_EQ(run(train + " --help-config"), 0);
  EXPECT_NE(out.find("games_per_generation (integer, 1..100000000, default 256)"),
            std::string::npos)
      << out;
  ASSERT_EQ(run(train + " --config " + configs + "togyz.toml --dump-config"), 0);
  EXPECT_NE(out.find("\nc_puct = 1.5\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("extends"), std::string::npos) << out;
}

}  // namespace
}  // namespace kz
