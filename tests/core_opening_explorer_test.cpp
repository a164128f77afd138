// The opening explorer (core/opening_explorer.h): counts against a hand-made set of
// games (a transposition, a draw, unrated and titled players, a game with an illegal
// move, one without a result, a rating tag "?"), the depth and threshold, self-play rows
// counted once per game, the file's round trip, and a damaged file refused with its name
// whatever part of it is damaged.
#include <gtest/gtest.h>

#include <sstream>

#include "core/checksum.h"
#include "core/little_endian.h"
#include "core/opening_explorer.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// Games 1-3 reach one position by two move orders after five plies (1. 19 19 2. 12 12
// 3. 33 and 1. 19 19 2. 33 12 3. 12) and play 12 from it. Game 5's third white move
// starts from an empty hole. Games 6 and 7 are played by unrated players ("?").
const char* kGames = R"([Event "t"]
[White "a"]
[Black "b"]
[WhiteElo "1300"]
[BlackElo "1600"]
[TimeControl "300"]
[Result "1-0"]

1. 19 19 2. 12 12 3. 33 12 1-0

[Event "t"]
[White "c"]
[Black "d"]
[WhiteElo "1850"]
[TimeControl "300"]
[Result "1/2-1/2"]

1. 19 19 2. 33 12 3. 12 12 1/2-1/2

[Event "cup"]
[White "e"]
[Black "f"]
[Result "0-1"]

1. 19 19 2. 12 12 3. 33 12 0-1

[Event "t"]
[White "g"]
[Black "h"]
[WhiteElo "1100"]
[BlackElo "1250"]
[TimeControl "60"]

1. 19 54 *

[Event "t"]
[White "i"]
[Black "j"]
[WhiteElo "1500"]
[BlackElo "1500"]
[TimeControl "60"]
[Result "1-0"]

1. 19 19 2. 12 12 3. 11 1-0

[Event "t"]
[White "k"]
[Black "l"]
[WhiteElo "?"]
[BlackElo "?"]
[TimeControl "60"]
[Result "1-0"]

1. 32 11 2. 21 23 3. 34 1-0

[Event "t"]
[White "m"]
[Black "n"]
[WhiteElo "?"]
[BlackElo "?"]
[TimeControl "60"]
[Result "0-1"]

1. 32 11 2. 34 23 3. 21 0-1
)";

const GameSpec kTogyz = GameSpec::togyz();

Position after(const std::vector<int>& pits) {
  return replay_moves(pits, Position::start(kTogyz)).final_position;
}

OpeningExplorer build(int max_plies, int min_games, ExplorerSourceReport* report_out = nullptr) {
  std::istringstream in(kGames);
  const std::vector<GameRecord> records = read_pgn(in, "hand-made.pgn");
  OpeningTreeBuilder builder(kTogyz, max_plies, min_games);
  ExplorerSourceReport report;
  report.file = "hand-made.pgn";
  add_records(builder, records, kTogyz, ExplorerLabel::kAuto, report);
  if (report_out) *report_out = report;
  return builder.finish(R"({"sources":[{"file":"hand-made.pgn"}]})");
}

const ExplorerMove* move_of(const ExplorerPosition* p, int pit) {
  if (!p) return nullptr;
  for (const ExplorerMove& m : p->moves)
    if (m.move == pit - 1) return &m;
  return nullptr;
}

ExplorerCounts bucket(const ExplorerMove* m, ExplorerBucket b) {
  return m ? m->by_bucket[size_t(b)] : ExplorerCounts{};
}

TEST(OpeningExplorer, TheIllegalGameIsSkippedWithItsNumber) {
  ExplorerSourceReport report;
  build(30, 1, &report);
  EXPECT_EQ(report.games, 7);
  EXPECT_EQ(report.used, 6);
  EXPECT_EQ(report.no_result, 1);
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_NE(report.skipped[0].find("game 5"), std::string::npos) << report.skipped[0];
  EXPECT_NE(report.skipped[0].find("hand-made.pgn"), std::string::npos) << report.skipped[0];
}

TEST(OpeningExplorer, CountsOfTheStartPositionBySource) {
  const OpeningExplorer e = build(30, 1);
  const ExplorerPosition* start = e.find(Position::start(kTogyz));
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->games(), 6u);  // game 5 left out
  ASSERT_EQ(start->moves.size(), 2u);
  const ExplorerMove* one = move_of(start, 1);
  ASSERT_NE(one, nullptr);
  // White's view: game 1 won (1300), game 2 drawn (1850), game 3 lost (titled), game 4
  // without a result (1100).
  EXPECT_EQ(bucket(one, ExplorerBucket::kRated1200), (ExplorerCounts{1, 0, 0, 0, 1, 1300}));
  EXPECT_EQ(bucket(one, ExplorerBucket::kRated1800), (ExplorerCounts{0, 1, 0, 0, 1, 1850}));
  EXPECT_EQ(bucket(one, ExplorerBucket::kTitled), (ExplorerCounts{0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(bucket(one, ExplorerBucket::kRatedBelow1200), (ExplorerCounts{0, 0, 0, 1, 1, 1100}));
  const ExplorerCounts all = one->total();
  EXPECT_EQ(all.games(), 4u);
  EXPECT_DOUBLE_EQ(all.score(), 0.5);  // (1 + 0.5) / 3 decided games
  EXPECT_NEAR(all.mean_rating(), (1300 + 1850 + 1100) / 3.0, 1e-9);
  const ExplorerMove* three = move_of(start, 3);
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(bucket(three, ExplorerBucket::kUnrated), (ExplorerCounts{1, 0, 1, 0, 0, 0}));
  EXPECT_EQ(three->total().games(), 2u);
  EXPECT_EQ(three->total().mean_rating(), 0.0);
  // Selections: the rated players alone, one band, the titled ones.
  EXPECT_EQ(start->games(explorer_selection("rated", "")), 3u);
  EXPECT_EQ(start->games(explorer_selection("rated", "1800-up")), 1u);
  EXPECT_EQ(start->games(explorer_selection("all", "below-1200")), 1u);
  EXPECT_EQ(start->games(explorer_selection("titled", "")), 1u);
  EXPECT_EQ(start->games(explorer_selection("unrated", "")), 2u);
  EXPECT_EQ(start->games(explorer_selection("engine", "")), 0u);
}

TEST(OpeningExplorer, BlackMovesCountFromBlacksView) {
  const OpeningExplorer e = build(30, 1);
  const ExplorerPosition* p = e.find(after({1}));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->position.to_move, 1);
  const ExplorerMove* one = move_of(p, 1);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(bucket(one, ExplorerBucket::kRated1500), (ExplorerCounts{0, 0, 1, 0, 1, 1600}));
  EXPECT_EQ(bucket(one, ExplorerBucket::kUnrated),
            (ExplorerCounts{0, 1, 0, 0, 0, 0}));  // "BlackElo" missing online
  EXPECT_EQ(bucket(one, ExplorerBucket::kTitled), (ExplorerCounts{1, 0, 0, 0, 0, 0}));
  const ExplorerMove* five = move_of(p, 5);
  ASSERT_NE(five, nullptr);
  EXPECT_EQ(bucket(five, ExplorerBucket::kRated1200), (ExplorerCounts{0, 0, 0, 1, 1, 1250}));
}

TEST(OpeningExplorer, TranspositionsMeet) {
  const OpeningExplorer e = build(30, 1);
  const Position a = after({1, 1, 1, 1, 3}), b = after({1, 1, 3, 1, 1});
  ASSERT_EQ(a, b) << "the two move orders must reach one position";
  const ExplorerPosition* p = e.find(a);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->moves.size(), 1u);
  EXPECT_EQ(p->moves[0].move, 0);
  EXPECT_EQ(p->games(), 3u);  // games 1 and 3 by one order, game 2 by the other
  EXPECT_EQ(p->moves[0].total(), (ExplorerCounts{1, 1, 1, 0, 1, 1600}));
  // The positions before the two orders meet stay apart.
  EXPECT_EQ(e.find(after({1, 1, 1}))->games(), 2u);
  EXPECT_EQ(e.find(after({1, 1, 3}))->games(), 1u);
}

TEST(OpeningExplorer, ThresholdAndDepth) {
  // Three games or more: the start, after 19, after 19 19 and the transposed position.
  const OpeningExplorer three = build(30, 3);
  EXPECT_EQ(three.positions().size(), 4u);
  EXPECT_NE(three.find(after({1, 1, 1, 1, 3})), nullptr);
  EXPECT_EQ(three.find(after({1, 1, 1})), nullptr);
  // Five plies: the position after five plies is not collected.
  const OpeningExplorer shallow = build(5, 3);
  EXPECT_EQ(shallow.positions().size(), 3u);
  EXPECT_EQ(shallow.find(after({1, 1, 1, 1, 3})), nullptr);
  EXPECT_EQ(shallow.max_plies(), 5);
  EXPECT_EQ(shallow.min_games(), 3);
}

TEST(OpeningExplorer, SelfPlayRowsCountOncePerGame) {
  OpeningTreeBuilder builder(kTogyz, 30, 1);
  const Position start = Position::start(kTogyz);
  // A row written twice (surprise weighting copies rows) still counts one game.
  builder.add_move(7, 0, start, 6, 1, ExplorerBucket::kEngine, 0);
  builder.add_move(7, 0, start, 6, 1, ExplorerBucket::kEngine, 0);
  builder.add_move(8, 0, start, 6, -1, ExplorerBucket::kEngine, 0);
  builder.add_move(8, 40, after({7}), 0, 1, ExplorerBucket::kEngine, 0);  // beyond the depth
  EXPECT_THROW(builder.add_move(9, 0, start, 9, 1, ExplorerBucket::kEngine, 0),
               std::invalid_argument);  // no hole 10
  Position bad = start;
  bad.pits[0] = 0;  // nine stones missing
  EXPECT_THROW(builder.add_move(9, 0, bad, 1, 1, ExplorerBucket::kEngine, 0),
               std::invalid_argument);
  const OpeningExplorer e = builder.finish("{}");
  ASSERT_EQ(e.positions().size(), 1u);
  EXPECT_EQ(e.positions()[0].moves[0].by_bucket[size_t(ExplorerBucket::kEngine)],
            (ExplorerCounts{1, 0, 1, 0, 0, 0}));
}

TEST(OpeningExplorer, SelectionWords) {
  EXPECT_EQ(explorer_selection("all", ""), kAllExplorerBuckets);
  EXPECT_EQ(explorer_selection("rated", "1500-1799"), 1u << int(ExplorerBucket::kRated1500));
  EXPECT_THROW(explorer_selection("players", ""), ParseError);
  EXPECT_THROW(explorer_selection("titled", "1500-1799"), ParseError);
  EXPECT_THROW(explorer_selection("rated", "1500"), ParseError);
  EXPECT_EQ(explorer_rating_bucket(1199), ExplorerBucket::kRatedBelow1200);
  EXPECT_EQ(explorer_rating_bucket(1200), ExplorerBucket::kRated1200);
  EXPECT_EQ(explorer_rating_bucket(1799), ExplorerBucket::kRated1500);
  EXPECT_EQ(explorer_rating_bucket(2400), ExplorerBucket::kRated1800);
}

TEST(OpeningExplorer, FileRoundTrip) {
  const OpeningExplorer e = build(30, 1);
  const std::string dir = test::temp_dir("explorer");
  const std::string path = dir + "/t.kzo";
  e.write(path);
  const OpeningExplorer back = OpeningExplorer::read(path);
  EXPECT_EQ(back, e);
  EXPECT_EQ(back.metadata_json(), R"({"sources":[{"file":"hand-made.pgn"}]})");
  EXPECT_EQ(back.encode(), test::read_bytes(path));
  // Every position is found again, and a position no game reached is not.
  for (const ExplorerPosition& p : back.positions()) EXPECT_EQ(back.find(p.position), &p);
  EXPECT_EQ(back.find(after({9})), nullptr);
  // Metadata a reader would refuse is never written.
  OpeningExplorer bad = e;
  bad.set_metadata_json("sources: none");
  EXPECT_THROW(bad.encode(), std::invalid_argument);
}

// The file with its checksum made right again, so that the checks behind it are reached.
std::string with_crc(std::string bytes) {
  put_le<uint32_t>(reinterpret_cast<uint8_t*>(bytes.data()) + bytes.size() - 4,
                   crc32(bytes.data(), bytes.size() - 4));
  return bytes;
}

void expect_refused(const std::string& bytes, const std::string& what, const std::string& words) {
  try {
    OpeningExplorer::decode(bytes, "damaged.kzo");
    ADD_FAILURE() << what << ": accepted";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("damaged.kzo: ", 0), 0u) << what << ": " << m;
    EXPECT_NE(m.find(words), std::string::npos) << what << ": " << m;
  }
}

TEST(OpeningExplorer, DamagedFilesAreRefusedWithTheirName) {
  const std::string good = build(30, 1).encode();
  ASSERT_NO_THROW(OpeningExplorer::decode(good, "good.kzo"));
  const uint32_t meta = get_le<uint32_t>(reinterpret_cast<const uint8_t*>(good.data()) + 32);
  const uint32_t positions = get_le<uint32_t>(reinterpret_cast<const uint8_t*>(good.data()) + 36);
  const size_t table = kExplorerHeaderBytes + meta;
  const size_t moves = table + size_t(positions) * kExplorerPositionBytes;
  auto flip = [&](size_t at) {
    std::string b = good;
    b[at] = char(b[at] ^ 0x5a);
    return b;
  };
  auto set32 = [&](size_t at, uint32_t v) {
    std::string b = good;
    put_le<uint32_t>(reinterpret_cast<uint8_t*>(b.data()) + at, v);
    return b;
  };
  // The header, field by field.
  expect_refused(flip(0), "magic", "bad magic");
  expect_refused(set32(8, 2), "version", "version 2");
  expect_refused(set32(12, 64), "header size", "header size");
  expect_refused(set32(16, 1), "flags", "flags");
  expect_refused(flip(20), "game", "game");
  expect_refused(set32(24, 0), "threshold", "threshold");
  // Lengths: each refused before anything the size of the claim is allocated.
  expect_refused(set32(32, 0xFFFFFFFFu), "metadata length", "metadata length");
  expect_refused(set32(32, meta + 1), "metadata length", "truncated");
  expect_refused(set32(36, 0xFFFFFFFFu), "position count", "move count");
  expect_refused(set32(36, positions + 1), "position count", "truncated");
  expect_refused(set32(40, 0xFFFFFFF0u), "move bytes", "truncated");
  expect_refused(set32(44, 0xFFFFFFFFu), "move count", "move count");
  // The checksum, and any byte of the body.
  expect_refused(flip(good.size() - 1), "checksum", "checksum mismatch");
  expect_refused(flip(kExplorerHeaderBytes + 2), "metadata byte", "checksum mismatch");
  expect_refused(flip(table + 3), "position byte", "checksum mismatch");
  expect_refused(flip(moves + 1), "move byte", "checksum mismatch");
  // Truncation anywhere, and bytes after the end.
  for (size_t cut : {size_t(0), size_t(4), size_t(20), table, moves, good.size() - 1})
    expect_refused(good.substr(0, cut), "cut at " + std::to_string(cut),
                   cut < 8                      ? "bad magic"
                   : cut < kExplorerHeaderBytes ? "truncated header"
                                                : "truncated");
  expect_refused(good + "x", "appended", "size mismatch");
  // Damage behind a checksum made right: the checks of the positions and moves.
  expect_refused(with_crc(flip(table)), "key", "key does not match");
  expect_refused(with_crc(flip(table + 8)), "stones", "position 0");
  expect_refused(with_crc(flip(moves)), "pit", "position 0");
  std::string no_json = good;
  no_json[kExplorerHeaderBytes] = 'x';
  expect_refused(with_crc(no_json), "metadata", "metadata");
}

TEST(OpeningExplorer, UnreadablePathsAreRefusedWithTheirName) {
  const std::string dir = test::temp_dir("explorer-missing");
  try {
    OpeningExplorer::read(dir + "/none.kzo");
    ADD_FAILURE() << "a missing file was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/none.kzo"), std::string::npos) << e.what();
  }
  EXPECT_THROW(OpeningExplorer::read(dir), std::runtime_error);
}

}  // namespace
}  // namespace kz
