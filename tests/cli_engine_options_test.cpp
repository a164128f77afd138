// The protocol's options come from one table (kOptions in tools/engine_protocol.cpp):
// the greeting announces each, `setoption` applies each within what was announced, and
// docs/protocol.md names each. Also the config commands of kumalak-train that
// tools/loop.sh relies on (train/config_schema.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace kz {
namespace {

// With the shipped models, so that the rating options (the human model's) are announced.
// "@wait" in `commands` pauses the input for a few seconds: a search (and the human
// model's loading) ends before the next command, which would be refused during it.
std::string engine_output(std::string commands, const std::string& args = "") {
  for (size_t at; (at = commands.find("@wait\\n")) != std::string::npos;)
    commands.replace(at, 7, "'; sleep 6; printf '");
  std::string out;
  test::run_command("{ printf '" + commands + "'; } | KZ_MODELS_DIR=" + test::source_dir() +
                        "/models " + test::bin("kumalak") + " engine" + args,
                    &out, true);
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
  ASSERT_EQ(options.size(), 10u);
  std::ifstream in(test::source_dir() + "/docs/protocol.md");
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
    } else if (o.type == "check") {
      commands += "setoption name " + o.name + " value true\\n";
      commands += "setoption name " + o.name + " value false\\n";
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

// The levels named by a rating (the shipped models/togyz-human.pt, 800..2200): Level and
// the LimitStrength/Rating pair take the range's ends, refuse one past them naming the
// range, play from the human policy, and are refused in Kalah, which has no human model.
TEST(CliEngineOptions, RatingLevelsAtTheEndsOfTheHumanModelsRange) {
  const auto options = announced_options();
  std::map<std::string, AnnouncedOption> by_name;
  for (const auto& o : options) by_name[o.name] = o;
  ASSERT_TRUE(by_name.count("Rating") && by_name.count("LimitStrength"));
  EXPECT_EQ(by_name["Rating"].type, "spin");
  EXPECT_EQ(word_after(by_name["Rating"], "min"), "800");
  EXPECT_EQ(word_after(by_name["Rating"], "max"), "2200");
  EXPECT_EQ(word_after(by_name["Rating"], "default"), "1500");
  EXPECT_EQ(by_name["LimitStrength"].type, "check");
  EXPECT_EQ(word_after(by_name["LimitStrength"], "default"), "false");
  const auto& level = by_name["Level"].words;
  for (const char* v : {"expert", "800", "1500", "2200"})
    EXPECT_NE(std::find(level.begin(), level.end(), v), level.end()) << "Level lacks var " << v;

  const std::string out = engine_output(
      "setoption name Level value 800\\nsetoption name Level value 2200\\n"
      "setoption name Level value 799\\nsetoption name Level value 2201\\n"
      "setoption name Rating value 800\\nsetoption name Rating value 2200\\n"
      "setoption name Rating value 799\\nsetoption name Rating value 2201\\n"
      "setoption name Level value 1200\\nposition startpos moves 1\\ngo\\n@wait\\n"
      "setoption name Level value expert\\nsetoption name LimitStrength value true\\n"
      "position startpos\\ngo\\n@wait\\nquit\\n");
  EXPECT_NE(out.find("error option Level: 799: a rating level must lie in the human model's range "
                     "800..2200"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("error option Level: 2201: a rating level must lie in the human model's "
                     "range 800..2200"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("error option Rating: '799' is not a whole number in 800..2200"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("error option Rating: '2201' is not a whole number in 800..2200"),
            std::string::npos)
      << out;
  int errors = 0;
  for (size_t at = 0; (at = out.find("error ", at)) != std::string::npos; at += 6) ++errors;
  EXPECT_EQ(errors, 4) << out;
  // Two moves, each the human policy's: one network call (nodes 1), no search, a legal hole.
  std::vector<int> best;
  std::istringstream lines(out);
  int human_infos = 0;
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("info depth 0 nodes 1 ", 0) == 0) ++human_infos;
    if (l.rfind("bestmove ", 0) == 0) best.push_back(std::stoi(l.substr(9)));
  }
  ASSERT_EQ(best.size(), 2u) << out;
  for (int m : best) {
    EXPECT_GE(m, 1);
    EXPECT_LE(m, 9);
  }
  EXPECT_EQ(human_infos, 2) << out;

  // Kalah has no human model: a rating level is refused, naming the missing model.
  const std::string kalah = engine_output(
      "kumalak\\nsetoption name Level value 1200\\nsetoption name LimitStrength value true\\n"
      "setoption name Rating value 1200\\nquit\\n",
      " --game kalah");
  EXPECT_EQ(kalah.find("option name Rating"), std::string::npos) << kalah;
  EXPECT_NE(
      kalah.find("error option Level: 1200: a rating level needs a human model for kalah:6,4"),
      std::string::npos)
      << kalah;
  EXPECT_NE(kalah.find("error option LimitStrength: a rating level needs a human model for kalah"),
            std::string::npos)
      << kalah;
  EXPECT_NE(kalah.find("error option Rating: 1200: a rating level needs a human model for kalah"),
            std::string::npos)
      << kalah;
  // A rating chosen in Togyz, then a Kalah game: the next go says why it cannot play.
  const std::string switched =
      engine_output("setoption name Level value 1200\\nnewgame kalah\\ngo\\nisready\\nquit\\n");
  EXPECT_NE(switched.find("error level 1200: a rating level needs a human model for kalah:6,4"),
            std::string::npos)
      << switched;
  EXPECT_NE(switched.find("bestmove none"), std::string::npos) << switched;
}

TEST(CliConfig, TrainAnswersConfigValuesForScripts) {
  const std::string train = test::bin("kumalak-train");
  const std::string configs = test::source_dir() + "/configs/";
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
