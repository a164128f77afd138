// core/numbers.h's readers and writers of numbers: the same syntax and the same text with
// either standard library (the native build's libstdc++ has the floating-point
// from_chars and to_chars; the WebAssembly build's libc++ has not, and runs these tests
// under Node against its own fallback).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/numbers.h"

namespace kz {
namespace {

struct Read {
  bool ok = false;
  double value = 0;
  size_t used = 0;  // characters read
};

Read read(const std::string& text) {
  Read r;
  const auto [end, ec] = double_from_chars(text.data(), text.data() + text.size(), r.value);
  r.ok = ec == std::errc();
  r.used = size_t(end - text.data());
  return r;
}

TEST(Numbers, DoubleFromCharsReadsFromCharsSyntax) {
  struct Case {
    const char* text;
    double value;
    size_t used;
  };
  const Case good[] = {
      {"0", 0, 1},
      {"42", 42, 2},
      {"-2.5", -2.5, 4},
      {".5", 0.5, 2},
      {"5.", 5, 2},
      {"1e3", 1000, 3},
      {"1E-2", 0.01, 4},
      {"2.5e+1", 25, 6},
      {"1e", 1, 1},
      {"1e+", 1, 1},
      {"3x", 3, 1},
      {"0.1", 0.1, 3},
      {"123456789012345678", 123456789012345678.0, 18},
  };
  for (const Case& c : good) {
    const Read r = read(c.text);
    EXPECT_TRUE(r.ok) << c.text;
    EXPECT_EQ(r.value, c.value) << c.text;
    EXPECT_EQ(r.used, c.used) << c.text;
  }
  // What strtod alone would take and from_chars does not: a sign '+', spaces, hexadecimal.
  for (const char* bad : {"+1", " 1", "", "-", ".", "e5", "-e5", "x"}) {
    const Read r = read(bad);
    EXPECT_FALSE(r.ok) << "'" << bad << "'";
  }
  const Read hex = read("0x10");
  EXPECT_TRUE(hex.ok);
  EXPECT_EQ(hex.value, 0);  // the 0, then "x10" is not part of the number
  EXPECT_EQ(hex.used, 1u);
  // Infinities and NaN are read (parse_real then refuses them as not finite).
  EXPECT_TRUE(std::isinf(read("inf").value));
  EXPECT_TRUE(std::isinf(read("-Infinity").value));
  EXPECT_TRUE(std::isnan(read("nan").value));
  EXPECT_EQ(read("1e999").ok, false);  // out of range
}

TEST(Numbers, ParseRealTakesTheWholeTextOnly) {
  EXPECT_EQ(parse_real("0.25", 0, 1, "x"), 0.25);
  EXPECT_EQ(parse_real("-3", -5, 5, "x"), -3);
  for (const char* bad : {"+0.5", "0.5 ", " 0.5", "0x1", "nan", "inf", "1e999", "2", "0.5x"})
    EXPECT_THROW(parse_real(bad, 0, 1, "x"), ParseError) << bad;
}

TEST(Numbers, ShortestNumberTextReadsBackAsTheSameDouble) {
  for (const double v : {0.0, 1.0, -2.5, 0.1, 1.0 / 3.0, 1e-7, 123456.789, 6.02214076e23,
                         std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                         std::numeric_limits<double>::denorm_min()}) {
    const std::string text = shortest_number_text(v);
    double back = 0;
    const auto [end, ec] = double_from_chars(text.data(), text.data() + text.size(), back);
    EXPECT_TRUE(ec == std::errc()) << text;
    EXPECT_EQ(end, text.data() + text.size()) << text;
    EXPECT_EQ(back, v) << text;
  }
  EXPECT_EQ(shortest_number_text(0.1), "0.1");
  EXPECT_EQ(shortest_number_text(42), "42");
  EXPECT_EQ(shortest_number_text(-2.5), "-2.5");
}

}  // namespace
}  // namespace kz
