// The options the executables share (tools/cli_options.h), end to end: every command's
// --help shows --game with the one help text, and values out of an option's range are
// refused with a message naming the option and its range.
#include "tools/cli_options.h"

#include <gtest/gtest.h>

#include <cctype>
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

// Every kind of command line CLI11 refuses exits with 2, as those the commands refuse
// themselves, with CLI11's words for what is wrong; --help stays 0.
TEST(CliOptions, EveryBadCommandLineExitsWith2) {
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"perft --bogus", "--bogus"},                         // an unknown option
      {"perft extra-argument", "extra-argument"},           // an argument too many
      {"hint --level", "--level"},                          // an option without its value
      {"", "subcommand"},                                   // no command
      {"serve --builtin-page --site .", "--builtin-page"},  // two that exclude each other
  };
  for (const Case& c : cases) {
    const CliRun r = run("kumalak", c.args);
    EXPECT_EQ(r.status, 2) << "'" << c.args << "'\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << "'" << c.args << "'\n" << r.out;
  }
  EXPECT_EQ(run("kumalak", "perft --help").status, 0);
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
      {"kumalak", "puzzle --seed 18446744073709551615", ""},
      {"kumalak", "puzzle --seed 18446744073709551616",
       "--seed: '18446744073709551616' is not a whole number in 0..18446744073709551615"},
      {"kumalak", "puzzle --seed -1",
       "--seed: '-1' is not a whole number in 0..18446744073709551615"},
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

// The Latin words of `text` of three letters or more, but for an option's name (--level), a
// quoted value ('godlike': the player's own) and the values a command line takes, which
// stay as written in every language (docs/i18n.md).
std::vector<std::string> english_words(const std::string& text) {
  static const std::set<std::string> kValues = {
      "beginner", "easy",  "medium",   "hard",  "expert", "perfect", "togyz", "kalah",
      "bantumi",  "empty", "standard", "white", "black",  "south",   "north", "PGN"};
  std::vector<std::string> words;
  bool quoted = false;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\'') {
      quoted = !quoted;
      ++i;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '-'))
        ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
      const std::string word = text.substr(i, j - i);
      if (!quoted && word.size() >= 3 && !kValues.count(word)) words.push_back(word);
      i = j;
    } else {
      ++i;
    }
  }
  return words;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

// The player's commands (play, hint, analyze, puzzle) choose their language before the
// command line is read, so that what CLI11 refuses while reading it (an option's check,
// an unknown option, a value left out) is said in --lang's or the environment's language,
// with the same exit status as in English; the other commands stay English.
TEST(CliOptions, APlayersCommandLineIsRefusedInThePlayersLanguage) {
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"LANGUAGE=ru kumalak play --level godlike",
       "--level: неизвестный уровень 'godlike' (ожидалось beginner"},
      {"LANGUAGE= LC_ALL= LANG=ru_RU.UTF-8 kumalak hint --moves 7 --level godlike",
       "--level: неизвестный уровень 'godlike'"},
      {"kumalak play --lang ru --game kalah:10,4",
       "--game: в Калахе лунок на сторону должно быть 1..9, а не 10"},
      {"kumalak hint --lang kk --depth 65", "--depth: '65' — 0..64 аралығындағы бүтін сан емес"},
      {"kumalak hint --lang=ky --count 0", "--count: '0' — 1..1000000 аралыгындагы бүтүн сан эмес"},
      {"LANGUAGE=kk kumalak analyze x.pgn --movetime nan",
       "--movetime: 'nan' — 0..1000000 аралығындағы сан емес"},
      {"kumalak play --lang ru --hint-movetime -1",
       "--hint-movetime: '-1' — не число в пределах 0..1000000"},
      {"kumalak puzzle --lang ky --nope", "Күтүлбөгөн аргумент: --nope"},
      {"kumalak play --lang kk --levle 3 9", "Күтілмеген аргументтер: 9 3 --levle"},
      {"kumalak play --lang ru --seed", "для --seed нужно значение"},
      {"kumalak play --lang ru --seed many", "--seed: 'many' — недопустимое значение"},
      {"kumalak analyze --lang kk", "Жазба файлы берілмеген: ойындардың PGN файлдарын атаңыз."},
  };
  for (const Case& c : cases) {
    // The same command line in English, for its exit status.
    std::string english_args = c.args;
    for (const std::string lang : {"--lang ru", "--lang kk", "--lang ky", "--lang=ky"})
      if (const size_t at = english_args.find(lang); at != std::string::npos)
        english_args.replace(at, lang.size(), "--lang en");
    const size_t exe = english_args.find("kumalak");
    english_args = english_args.substr(exe);
    CliRun english;
    english.status = test::run_command(
        "LANGUAGE=en " + test::bin("") + english_args + " </dev/null", &english.out, true);
    CliRun r;
    r.status = test::run_command(c.args.substr(0, c.args.find("kumalak")) + test::bin("") +
                                     c.args.substr(c.args.find("kumalak")) + " </dev/null",
                                 &r.out, true);
    EXPECT_NE(r.status, 0) << c.args << "\n" << r.out;
    EXPECT_EQ(r.status, english.status) << c.args << "\n" << r.out << "\n" << english.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(joined(english_words(r.out)), "") << c.args << "\n" << r.out;
    EXPECT_NE(english.out.find("Run with --help for more information."), std::string::npos)
        << english_args << "\n"
        << english.out;
  }
  // A bad value is exit status 2 in every language.
  EXPECT_EQ(run("kumalak", "play --lang ru --level godlike").status, 2);
  // Commands without --lang speak English whatever the environment says.
  CliRun r;
  r.status = test::run_command("LANGUAGE=ru " + test::bin("kumalak") + " engine --level godlike",
                               &r.out, true);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--level: unknown level 'godlike'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Run with --help for more information."), std::string::npos) << r.out;
  // An unknown language is English with the note, said once.
  r = run("kumalak", "play --lang xx --level godlike");
  EXPECT_NE(r.out.find("--level: unknown level 'godlike'"), std::string::npos) << r.out;
  const size_t note = r.out.find("note: no translation for language 'xx'");
  EXPECT_NE(note, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("note: no translation", note + 1), std::string::npos) << r.out;
}

// A player's --help in their language: the descriptions, CLI11's labels and type names
// translated, the descriptions in one column counted in characters (Cyrillic letters are
// two bytes); what stays Latin is what is typed (option names and values, file and
// variable names) and the names PlayOK, MCTS, PGN, JSON and UTC.
TEST(CliOptions, APlayersHelpIsInThePlayersLanguage) {
  static const std::set<std::string> kTyped = {
      "kumalak", "play", "analyze", "models", "GAME", "human", "docs", "puzzles", "puzzle",
      "rating", "txt", "XDG", "CONFIG", "HOME", "LANGUAGE", "ALL", "MESSAGES", "LANG", "PlayOK",
      "MCTS", "JSON", "UTC", "hint", "eval",
      "playok",                       // the clock presets (play --clock
                                      // playok-5), typed as they are
      "validation", "train", "all"};  // analyze --fold
  for (const std::string command : {"play", "hint", "analyze", "puzzle"}) {
    for (const std::string lang : {"kk", "ru", "ky"}) {
      const CliRun r = run("kumalak", command + " --lang " + lang + " --help");
      ASSERT_EQ(r.status, 0) << command << " " << lang << "\n" << r.out;
      // The usage line names the program by the path it was run with.
      std::string text = r.out;
      if (const size_t at = text.find(test::bin("kumalak")); at != std::string::npos)
        text.erase(at, test::bin("kumalak").size());
      std::vector<std::string> left;
      for (const std::string& word : english_words(text))
        if (!kTyped.count(word)) left.push_back(word);
      EXPECT_EQ(joined(left), "") << command << " " << lang << "\n" << r.out;
      std::set<size_t> description_columns;
      for (const std::string& line : lines_of(r.out)) {
        if (line.rfind("  -", 0) != 0) continue;
        const size_t gap = line.find("  ", 2);
        if (gap == std::string::npos) continue;  // the description is on the next line
        const size_t start = line.find_first_not_of(' ', gap);
        size_t characters = 0;
        for (size_t i = 0; i < start; ++i)
          characters += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
        description_columns.insert(characters);
      }
      EXPECT_EQ(description_columns.size(), 1u) << command << " " << lang << "\n" << r.out;
    }
  }
  // English is CLI11's own help, unchanged.
  const CliRun english = run("kumalak", "hint --lang en --help");
  EXPECT_NE(english.out.find("Usage: "), std::string::npos) << english.out;
  EXPECT_NE(english.out.find("-h,--help                   Print this help message and exit"),
            std::string::npos)
      << english.out;
  EXPECT_NE(english.out.find("--depth INT:0..64           search with the alpha-beta engine"),
            std::string::npos)
      << english.out;
}

}  // namespace
}  // namespace kz
