// A puzzle's title in the reader's language (core/i18n.h), one whole sentence for each
// theme, for the terminal (`kumalak puzzle`) and the page (`kumalak serve`'s GET
// /api/puzzle): "Puzzle t-354b57b6: tuzdyk, rated 1000 (from playok-2025.pgn game 1219
// (2026.02.06) ply 14)."
#pragma once

#include <string>

#include "core/puzzle_file.h"

namespace kz {

// The puzzle file's source field (docs/puzzles.md) names the game in English words
// ("FILE game N (DATE) ply P" or "self-play seed S game G ply P"): read back into its
// numbers, it is said in the reader's language. Any other text is returned as it is.
std::string puzzle_source_text(const std::string& source);

// The title of `z`: its id, theme (named as in the puzzle file), rating and source.
std::string puzzle_title(const Puzzle& z);

// The page's title of a puzzle, in a player's words, without ids or file names: "Puzzle
// of the day, 6 December" when it is the puzzle of `date` ("2026-12-06"), else "Puzzle
// 12 of 180" for `index` (0-based) of `count`. Throws ParseError for a date that is not
// a calendar date (core/puzzle_file.h days_from_date).
std::string puzzle_heading(size_t index, size_t count, const std::string& date);

}  // namespace kz
