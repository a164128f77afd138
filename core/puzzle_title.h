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

}  // namespace kz
