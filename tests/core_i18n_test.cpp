// The message machinery every player-facing sentence goes through: named placeholders
// filled whatever their order, a missing argument left visible, literal braces, and the
// plural form chosen by the count.
#include <gtest/gtest.h>

#include "core/i18n.h"

using kz::i18n::fill;
using kz::i18n::tr;
using kz::i18n::trn;

TEST(I18n, FillsNamedPlaceholdersInAnyOrder) {
  EXPECT_EQ(fill("{b} after {a}", {{"a", "first"}, {"b", 2}}), "2 after first");
  EXPECT_EQ(fill("{a}{a}", {{"a", "x"}}), "xx");
}

TEST(I18n, LeavesAPlaceholderWithoutArgumentVisible) {
  EXPECT_EQ(fill("play {move} now", {}), "play {move} now");
  EXPECT_EQ(fill("open {brace", {{"brace", "b"}}), "open {brace");
}

TEST(I18n, DoubledBracesAreLiteral) {
  EXPECT_EQ(fill("{{x}} is {x}", {{"x", 1}}), "{x} is 1");
}

TEST(I18n, EnglishIsTheSourceLanguage) {
  EXPECT_EQ(tr("Most players at {rating} play {move} here.", {{"rating", 1300}, {"move", "7"}}),
            "Most players at 1300 play 7 here.");
}

TEST(I18n, PluralFormFollowsTheCount) {
  EXPECT_EQ(trn("{n} stone", "{n} stones", 1), "1 stone");
  EXPECT_EQ(trn("{n} stone", "{n} stones", 0), "0 stones");
  EXPECT_EQ(trn("{n} stone in hole {hole}", "{n} stones in hole {hole}", 5, {{"hole", 3}}),
            "5 stones in hole 3");
}
