// GameSession (core/game_session.h): the game in progress that play, serve and the
// engine protocol share.
#include <gtest/gtest.h>

#include <sstream>

#include "core/game_session.h"
#include "core/notation.h"

namespace kz {
namespace {

TEST(GameSession, PlaysMovesAndKeepsEveryPosition) {
  GameSession g(GameSpec::togyz());
  EXPECT_EQ(g.plies(), 0u);
  EXPECT_EQ(g.before_last(), g.start());
  const Position::MoveInfo info = g.play(8);  // 98: captures 10 on Black's hole 8
  EXPECT_EQ(info.captured, 10);
  g.play(8);
  ASSERT_EQ(g.moves(), (std::vector<int>{8, 8}));
  Position expected = Position::start(GameSpec::togyz());
  expected.play(8);
  EXPECT_EQ(g.position_at(1), expected);
  EXPECT_EQ(g.before_last(), expected);
  expected.play(8);
  EXPECT_EQ(g.position(), expected);
  EXPECT_EQ(g.mover(0), 0);
  EXPECT_EQ(g.mover(1), 1);
  EXPECT_EQ(g.result(), "*");
  EXPECT_FALSE(g.decided());
}

TEST(GameSession, IllegalMovesAreRefusedAndChangeNothing) {
  GameSession g(GameSpec::kalah(6, 4),
                Position::parse("0,4,4,4,4,8/4,4,4,4,4,4 0 0 s", GameSpec::kalah(6, 4)));
  EXPECT_THROW(g.play(0), ParseError);   // empty pit
  EXPECT_THROW(g.play(6), ParseError);   // no such pit
  EXPECT_THROW(g.play(-1), ParseError);  // no such pit
  EXPECT_EQ(g.plies(), 0u);
  g.play(2);  // 4 seeds from pit 3 end in the store: South moves again
  EXPECT_EQ(g.mover(0), 0);
  EXPECT_EQ(g.position().to_move, 0);
}

TEST(GameSession, UndoToTheStartAndNoFurther) {
  GameSession g(GameSpec::togyz());
  for (int m : {6, 4, 0, 1}) g.play(m);
  const Position after2 = g.position_at(2);
  EXPECT_TRUE(g.undo());
  EXPECT_EQ(g.plies(), 3u);
  EXPECT_TRUE(g.undo_to(2));
  EXPECT_EQ(g.position(), after2);
  EXPECT_FALSE(g.undo_to(3)) << "ply 3 is beyond the game";
  EXPECT_EQ(g.plies(), 2u);
  EXPECT_TRUE(g.undo_to(0));
  EXPECT_EQ(g.position(), g.start());
  EXPECT_FALSE(g.undo()) << "nothing before the start";
  EXPECT_FALSE(g.undo_to(1));
  EXPECT_EQ(g.plies(), 0u);
  EXPECT_EQ(g.position(), Position::start(GameSpec::togyz()));
}

TEST(GameSession, UndoASidesLastMoveWithTheRepliesAfterIt) {
  // Kalah: South's 3 is an extra turn, so South plays plies 0 and 1, North ply 2.
  GameSession g(GameSpec::kalah(6, 4));
  g.play(2);
  g.play(5);
  g.play(0);
  EXPECT_EQ(g.last_move_of(0), 1u);
  EXPECT_EQ(g.last_move_of(1), 2u);
  EXPECT_EQ(g.undo_side(0), 2u) << "South's last move and North's reply";
  EXPECT_EQ(g.plies(), 1u);
  EXPECT_EQ(g.undo_side(1), 0u) << "North has no move left to take back";
  EXPECT_EQ(g.plies(), 1u);
  EXPECT_EQ(g.undo_side(0), 1u);
  EXPECT_EQ(g.undo_side(0), 0u) << "refused at the start";
  EXPECT_EQ(g.plies(), 0u);
}

TEST(GameSession, ResultOfADecidedGame) {
  const GameSpec kalah = GameSpec::kalah(6, 4);
  // South's pit 6 sows its last seed into the store: 25 of 48 decides the game.
  GameSession g(kalah, Position::parse("0,0,0,0,0,1/4,4,4,4,4,3 24 0 s", kalah));
  EXPECT_EQ(g.result(), "*");
  g.play(5);
  EXPECT_TRUE(g.decided());
  EXPECT_EQ(g.result(), "1-0");
  EXPECT_TRUE(g.undo());
  EXPECT_EQ(g.result(), "*");
}

TEST(GameSession, RecordTagsInTheirOrder) {
  GameSession g(GameSpec::togyz());
  g.play(8);
  const RecordTags tags = g.record_tags({"kumalak play", "Human", "KumalakZero medium", ""});
  ASSERT_EQ(tags.size(), 7u);
  const char* names[] = {"Event", "Site", "Date", "White", "Black", "Result", "Variant"};
  for (size_t i = 0; i < tags.size(); ++i) EXPECT_EQ(tags[i].first, names[i]);
  EXPECT_EQ(tags[0].second, "KumalakZero game");
  EXPECT_EQ(tags[1].second, "kumalak play");
  EXPECT_EQ(tags[2].second, record_date_today());
  EXPECT_EQ(tags[3].second, "Human");
  EXPECT_EQ(tags[4].second, "KumalakZero medium");
  EXPECT_EQ(tags[5].second, "*");
  EXPECT_EQ(tags[6].second, "togyz");
}

TEST(GameSession, OwnTagsComeFirstAndWinOverTheDefaults) {
  const GameSpec kalah = GameSpec::kalah(6, 4);
  GameSession g(kalah, Position::parse("0,4,4,4,4,8/4,4,4,4,4,4 0 0 s", kalah));
  g.set_tags({{"White", "Ann"}, {"Date", "2020.01.02"}, {"Result", "1-0"}, {"Variant", "togyz"}});
  g.set_tag("Round", "3");
  EXPECT_EQ(g.tag("White"), "Ann");
  EXPECT_EQ(g.tag("Black", "nobody"), "nobody");
  const RecordTags tags = g.record_tags({"kumalak serve", "Human", "Engine", "KumalakZero x"});
  const RecordTags expected = {{"White", "Ann"},
                               {"Date", "2020.01.02"},
                               {"Result", "*"},
                               {"Variant", "kalah:6,4"},
                               {"Round", "3"},
                               {"Event", "KumalakZero game"},
                               {"Site", "kumalak serve"},
                               {"Black", "Engine"},
                               {"FEN", "0,4,4,4,4,8/4,4,4,4,4,4 0 0 s"},
                               {"Annotator", "KumalakZero x"}};
  EXPECT_EQ(tags, expected);
}

TEST(GameSession, RecordReadsBackThroughTheRecordParser) {
  const GameSpec togyz = GameSpec::togyz();
  const Position start = Position::parse("9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 b", togyz);
  GameSession g(togyz, start);
  for (int m : {8, 8, 0, 1, 6}) g.play(m);
  const std::string text =
      g.record({"kumalak play", "Human", "KumalakZero easy", ""}, {"a", "b", "c", "d", "e"});
  std::istringstream in(text);
  const std::vector<GameRecord> games = read_pgn(in, "session");
  ASSERT_EQ(games.size(), 1u) << text;
  const GameRecord& r = games[0];
  EXPECT_EQ(r.tags, g.record_tags({"kumalak play", "Human", "KumalakZero easy", ""}));
  EXPECT_EQ(r.tag("FEN"), start.to_string());
  EXPECT_EQ(r.comments, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  const ReplayResult replayed = replay_record(r, Position::parse(r.tag("FEN"), togyz));
  EXPECT_EQ(replayed.moves, g.moves());
  EXPECT_EQ(replayed.final_position, g.position());
}

}  // namespace
}  // namespace kz
