// Puzzle files: positions where one move is clearly best, with the solution line, a
// theme, a rating and the game they came from. `kumalak puzzles build` writes them,
// `kumalak puzzle` and `kumalak serve` read them. The text format (docs/puzzles.md):
//
//   # any number of comment lines first
//   kumalak-puzzles 1 togyz              <- magic, format version, game (GameSpec::name)
//   <id> TAB <position> TAB <solution> TAB <theme> TAB <rating> TAB <gap> TAB <source>
//   ...
//   end <number of puzzles>              <- the last line; a file without it is truncated
//
// Reading checks everything and refuses a file with a ParseError naming the file and
// the line: a missing header, another version or game, a line without seven fields, an
// id used twice, a position that does not parse or is over, an illegal move in the
// solution, an unknown theme, a rating or gap out of range, a missing or wrong `end`.
#pragma once

#include <string>
#include <vector>

#include "core/position.h"

namespace kz {

inline constexpr int kPuzzleFormatVersion = 1;
inline constexpr const char* kPuzzleMagic = "kumalak-puzzles";
// Puzzle ratings are clamped to this range (docs/puzzles.md, "Rating").
inline constexpr int kMinPuzzleRating = 400, kMaxPuzzleRating = 3000;

// What a puzzle is about, from the key move (the first of the solution); see
// docs/puzzles.md for the precise definitions and the order they are tried in.
enum class PuzzleTheme { kWinningLine = 0, kTuzdyk = 1, kCapture = 2, kOnlyMove = 3 };
// "winning-line", "tuzdyk", "capture", "only-move".
const char* puzzle_theme_name(PuzzleTheme theme);
// The theme of a name above; false when there is none.
bool parse_puzzle_theme(std::string_view name, PuzzleTheme& theme);

struct Puzzle {
  std::string id;  // letters, digits and '-', unique in its file
  Position position;
  // The key move (0-based pit) first, then the expected line: the opponent's replies and
  // the solver's next moves as they alternate under the rules (extra turns included).
  // The player is asked for the key move; the rest is played out.
  std::vector<int> solution;
  PuzzleTheme theme = PuzzleTheme::kOnlyMove;
  int rating = 1500;
  // How much the key move's expected score (win + draw/2) beats the second best move's,
  // from the confirming search, in (0, 1].
  double gap = 0;
  // Where the position comes from: "playok-2025.pgn game 12 (2025.03.01) ply 31",
  // "selfplay seed 7 game 3 ply 20". Never the whole record.
  std::string source;

  int key_move() const { return solution.empty() ? -1 : solution.front(); }
};

struct PuzzleSet {
  GameSpec spec;
  std::vector<Puzzle> puzzles;
};

// Writes `set` to `path` atomically (a temporary name, then renamed). Throws
// std::runtime_error naming the file when it cannot be written, std::invalid_argument
// when a puzzle would not read back (a bad id, a tab in the source, an illegal solution).
void write_puzzle_file(const std::string& path, const PuzzleSet& set);
// The same text, for tests and the server.
std::string format_puzzle_file(const PuzzleSet& set);

// Reads and checks a file; throws ParseError "FILE:LINE: what is wrong".
PuzzleSet read_puzzle_file(const std::string& path);
// The same from text; `source` names it in messages.
PuzzleSet parse_puzzle_text(const std::string& text, const std::string& source);

// The index of the daily puzzle of `date` ("2026-12-02" or "2026.12.02") in a set of
// `count`: the same for everyone on that date. Throws ParseError for a date that is not
// a real calendar date from 1970 to 9999.
size_t daily_puzzle_index(const std::string& date, size_t count);
// Today's date in UTC as "2026-12-02": the daily puzzle's date where none is given, one
// clock for `kumalak puzzle --daily` and the page, so both show the same puzzle.
std::string utc_date_today();
// Days since 1970-01-01 of a date as above (the same checks).
long long days_from_date(const std::string& date);

// The shipped puzzle file of a game: <dir>/puzzles/<stem>.txt where dir is
// $KZ_MODELS_DIR or "models" and stem is "togyz", "kalah" (Kalah 6,4) or the game's
// name with ':' and ',' as '-'.
std::string shipped_puzzle_path(const GameSpec& spec);

}  // namespace kz
