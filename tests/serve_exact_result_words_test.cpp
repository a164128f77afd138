// A solved Kalah position in words (tools/exact_result_words.h): the result and every
// move's margin, best first, as one sentence per case in the player's language.
#include <gtest/gtest.h>

#include "core/i18n.h"
#include "tools/exact_result_words.h"

namespace kz {
namespace {

TEST(ExactResultWords, DescribesTheExactResult) {
  const Position p = Position::start(GameSpec::parse("kalah:4,3"));
  KalahSolver solver(8);
  const SolveResult r = solver.solve(p, {}, true);
  const std::string s = describe_exact_result(p, r);
  EXPECT_EQ(s.rfind("solved: you win by 6 with perfect play; pit 2 keeps +6", 0), 0u) << s;
  for (uint32_t mask = p.legal_mask(); mask; mask &= mask - 1) {
    const int mv = __builtin_ctz(mask);
    EXPECT_NE(s.find("pit " + std::to_string(mv + 1)), std::string::npos) << s;
    EXPECT_EQ(stones_lost(r, mv), r.margin - r.move_margin[mv]);
    EXPECT_GE(stones_lost(r, mv), 0);
  }
  EXPECT_NE(s.find("drops to"), std::string::npos) << s;
  EXPECT_EQ(stones_lost(r, 8), -1);
  // In the player's language, the same sentence as a whole.
  const i18n::ScopedLanguage russian("ru");
  const std::string ru = describe_exact_result(p, r);
  EXPECT_EQ(
      ru.rfind(
          "решено: при идеальной игре вы побеждаете с перевесом 6; лунка 2 сохраняет перевес +6",
          0),
      0u)
      << ru;
  EXPECT_NE(ru.find("снижает перевес до"), std::string::npos) << ru;
}

TEST(ExactResultWords, AnUnsolvedPositionSaysSo) {
  EXPECT_EQ(describe_exact_result(Position::start(GameSpec::parse("kalah")), SolveResult{}),
            "not solved within the limits");
}

}  // namespace
}  // namespace kz
