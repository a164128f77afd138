// core/rated_games.h: ratings and time controls from PGN tags (a broken header makes a
// side unrated and is counted by reason), and the held-out split by game. On the
// recorded PlayOK and tournament games (../shared/data/togyz, skipped when absent) the
// split's games and positions per fold are pinned: a change of the split formula
// changes which games a human model may be validated on, and must be deliberate.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/checksum.h"
#include "core/rated_games.h"
#include "tests/test_util.h"

namespace kz {
namespace {

std::vector<GameRecord> read_text(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  return read_pgn(in, source);
}

std::string rated_game_text(const std::string& white_elo, const std::string& black_elo,
                            const std::string& round = "1", const std::string& moves = "1. 76 98") {
  std::string t = "[Event \"Test\"]\n[Date \"2025.01.02\"]\n[Round \"" + round +
                  "\"]\n[White \"a\"]\n[Black \"b\"]\n[Time \"10:00:00\"]\n"
                  "[TimeControl \"300\"]\n";
  if (!white_elo.empty()) t += "[WhiteElo \"" + white_elo + "\"]\n";
  if (!black_elo.empty()) t += "[BlackElo \"" + black_elo + "\"]\n";
  return t + "\n" + moves + " *\n\n";
}

TEST(RatedGames, RatingsParseAndBrokenHeadersGetTheirReason) {
  EXPECT_EQ(parse_rating("1185").status, RatingStatus::kRated);
  EXPECT_EQ(parse_rating("1185").rating, 1185);
  EXPECT_EQ(parse_rating("100").rating, 100);
  EXPECT_EQ(parse_rating("3500").rating, 3500);
  EXPECT_EQ(parse_rating(std::nullopt).status, RatingStatus::kMissing);
  for (const char* unknown : {"", "?", "-"})
    EXPECT_EQ(parse_rating(unknown).status, RatingStatus::kUnknown) << unknown;
  for (const char* junk : {"abc", "12a", "1200.0", "+1200", " 1200", "1200 ", "1e3", "--"})
    EXPECT_EQ(parse_rating(junk).status, RatingStatus::kNotANumber) << junk;
  for (const char* far : {"99", "0", "-1200", "3501", "99999", "999999999999999999999999"})
    EXPECT_EQ(parse_rating(far).status, RatingStatus::kOutOfRange) << far;
  EXPECT_STREQ(rating_status_name(RatingStatus::kNotANumber), "not_a_number");
  EXPECT_STREQ(rating_status_name(RatingStatus::kOutOfRange), "out_of_range");
}

TEST(RatedGames, SidesAndTimeControlFromTheTags) {
  const auto games = read_text(
      rated_game_text("1500", "?") + rated_game_text("", "x1") + rated_game_text("5000", "1201"),
      "t.pgn");
  ASSERT_EQ(games.size(), 3u);
  UnratedSides unrated;
  std::vector<RatedGame> rated;
  for (const auto& g : games) {
    rated.push_back(read_rated_game(g));
    for (const auto& s : rated.back().sides) unrated.add(s);
  }
  EXPECT_EQ(rated[0].sides[0].rating, 1500);
  EXPECT_EQ(rated[0].sides[1].status, RatingStatus::kUnknown);
  EXPECT_EQ(rated[1].sides[0].status, RatingStatus::kMissing);
  EXPECT_EQ(rated[1].sides[1].status, RatingStatus::kNotANumber);
  EXPECT_EQ(rated[2].sides[0].status, RatingStatus::kOutOfRange);
  EXPECT_EQ(rated[2].sides[1].rating, 1201);
  const std::map<std::string, int64_t> expected = {
      {"unknown", 1}, {"missing", 1}, {"not_a_number", 1}, {"out_of_range", 1}};
  EXPECT_EQ(unrated.by_reason, expected);
  EXPECT_EQ(unrated.total(), 4);
  ASSERT_TRUE(rated[0].time_control.has_value());
  EXPECT_EQ(rated[0].time_control->base_s, 300);
  EXPECT_EQ(rated[0].time_control->increment_s, 0);
}

TEST(RatedGames, TimeControls) {
  const auto tc = parse_time_control("300+5");
  ASSERT_TRUE(tc.has_value());
  EXPECT_EQ(tc->base_s, 300);
  EXPECT_EQ(tc->increment_s, 5);
  EXPECT_EQ(parse_time_control("60")->base_s, 60);
  for (const char* bad : {"", "?", "-", "40/7200", "*60", "0", "-60", "60+", "60+-1", "a", "86401"})
    EXPECT_FALSE(parse_time_control(bad).has_value()) << bad;
}

TEST(RatedGames, FoldSelectionWords) {
  EXPECT_EQ(parse_fold_selection("validation"), FoldSelection::kValidation);
  EXPECT_EQ(parse_fold_selection("train"), FoldSelection::kTrain);
  EXPECT_EQ(parse_fold_selection("all"), FoldSelection::kAll);
  EXPECT_THROW(parse_fold_selection("test"), ParseError);
  EXPECT_TRUE(fold_selected(FoldSelection::kAll, Fold::kTrain));
  EXPECT_TRUE(fold_selected(FoldSelection::kValidation, Fold::kValidation));
  EXPECT_FALSE(fold_selected(FoldSelection::kValidation, Fold::kTrain));
  EXPECT_FALSE(fold_selected(FoldSelection::kTrain, Fold::kValidation));
}

// The same game gets the same identity and fold wherever it stands: another index and
// line in its file, another folder; another file name, tag or move makes another game.
TEST(RatedGames, IdentityIsTheGameNotItsPlace) {
  const std::string a = rated_game_text("1500", "1600", "7", "1. 76 98 2. 66");
  const std::string b = rated_game_text("1500", "1600", "8");
  const auto first = read_text(a + b, "/data/one/playok.pgn");
  const auto moved = read_text(b + a, "/elsewhere/playok.pgn");
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(moved.size(), 2u);
  ASSERT_NE(first[0].index, moved[1].index);
  EXPECT_EQ(game_identity(first[0]), game_identity(moved[1]));
  EXPECT_EQ(game_identity(first[1]), game_identity(moved[0]));
  EXPECT_NE(game_identity(first[0]), game_identity(first[1]));  // Round differs
  // Ratings and the result are not part of a game's identity.
  const auto rerated = read_text(rated_game_text("1100", "?", "7", "1. 76 98 2. 66"), "playok.pgn");
  EXPECT_EQ(game_identity(rerated[0]), game_identity(first[0]));
  const auto other_file = read_text(a, "/data/one/other.pgn");
  EXPECT_NE(game_identity(other_file[0]), game_identity(first[0]));
  const auto other_moves =
      read_text(rated_game_text("1500", "1600", "7", "1. 76 98 2. 67"), "playok.pgn");
  EXPECT_NE(game_identity(other_moves[0]), game_identity(first[0]));
  // Length prefixes: moving a character from one field to the next is another game.
  GameRecord x = first[0], y = first[0];
  x.set_tag("White", "ab");
  x.set_tag("Black", "c");
  y.set_tag("White", "a");
  y.set_tag("Black", "bc");
  EXPECT_NE(game_identity(x), game_identity(y));
}

TEST(RatedGames, SplitIsDeterministicAndHoldsOutTheStatedShare) {
  std::string text;
  const int n = 2000;
  for (int i = 0; i < n; ++i) text += rated_game_text("1500", "1500", std::to_string(i));
  const auto games = read_text(text, "many.pgn");
  ASSERT_EQ(games.size(), size_t(n));
  int validation = 0;
  std::map<uint64_t, Fold> fold_of;
  for (const auto& g : games) {
    const RatedGame r = read_rated_game(g);
    EXPECT_EQ(r.fold, game_fold(game_identity(g)));
    EXPECT_EQ(r.fold, read_rated_game(g).fold);
    fold_of[r.identity] = r.fold;
    validation += r.fold == Fold::kValidation;
  }
  EXPECT_EQ(fold_of.size(), size_t(n));
  EXPECT_GT(validation, n * 8 / 100);
  EXPECT_LT(validation, n * 12 / 100);
  // Read in reverse order, every game keeps its fold.
  std::string reversed;
  for (int i = n - 1; i >= 0; --i) reversed += rated_game_text("1500", "1500", std::to_string(i));
  for (const auto& g : read_text(reversed, "many.pgn"))
    EXPECT_EQ(read_rated_game(g).fold, fold_of.at(game_identity(g)));
  // The fraction's ends: nothing held out, everything held out; a larger fraction only
  // adds games to validation (the train fold of 20 % is inside the train fold of 10 %).
  for (const auto& g : games) {
    const uint64_t id = game_identity(g);
    EXPECT_EQ(game_fold(id, 0.0), Fold::kTrain);
    EXPECT_EQ(game_fold(id, 1.0), Fold::kValidation);
    if (game_fold(id, 0.10) == Fold::kValidation) {
      EXPECT_EQ(game_fold(id, 0.20), Fold::kValidation);
    }
  }
}

// The folds of a cross-validation: slice 0 of 10 is the shipped validation fold, and the
// K slices of any K hold every game exactly once.
TEST(RatedGames, HeldOutSlicesPartitionTheGames) {
  for (uint64_t i = 0; i < 20000; ++i) {
    const uint64_t id = mix64(i * 7919 + 17);
    EXPECT_EQ(game_fold(id, HeldOut{}), game_fold(id)) << i;
    for (int k : {2, 5, 10, 7}) {
      int held = 0;
      for (int j = 0; j < k; ++j) held += game_fold(id, HeldOut{j, k}) == Fold::kValidation;
      EXPECT_EQ(held, 1) << "identity " << id << ", " << k << " folds";
    }
  }
  // Each of 5 slices holds about a fifth.
  std::array<int, 5> count{};
  for (uint64_t i = 0; i < 10000; ++i)
    for (int j = 0; j < 5; ++j)
      count[size_t(j)] += game_fold(mix64(i), HeldOut{j, 5}) == Fold::kValidation;
  for (int c : count) {
    EXPECT_GT(c, 1800);
    EXPECT_LT(c, 2200);
  }
  const std::string text = rated_game_text("1500", "1600", "7");
  const GameRecord g = read_text(text, "g.pgn").front();
  EXPECT_EQ(read_rated_game(g).fold, game_fold(game_identity(g)));
}

TEST(RatedGames, HeldOutWords) {
  EXPECT_EQ(parse_held_out("0/10"), HeldOut{});
  EXPECT_EQ(parse_held_out("4/5"), (HeldOut{4, 5}));
  EXPECT_EQ(parse_held_out("99/100"), (HeldOut{99, 100}));
  EXPECT_EQ(held_out_text({3, 5}), "3/5");
  for (const char* bad : {"", "3", "5/5", "1/1", "0/1", "-1/5", "a/5", "1/101", "1/5/2", "1/ 5",
                          " 1/5", "1/", "/5", "1000/2000"}) {
    try {
      parse_held_out(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("J/K"), std::string::npos) << e.what();
    }
  }
}

// The recorded games: per file and fold, games and positions (plies; rated: plies whose
// mover is rated), pinned; unrated sides by reason.
TEST(RatedGames, RecordedGamesPerFold) {
  const std::string dir = test::shared_data_dir();
  if (dir.empty())
    GTEST_SKIP() << "no recorded games: " << test::configured_shared_data_dir()
                 << "/togyz/*.pgn is absent (set -DKZ_SHARED_DATA=... to run this test)";
  struct Counts {
    int games = 0;
    int64_t positions = 0, rated_positions = 0;
  };
  std::map<std::string, std::array<Counts, 2>> by_file;  // [train, validation]
  UnratedSides unrated;
  const Position start = Position::start(GameSpec::togyz());
  for (const char* name : {"playok-2025.pgn", "playok-2024-25.pgn", "tournament-2018.pgn"}) {
    const std::string path = dir + "/togyz/" + name;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
    for (const auto& g : read_pgn_file(path)) {
      const RatedGame r = read_rated_game(g);
      for (const auto& s : r.sides) unrated.add(s);
      const ReplayResult rr = replay_record(g, start);
      Counts& c = by_file[name][r.fold == Fold::kValidation];
      ++c.games;
      c.positions += rr.plies;
      Position pos = start;
      for (int move : rr.moves) {
        c.rated_positions += r.sides[pos.to_move].rated();
        pos.play(move);
      }
    }
  }
  for (const auto& [name, folds] : by_file)
    for (int f = 0; f < 2; ++f)
      std::cout << name << " " << fold_name(Fold(f)) << ": " << folds[f].games << " games, "
                << folds[f].positions << " positions, " << folds[f].rated_positions << " rated\n";
  auto expect = [&](const std::string& file, Fold fold, int games, int64_t positions,
                    int64_t rated) {
    const Counts& c = by_file[file][fold == Fold::kValidation];
    EXPECT_EQ(c.games, games) << file << " " << fold_name(fold);
    EXPECT_EQ(c.positions, positions) << file << " " << fold_name(fold);
    EXPECT_EQ(c.rated_positions, rated) << file << " " << fold_name(fold);
  };
  // Held out: 9.3 %, 9.3 % and 8.8 % of the three files' games. The tournament games carry
  // no rating tags (1,484 sides), and 50 PlayOK sides have none.
  expect("playok-2025.pgn", Fold::kTrain, 1115, 123836, 123836);
  expect("playok-2025.pgn", Fold::kValidation, 114, 12080, 12080);
  expect("playok-2024-25.pgn", Fold::kTrain, 1581, 165701, 164709);
  expect("playok-2024-25.pgn", Fold::kValidation, 162, 16955, 16918);
  expect("tournament-2018.pgn", Fold::kTrain, 677, 46669, 0);
  expect("tournament-2018.pgn", Fold::kValidation, 65, 4311, 0);
  const std::map<std::string, int64_t> expected_unrated = {{"missing", 1534}};
  EXPECT_EQ(unrated.by_reason, expected_unrated);
}

// A data set is read whole or not at all: every file's games in file order, and a file
// that is missing or holds no game named in the error.
TEST(RatedGames, ReadGameFilesReadsEveryFileAndNamesOneWithoutGames) {
  const std::string dir = test::temp_dir("kz-rated-files");
  const std::string one = dir + "/one.pgn", two = dir + "/two.pgn", empty = dir + "/empty.pgn";
  std::ofstream(one) << rated_game_text("1200", "1300");
  std::ofstream(two) << rated_game_text("1500", "1400", "1") << "\n"
                     << rated_game_text("1500", "1400", "2");
  std::ofstream(empty) << "\n";
  const auto files = read_game_files({one, two});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].size(), 1u);
  EXPECT_EQ(files[1].size(), 2u);
  for (const std::string& bad : {empty, dir + "/missing.pgn"}) {
    try {
      read_game_files({one, bad});
      ADD_FAILURE() << bad << " was read";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kz
