#include "core/clock_control.h"

#include <cmath>

#include "core/position.h"

namespace kz {

namespace {

constexpr int64_t kSecondMs = 1000;
constexpr int64_t kMinuteMs = 60 * kSecondMs;
constexpr int64_t kHourMs = 60 * kMinuteMs;

// "1.5", "0.125", "10": seconds with the trailing zeros of the fraction left out.
std::string seconds_text(int64_t ms) {
  std::string s = std::to_string(ms / kSecondMs);
  if (const int64_t frac = ms % kSecondMs; frac != 0) {
    std::string f = std::to_string(frac);
    f.insert(0, 3 - f.size(), '0');
    while (f.back() == '0') f.pop_back();
    s += '.';
    s += f;
  }
  return s;
}

// One part of a time control ("5m", "0.1", "90s") in milliseconds. `default_unit_ms`
// applies when no unit is written; `part` names the part in messages ("base").
int64_t parse_duration(std::string_view whole, std::string_view text, int64_t default_unit_ms,
                       const char* part, int64_t max_ms) {
  auto fail = [&](const std::string& why) {
    return ParseError("time control '" + std::string(whole) + "': the " + part + " '" +
                      std::string(text) + "' " + why);
  };
  if (text.empty()) throw fail("is empty");
  if (text[0] == '-') throw fail("is negative");
  size_t i = 0;
  int64_t whole_part = 0;
  int digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    // More than 12 digits is far beyond any limit; stop before int64 could overflow.
    if (++digits > 12) throw fail("is too long a number");
    whole_part = whole_part * 10 + (text[i++] - '0');
  }
  double fraction = 0;
  int fraction_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    double scale = 0.1;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      fraction += (text[i++] - '0') * scale;
      scale /= 10;
      ++fraction_digits;
    }
    if (fraction_digits == 0) throw fail("has no digits after its decimal point");
  }
  if (digits == 0 && fraction_digits == 0) throw fail("is not a number");
  const std::string_view unit = text.substr(i);
  int64_t unit_ms = default_unit_ms;
  if (unit == "h")
    unit_ms = kHourMs;
  else if (unit == "m" || unit == "min")
    unit_ms = kMinuteMs;
  else if (unit == "s")
    unit_ms = kSecondMs;
  else if (unit == "ms")
    unit_ms = 1;
  else if (!unit.empty())
    throw fail("has an unknown unit '" + std::string(unit) + "' (expected h, m, s or ms)");
  const double ms = std::round((double(whole_part) + fraction) * double(unit_ms));
  if (ms > double(max_ms))
    throw fail("is more than " + seconds_text(max_ms) + " s (" + std::to_string(max_ms / kHourMs) +
               " h), surely a slip");
  return int64_t(ms);
}

}  // namespace

std::string ClockControl::text() const {
  if (base_ms % kMinuteMs == 0 && increment_ms % kSecondMs == 0)
    return std::to_string(base_ms / kMinuteMs) + "+" + std::to_string(increment_ms / kSecondMs);
  return seconds_text(base_ms) + "s+" + seconds_text(increment_ms);
}

std::string ClockControl::pgn_text() const {
  std::string s = seconds_text(base_ms);
  if (increment_ms > 0) {
    s += '+';
    s += seconds_text(increment_ms);
  }
  return s;
}

ClockControl parse_clock_control(std::string_view text) {
  for (const ClockControlPreset& p : clock_control_presets())
    if (text == p.name) return p.control;
  const size_t plus = text.find('+');
  const std::string_view base = text.substr(0, plus);
  ClockControl tc;
  if (text.empty())
    throw ParseError("time control '': empty (expected minutes+seconds such as 5+3, or a preset)");
  tc.base_ms = parse_duration(text, base, kMinuteMs, "base", kMaxBaseMs);
  if (tc.base_ms <= 0)
    throw ParseError("time control '" + std::string(text) +
                     "': the base must be at least a millisecond (a clock that starts at zero "
                     "has lost already)");
  if (plus != std::string_view::npos) {
    const std::string_view inc = text.substr(plus + 1);
    if (inc.find('+') != std::string_view::npos)
      throw ParseError("time control '" + std::string(text) +
                       "': more than one '+' (expected base+increment)");
    tc.increment_ms = parse_duration(text, inc, kSecondMs, "increment", kMaxIncrementMs);
  }
  return tc;
}

const std::vector<ClockControlPreset>& clock_control_presets() {
  static const std::vector<ClockControlPreset> presets = {
      {"playok-1", {1 * kMinuteMs, 0}, "1 min, no increment (PlayOK bullet)"},
      {"playok-2", {2 * kMinuteMs, 0}, "2 min, no increment (PlayOK, the second most played)"},
      {"playok-3", {3 * kMinuteMs, 0}, "3 min, no increment (PlayOK)"},
      {"playok-5", {5 * kMinuteMs, 0}, "5 min, no increment (PlayOK, the most played)"},
      {"playok-7", {7 * kMinuteMs, 0}, "7 min, no increment (PlayOK)"},
      {"playok-10", {10 * kMinuteMs, 0}, "10 min, no increment (PlayOK)"},
      {"playok-15", {15 * kMinuteMs, 0}, "15 min, no increment (PlayOK)"},
      {"playok-40", {40 * kMinuteMs, 0}, "40 min, no increment (PlayOK, rare)"},
  };
  return presets;
}

}  // namespace kz
