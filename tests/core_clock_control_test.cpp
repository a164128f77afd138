// Time controls as players write them, and what is refused: core/clock_control.h.
#include <gtest/gtest.h>

#include <string>

#include "core/clock_control.h"
#include "core/position.h"

namespace kz {
namespace {

ClockControl tc(int64_t base_ms, int64_t increment_ms) {
  return ClockControl{base_ms, increment_ms};
}

TEST(ClockControl, ReadsTheUsualForms) {
  EXPECT_EQ(parse_clock_control("5+3"), tc(300000, 3000));  // minutes + seconds
  EXPECT_EQ(parse_clock_control("5m+3s"), tc(300000, 3000));
  EXPECT_EQ(parse_clock_control("5min+3"), tc(300000, 3000));
  EXPECT_EQ(parse_clock_control("90s+1"), tc(90000, 1000));
  EXPECT_EQ(parse_clock_control("3h"), tc(3 * 3600000, 0));
  EXPECT_EQ(parse_clock_control("10s+0.1"), tc(10000, 100));
  EXPECT_EQ(parse_clock_control("1+1"), tc(60000, 1000));
  EXPECT_EQ(parse_clock_control("0.5+0"), tc(30000, 0));
  EXPECT_EQ(parse_clock_control("7"), tc(420000, 0));
  EXPECT_EQ(parse_clock_control("250ms+10ms"), tc(250, 10));
  EXPECT_EQ(parse_clock_control("1m+0.5m"), tc(60000, 30000));
}

TEST(ClockControl, PgnTextIsSecondsAsPlayOkWritesIt) {
  EXPECT_EQ(parse_clock_control("5").pgn_text(), "300");
  EXPECT_EQ(parse_clock_control("5+3").pgn_text(), "300+3");
  EXPECT_EQ(parse_clock_control("10s+0.1").pgn_text(), "10+0.1");
  EXPECT_EQ(parse_clock_control("300ms").pgn_text(), "0.3");
}

TEST(ClockControl, TheLimitsThemselvesAreAccepted) {
  EXPECT_EQ(parse_clock_control("24h+1h"), tc(kMaxBaseMs, kMaxIncrementMs));
  EXPECT_EQ(parse_clock_control("1ms"), tc(1, 0));
  EXPECT_EQ(parse_clock_control("0.001s+0"), tc(1, 0));
}

TEST(ClockControl, TextReadsBackToTheSameControl) {
  for (const char* text : {"5+3", "10s+0.1", "90s+1", "3h", "0.5+0", "1ms", "24h+1h", "7+0.25"}) {
    const ClockControl t = parse_clock_control(text);
    EXPECT_EQ(parse_clock_control(t.text()), t) << text << " -> " << t.text();
  }
  EXPECT_EQ(parse_clock_control("5m+3s").text(), "5+3");
  EXPECT_EQ(parse_clock_control("10s+0.1").text(), "10s+0.1");
  EXPECT_EQ(parse_clock_control("3h").text(), "180+0");
}

// Each refusal names the text and says what is wrong with it.
TEST(ClockControl, RefusesWithTheTextAndTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"0+3", "at least a millisecond"},
      {"0", "at least a millisecond"},
      {"0.0001s", "at least a millisecond"},
      {"-5+3", "is negative"},
      {"5+-3", "is negative"},
      {"5+", "the increment '' is empty"},
      {"+3", "the base '' is empty"},
      {"abc", "is not a number"},
      {"5x+3", "unknown unit 'x'"},
      {"5+3d", "unknown unit 'd'"},
      {"5.+3", "no digits after its decimal point"},
      {"5+3+1", "more than one '+'"},
      {"525600", "surely a slip"},  // a year, in minutes
      {"25h", "surely a slip"},
      {"5+2h", "surely a slip"},
      {"99999999999999999999", "too long a number"},
      {"1e3", "unknown unit 'e3'"},
      {"nan", "is not a number"},
      {" 5+3", "is not a number"},
  };
  for (const auto& [text, why] : cases) {
    try {
      parse_clock_control(text);
      ADD_FAILURE() << "'" << text << "' was accepted";
    } catch (const ParseError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("time control '" + std::string(text) + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(why), std::string::npos) << text << ": " << msg;
    }
  }
}

TEST(ClockControl, PresetsAreThePlayOkBasesByName) {
  const auto& presets = clock_control_presets();
  ASSERT_EQ(presets.size(), 8u);
  const int64_t minutes[] = {1, 2, 3, 5, 7, 10, 15, 40};
  for (size_t i = 0; i < presets.size(); ++i) {
    EXPECT_EQ(presets[i].control, tc(minutes[i] * 60000, 0)) << presets[i].name;
    EXPECT_EQ(parse_clock_control(presets[i].name), presets[i].control);
    EXPECT_EQ(std::string(presets[i].name), "playok-" + std::to_string(minutes[i]));
  }
  EXPECT_THROW(parse_clock_control("playok-4"), ParseError);
}

}  // namespace
}  // namespace kz
