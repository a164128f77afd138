// One game in progress: where it started, the moves played, taking moves back, and its
// record. `kumalak play`, `kumalak serve` (one per browser game) and the engine protocol
// (the game of `position ...`) each hold one, so a game is kept, undone and written the
// same way everywhere. Not thread-safe: its owner guards it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/notation.h"
#include "core/position.h"

namespace kz {

// Today's local date as a record's Date tag: "2026.12.02".
std::string record_date_today();

// Who played and where, for the tags a record is written with.
struct RecordHeader {
  std::string site;       // the Site tag: the program that hosted the game ("kumalak play")
  std::string white;      // the White tag unless the game's own tags name White already
  std::string black;      // the same for Black
  std::string annotator;  // the Annotator tag when not empty (it replaces a loaded one)
};

class GameSession {
 public:
  // A game of `spec` from `start` (which must be a position of that game). The Date tag
  // defaults to today's date.
  explicit GameSession(const GameSpec& spec = GameSpec::togyz());
  GameSession(const GameSpec& spec, const Position& start);

  const GameSpec& spec() const { return spec_; }
  const Position& start() const { return positions_.front(); }
  const Position& position() const { return positions_.back(); }
  // The position before the last move (the start when no move was played).
  const Position& before_last() const {
    return positions_.size() > 1 ? positions_[positions_.size() - 2] : positions_.front();
  }
  // The position after the first `ply` moves; ply <= plies().
  const Position& position_at(size_t ply) const { return positions_.at(ply); }
  // Moves played so far, 0-based pits, one per ply.
  const std::vector<int>& moves() const { return moves_; }
  size_t plies() const { return moves_.size(); }
  // The side (0 or 1) that played ply `ply` (0-based).
  int mover(size_t ply) const { return positions_.at(ply).to_move; }
  // The result can no longer change (Position::is_decided).
  bool decided() const { return position().is_decided(); }
  // "1-0", "0-1", "1/2-1/2" once decided (or ended on time), else "*".
  std::string result() const;

  // Ends the game off the board: `side`'s time ran out (0 = White/South). The result is
  // core/game_clock.h's flag rule (the opponent wins unless it could not win any more);
  // result() and the record say it, the record with the tag Termination "time forfeit".
  // A move played or taken back afterwards clears it.
  void flag(int side) { flagged_ = side; }
  // The side whose time ran out, if the game ended so.
  std::optional<int> flagged_side() const { return flagged_; }

  // Plays `move` (0-based pit) in the current position. Throws ParseError when it is
  // not a legal move there (the game is over, the pit is empty or a tuzdyk, no such pit).
  Position::MoveInfo play(int move);

  // Takes moves back so that the first `ply` remain. Refused (false, nothing changes)
  // when `ply` is beyond the moves played.
  bool undo_to(size_t ply);
  // Takes back the last ply; false at the start.
  bool undo();
  // Takes back `side`'s last move and every move after it (the other side's replies);
  // returns the plies taken back, 0 (nothing changes) when `side` has not moved.
  size_t undo_side(int side);
  // The ply (0-based) of `side`'s last move, if it has moved.
  std::optional<size_t> last_move_of(int side) const;

  // The game's own tags, in order: those of a loaded record, or set by its owner.
  const RecordTags& tags() const { return tags_; }
  // The value of tag `name`, or `fallback` when the game has no such tag.
  std::string tag(const std::string& name, const std::string& fallback = "") const;
  // Sets a tag (replacing one of that name, else appended).
  void set_tag(const std::string& name, const std::string& value);
  // Replaces all the game's own tags (a loaded record's).
  void set_tags(RecordTags tags) { tags_ = std::move(tags); }

  // The tags the record is written with: the game's own tags in their order, then Event
  // ("KumalakZero game"), Site, Date (today's, when the session was made), White and
  // Black where the game has none of that name; Result, Variant and FEN (only when the
  // game did not start from the usual position) always from the game itself, and the
  // Annotator when `header` names one.
  RecordTags record_tags(const RecordHeader& header) const;
  // The record as text (core/notation.h's write_pgn): record_tags, the moves with `(n)`
  // annotations, and `comments_after_move` (one per move, or none) as comments.
  std::string record(const RecordHeader& header,
                     const std::vector<std::string>& comments_after_move = {}) const;

 private:
  GameSpec spec_;
  std::vector<Position> positions_;  // the start, then the position after each move
  std::vector<int> moves_;
  RecordTags tags_;
  std::string date_;            // the Date tag when the game's own tags have none
  std::optional<int> flagged_;  // the side that lost (or drew) on time
};

}  // namespace kz
