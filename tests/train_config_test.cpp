// The run config refuses what it cannot mean: NaN and infinities (which
// passed every range check), a Dirichlet alpha that silently turned the noise off, a
// device no tool accepts; and every refusal names the file and the line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/test_util.h"
#include "train/config.h"

namespace kz {
namespace {

std::string tiny_config() {
  std::ifstream in(test::source_dir() + "/configs/tiny.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// tiny.toml with `key = old...` replaced by `key = value` (the key must be in it).
std::string with(const std::string& key, const std::string& value) {
  std::string text = tiny_config();
  const size_t at = text.find("\n" + key + " = ");
  EXPECT_NE(at, std::string::npos) << key;
  const size_t end = text.find('\n', at + 1);
  return text.substr(0, at + 1) + key + " = " + value + text.substr(end);
}

int line_of(const std::string& text, const std::string& key) {
  const size_t at = text.find("\n" + key + " = ");
  int line = 1;
  for (size_t i = 0; i <= at; ++i) line += text[i] == '\n';
  return line;
}

std::string error_of(const std::string& text) {
  try {
    parse_config(text, "run.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigHostile, TinyConfigLoads) {
  EXPECT_EQ(error_of(tiny_config()), "");
}

TEST(ConfigHostile, NanAndInfinityAreRefusedWithFileAndLine) {
  for (const char* bad : {"nan", "inf", "-inf", "+nan"}) {
    const std::string text = with("full_search_fraction", bad);
    const std::string e = error_of(text);
    EXPECT_NE(e.find("run.toml:" + std::to_string(line_of(text, "full_search_fraction")) + ":"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("full_search_fraction"), std::string::npos) << e;
    EXPECT_NE(e.find("finite"), std::string::npos) << e;
  }
}

TEST(ConfigHostile, RangeErrorsNameTheLine) {
  const std::string text = with("full_search_fraction", "1.5");
  const std::string e = error_of(text);
  EXPECT_EQ(e, "run.toml:" + std::to_string(line_of(text, "full_search_fraction")) +
                   ": [selfplay] full_search_fraction = 1.5 is outside 0..1");
}

// Found by tests/fuzz/fuzz_config: an integer a double cannot hold exactly, where a
// number is expected, threw std::bad_optional_access out of the reader.
TEST(ConfigHostile, HugeIntegersWhereNumbersAreExpected) {
  const std::string e = error_of(with("full_search_fraction", "1000000000000000004"));
  EXPECT_NE(e.find("full_search_fraction = "), std::string::npos) << e;
  EXPECT_NE(e.find(" is outside 0..1"), std::string::npos) << e;
  EXPECT_NE(error_of(with("max_plies", "1000000000000000004")).find("out of range"),
            std::string::npos);
}

TEST(ConfigHostile, DirichletAlphaMustBePositive) {
  for (const char* bad : {"-1", "0"})
    EXPECT_NE(error_of(with("dirichlet_alpha", bad)).find("dirichlet_alpha"), std::string::npos)
        << bad;
}

TEST(ConfigHostile, DeviceNamesAreThoseEveryToolAccepts) {
  EXPECT_NE(error_of(with("device", "\"tpu\"")).find("device 'tpu'"), std::string::npos);
  EXPECT_NE(error_of(with("device", "\"cuda:x\"")).find("device"), std::string::npos);
  EXPECT_EQ(error_of(with("device", "\"cuda:1\"")), "");
}

TEST(ConfigHostile, ADirectoryIsNotAConfig) {
  const std::string dir = test::temp_dir("kz-config-dir");
  try {
    load_config(dir);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kz
