// Properties that must hold in every position of many random games of every game:
// stones are conserved, games end, position strings round-trip, equal positions hash
// equally (and different ones, in practice, differently).
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/position.h"

namespace kz {
namespace {

// Random games far longer than this never happened in 200,000 Togyz games (the longest
// had 521 plies); Kalah games are much shorter. A game that runs past it is a bug.
constexpr int kMaxPlies = 2000;

void check_position(const Position& p, const GameSpec& spec) {
  const int total = spec.is_togyz() ? kTogyzStones : spec.total_seeds();
  ASSERT_EQ(p.total_stones(), total) << p.to_string();
  ASSERT_EQ(p.variant, spec.variant);
  ASSERT_EQ(p.npits, spec.pits);
  // Holes beyond the board stay empty.
  for (int pl = 0; pl < 2; ++pl)
    for (int i = p.npits; i < kMaxPits; ++i) ASSERT_EQ(p.pit(pl, i), 0) << p.to_string();
  // Tuzdyks: Togyz only, empty, never on hole 9, never symmetric, never moved from.
  if (spec.is_togyz()) {
    for (int pl = 0; pl < 2; ++pl) {
      const int t = p.tuzdyk[pl];
      if (t == kNoTuzdyk) continue;
      ASSERT_TRUE(t >= 0 && t < 8) << p.to_string();
      ASSERT_EQ(p.pit(pl ^ 1, t), 0) << p.to_string();
      ASSERT_NE(p.tuzdyk[pl ^ 1], t) << p.to_string();
    }
  } else {
    ASSERT_EQ(p.tuzdyk[0], kNoTuzdyk);
    ASSERT_EQ(p.tuzdyk[1], kNoTuzdyk);
  }
  // Over exactly when the rules say so, and then the board is empty.
  ASSERT_EQ(p.is_over(), p.legal_mask() == 0) << p.to_string();
  if (p.is_over()) {
    for (int i = 0; i < 2 * kMaxPits; ++i) ASSERT_EQ(p.pits[i], 0) << p.to_string();
    ASSERT_NE(p.outcome(), Outcome::kOngoing);
  }
  if (p.is_decided()) {
    ASSERT_NE(p.outcome(), Outcome::kOngoing);
  }
  // The position string round-trips, and what parses is the same position and hash.
  const std::string s = p.to_string();
  const Position back = Position::parse(s, spec);
  ASSERT_EQ(back, p) << s;
  ASSERT_EQ(back.to_string(), s);
  ASSERT_EQ(back.hash(), p.hash()) << s;
}

struct Stats {
  long plies = 0;
  int longest = 0;
};

void random_games(const GameSpec& spec, int games, uint32_t seed, Stats& stats) {
  std::mt19937 rng(seed);
  // Every position seen, by string, with its hash: equal positions reached by different
  // games or move orders must hash alike.
  std::unordered_map<std::string, uint64_t> seen;
  std::unordered_set<uint64_t> hashes;
  for (int g = 0; g < games; ++g) {
    Position p = Position::start(spec);
    int ply = 0;
    while (!p.is_over()) {
      ASSERT_LT(ply, kMaxPlies) << spec.name() << " game " << g << " does not end";
      const Position before = p;
      const int mover = p.to_move;
      const int move = random_legal_move(p, rng);
      ASSERT_TRUE(p.is_legal(move));
      const auto info = p.play(move);
      ++ply;
      check_position(p, spec);
      // Kazans and stores never shrink.
      ASSERT_GE(p.store[0], before.store[0]);
      ASSERT_GE(p.store[1], before.store[1]);
      ASSERT_GE(p.store[mover], before.store[mover] + info.captured);
      ASSERT_EQ(info.ended_game, p.is_over());
      ASSERT_EQ(p.to_move, info.extra_turn ? mover : mover ^ 1);
      if (spec.is_togyz()) {
        ASSERT_FALSE(info.extra_turn);
      }
      const std::string s = p.to_string();
      const auto [it, fresh] = seen.emplace(s, p.hash());
      if (!fresh) {
        ASSERT_EQ(it->second, p.hash()) << s;
      }
      if (fresh) hashes.insert(p.hash());
    }
    stats.plies += ply;
    stats.longest = std::max(stats.longest, ply);
  }
  // Distinct positions get distinct hashes (a 64-bit hash of a few hundred thousand
  // positions: any collision here means the hash ignores something).
  EXPECT_EQ(hashes.size(), seen.size()) << spec.name();
}

TEST(Invariants, TogyzRandomGames) {
  Stats stats;
  random_games(GameSpec::togyz(), 1000, 11, stats);
  EXPECT_GT(stats.plies, 1000 * 100);
  std::printf("[ invarian ] togyz: %ld plies, longest game %d\n", stats.plies, stats.longest);
}

TEST(Invariants, KalahRandomGames) {
  for (const char* game : {"kalah", "bantumi", "kalah:4,3", "kalah:3,3,empty", "kalah:6,6",
                           "kalah:9,12", "kalah:1,1", "kalah:2,12,empty"}) {
    Stats stats;
    random_games(GameSpec::parse(game), 300, 12, stats);
    std::printf("[ invarian ] %s: %ld plies, longest game %d\n", game, stats.plies, stats.longest);
  }
}

TEST(Invariants, HashSeesEveryField) {
  const Position base =
      Position::parse("x,5,5,5,5,5,5,5,0/5,5,5,x,5,5,5,5,5 43 44 w", GameSpec::togyz());
  std::unordered_set<uint64_t> hashes{base.hash()};
  auto differs = [&](Position q) {
    EXPECT_NE(q, base);
    EXPECT_TRUE(hashes.insert(q.hash()).second) << "hash unchanged";
  };
  Position q = base;
  q.to_move = 1;
  differs(q);
  q = base;
  q.pits[1] -= 1;
  q.pits[2] += 1;
  differs(q);
  q = base;
  q.pits[17] -= 1;
  q.store[1] += 1;
  differs(q);
  q = base;
  q.tuzdyk[0] = 4;
  differs(q);
  q = base;
  q.over = 1;
  differs(q);
  q = base;
  q.variant = Variant::kKalah;
  differs(q);
  // Same content, separately built: same hash.
  EXPECT_EQ(Position::parse(base.to_string(), GameSpec::togyz()).hash(), base.hash());
  // Positions with the same pits but a different Kalah size or rule differ.
  const Position k1 = Position::start(GameSpec::parse("kalah:6,4"));
  const Position k2 = Position::start(GameSpec::parse("kalah:6,4,empty"));
  EXPECT_NE(k1.hash(), k2.hash());
}

TEST(Invariants, TranspositionsAreEqualAndHashAlike) {
  // White 1, Black 1, White 5 against White 5, Black 1, White 1: single stones that
  // do not interact, so both orders reach the same position.
  const Position s =
      Position::parse("1,0,0,0,1,0,0,0,20/1,0,0,0,1,0,0,0,20 60 58 w", GameSpec::togyz());
  Position a = s, b = s;
  for (int m : {0, 0, 4}) a.play(m);
  for (int m : {4, 0, 0}) b.play(m);
  EXPECT_EQ(a.to_string(), "0,1,0,0,0,1,0,0,20/0,1,0,0,1,0,0,0,20 60 58 b");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a.hash(), s.hash());
}

}  // namespace
// Random openings and rollouts rely on it: every legal move comes up, about equally
// often, and nothing else ever does.
TEST(Invariants, RandomLegalMoveIsUniformOverTheLegalMoves) {
  // Only White's holes 2, 5 and 9 hold stones.
  const Position pos =
      Position::parse("0,10,0,0,5,0,0,0,3/9,9,9,9,9,9,9,9,9 10 53 w", GameSpec::togyz());
  std::mt19937_64 rng(5);
  std::array<int, kMaxMoves> count{};
  constexpr int kDraws = 30000;
  for (int i = 0; i < kDraws; ++i) {
    const int move = random_legal_move(pos, rng);
    ASSERT_TRUE(pos.is_legal(move)) << move;
    ++count[move];
  }
  for (int move : {1, 4, 8}) EXPECT_NEAR(count[move], kDraws / 3, kDraws / 30) << move;
  EXPECT_EQ(count[1] + count[4] + count[8], kDraws);
}

}  // namespace kz
