// A puzzle's title on the page (core/puzzle_title.h puzzle_heading): the day's puzzle by
// its date, any other by its place in the set, in each language, with no id or file name.
#include <gtest/gtest.h>

#include <string>

#include "core/i18n.h"
#include "core/position.h"
#include "core/puzzle_title.h"

namespace kz {
namespace {

TEST(PuzzleHeading, TheDaysPuzzleByDateAnyOtherByItsPlace) {
  const i18n::ScopedLanguage en("en");
  EXPECT_EQ(puzzle_heading(11, 180, ""), "Puzzle 12 of 180");
  EXPECT_EQ(puzzle_heading(0, 600, "2026-12-06"), "Puzzle of the day, 6 December");
  EXPECT_EQ(puzzle_heading(0, 600, "2027-01-31"), "Puzzle of the day, 31 January");
  EXPECT_EQ(puzzle_heading(0, 600, "2027.05.01"), "Puzzle of the day, 1 May");
  EXPECT_THROW(puzzle_heading(0, 600, "2027-02-30"), ParseError);
}

// Each month in each language is its own sentence: the month named in the language, the
// day's number kept, nothing left in English.
TEST(PuzzleHeading, EveryMonthInEveryLanguage) {
  const char* december[] = {"желтоқсан", "декабря", "декабр"};
  const char* langs[] = {"kk", "ru", "ky"};
  for (int l = 0; l < 3; ++l) {
    const i18n::ScopedLanguage lang(langs[l]);
    std::string seen;
    for (int month = 1; month <= 12; ++month) {
      char date[11];
      std::snprintf(date, sizeof date, "2026-%02d-17", month);
      const std::string title = puzzle_heading(0, 10, date);
      EXPECT_NE(title.find("17"), std::string::npos) << langs[l] << " " << title;
      EXPECT_EQ(title.find("Puzzle"), std::string::npos) << langs[l] << " " << title;
      EXPECT_EQ(seen.find(title), std::string::npos) << "two months read the same: " << title;
      seen += title + "\n";
    }
    EXPECT_NE(puzzle_heading(0, 10, "2026-12-06").find(december[l]), std::string::npos)
        << puzzle_heading(0, 10, "2026-12-06");
    const std::string placed = puzzle_heading(11, 180, "");
    EXPECT_NE(placed.find("12"), std::string::npos) << placed;
    EXPECT_NE(placed.find("180"), std::string::npos) << placed;
    EXPECT_EQ(placed.find("Puzzle"), std::string::npos) << placed;
  }
}

}  // namespace
}  // namespace kz
