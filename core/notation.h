// Move notation and PGN-like game records, as written on Togyz Kumalak scoresheets and
// by PlayOK (see ../shared/rules/togyz-kumalak.md, "Notation").
//
// Togyz: a move is two digits, the hole it starts from (mover's numbering) and the hole
// where the last stone landed (numbered from the side it landed on), `x`/`X`/Cyrillic
// `х` when it made a tuzdyk, and optionally `(n)`, the mover's kazan after the move
// (after a move that ends the game: before the end-of-game sweep, as online rooms write
// it; the kazan after the sweep is accepted too).
// Kalah: a move is the pit number 1..m. Records carry the moves one per ply whatever
// the side (an extra turn simply gives the same side two tokens in a row).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/position.h"

namespace kz {

// A move token taken apart. Only `from` is needed to play it; the rest is what the
// record claims the move did, which replay_record() checks against the rules.
struct MoveToken {
  int from = 0;                // 1-based pit of the mover
  std::optional<int> landing;  // Togyz: 1-based hole where the last stone landed
  bool tuzdyk_mark = false;    // Togyz: the record says this move made a tuzdyk
  std::optional<int> kazan;    // Togyz: `(n)`, the mover's kazan after the move
  std::string text;            // the token as written
};

// Parses one move token for the game; throws ParseError saying what is wrong.
MoveToken parse_move_token(std::string_view token, const GameSpec& spec);

// Writes the move `move` (0-based) played from `before`, e.g. "76", "36x", "76(10)".
// `with_kazan` adds the PlayOK `(n)` annotation after a capture.
std::string format_move(const Position& before, int move, bool with_kazan = false);

// A record's tags, name and value, in file order.
using RecordTags = std::vector<std::pair<std::string, std::string>>;
// The value of the first tag called `name`, or `fallback` when there is none.
std::string tag_value(const RecordTags& tags, const std::string& name,
                      const std::string& fallback = "");
// Sets the first tag called `name`, or appends it when there is none.
void set_tag_value(RecordTags& tags, const std::string& name, const std::string& value);

struct GameRecord {
  RecordTags tags;  // in file order
  // Move tokens as written, with the line each stands on; they are parsed and checked
  // by replay_record(), so that an error can name the ply.
  std::vector<std::string> moves;
  std::vector<int> move_lines;
  std::vector<std::string> comments;  // comments in the move text, in order (e.g. "zero")
  std::string result = "*";           // as written after the moves
  int index = 0;                      // 1-based position of the game in its file
  int line = 0;                       // line where the game starts
  std::string source;                 // file name, for messages

  std::string tag(const std::string& name, const std::string& fallback = "") const;
  void set_tag(const std::string& name, const std::string& value);
  // "game 3 (Alice vs Bob, line 41)" — used to say where an error is.
  std::string describe() const;
};

// Reads every game in a PGN-like text. `source` names the file in error messages.
// Throws ParseError for text that is not a record at all (an unclosed tag or comment),
// naming the line. Move tokens are checked by replay_record().
std::vector<GameRecord> read_pgn(std::istream& in, const std::string& source);
// The same for a file; a file that cannot be opened is a ParseError naming it too.
std::vector<GameRecord> read_pgn_file(const std::string& path);

struct ReplayResult {
  Position final_position;
  std::vector<int> moves;  // 0-based pits, one per ply
  int plies = 0;
};

// What a token claims about the move (landing hole, tuzdyk mark, `(n)`) checked against
// what the move did: "" when everything agrees (or the token is a bare pit number that
// claims nothing), else the disagreement, worded to follow "move '76(11)' ". `after` is
// the position after the move, `mover` the side that played it. Shared by replay_record
// and the engine protocol, so both accept exactly the same records.
std::string move_token_disagreement(const MoveToken& mt, const Position& after, int mover,
                                    const Position::MoveInfo& info);

// The position a record is played from: its FEN tag read for `spec`, else `fallback`
// (the game's start position when not given). Throws ParseError when the tag does not
// parse, as replay_record() does for its moves.
Position record_start(const GameRecord& record, const GameSpec& spec);
Position record_start(const GameRecord& record, const GameSpec& spec, const Position& fallback);

// Plays a record from `start` and checks every landing hole, tuzdyk mark and (n)
// annotation against the rules. Throws ParseError naming the game, ply and what
// disagreed, also for illegal moves and moves after the end.
ReplayResult replay_record(const GameRecord& record, const Position& start);

// Plays moves given as 1-based pit numbers; throws ParseError naming the ply.
ReplayResult replay_moves(const std::vector<int>& pits_1based, const Position& start);
std::vector<int> parse_move_list(std::string_view text);  // "7 6 1" -> {7, 6, 1}

// Writes a record: tags, a blank line, numbered moves (wrapped), result.
std::string write_pgn(const RecordTags& tags, const Position& start, const std::vector<int>& moves,
                      const std::vector<std::string>& comments_after_move = {},
                      bool with_kazan = true);

}  // namespace kz
