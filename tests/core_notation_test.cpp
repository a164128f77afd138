// Move tokens, PGN-like records, replay checks and position-string errors; ends with
// fuzz loops that feed random and mutated text to every parser.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/notation.h"

namespace kz {
namespace {

const GameSpec kTogyz = GameSpec::togyz();

std::vector<GameRecord> read(const std::string& text, const std::string& source = "test.pgn") {
  std::istringstream in(text);
  return read_pgn(in, source);
}

// The ParseError message of `f`, or "" when it throws nothing. Any other exception
// escapes and fails the test.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A short opening of my own: 19 32 23(2) 11x — Black's 11x makes White's hole 1 a tuzdyk.
const char* kOpening = "1. 19 32 2. 23(2) 11x";

// ---------------------------------------------------------------------------------
// Move tokens

TEST(MoveToken, PlainTogyzMove) {
  const MoveToken t = parse_move_token("76", kTogyz);
  EXPECT_EQ(t.from, 7);
  ASSERT_TRUE(t.landing.has_value());
  EXPECT_EQ(*t.landing, 6);
  EXPECT_FALSE(t.tuzdyk_mark);
  EXPECT_FALSE(t.kazan.has_value());
  EXPECT_EQ(t.text, "76");
}

TEST(MoveToken, TuzdykMarks) {
  for (const char* s : {"36x", "36X", "36\xD1\x85" /* Cyrillic х */, "36\xD0\xA5" /* Х */}) {
    const MoveToken t = parse_move_token(s, kTogyz);
    EXPECT_EQ(t.from, 3) << s;
    EXPECT_EQ(t.landing.value_or(0), 6) << s;
    EXPECT_TRUE(t.tuzdyk_mark) << s;
    EXPECT_FALSE(t.kazan.has_value()) << s;
  }
}

TEST(MoveToken, KazanAnnotation) {
  MoveToken t = parse_move_token("76(10)", kTogyz);
  EXPECT_EQ(t.from, 7);
  EXPECT_EQ(t.landing.value_or(0), 6);
  EXPECT_EQ(t.kazan.value_or(-1), 10);
  EXPECT_FALSE(t.tuzdyk_mark);
  t = parse_move_token("91(162)", kTogyz);
  EXPECT_EQ(t.kazan.value_or(-1), 162);
  t = parse_move_token("11(0)", kTogyz);
  EXPECT_EQ(t.kazan.value_or(-1), 0);
  t = parse_move_token("25x(14)", kTogyz);
  EXPECT_TRUE(t.tuzdyk_mark);
  EXPECT_EQ(t.kazan.value_or(-1), 14);
}

TEST(MoveToken, KalahMoves) {
  const GameSpec kalah = GameSpec::parse("kalah");
  EXPECT_EQ(parse_move_token("1", kalah).from, 1);
  EXPECT_EQ(parse_move_token("6", kalah).from, 6);
  EXPECT_FALSE(parse_move_token("3", kalah).landing.has_value());
  EXPECT_EQ(parse_move_token("9", GameSpec::parse("kalah:9,3")).from, 9);
  for (const char* bad : {"", "0", "7", "10", "x", "1x", "-1", "1.", "36", "1(2)", " 1", "1234"})
    EXPECT_THROW(parse_move_token(bad, kalah), ParseError) << "'" << bad << "'";
}

TEST(MoveToken, MalformedTogyzTokensSayWhy) {
  struct Bad {
    const char* token;
    const char* why;
  };
  const Bad bad[] = {
      {"", "empty"},
      {"7", "two digits"},
      {"7a", "two digits"},
      {"a6", "two digits"},
      {"06", "hole 0"},
      {"70", "landing hole 0"},
      {"76y", "unexpected 'y'"},
      {"76(", "unclosed"},
      {"76(10", "unclosed"},
      {"76()", "empty kazan"},
      {"76(1x)", "must be a number"},
      {"76(-1)", "must be a number"},
      {"76(163)", "exceeds 162"},
      {"76(1000)", "must be a number"},
      {"76xx", "unexpected 'x'"},
      {"76)", "unexpected ')'"},
      {"776", "unexpected '6'"},
      {"76(10)x", "unexpected 'x'"},
      {"76 ", "unexpected ' '"},
      {"\xD1\x85"
       "6",
       "two digits"},
      {"36\xD1", "unexpected"},
  };
  for (const auto& b : bad) {
    const std::string msg = error_of([&] { parse_move_token(b.token, kTogyz); });
    EXPECT_TRUE(contains(msg, b.why)) << "'" << b.token << "': " << msg;
    EXPECT_TRUE(contains(msg, std::string("'") + b.token + "'")) << msg;
  }
}

TEST(MoveToken, FormatMove) {
  Position p = Position::start(kTogyz);
  EXPECT_EQ(format_move(p, 6), "76");
  EXPECT_EQ(format_move(p, 6, true), "76(10)");  // 9 + 1 = 10 on Black's 6, captured
  EXPECT_EQ(format_move(p, 0, true), "19");      // no capture: no annotation
  EXPECT_EQ(p, Position::start(kTogyz));         // format_move does not play on `p`
  for (int m : {0, 2, 1}) p.play(m);             // 19 32 23(2)
  EXPECT_EQ(format_move(p, 0, true), "11x");     // a tuzdyk gets x, not (n)
  EXPECT_EQ(format_move(Position::start(GameSpec::parse("kalah")), 2), "3");
}

// ---------------------------------------------------------------------------------
// PGN reading

TEST(Pgn, TagsMovesAndResult) {
  const auto games = read(
      "[Event \"Test\"]\n"
      "[White \"Alice\"]\n"
      "[Black \"Bob\"]\n"
      "[Result \"0-1\"]\n"
      "\n"
      "1. 19 32 2. 23(2) 11x 0-1\n");
  ASSERT_EQ(games.size(), 1u);
  const GameRecord& g = games[0];
  ASSERT_EQ(g.tags.size(), 4u);
  EXPECT_EQ(g.tags[0], (std::pair<std::string, std::string>{"Event", "Test"}));
  EXPECT_EQ(g.tag("White"), "Alice");
  EXPECT_EQ(g.tag("Black"), "Bob");
  EXPECT_EQ(g.tag("Site", "none"), "none");
  EXPECT_EQ(g.result, "0-1");
  EXPECT_EQ(g.moves, (std::vector<std::string>{"19", "32", "23(2)", "11x"}));
  EXPECT_EQ(g.move_lines, (std::vector<int>{6, 6, 6, 6}));
  EXPECT_EQ(g.index, 1);
  EXPECT_EQ(g.line, 1);
  EXPECT_EQ(g.source, "test.pgn");
  EXPECT_EQ(g.describe(), "game 1 (Alice vs Bob, test.pgn:line 1)");

  const ReplayResult r = replay_record(g, Position::start(kTogyz));
  EXPECT_EQ(r.plies, 4);
  EXPECT_EQ(r.moves, (std::vector<int>{0, 2, 1, 0}));
  EXPECT_EQ(r.final_position.to_string(),
            "x,1,11,11,11,11,11,11,11/1,11,1,11,11,11,11,11,11 2 3 w");
}

TEST(Pgn, CommentsAcrossLinesAndSemicolons) {
  const auto games = read(
      "[White \"A\"]\n"
      "\n"
      "1. 19 {a comment\n"
      "over two lines} 32 ; the rest of this line is ignored 99 {x}\n"
      "2. 23(2) ; so is this\n"
      "11x {last} 1/2-1/2\n");
  ASSERT_EQ(games.size(), 1u);
  EXPECT_EQ(games[0].moves, (std::vector<std::string>{"19", "32", "23(2)", "11x"}));
  EXPECT_EQ(games[0].move_lines, (std::vector<int>{3, 4, 5, 6}));
  EXPECT_EQ(games[0].comments, (std::vector<std::string>{"a comment\nover two lines", "last"}));
  EXPECT_EQ(games[0].result, "1/2-1/2");
}

TEST(Pgn, ZeroCommentAfterTheResultBelongsToTheGameBefore) {
  const auto games = read(
      "[White \"A\"]\n\n1. 19 32 1-0 {zero}\n\n"
      "[White \"B\"]\n\n1. 76 0-1\n");
  ASSERT_EQ(games.size(), 2u);
  EXPECT_EQ(games[0].comments, (std::vector<std::string>{"zero"}));
  EXPECT_EQ(games[0].result, "1-0");
  EXPECT_TRUE(games[1].comments.empty());
  EXPECT_EQ(games[1].tag("White"), "B");
  EXPECT_EQ(games[1].result, "0-1");
  EXPECT_EQ(games[1].moves, (std::vector<std::string>{"76"}));
}

TEST(Pgn, MoveNumberForms) {
  const auto games = read("1. 19 32 2.23(2) 2... 11x 3.\n 12 *");
  ASSERT_EQ(games.size(), 1u);
  EXPECT_EQ(games[0].moves, (std::vector<std::string>{"19", "32", "23(2)", "11x", "12"}));
  EXPECT_EQ(games[0].result, "*");
  EXPECT_TRUE(games[0].tags.empty());
}

TEST(Pgn, SeveralGamesWithAndWithoutResults) {
  const auto games = read(
      "[Game \"1\"]\n\n1. 76 98 1-0\n"
      "[Game \"2\"]\n\n1. 19 32\n"  // no result: the next tag starts a new game
      "[Game \"3\"]\n[White \"C\"]\n\n1. 99 *\n\n\n"
      "1. 11 0-1\n");  // no tags at all
  ASSERT_EQ(games.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(games[i].tag("Game"), std::to_string(i + 1));
    EXPECT_EQ(games[i].index, i + 1);
  }
  EXPECT_EQ(games[0].line, 1);
  EXPECT_EQ(games[1].line, 4);
  EXPECT_EQ(games[2].line, 7);
  EXPECT_EQ(games[3].line, 13);
  EXPECT_EQ(games[1].result, "*");
  EXPECT_EQ(games[1].moves.size(), 2u);
  EXPECT_EQ(games[2].moves, (std::vector<std::string>{"99"}));
  EXPECT_EQ(games[3].moves, (std::vector<std::string>{"11"}));
  EXPECT_EQ(games[3].result, "0-1");
  EXPECT_TRUE(read("").empty());
  EXPECT_TRUE(read("\n\n  \n; only a comment\n").empty());
}

TEST(Pgn, BrokenTextNamesTheLine) {
  std::string msg = error_of([] { read("[White \"A\"]\n[Black \"B\"\n\n1. 76 *\n", "f.pgn"); });
  EXPECT_TRUE(contains(msg, "f.pgn:2")) << msg;
  EXPECT_TRUE(contains(msg, "closing ']'")) << msg;
  msg = error_of([] { read("[White \"A\"]\n\n1. 76 {never\nclosed 98\n", "f.pgn"); });
  EXPECT_TRUE(contains(msg, "f.pgn:3")) << msg;
  EXPECT_TRUE(contains(msg, "never closed")) << msg;
  msg = error_of([] { read("[White]\n", "f.pgn"); });
  EXPECT_TRUE(contains(msg, "f.pgn:1")) << msg;
  msg = error_of([] { read("[ \"A\"]\n", "f.pgn"); });
  EXPECT_TRUE(contains(msg, "without a name")) << msg;
}

TEST(Pgn, TagValuesWithBracketsAndQuotes) {
  // ']' inside a value, escaped quotes and backslashes, and (as some sites write them)
  // unescaped quotes: all read back as the value.
  const auto games = read(
      "[Event \"Cup [final]\"]\n[Site \"a \\\"b\\\" c\\\\d\"]\n"
      "[Round \"The \"Spring\" cup\"]\n\n1. 76 *\n");
  ASSERT_EQ(games.size(), 1u);
  EXPECT_EQ(games[0].tag("Event"), "Cup [final]");
  EXPECT_EQ(games[0].tag("Site"), "a \"b\" c\\d");
  EXPECT_EQ(games[0].tag("Round"), "The \"Spring\" cup");
  // write_pgn escapes what needs it, and the result reads back the same.
  const std::string text = write_pgn({{"Event", "Cup [final]"}, {"Site", "a \"b\" c\\d"}},
                                     Position::start(GameSpec::togyz()), {6}, {}, true);
  const auto again = read(text);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].tag("Event"), "Cup [final]");
  EXPECT_EQ(again[0].tag("Site"), "a \"b\" c\\d");
  const std::string msg = error_of([] { read("[Event \"open\n\n1. 76 *\n", "f.pgn"); });
  EXPECT_TRUE(contains(msg, "f.pgn:1")) << msg;
  EXPECT_TRUE(contains(msg, "never closed")) << msg;
}

TEST(Pgn, KalahExtraTurnsKeepTheMoveNumber) {
  // South's pit 3 ends in the store (another turn), then pit 6; North answers.
  const GameSpec kalah = GameSpec::kalah(6, 4, false);
  const std::string text = write_pgn({}, Position::start(kalah), {2, 5, 1}, {}, false);
  EXPECT_TRUE(contains(text, "1. 3 6 2 *")) << text;
  GameRecord g = read(text)[0];
  EXPECT_EQ(g.moves, (std::vector<std::string>{"3", "6", "2"}));
}

TEST(Replay, ARecordBuiltInCodeNeedsNoLineNumbers) {
  GameRecord g;
  g.moves = {"zz"};  // no move_lines, as a program would build it
  const std::string msg = error_of([&] { replay_record(g, Position::start(GameSpec::togyz())); });
  EXPECT_TRUE(contains(msg, "ply 1, move 'zz'")) << msg;
}

TEST(Replay, RecordStartIsTheFenTagElseTheFallback) {
  GameRecord g;
  EXPECT_EQ(record_start(g, kTogyz).to_string(), Position::start(kTogyz).to_string());
  Position after = Position::start(kTogyz);
  after.play(6);
  EXPECT_EQ(record_start(g, kTogyz, after).to_string(), after.to_string());
  g.set_tag("FEN", after.to_string());
  EXPECT_EQ(record_start(g, kTogyz).to_string(), after.to_string());
  g.set_tag("FEN", "not a position");
  EXPECT_NE(error_of([&] { record_start(g, kTogyz); }), "");
}

TEST(Pgn, SetTag) {
  GameRecord g;
  g.set_tag("White", "A");
  g.set_tag("Black", "B");
  g.set_tag("White", "C");
  ASSERT_EQ(g.tags.size(), 2u);
  EXPECT_EQ(g.tag("White"), "C");
  EXPECT_EQ(g.tags[0].first, "White");
}

// ---------------------------------------------------------------------------------
// Writing and reading back

std::vector<int> random_game(const GameSpec& spec, std::mt19937& rng, int max_plies) {
  Position p = Position::start(spec);
  std::vector<int> moves;
  while (!p.is_over() && int(moves.size()) < max_plies) {
    std::vector<int> legal;
    for (int m = 0; m < p.npits; ++m)
      if (p.is_legal(m)) legal.push_back(m);
    const int m = legal[rng() % legal.size()];
    p.play(m);
    moves.push_back(m);
  }
  return moves;
}

TEST(Pgn, WriteThenReadRoundTrip) {
  std::mt19937 rng(5);
  for (const char* game : {"togyz", "kalah", "kalah:4,3,empty", "bantumi"}) {
    const GameSpec spec = GameSpec::parse(game);
    const Position start = Position::start(spec);
    std::string file;
    std::vector<std::vector<int>> games;
    for (int k = 0; k < 20; ++k) {
      games.push_back(random_game(spec, rng, k == 0 ? 7 : 100000));
      std::vector<std::string> comments(games.back().size());
      if (!comments.empty()) comments[comments.size() / 2] = "note " + std::to_string(k);
      file += write_pgn({{"Event", "round trip"}, {"Round", std::to_string(k + 1)}}, start,
                        games.back(), comments, /*with_kazan=*/k % 2 == 0);
      file += "\n";
    }
    const auto records = read(file);
    ASSERT_EQ(records.size(), games.size()) << game;
    for (size_t k = 0; k < games.size(); ++k) {
      SCOPED_TRACE(std::string(game) + " game " + std::to_string(k + 1));
      EXPECT_EQ(records[k].tag("Round"), std::to_string(k + 1));
      EXPECT_EQ(records[k].tag("Event"), "round trip");
      const ReplayResult r = replay_record(records[k], start);
      EXPECT_EQ(r.moves, games[k]);
      Position p = start;
      for (int m : games[k]) p.play(m);
      EXPECT_EQ(r.final_position, p);
      EXPECT_EQ(records[k].result, outcome_string(p.outcome()));
      if (!games[k].empty()) {
        ASSERT_EQ(records[k].comments.size(), 1u);
        EXPECT_EQ(records[k].comments[0], "note " + std::to_string(k));
      }
    }
  }
}

TEST(Pgn, WriteUsesTheResultTagAndAnnotatesCaptures) {
  Position start = Position::start(kTogyz);
  const std::string text = write_pgn({{"Result", "1-0"}}, start, {6, 0}, {}, true);
  EXPECT_EQ(text, "[Result \"1-0\"]\n\n1. 76(10) 11(10) 1-0\n");
  EXPECT_EQ(write_pgn({}, start, {6}, {}, false), "\n1. 76 *\n");
  // Black to move first: the move number gets "...".
  Position black = start;
  black.play(0);
  EXPECT_EQ(write_pgn({}, black, {2, 1}, {}, true), "\n1... 32 2. 23(2) *\n");
}

// ---------------------------------------------------------------------------------
// Replay errors name the game and the ply

std::string replay_error(const std::string& moves) {
  const auto games = read(
      "[White \"W\"]\n[Black \"B\"]\n\n1. 76 98 1-0\n\n"  // game 1 is fine
      "[White \"Alice\"]\n[Black \"Bob\"]\n\n" +
          moves + " *\n",
      "err.pgn");
  EXPECT_EQ(games.size(), 2u);
  EXPECT_NO_THROW(replay_record(games[0], Position::start(kTogyz)));
  return error_of([&] { replay_record(games.at(1), Position::start(kTogyz)); });
}

TEST(Replay, ErrorsNameGameAndPly) {
  struct Case {
    const char* moves;
    int ply;
    const char* why;
  };
  const Case cases[] = {
      {"1. 19 32 2. 24(2) 11x", 3, "lands on hole 4, the rules land it on hole 3"},
      {"1. 19 32 2. 23(2) 11", 4, "not marked with 'x'"},
      {"1. 19x", 1, "marked as making a tuzdyk"},
      {"1. 19 32 2. 23x", 3, "marked as making a tuzdyk"},
      {"1. 19 32 2. 23(3) 11x", 3, "kazan is 3, the rules make it 2"},
      {"1. 76(9)", 1, "kazan is 9, the rules make it 10"},
      {"1. 19(0)", 1, ""},  // (0) on a move that captures nothing is true: no error
      {"1. 19 32 2. 23(2) 33", 4, "hole 3 is empty"},
      {"1. 19 32 2. 23(2) 11x 3. 19", 5, "hole 1 is empty"},
      {"1. 19 32 2. 23y", 3, "unexpected 'y'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.moves);
    const std::string msg = replay_error(c.moves);
    if (std::string(c.why).empty()) {
      EXPECT_EQ(msg, "");
      continue;
    }
    EXPECT_TRUE(contains(msg, c.why)) << msg;
    EXPECT_TRUE(contains(msg, "game 2 (Alice vs Bob, err.pgn:line 6)")) << msg;
    EXPECT_TRUE(contains(msg, "ply " + std::to_string(c.ply) + " ")) << msg;
  }
}

TEST(Replay, MoveAfterTheEnd) {
  // White's 12 leaves Black (to move) with nothing: the game is over, 98 is one too many.
  const std::string fen = "2,0,0,0,0,0,0,0,5/0,0,0,0,0,0,0,0,0 80 75 w";
  const auto games = read("[White \"A\"]\n\n1. 12 98 *\n", "end.pgn");
  ASSERT_EQ(games.size(), 1u);
  const std::string msg = error_of([&] { replay_record(games[0], Position::parse(fen, kTogyz)); });
  EXPECT_TRUE(contains(msg, "already over")) << msg;
  EXPECT_TRUE(contains(msg, "game 1")) << msg;
  EXPECT_TRUE(contains(msg, "ply 2 (line 3)")) << msg;

  const auto ok = read("1. 12 *\n");
  const ReplayResult r = replay_record(ok.at(0), Position::parse(fen, kTogyz));
  EXPECT_TRUE(r.final_position.is_over());
  EXPECT_EQ(r.final_position.outcome(), Outcome::kWhiteWins);
}

TEST(Replay, KalahRecords) {
  const GameSpec kalah = GameSpec::parse("kalah");
  // South 3 earns another turn, so South's 6 follows it; then North.
  const auto games = read("1. 3 6 2. 1 *\n");
  const ReplayResult r = replay_record(games.at(0), Position::start(kalah));
  EXPECT_EQ(r.final_position.to_string(), "4,4,0,5,5,0/0,6,6,6,5,5 2 0 s");
  const auto bad = read("1. 7 *\n");
  const std::string msg = error_of([&] { replay_record(bad.at(0), Position::start(kalah)); });
  EXPECT_TRUE(contains(msg, "ply 1")) << msg;
  EXPECT_TRUE(contains(msg, "outside 1..6")) << msg;
  // Kalah's pits are pits (Togyz's holes: Replay.ErrorsNameGameAndPly).
  const auto twice = read("1. 3 3 *\n");
  const std::string empty = error_of([&] { replay_record(twice.at(0), Position::start(kalah)); });
  EXPECT_TRUE(contains(empty, "pit 3 is empty")) << empty;
}

TEST(Replay, MoveLists) {
  EXPECT_EQ(parse_move_list(" 7 6\t1\n"), (std::vector<int>{7, 6, 1}));
  EXPECT_TRUE(parse_move_list("").empty());
  std::string msg = error_of([] { parse_move_list("7 6x 1"); });
  EXPECT_TRUE(contains(msg, "move 2")) << msg;
  const Position start = Position::start(kTogyz);
  const ReplayResult r = replay_moves({1, 3, 2, 1}, start);
  EXPECT_EQ(r.plies, 4);
  EXPECT_EQ(r.final_position.to_string(),
            "x,1,11,11,11,11,11,11,11/1,11,1,11,11,11,11,11,11 2 3 w");
  msg = error_of([&] { replay_moves({1, 3, 2, 3}, start); });
  EXPECT_TRUE(contains(msg, "ply 4")) << msg;
  EXPECT_TRUE(contains(msg, "hole 3 is empty")) << msg;
  msg = error_of([] { replay_moves({3, 3}, Position::start(GameSpec::parse("kalah"))); });
  EXPECT_TRUE(contains(msg, "pit 3 is empty")) << msg;
  msg = error_of([&] { replay_moves({10}, start); });
  EXPECT_TRUE(contains(msg, "hole must be 1..9")) << msg;
  msg = error_of([&] { replay_moves({0}, start); });
  EXPECT_TRUE(contains(msg, "ply 1")) << msg;
  const Position over = Position::parse("0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 81 81 w", kTogyz);
  msg = error_of([&] { replay_moves({1}, over); });
  EXPECT_TRUE(contains(msg, "already over")) << msg;
}

// ---------------------------------------------------------------------------------
// Malformed positions

TEST(PositionString, KalahsMalformedPositionsSayStoresAndSeeds) {
  // The same mistakes as Togyz's below, in Kalah's words (Togyz says kazan and stones).
  const GameSpec kalah = GameSpec::parse("kalah");
  const std::pair<const char*, const char*> bad[] = {
      {"4,4,4,4,4,4/4,4,4,4,4,4 0 0", "'<row1>/<row2> <store1> <store2> <side>', got 3"},
      {"4,4,4,4,4,4/4,4,4,4,4,4 z 0 s", "store 1: 'z' is not a stone count"},
      {"4,4,4,4,4,4/4,4,4,4,4,4 1 0 s", "holds 49 seeds in all, the game has 48"},
  };
  for (const auto& [text, why] : bad) {
    // (a copy: clang before 16, the WebAssembly build's, cannot capture a structured binding)
    const char* position = text;
    const std::string msg = error_of([&] { Position::parse(position, kalah); });
    EXPECT_TRUE(contains(msg, why)) << "'" << text << "': " << msg;
  }
  const std::string togyz = error_of([] { Position::parse("9/9 0 0", kTogyz); });
  EXPECT_TRUE(contains(togyz, "'<row1>/<row2> <kazan1> <kazan2> <side>', got 3")) << togyz;
}

TEST(PositionString, MalformedPositionsSayWhy) {
  struct Bad {
    const char* text;
    const char* why;
  };
  const Bad bad[] = {
      {"", "expected 4 fields"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0", "got 3"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w w", "got 5"},
      {"9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9 0 0 w", "two rows"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9/0 0 0 w", "two rows"},
      {"9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9,9 0 0 w", "White's row has 8 holes"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9,0 0 0 w", "Black's row has 10 holes"},
      {"9,9,9,9,a,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w", "hole 5: 'a'"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,-1 10 0 w", "hole 9: '-1'"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,256 0 0 w", "not a stone count"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9, 0 9 w", "hole 9: ''"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9.0 0 0 w", "not a stone count"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 z w", "kazan 2: 'z'"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 -0x1 0 w", "kazan 1"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 1 0 w", "holds 163 stones"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,8 0 0 w", "holds 161 stones"},
      {"x,x,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 9 9 w", "two tuzdyks in White's row"},
      {"9,9,9,9,9,9,9,9,9/9,x,9,9,x,9,9,9,9 9 9 w", "two tuzdyks in Black's row"},
      {"9,9,9,9,9,9,9,9,x/9,9,9,9,9,9,9,9,9 9 0 w", "tuzdyk on hole 9"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,X 9 0 w", "tuzdyk on hole 9"},
      {"9,9,x,9,9,9,9,9,9/9,9,x,9,9,9,9,9,9 9 9 w", "symmetric tuzdyks"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 s", "side to move must be 'w' or 'b'"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 W", "got 'W'"},
      {"9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 white", "got 'white'"},
  };
  for (const auto& b : bad) {
    const std::string msg = error_of([&] { Position::parse(b.text, kTogyz); });
    EXPECT_TRUE(contains(msg, b.why)) << "'" << b.text << "': " << msg;
    EXPECT_TRUE(contains(msg, "position '")) << msg;
  }
}

// ---------------------------------------------------------------------------------
// Fuzzing: every parser answers garbage with ParseError, never anything worse.

std::string mutate(std::string s, std::mt19937& rng, const std::string& alphabet) {
  const int edits = 1 + int(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    const char c = alphabet[rng() % alphabet.size()];
    switch (rng() % 4) {
      case 0:
        s.insert(s.begin() + at, c);
        break;
      case 1:
        if (at < s.size()) s.erase(at, 1 + rng() % 3);
        break;
      case 2:
        if (at < s.size()) s[at] = c;
        break;
      default:  // duplicate a slice
        if (at < s.size()) s.insert(at, s.substr(at, 1 + rng() % 8));
    }
  }
  return s;
}

const std::string kAlphabet = std::string("0123456789,/ wbsnxX()[]{}\";.-*\n\t\"+") +
                              "\xD1\x85\xD0\xA5\xFF" + std::string(1, '\0');

TEST(Fuzz, PositionParse) {
  std::mt19937 rng(1);
  const std::vector<std::string> seeds = {
      "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w",
      "x,5,5,5,5,5,5,5,0/5,5,5,x,5,5,5,5,5 43 44 w",
      "0,0,0,0,0,0,0,0,0/1,2,3,0,0,0,0,0,4 70 82 w",
      "4,4,4,4,4,4/4,4,4,4,4,4 0 0 s",
  };
  const GameSpec specs[] = {kTogyz, GameSpec::parse("kalah"), GameSpec::parse("kalah:4,3,empty")};
  int parsed = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string text = mutate(seeds[rng() % seeds.size()], rng, kAlphabet);
    if (k % 10 == 0) {  // pure noise now and then
      text.clear();
      for (int n = int(rng() % 40); n > 0; --n) text += kAlphabet[rng() % kAlphabet.size()];
    }
    for (const GameSpec& spec : specs) {
      try {
        const Position p = Position::parse(text, spec);
        ++parsed;
        // Whatever parses is a proper position of that game.
        ASSERT_EQ(p.total_stones(), spec.is_togyz() ? 162 : spec.total_seeds()) << text;
        ASSERT_EQ(Position::parse(p.to_string(), spec), p) << text;
        if (!p.is_over()) {
          ASSERT_NE(p.legal_mask(), 0u) << text;
        }
      } catch (const ParseError&) {
      }
    }
  }
  EXPECT_GT(parsed, 100);  // the mutations stay close enough to be valid sometimes
}

TEST(Fuzz, MoveTokens) {
  std::mt19937 rng(2);
  const std::vector<std::string> seeds = {"76", "36x", "76(10)", "25x(14)", "36\xD1\x85", "3"};
  const GameSpec specs[] = {kTogyz, GameSpec::parse("kalah")};
  int parsed = 0;
  for (int k = 0; k < 20000; ++k) {
    const std::string text = mutate(seeds[rng() % seeds.size()], rng, kAlphabet);
    for (const GameSpec& spec : specs) {
      try {
        const MoveToken t = parse_move_token(text, spec);
        ++parsed;
        ASSERT_GE(t.from, 1) << text;
        ASSERT_LE(t.from, spec.pits) << text;
        if (t.landing) {
          ASSERT_TRUE(*t.landing >= 1 && *t.landing <= 9) << text;
        }
        if (t.kazan) {
          ASSERT_TRUE(*t.kazan >= 0 && *t.kazan <= 162) << text;
        }
      } catch (const ParseError&) {
      }
    }
  }
  EXPECT_GT(parsed, 100);
}

TEST(Fuzz, RecordsReadAndReplayed) {
  std::mt19937 rng(3);
  std::vector<std::string> seeds;
  for (const char* game : {"togyz", "kalah"}) {
    const GameSpec spec = GameSpec::parse(game);
    for (int k = 0; k < 4; ++k)
      seeds.push_back(write_pgn({{"White", "A"}, {"Black", "B"}}, Position::start(spec),
                                random_game(spec, rng, 60), {"c1", "", "zero"}, true));
  }
  seeds.push_back(std::string("[White \"A\"]\n\n") + kOpening + " 1-0 {zero}\n");
  int replayed = 0, games_read = 0;
  for (int k = 0; k < 4000; ++k) {
    std::string text;
    for (int n = 1 + int(rng() % 3); n > 0; --n) text += seeds[rng() % seeds.size()];
    text = mutate(text, rng, kAlphabet);
    std::vector<GameRecord> games;
    try {
      games = read(text);
    } catch (const ParseError&) {
      continue;
    }
    for (const auto& g : games) {
      ++games_read;
      ASSERT_EQ(g.moves.size(), g.move_lines.size());
      for (const GameSpec& spec : {kTogyz, GameSpec::parse("kalah")}) {
        try {
          const ReplayResult r = replay_record(g, Position::start(spec));
          ++replayed;
          ASSERT_EQ(r.plies, int(g.moves.size()));
        } catch (const ParseError& e) {
          ASSERT_TRUE(contains(e.what(), "ply ")) << e.what();
        }
      }
    }
  }
  EXPECT_GT(games_read, 1000);
  EXPECT_GT(replayed, 100);
}

}  // namespace
}  // namespace kz
