// Every Kalah rule of ../shared/rules/kalah.md on hand-made positions, and the game
// names (presets) that every command line accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/position.h"

namespace kz {
namespace {

Position K(const std::string& game, const std::string& s) {
  return Position::parse(s, GameSpec::parse(game));
}

std::string row(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

// A position string for `spec` whose South store takes whatever seeds the rows and the
// North store leave over, so the total is always right.
std::string kalah_string(const GameSpec& spec, const std::vector<int>& south,
                         const std::vector<int>& north, int north_store, char side) {
  int used = north_store;
  for (int v : south) used += v;
  for (int v : north) used += v;
  return row(south) + "/" + row(north) + " " + std::to_string(spec.total_seeds() - used) + " " +
         std::to_string(north_store) + " " + side;
}

TEST(KalahRules, StartPositions) {
  EXPECT_EQ(Position::start(GameSpec::parse("kalah")).to_string(), "4,4,4,4,4,4/4,4,4,4,4,4 0 0 s");
  EXPECT_EQ(Position::start(GameSpec::parse("bantumi")).to_string(), "4,4,4,4,4/4,4,4,4,4 0 0 s");
  EXPECT_EQ(Position::start(GameSpec::parse("kalah:3,2")).to_string(), "2,2,2/2,2,2 0 0 s");
  EXPECT_EQ(Position::start(GameSpec::parse("kalah:9,12")).total_stones(), 216);
  const Position p = Position::start(GameSpec::parse("kalah:4,3"));
  EXPECT_EQ(p.legal_mask(), 0b1111u);
  EXPECT_FALSE(p.is_legal(4));  // pits beyond m do not exist
  EXPECT_EQ(p.npits, 4);
  EXPECT_EQ(p.variant, Variant::kKalah);
}

TEST(KalahRules, LastSeedInOwnStoreGivesAnExtraTurn) {
  Position p = Position::start(GameSpec::parse("kalah"));
  auto info = p.play(2);  // pit 3: pits 4, 5, 6 and the store
  EXPECT_EQ(p.to_string(), "4,4,0,5,5,5/4,4,4,4,4,4 1 0 s");
  EXPECT_TRUE(info.extra_turn);
  EXPECT_EQ(info.landing_player, -1);
  EXPECT_EQ(info.captured, 0);
  EXPECT_FALSE(info.ended_game);
  EXPECT_EQ(p.to_move, 0);

  info = p.play(4);  // pit 5 (5 seeds): pit 6, store, North 1..3
  EXPECT_EQ(p.to_string(), "4,4,0,5,0,6/5,5,5,4,4,4 2 0 n");
  EXPECT_FALSE(info.extra_turn);
  EXPECT_EQ(info.landing_player, 1);
  EXPECT_EQ(info.landing_index, 2);

  // North's extra turn: pit 3 (4 seeds) reaches North's store.
  Position q = K("kalah", "4,4,4,4,4,4/4,4,4,4,4,4 0 0 n");
  info = q.play(2);
  EXPECT_EQ(q.to_string(), "4,4,4,4,4,4/4,4,0,5,5,5 0 1 n");
  EXPECT_TRUE(info.extra_turn);
  EXPECT_EQ(q.to_move, 1);
}

TEST(KalahRules, RepeatedExtraTurnsAndTheEndAfterOne) {
  Position p = K("kalah", "0,0,0,0,2,1/4,4,4,4,4,4 10 11 s");
  auto info = p.play(5);
  EXPECT_EQ(p.to_string(), "0,0,0,0,2,0/4,4,4,4,4,4 11 11 s");
  EXPECT_TRUE(info.extra_turn);
  info = p.play(4);
  EXPECT_EQ(p.to_string(), "0,0,0,0,0,1/4,4,4,4,4,4 12 11 s");
  EXPECT_TRUE(info.extra_turn);
  EXPECT_FALSE(p.is_over());
  // The last seed earns another turn and empties South's row: the game ends at once
  // and North's seeds go to North's store.
  info = p.play(5);
  EXPECT_TRUE(info.extra_turn);
  EXPECT_TRUE(info.ended_game);
  EXPECT_TRUE(p.is_over());
  EXPECT_EQ(p.to_string(), "0,0,0,0,0,0/0,0,0,0,0,0 13 35 s");
  EXPECT_EQ(p.legal_mask(), 0u);
  EXPECT_EQ(p.outcome(), Outcome::kBlackWins);
}

TEST(KalahRules, EndsWhenEitherSideIsEmpty) {
  // South empties its own side by sowing over to North: the game ends.
  Position p = K("kalah", "0,0,0,0,0,3/1,1,1,1,1,1 20 19 s");
  auto info = p.play(5);  // store, North 1, North 2
  EXPECT_TRUE(info.ended_game);
  EXPECT_EQ(p.to_string(), "0,0,0,0,0,0/0,0,0,0,0,0 21 27 n");
  EXPECT_EQ(p.outcome(), Outcome::kBlackWins);
  // Parsing a position with an empty side ends it too (either side, whoever moves).
  const Position q = K("kalah", "1,2,3,0,0,0/0,0,0,0,0,0 20 22 n");
  EXPECT_TRUE(q.is_over());
  EXPECT_EQ(q.to_string(), "0,0,0,0,0,0/0,0,0,0,0,0 26 22 n");
  EXPECT_EQ(q.outcome(), Outcome::kWhiteWins);
  const Position d = K("kalah", "1,2,3,0,0,0/0,0,0,0,0,0 18 24 s");
  EXPECT_TRUE(d.is_over());
  EXPECT_EQ(d.outcome(), Outcome::kDraw);
}

TEST(KalahRules, StandardCaptureAndTheEmptyCaptureRule) {
  // South's pit 1 (one seed) into the empty pit 2, opposite North's pit 5 (6 + 1 - 2).
  Position p = K("kalah", "1,0,4,4,4,4/4,4,4,4,4,4 3 4 s");
  auto info = p.play(0);
  EXPECT_EQ(p.to_string(), "0,0,4,4,4,4/4,4,4,4,0,4 8 4 n");
  EXPECT_EQ(info.captured, 5);
  EXPECT_EQ(info.landing_player, 0);
  EXPECT_EQ(info.landing_index, 1);
  EXPECT_FALSE(info.extra_turn);

  // Opposite pit empty: the standard rule leaves the seed where it is...
  Position std_rule = K("kalah", "1,0,4,4,4,4/4,4,4,4,0,4 5 6 s");
  info = std_rule.play(0);
  EXPECT_EQ(std_rule.to_string(), "0,1,4,4,4,4/4,4,4,4,0,4 5 6 n");
  EXPECT_EQ(info.captured, 0);
  // ... the empty-capture rule takes the lone seed.
  Position empty_rule = K("kalah:6,4,empty", "1,0,4,4,4,4/4,4,4,4,0,4 5 6 s");
  info = empty_rule.play(0);
  EXPECT_EQ(empty_rule.to_string(), "0,0,4,4,4,4/4,4,4,4,0,4 6 6 n");
  EXPECT_EQ(info.captured, 1);
  // Bantumi is the empty-capture rule.
  Position bantumi = K("bantumi", "1,0,4,4,4/4,4,4,0,4 5 6 s");
  info = bantumi.play(0);
  EXPECT_EQ(bantumi.to_string(), "0,0,4,4,4/4,4,4,0,4 6 6 n");
  EXPECT_EQ(info.captured, 1);

  // With the opposite pit holding seeds both rules capture the same.
  Position both = K("kalah:6,4,empty", "1,0,4,4,4,4/4,4,4,4,4,4 3 4 s");
  both.play(0);
  EXPECT_EQ(both.to_string(), "0,0,4,4,4,4/4,4,4,4,0,4 8 4 n");

  // North captures the same way: North's pit 2 is opposite South's pit 5.
  Position north = K("kalah", "4,4,4,4,4,4/1,0,4,4,4,4 4 3 n");
  info = north.play(0);
  EXPECT_EQ(north.to_string(), "4,4,4,4,0,4/0,0,4,4,4,4 4 8 s");
  EXPECT_EQ(info.captured, 5);
}

TEST(KalahRules, NoCaptureOnANonEmptyPitOrTheOpponentsSide) {
  for (const char* game : {"kalah", "kalah:6,4,empty"}) {
    SCOPED_TRACE(game);
    Position own = K(game, "1,1,4,4,4,4/4,4,4,4,4,4 2 4 s");  // pit 2 already has a seed
    auto info = own.play(0);
    EXPECT_EQ(own.to_string(), "0,2,4,4,4,4/4,4,4,4,4,4 2 4 n");
    EXPECT_EQ(info.captured, 0);

    // The last seed on North's empty pit 1: nothing happens.
    Position theirs = K(game, "4,4,4,4,4,2/0,4,4,4,4,4 2 4 s");
    info = theirs.play(5);
    EXPECT_EQ(theirs.to_string(), "4,4,4,4,4,0/1,4,4,4,4,4 3 4 n");
    EXPECT_EQ(info.captured, 0);
    EXPECT_EQ(info.landing_player, 1);
    EXPECT_EQ(info.landing_index, 0);
  }
}

TEST(KalahRules, OppositePitNumbering) {
  // Pit i of one side is opposite pit m + 1 - i of the other. North's pit j holds j
  // seeds, so the capture size names the opposite pit.
  for (int m : {2, 3, 4, 5, 6, 7, 9}) {
    const GameSpec spec = GameSpec::kalah(m, 6);
    for (int i = 2; i <= m; ++i) {
      SCOPED_TRACE("m=" + std::to_string(m) + " i=" + std::to_string(i));
      std::vector<int> mover(m, 1), other(m);
      mover[i - 1] = 0;  // the target pit is empty; pit i-1 holds the one seed to sow
      for (int j = 1; j <= m; ++j) other[j - 1] = j;
      const int opposite = m + 1 - i;

      // South moves.
      Position s = Position::parse(kalah_string(spec, mover, other, 0, 's'), spec);
      const int south_store = s.store[0];
      auto info = s.play(i - 2);
      EXPECT_EQ(info.captured, 1 + opposite);
      EXPECT_EQ(s.store[0], south_store + 1 + opposite);
      std::vector<int> after_mover = mover, after_other = other;
      after_mover[i - 2] = 0;
      after_other[opposite - 1] = 0;
      if (!s.is_over()) {
        EXPECT_EQ(s.to_string(), kalah_string(spec, after_mover, after_other, 0, 'n'));
      }

      // North moves (the same with the sides swapped).
      Position n = Position::parse(kalah_string(spec, other, mover, 5, 'n'), spec);
      info = n.play(i - 2);
      EXPECT_EQ(info.captured, 1 + opposite);
      EXPECT_EQ(n.store[1], 5 + 1 + opposite);
      if (!n.is_over()) {
        EXPECT_EQ(n.to_string(),
                  kalah_string(spec, after_other, after_mover, 5 + 1 + opposite, 's'));
      }
    }
  }
  // m = 1: the only pit is opposite itself; reached after a full lap (3 seeds: store,
  // North's pit, back into the emptied pit).
  Position p = K("kalah:1,4", "3/4 1 0 s");
  auto info = p.play(0);
  EXPECT_EQ(info.captured, 1 + 5);
  EXPECT_TRUE(p.is_over());
  EXPECT_EQ(p.to_string(), "0/0 8 0 n");
}

TEST(KalahRules, SowingSkipsTheOpponentsStore) {
  Position p = K("kalah", "1,0,0,0,0,8/1,1,1,1,1,1 20 13 s");
  auto info = p.play(5);  // store, North 1..6, (North's store skipped), South 1
  EXPECT_EQ(p.to_string(), "2,0,0,0,0,0/2,2,2,2,2,2 21 13 n");
  EXPECT_EQ(info.landing_player, 0);
  EXPECT_EQ(info.landing_index, 0);
  EXPECT_EQ(info.captured, 0);

  Position q = K("kalah", "1,1,1,1,1,1/1,0,0,0,0,8 13 20 n");
  info = q.play(5);
  EXPECT_EQ(q.to_string(), "2,2,2,2,2,2/2,0,0,0,0,0 13 21 s");
  EXPECT_EQ(info.landing_player, 1);
  EXPECT_EQ(info.landing_index, 0);
}

TEST(KalahRules, Laps) {
  // 13 seeds in Kalah(6, n) is one full lap (5 pits, store, 6 North pits, pit 1): the
  // last seed returns to the emptied pit 1, which was empty, opposite North's 6.
  Position p = K("kalah", "13,1,1,1,1,1/1,1,1,1,1,1 12 12 s");
  auto info = p.play(0);
  EXPECT_EQ(p.to_string(), "0,2,2,2,2,2/2,2,2,2,2,0 16 12 n");
  EXPECT_EQ(info.captured, 3);
  EXPECT_EQ(info.landing_player, 0);
  EXPECT_EQ(info.landing_index, 0);

  // 27 = two laps + 1: every position twice, then pit 2 (1 + 2 + 1 = 4, no capture).
  Position q = K("kalah", "27,1,1,1,1,1/1,0,0,0,0,0 10 5 s");
  info = q.play(0);
  EXPECT_EQ(q.to_string(), "2,4,3,3,3,3/3,2,2,2,2,2 12 5 n");
  EXPECT_EQ(info.captured, 0);
  EXPECT_EQ(info.landing_index, 1);

  // 26 = exactly two laps: the emptied pit ends with 2 seeds, so no capture.
  Position r = K("kalah", "26,1,1,1,1,1/1,0,0,0,0,0 10 6 s");
  info = r.play(0);
  EXPECT_EQ(r.to_string(), "2,3,3,3,3,3/3,2,2,2,2,2 12 6 n");
  EXPECT_EQ(info.captured, 0);
  EXPECT_EQ(info.landing_index, 0);

  // A lap that ends in the store: pit 1 needs 6 seeds to reach it, so 6 + 13 = 19.
  Position e = K("kalah", "19,0,0,0,0,0/1,1,1,1,1,1 10 13 s");
  info = e.play(0);
  EXPECT_TRUE(info.extra_turn);
  EXPECT_EQ(e.to_string(), "1,2,2,2,2,2/2,2,2,2,2,2 12 13 s");
}

TEST(KalahRules, OutcomeAndDecided) {
  const Position p = K("kalah", "4,4,4,4,0,0/0,0,0,0,0,4 25 3 s");
  EXPECT_TRUE(p.is_decided());  // 25 of 48 can no longer be caught
  EXPECT_FALSE(p.is_over());
  EXPECT_EQ(p.outcome(), Outcome::kWhiteWins);
  const Position q = K("kalah", "4,4,4,4,0,0/0,0,0,0,0,4 24 4 s");
  EXPECT_FALSE(q.is_decided());
  EXPECT_EQ(q.outcome(), Outcome::kOngoing);
}

TEST(KalahRules, PositionStrings) {
  for (const char* s : {"4,4,4,4,4,4/4,4,4,4,4,4 0 0 s", "0,5,0,6,1,0/5,5,0,4,4,4 10 4 n"}) {
    EXPECT_EQ(K("kalah", s).to_string(), s);
  }
  EXPECT_EQ(K("kalah:3,3", "1,0,2/3,3,3 4 2 n").to_string(), "1,0,2/3,3,3 4 2 n");
  EXPECT_THROW(K("kalah", "x,4,4,4,4,4/4,4,4,4,4,8 0 0 s"), ParseError);  // no tuzdyks
  EXPECT_THROW(K("kalah", "4,4,4,4,4/4,4,4,4,4,4 4 0 s"), ParseError);    // 5 pits
  EXPECT_THROW(K("kalah", "4,4,4,4,4,4/4,4,4,4,4,4 0 0 w"), ParseError);  // Togyz side
  EXPECT_THROW(K("kalah", "4,4,4,4,4,4/4,4,4,4,4,4 1 0 s"), ParseError);  // 49 seeds
  EXPECT_THROW(K("kalah:4,3", "4,4,4,4,4,4/4,4,4,4,4,4 0 0 s"), ParseError);
}

// The published perfect-play margins (Irving, Donkers & Uiterwijk 2000) check every
// rule at once (sowing, the skipped store, extra turns, both capture rules, the end
// sweep): tests/mcts_kalah_solver_test.cpp solves Kalah(4,3), (4,4) and (5,3) under
// both rules with the library's solver and checks it against a brute-force search.

TEST(KalahNames, Presets) {
  EXPECT_EQ(GameSpec::parse("kalah"), (GameSpec{Variant::kKalah, 6, 4}));
  EXPECT_EQ(GameSpec::parse("bantumi"), (GameSpec{Variant::kKalahEmpty, 5, 4}));
  EXPECT_EQ(GameSpec::parse("kalah:4,3"), (GameSpec{Variant::kKalah, 4, 3}));
  EXPECT_EQ(GameSpec::parse("kalah:5,4,empty"), (GameSpec{Variant::kKalahEmpty, 5, 4}));
  EXPECT_EQ(GameSpec::parse("kalah:6,6,standard"), (GameSpec{Variant::kKalah, 6, 6}));
  EXPECT_EQ(GameSpec::parse("kalah:1,1"), (GameSpec{Variant::kKalah, 1, 1}));
  EXPECT_EQ(GameSpec::parse("kalah:9,12"), (GameSpec{Variant::kKalah, 9, 12}));
  EXPECT_EQ(GameSpec::parse(" kalah:6,4 "), GameSpec::parse("kalah"));
  EXPECT_EQ(GameSpec::parse("togyz"), GameSpec::togyz());
  EXPECT_EQ(GameSpec::parse("togyz-kumalak"), GameSpec::togyz());
  EXPECT_EQ(GameSpec::kalah(5, 4, true), GameSpec::parse("bantumi"));
  EXPECT_EQ(GameSpec::parse("kalah").total_seeds(), 48);
  EXPECT_TRUE(GameSpec::parse("togyz").is_togyz());
  EXPECT_FALSE(GameSpec::parse("kalah").is_togyz());
  // Canonical names parse back to the same game.
  EXPECT_EQ(GameSpec::parse("kalah").name(), "kalah:6,4");
  EXPECT_EQ(GameSpec::parse("bantumi").name(), "kalah:5,4,empty");
  EXPECT_EQ(GameSpec::parse("togyz").name(), "togyz");
  for (const char* n : {"kalah:3,3", "kalah:4,3,empty", "kalah:9,12", "togyz", "kalah:1,1"})
    EXPECT_EQ(GameSpec::parse(GameSpec::parse(n).name()), GameSpec::parse(n)) << n;
}

TEST(KalahNames, InvalidNamesAndSizesAreRefused) {
  for (const char* bad : {"",
                          "chess",
                          "Kalah",
                          "kalah:",
                          "kalah:6",
                          "kalah:6,",
                          "kalah:,4",
                          "kalah:a,b",
                          "kalah:6,4,",
                          "kalah:6,4,foo",
                          "kalah:6,4,empty,1",
                          "kalah:0,4",
                          "kalah:10,4",
                          "kalah:6,0",
                          "kalah:6,13",
                          "kalah:-1,4",
                          "kalah:6;4",
                          "kalah:6.5,4",
                          "bantumi:5,4",
                          "togyz:9,9",
                          "kalah 6,4"}) {
    EXPECT_THROW(GameSpec::parse(bad), ParseError) << "'" << bad << "'";
  }
  EXPECT_THROW(GameSpec::kalah(0, 4), ParseError);
  EXPECT_THROW(GameSpec::kalah(10, 4), ParseError);
  EXPECT_THROW(GameSpec::kalah(6, 0), ParseError);
  EXPECT_THROW(GameSpec::kalah(6, 13), ParseError);
  // The message says what was wrong.
  try {
    GameSpec::parse("kalah:6,13");
    FAIL() << "no exception";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("1..12"), std::string::npos) << e.what();
  }
  try {
    GameSpec::parse("chess");
    FAIL() << "no exception";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("chess"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kz
