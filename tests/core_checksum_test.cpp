// core/checksum.h and the hashes built on it: published check values, and the values
// that seeded runs were made with (self-play's game seeds, Position::hash), which must
// never change by accident: a different number here means every seeded shard, match
// and search result of the project comes out different.
#include <gtest/gtest.h>

#include <bit>
#include <string>

#include "core/checksum.h"
#include "core/position.h"

namespace kz {
namespace {

TEST(Checksum, Fnv1a64MatchesThePublishedValuesAndChains) {
  EXPECT_EQ(fnv1a64(std::string_view()), kFnv1a64Start);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  using namespace std::string_view_literals;
  EXPECT_EQ(fnv1a64("bar"sv, fnv1a64("foo")), fnv1a64("foobar"));
  const uint8_t byte = 7;
  EXPECT_EQ(fnv1a64_value(byte, 12345), fnv1a64(&byte, 1, 12345));
}

TEST(Checksum, Mix64IsSplitmix64sFinaliser) {
  EXPECT_EQ(mix64(0), 0u);
  // The first output of splitmix64 seeded with 0.
  EXPECT_EQ(mix64(0 + kGoldenGamma), 0xe220a8397b1dcdafull);
}

// The seeds self-play's games have always had (its former mix_seed).
TEST(Checksum, DeriveSeedKeepsSelfPlaysGameSeeds) {
  EXPECT_EQ(derive_seed(11, 0), 0x35c6309ed6dafa95ull);
  EXPECT_EQ(derive_seed(11, 1000003 * 2 + 5), 0x06ffe2c9820bee27ull);
  EXPECT_EQ(derive_seed(0, 0), 0x87d98e19fa0970d6ull);
  EXPECT_NE(derive_seed(11, 1), derive_seed(12, 0));
}

// The position hash keys the evaluation cache and the alpha-beta table and seeds the
// rollout evaluator: these are the values every recorded result was searched with
// (it hashes the position's bytes as they lie in memory: little-endian hosts).
TEST(Checksum, PositionHashKeepsItsValues) {
  if constexpr (std::endian::native != std::endian::little) GTEST_SKIP();
  struct Case {
    const char* game;
    int move;
    uint64_t start, after;
  };
  for (const Case& c : {Case{"togyz", 4, 0x2ab8fdf46984c9c5ull, 0x2eaa2019754cae88ull},
                        Case{"kalah", 2, 0x7f88bddb754727abull, 0x6131373f0620aa89ull},
                        Case{"kalah:4,3,empty", 2, 0x3a5c8e53b399221full, 0x7d2877c819f49c78ull}}) {
    Position p = Position::start(GameSpec::parse(c.game));
    EXPECT_EQ(p.hash(), c.start) << c.game;
    p.play(c.move);
    EXPECT_EQ(p.hash(), c.after) << c.game;
  }
}

}  // namespace
}  // namespace kz
