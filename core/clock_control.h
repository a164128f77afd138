// Time controls as players give them to a clock: how much time each side has for the
// whole game. (A record's TimeControl tag, whole seconds, is read leniently by
// core/rated_games.h's parse_time_control; pgn_text() writes that form.) A ClockControl
// is a base time plus a Fischer increment added to the mover's clock after every move it
// completes in time (the form PlayOK and most tournaments use; a Bronstein or simple
// delay is not modelled: none of the records we have carry one). Parsed from the short
// forms players write ("5+3", "5m+3s", "90s+1", "3h", "10s+0.1") or named by a preset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kz {

struct ClockControl {
  int64_t base_ms = 0;       // each side's time at the start, > 0
  int64_t increment_ms = 0;  // added to the mover's clock after each move in time, >= 0

  // The canonical text, which parse_clock_control() reads back to the same control:
  // "5+3" for whole minutes and whole seconds, otherwise with units ("90s+1",
  // "10s+0.1", "1h30m+0"... written as "90m+0").
  std::string text() const;
  // The PGN standard's TimeControl tag: seconds, then "+" and the increment's seconds
  // when there is one ("300", "300+3", "10+0.1"); PlayOK writes the first form.
  std::string pgn_text() const;
  bool operator==(const ClockControl&) const = default;
};

// The longest base and increment accepted: a day and an hour. A championship game is
// three hours a side at most; anything longer is a typing slip ("300" meant as seconds
// but read as minutes is five hours and still accepted; "525600" minutes, a year, is not).
inline constexpr int64_t kMaxBaseMs = int64_t(24) * 3600 * 1000;
inline constexpr int64_t kMaxIncrementMs = int64_t(3600) * 1000;

// Parses "<base>[+<increment>]" or a preset's name (clock_control_presets()).
//   base: a number with an optional unit h, m (or min), s or ms; without one, minutes.
//   increment: a number with the same units; without one, seconds.
// Numbers may have a decimal fraction ("0.5+0", "10s+0.1"); the result is rounded to
// whole milliseconds. Throws ParseError naming the text and what is wrong: empty,
// not a number, an unknown unit, a negative or zero base, a base under a millisecond,
// a base beyond a day or an increment beyond an hour.
ClockControl parse_clock_control(std::string_view text);

// A named time control that `--clock` and the protocol scripts accept by name.
struct ClockControlPreset {
  const char* name;
  ClockControl control;
  const char* meaning;  // one line for the help text
};

// PlayOK's Togyz rooms: the bases found in the TimeControl tags of 2972 PlayOK games
// (../shared/data/togyz/playok-*.pgn, 2024-25): 60, 120, 180, 300, 420, 600, 900 and
// 2400 seconds (300 the most common, 859 games; 2400 the rarest, 3). The tag holds the
// base only, so these presets have no increment. Named playok-<minutes>.
const std::vector<ClockControlPreset>& clock_control_presets();

}  // namespace kz
