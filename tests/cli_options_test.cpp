// The options the executables share (tools/cli_options.h), end to end: every command's
// --help shows --game with the one help text, and values out of an option's range are
// refused with a message naming the option and its range.
#include "tools/cli_options.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace kz {
namespace {

struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr together
};

CliRun run(const std::string& exe, const std::string& args) {
  CliRun r;
  r.status = test::run_command(test::bin(exe) + " " + args + " </dev/null", &r.out, true);
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(' ') - a + 1);
}

// The subcommands a --help lists, e.g. "replay", "perft", ...
std::vector<std::string> subcommands_in(const std::string& help) {
  std::vector<std::string> names;
  bool in_list = false;
  for (const std::string& line : lines_of(help)) {
    if (line == "Subcommands:") {
      in_list = true;
    } else if (in_list) {
      if (line.rfind("  ", 0) != 0) break;
      names.push_back(trimmed(line).substr(0, trimmed(line).find(' ')));
    }
  }
  return names;
}

// Every command of `kumalak`, subcommands of subcommands included ("egtb build").
std::vector<std::string> every_command() {
  std::vector<std::string> commands, todo = subcommands_in(run("kumalak", "--help").out);
  while (!todo.empty()) {
    const std::string command = todo.front();
    todo.erase(todo.begin());
    commands.push_back(command);
    for (const std::string& sub : subcommands_in(run("kumalak", command + " --help").out))
      todo.push_back(command + " " + sub);
  }
  return commands;
}

// The help text beside --game in a command's --help ("" without --game). CLI11 puts it
// on the option's line, or on the next one when the option's column is full.
std::string game_help(const std::string& help) {
  const std::vector<std::string> lines = lines_of(help);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string line = trimmed(lines[i]);
    if (line.rfind("--game ", 0) != 0) continue;
    const size_t gap = line.find("  ");
    if (gap != std::string::npos) return trimmed(line.substr(gap));
    return i + 1 < lines.size() ? trimmed(lines[i + 1]) : "";
  }
  return "";
}

TEST(CliOptions, EveryCommandShowsTheOneGameHelp) {
  const std::vector<std::string> commands = every_command();
  ASSERT_GE(commands.size(), 12u);
  std::map<std::string, std::string> help_of;
  for (const std::string& command : commands) {
    const CliRun r = run("kumalak", command + " --help");
    ASSERT_EQ(r.status, 0) << command << "\n" << r.out;
    const std::string help = game_help(r.out);
    if (!help.empty()) help_of[command] = help;
  }
  // The commands that solve Kalah positions refuse Togyz Kumalak and say so.
  const std::set<std::string> kalah_only = {"solve", "egtb build", "egtb info", "perfect-check"};
  for (const auto& [command, help] : help_of)
    EXPECT_EQ(help, kalah_only.count(command) ? cli::kKalahGameHelp : cli::kGameHelp) << command;
  for (const std::string command :
       {"replay", "perft", "bench", "levels-match", "play", "hint", "analyze", "engine", "solve",
        "egtb build", "egtb info", "perfect-check", "human-eval"})
    EXPECT_TRUE(help_of.count(command)) << command << " shows no --game";
}

TEST(CliOptions, AGameOrLevelTheCommandCannotUseIsRefusedWhileParsing) {
  for (const std::string command : {"replay --moves 1", "perft", "hint --moves 7", "engine"}) {
    const CliRun r = run("kumalak", command + " --game chess");
    EXPECT_EQ(r.status, 2) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("--game: unknown game 'chess'"), std::string::npos) << r.out;
  }
  CliRun r = run("kumalak", "solve --game togyz");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--game: 'togyz': solving is for Kalah games"), std::string::npos) << r.out;
  r = run("kumalak", "engine --level godlike");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--level: unknown level 'godlike'"), std::string::npos) << r.out;
}

// --help after the options: CLI11 checks every value first, so an accepted value shows the
// help (status 0) and a refused one fails without running anything.
TEST(CliOptions, OutOfRangeValuesAreRefusedNamingTheOptionAndItsRange) {
  struct Case {
    std::string exe, args, message;  // message "" = accepted
  };
  const std::vector<Case> cases = {
      {"kumalak", "perft --depth 30", ""},
      {"kumalak", "perft --depth 31", "--depth: '31' is not a whole number in 0..30"},
      {"kumalak", "hint --depth 64", ""},
      {"kumalak", "hint --depth 65", "--depth: '65' is not a whole number in 0..64"},
      {"kumalak", "hint --count 0", "--count: '0' is not a whole number in 1..1000000"},
      {"kumalak", "analyze x.pgn --movetime 1000000", ""},
      {"kumalak", "analyze x.pgn --movetime nan",
       "--movetime: 'nan' is not a number in 0..1000000"},
      {"kumalak", "play --hint-movetime -1", "--hint-movetime: '-1' is not a number in 0..1000000"},
      {"kumalak", "levels-match --time-scale 0.001", ""},
      {"kumalak", "levels-match --time-scale 0",
       "--time-scale: '0' is not a number in 0..1000 (0 excluded)"},
      {"kumalak", "levels-match --resign-score 0.49", ""},
      {"kumalak", "levels-match --resign-score 0.5",
       "--resign-score: '0.5' is not a number in 0..0.5 (0.5 excluded)"},
      {"kumalak", "levels-match --threads 0", "--threads: '0' is not a whole number in 1..256"},
      {"kumalak", "bench --seconds 0.1", "--seconds: '0.1' is not a number in 0.2..3600"},
      {"kumalak", "egtb build --seeds 41", "--seeds: '41' is not a whole number in 0..40"},
      {"kumalak-gate", "--search-threads 0",
       "--search-threads: '0' is not a whole number in 1..256"},
      {"kumalak-train", "--threads 257", "--threads: '257' is not a whole number in 1..256"},
      {"kumalak-selfplay", "--max-seconds inf",
       "--max-seconds: 'inf' is not a number in 0..1000000000"},
      {"kumalak", "levels-match --max-plies 0",
       "--max-plies: '0' is not a whole number in 1..100000"},
      {"kumalak", "perfect-check --games -1", "--games: '-1' is not a whole number in 0..100000"},
      {"kumalak-gate", "--parallel 0", "--parallel: '0' is not a whole number in 1..100000"},
      {"kumalak-gate", "ladder --anchor-ab 64", ""},
      {"kumalak-gate", "ladder --anchor-ab 65", "--anchor-ab: '65' is not a whole number in 0..64"},
      {"kumalak-selfplay", "--visits 0", "--visits: '0' is not a whole number in 1..10000000"},
  };
  for (const Case& c : cases) {
    const CliRun r = run(c.exe, c.args + " --help");
    if (c.message.empty()) {
      EXPECT_EQ(r.status, 0) << c.exe << " " << c.args << "\n" << r.out;
    } else {
      // `kumalak` exits 2 for a bad command line; the training executables keep CLI11's
      // status for a refused value.
      EXPECT_EQ(r.status, c.exe == "kumalak" ? 2 : 105) << c.exe << " " << c.args << "\n" << r.out;
      EXPECT_NE(r.out.find(c.message), std::string::npos) << c.exe << " " << c.args << "\n"
                                                          << r.out;
    }
  }
}

}  // namespace
}  // namespace kz
