// The one check every number from outside goes through: command-line options, protocol
// commands and config keys. A number is accepted only when it is written completely
// (no trailing text), is finite (never NaN or infinity: NaN passes every `<` and `>=`
// comparison, which is how it slipped through range checks before) and lies in the
// range the caller states. The messages name the thing and the accepted range.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/position.h"

namespace kz {

// The longest think any command accepts (hint/analyze --movetime, the protocol's
// movetime): a million seconds, about 11.6 days. Longer budgets are refused rather than
// passed on, because they overflow the engines' clocks.
inline constexpr double kMaxMoveTimeSeconds = 1e6;

// Parses the whole of `text` as an integer in [lo, hi]; throws ParseError naming `what`.
// A sign is allowed only when `lo` is negative, so "-0" is refused like "+0".
int64_t parse_integer(std::string_view text, int64_t lo, int64_t hi, const std::string& what);

// Parses the whole of `text` as a finite decimal number in [lo, hi]; throws ParseError.
double parse_real(std::string_view text, double lo, double hi, const std::string& what);

// Checks a number already converted elsewhere (by CLI11, by the TOML reader): finite and
// in [lo, hi]. Throws ParseError "what = value is outside lo..hi" / "is not a number".
void require_in_range(double value, double lo, double hi, const std::string& what);

// std::from_chars for a double (general format: an optional '-', digits with an optional
// '.', an optional exponent; "inf", "nan"), also where the standard library has only its
// integer overloads (libc++ before 17, the WebAssembly build's).
std::from_chars_result double_from_chars(const char* first, const char* last, double& value);

// The shortest text that reads back as the same double (std::to_chars' own; "%.17g"'s
// shortest round-trip where the standard library lacks it, as above).
std::string shortest_number_text(double value);

// The same text as the messages above for a value (integers without ".0").
std::string number_text(double value);

}  // namespace kz
