// Puzzle files (core/puzzle_file.h): written and read back unchanged, and every kind of
// damage refused with the file and the line named.
#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "core/puzzle_file.h"
#include "test_util.h"

namespace kz {

namespace {

PuzzleSet sample_set() {
  PuzzleSet set;
  set.spec = GameSpec::togyz();
  Position start = Position::start(set.spec);
  Puzzle a;
  a.id = "t-0001";
  a.position = start;
  a.solution = {6, 4, 0};
  a.theme = PuzzleTheme::kCapture;
  a.rating = 1234;
  a.gap = 0.25;
  a.source = "tournament-2018.pgn game 3 (2018.05.01) ply 12";
  Puzzle b = a;
  b.id = "t-0002";
  b.position.play(6);
  b.solution = {4};
  b.theme = PuzzleTheme::kOnlyMove;
  b.rating = 400;
  b.gap = 1.0;
  b.source = "selfplay seed 1 game 2 ply 1";
  set.puzzles = {a, b};
  return set;
}

// The message of the ParseError that parsing `text` throws ("" when none).
std::string refusal(const std::string& text) {
  try {
    parse_puzzle_text(text, "p.txt");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

// Replaces the first `from` in the text's line `line` (1-based) with `to`.
std::string edit_line(std::string text, int line, const std::string& from, const std::string& to) {
  size_t pos = 0;
  for (int i = 1; i < line; ++i) pos = text.find('\n', pos) + 1;
  const size_t at = text.find(from, pos);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_LT(at, text.find('\n', pos)) << from;
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST(PuzzleFile, RoundTrip) {
  const PuzzleSet set = sample_set();
  const std::string dir = test::temp_dir("puzzles");
  write_puzzle_file(dir + "/t.txt", set);
  const PuzzleSet back = read_puzzle_file(dir + "/t.txt");
  EXPECT_EQ(back.spec, set.spec);
  ASSERT_EQ(back.puzzles.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.puzzles[i].id, set.puzzles[i].id);
    EXPECT_EQ(back.puzzles[i].position, set.puzzles[i].position);
    EXPECT_EQ(back.puzzles[i].solution, set.puzzles[i].solution);
    EXPECT_EQ(back.puzzles[i].theme, set.puzzles[i].theme);
    EXPECT_EQ(back.puzzles[i].rating, set.puzzles[i].rating);
    EXPECT_DOUBLE_EQ(back.puzzles[i].gap, set.puzzles[i].gap);
    EXPECT_EQ(back.puzzles[i].source, set.puzzles[i].source);
  }
  EXPECT_EQ(format_puzzle_file(back), format_puzzle_file(set));
}

TEST(PuzzleFile, KalahRoundTrip) {
  PuzzleSet set;
  set.spec = GameSpec::kalah(6, 4);
  Puzzle z;
  z.id = "k-1";
  z.position = Position::start(set.spec);
  z.solution = {2, 5};  // pit 3 ends in the store: the same side moves again
  z.theme = PuzzleTheme::kWinningLine;
  z.rating = 2000;
  z.gap = 0.5;
  z.source = "kalah self-play seed 3 game 1 ply 0";
  set.puzzles = {z};
  const PuzzleSet back = parse_puzzle_text(format_puzzle_file(set), "k.txt");
  EXPECT_EQ(back.spec, set.spec);
  EXPECT_EQ(back.puzzles.at(0).solution, z.solution);
}

TEST(PuzzleFile, WriterRefusesWhatWouldNotReadBack) {
  PuzzleSet set = sample_set();
  set.puzzles[0].solution = {6, 6, 6, 6, 6, 6, 6, 6, 6, 6};
  set.puzzles[0].position.pits[6] = 0;
  EXPECT_THROW(format_puzzle_file(set), std::invalid_argument);
  set = sample_set();
  set.puzzles[1].source = "tab\there";
  EXPECT_THROW(format_puzzle_file(set), std::invalid_argument);
}

TEST(PuzzleFile, EveryCorruptionNamesFileAndLine) {
  const std::string good = format_puzzle_file(sample_set());
  // Line 3 is the header, 4 and 5 the puzzles, 6 the end.
  ASSERT_EQ(refusal(good), "");
  struct Case {
    std::string text, expected;
  };
  const std::string first = good.substr(0, good.find("t-0002"));
  const std::vector<Case> cases = {
      {first, "p.txt:5: truncated"},
      {good.substr(0, good.size() - 3), "p.txt:6: expected 'end N'"},
      {"", "p.txt:1: not a puzzle file"},
      {edit_line(good, 3, "kumalak-puzzles", "kumalak-puzzle"), "p.txt:3: not a puzzle file"},
      {edit_line(good, 3, " 1 ", " 2 "), "p.txt:3: format version"},
      {edit_line(good, 3, "togyz", "chess"), "p.txt:3: unknown game 'chess'"},
      {edit_line(good, 4, "9,9,9,9", "9,9,x,9"), "p.txt:4: position:"},
      {edit_line(good, 4, "7 5 1", "7 5 1 1 1 1 1 1 1 1 1 1 1 1 1"), "p.txt:4: solution move"},
      {edit_line(good, 4, "7 5 1", "7 10"), "p.txt:4: solution move '10'"},
      {edit_line(good, 4, "7 5 1", ""), "p.txt:4: the solution is empty"},
      {edit_line(good, 4, "capture", "fork"), "p.txt:4: unknown theme 'fork'"},
      {edit_line(good, 4, "1234", "12x4"), "p.txt:4: rating '12x4'"},
      {edit_line(good, 4, "1234", "99"), "p.txt:4: rating '99'"},
      {edit_line(good, 4, "0.250", "0.2.5"), "p.txt:4: gap '0.2.5'"},
      {edit_line(good, 4, "0.250", "1.500"), "p.txt:4: gap 1.500"},
      {edit_line(good, 4, "0.250", "nan"), "p.txt:4: gap 'nan'"},
      {edit_line(good, 4, "\ttournament-2018.pgn game 3 (2018.05.01) ply 12", ""),
       "p.txt:4: expected 7 tab-separated fields, found 6"},
      {edit_line(good, 4, "tournament", "\x01tournament"), "p.txt:4: the source"},
      {edit_line(good, 5, "t-0002", "t-0001"), "p.txt:5: id 't-0001' is used twice"},
      {edit_line(good, 5, "t-0002", "t 2"), "p.txt:5: id 't 2'"},
      {edit_line(good, 6, "end 2", "end 3"), "p.txt:6: 'end' says 3 puzzles, the file holds 2"},
      {good + "t-0003\n", "p.txt:7: text after the 'end' line"},
  };
  for (const Case& c : cases) {
    const std::string message = refusal(c.text);
    EXPECT_EQ(message.rfind(c.expected, 0), 0u)
        << "expected '" << c.expected << "', got '" << message << "'";
  }
}

TEST(PuzzleFile, MissingFileIsRefusedByName) {
  try {
    read_puzzle_file("/nonexistent/puzzles.txt");
    FAIL() << "read a missing file";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/puzzles.txt:0:", 0), 0u) << e.what();
  }
}

// Random damage (bytes dropped, replaced, inserted, the file cut anywhere): each damaged
// text either still reads as a valid set or is refused with a ParseError naming
// "p.txt:LINE:"; nothing else escapes and nothing crashes.
TEST(PuzzleFile, RandomCorruptionIsRefusedOrHarmless) {
  const std::string good = format_puzzle_file(sample_set());
  std::mt19937 rng(12345);
  const std::regex located("^p\\.txt:[0-9]+: .+");
  int refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = good;
    const int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text.erase(at, 1);
          break;
        case 1:
          text[at] = char(rng() % 256);
          break;
        case 2:
          text.insert(at, 1, "\t\n0123456789,/ -x"[rng() % 17]);
          break;
        default:
          text.resize(at);
          break;
      }
    }
    try {
      const PuzzleSet set = parse_puzzle_text(text, "p.txt");
      EXPECT_NO_THROW(format_puzzle_file(set));  // whatever reads is a valid set
    } catch (const ParseError& e) {
      ++refused;
      EXPECT_TRUE(std::regex_match(std::string(e.what()), located)) << e.what();
    }
  }
  EXPECT_GT(refused, 2000);
}

TEST(PuzzleFile, DailyIndexIsFixedPerDateAndChecksTheDate) {
  EXPECT_EQ(days_from_date("1970-01-01"), 0);
  EXPECT_EQ(days_from_date("2000-03-01"), 11017);
  EXPECT_EQ(days_from_date("2026.12.02"), days_from_date("2026-12-02"));
  EXPECT_EQ(daily_puzzle_index("2026-12-02", 500), daily_puzzle_index("2026.12.02", 500));
  EXPECT_LT(daily_puzzle_index("2026-12-02", 500), 500u);
  std::set<size_t> seen;
  for (int d = 1; d <= 28; ++d) {
    char date[16];
    std::snprintf(date, sizeof date, "2026-02-%02d", d);
    seen.insert(daily_puzzle_index(date, 1000));
  }
  EXPECT_GT(seen.size(), 20u);  // a different puzzle most days
  for (const char* bad :
       {"2026-02-30", "2026-13-01", "1969-12-31", "2026-1-01", "today", "2026-02-0a", "2026-02.01"})
    EXPECT_THROW(days_from_date(bad), ParseError) << bad;
}

}  // namespace kz
