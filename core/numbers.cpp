#include "core/numbers.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

std::from_chars_result double_from_chars(const char* first, const char* last, double& value) {
#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
  // The longest prefix in from_chars' syntax, converted by strtod (the "C" locale: nothing
  // here sets another), which alone would also take spaces, '+' and hexadecimal.
  const char* p = first;
  if (p < last && *p == '-') ++p;
  auto word = [&](const char* w) {
    const char* q = p;
    for (; *w; ++w, ++q)
      if (q == last || std::tolower(static_cast<unsigned char>(*q)) != *w) return false;
    p = q;
    return true;
  };
  auto digits = [&] {
    const char* start = p;
    while (p < last && *p >= '0' && *p <= '9') ++p;
    return p - start;
  };
  if (!word("infinity") && !word("inf") && !word("nan")) {
    const auto whole = digits();
    auto fraction = decltype(whole)(0);
    if (p < last && *p == '.') {
      ++p;
      fraction = digits();
    }
    if (whole + fraction == 0) return {first, std::errc::invalid_argument};
    if (p < last && (*p == 'e' || *p == 'E')) {
      const char* mark = p++;
      if (p < last && (*p == '+' || *p == '-')) ++p;
      if (digits() == 0) p = mark;  // "1e" is the number 1 followed by "e"
    }
  }
  const std::string text(first, p);
  errno = 0;
  const double v = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(v)) return {p, std::errc::result_out_of_range};
  value = v;
  return {p, std::errc()};
#else
  return std::from_chars(first, last, value);
#endif
}

std::string shortest_number_text(double value) {
  char buf[64];
#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value || !std::isfinite(value)) break;
  }
  return buf;
#else
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, res.ptr);
#endif
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
  const auto [end, ec] = double_from_chars(text.data(), text.data() + text.size(), v);
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
