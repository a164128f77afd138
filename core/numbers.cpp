#include "core/numbers.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace kz {

std::string number_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::ostringstream s;
  s.precision(15);
  s << value;
  return s.str();
}

namespace {
std::string range_text(double lo, double hi) {
  return number_text(lo) + ".." + number_text(hi);
}
}  // namespace

int64_t parse_integer(std::string_view text, int64_t lo, int64_t hi, const std::string& what) {
  auto fail = [&] {
    return ParseError(what + ": '" + std::string(text) + "' is not a whole number in " +
                      std::to_string(lo) + ".." + std::to_string(hi));
  };
  // from_chars takes no '+' and no spaces; a '-' is refused unless negatives are allowed,
  // so that "-0" and "+0" are treated alike.
  if (text.empty() || (text[0] == '-' && lo >= 0)) throw fail();
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) throw fail();
  return v;
}

double parse_real(std::string_view text, double lo, double hi, const std::string& what) {
  auto fail = [&] {
    return ParseError(what + ": '" + std::string(text) + "' is not a number in " +
                      range_text(lo, hi));
  };
  if (text.empty() || (text[0] == '-' && lo >= 0)) throw fail();
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // from_chars also reads "nan" and "inf": both fail the finiteness check.
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < lo ||
      v > hi)
    throw fail();
  return v;
}

void require_in_range(double value, double lo, double hi, const std::string& what) {
  if (!std::isfinite(value))
    throw ParseError(what + " = " + number_text(value) + " is not a finite number (expected " +
                     range_text(lo, hi) + ")");
  if (value < lo || value > hi)
    throw ParseError(what + " = " + number_text(value) + " is outside " + range_text(lo, hi));
}

}  // namespace kz
