#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/shard.h"

namespace kz {
namespace {

using test::random_game;
using test::read_bytes;
using test::write_bytes;

// Expects `fn` to throw std::runtime_error whose message names `path` and contains `what`.
template <class F>
void expect_refused(F fn, const std::string& path, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << what << "' for " << path;
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

// A shard of `games` random games; returns the path and fills `rows` with what add_game
// stored (i.e. what reading must give back).
std::string make_shard(const std::string& dir, const GameSpec& spec, int games, uint64_t seed,
                       std::vector<ShardRow>* rows = nullptr, int generation = 7) {
  std::mt19937_64 rng(seed);
  ShardWriter w(spec, generation, "models/gen0007.pt", "test-writer");
  w.set_created_unix_ms(1700000000123);
  for (int g = 0; g < games; ++g) {
    auto game = random_game(spec, rng, uint32_t(g), 60);
    w.add_game(game.rows, game.outcome, game.white_margin, game.length);
  }
  const std::string path = dir + "/s" + std::to_string(seed) + ".kzshard";
  w.write(path);
  if (rows) *rows = ShardReader::read(path);
  return path;
}

// <prefix>-gen<6 digits>-<host>-<pid>-<8 hex>-<6 digits>.kzshard, as documented.
bool is_shard_name(const std::string& name, int generation) {
  const std::string ext = ".kzshard";
  if (name.size() <= ext.size() || name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
    return false;
  std::vector<std::string> parts;
  std::string cur;
  for (char c : name.substr(0, name.size() - ext.size())) {
    if (c == '-') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  auto all = [](const std::string& s, auto pred) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return pred(c); });
  };
  char gen[16];
  std::snprintf(gen, sizeof gen, "gen%06d", generation);
  return parts.size() == 6 && parts[0] == "selfplay" && parts[1] == gen &&
         all(parts[2],
             [](char c) { return std::isalnum((unsigned char)c) || c == '.' || c == '_'; }) &&
         all(parts[3], [](char c) { return std::isdigit((unsigned char)c); }) &&
         parts[4].size() == 8 &&
         all(parts[4], [](char c) { return std::isxdigit((unsigned char)c); }) &&
         parts[5].size() == 6 &&
         all(parts[5], [](char c) { return std::isdigit((unsigned char)c); });
}

TEST(TrainShard, Crc32MatchesTheStandardCheckValue) {
  // The catalogued check value of CRC-32/ISO-HDLC (zlib's crc32) for "123456789".
  EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32("", 0), 0u);
  // Chaining equals one pass.
  EXPECT_EQ(crc32("6789", 4, crc32("12345", 5)), 0xCBF43926u);
}

TEST(TrainShard, RoundTripIsBitExact) {
  const std::string dir = test::temp_dir("kz-shard");
  for (const GameSpec& spec :
       {GameSpec::togyz(), GameSpec::kalah(6, 4), GameSpec::kalah(5, 4, true)}) {
    std::mt19937_64 rng(42);
    ShardWriter w(spec, 12, "gen12.pt", "w1");
    w.set_created_unix_ms(1700000000123);
    std::vector<test::RandomGame> games;
    for (int g = 0; g < 5; ++g) {
      games.push_back(random_game(spec, rng, 1000 + g, 80));
      w.add_game(games.back().rows, games.back().outcome, games.back().white_margin,
                 games.back().length);
    }
    // One row with extreme values in every field the format allows.
    ShardRow odd = games[0].rows[0];
    odd.policy = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1e-30f};
    odd.visits = UINT32_MAX;
    odd.root_win = -0.0f;
    odd.root_margin = -1e30f;
    odd.result = -1;
    odd.final_margin = int16_t(-spec.total_seeds());
    odd.ply = UINT16_MAX;
    odd.game_length = UINT16_MAX;
    odd.flags = ShardRow::kRowFullSearch | ShardRow::kRowProven;
    odd.game_id = 5;
    w.add_row(odd);
    EXPECT_EQ(w.games(), 6u);

    const std::string path = dir + "/" + spec.name() + ".kzshard";
    w.write(path);
    ShardInfo info;
    const auto rows = ShardReader::read(path, &info, spec);
    ASSERT_EQ(rows.size(), w.rows());
    size_t k = 0;
    for (const auto& g : games) {
      for (size_t i = 0; i < g.rows.size(); ++i, ++k) {
        ShardRow expect = g.rows[i];
        expect.game_id = uint32_t(&g - games.data());
        const int sign = expect.pos.to_move == 0 ? 1 : -1;
        expect.result = int8_t(sign * int(g.outcome));
        expect.final_margin = int16_t(sign * g.white_margin);
        expect.game_length = uint16_t(g.length);
        EXPECT_EQ(rows[k], expect) << "row " << k;
      }
    }
    // Bit-exact, including -0.0f, which == would not distinguish.
    uint8_t a[kShardRowBytes], b[kShardRowBytes];
    encode_shard_row(rows.back(), a);
    encode_shard_row(odd, b);
    EXPECT_EQ(std::memcmp(a, b, kShardRowBytes), 0);
    EXPECT_TRUE(std::signbit(rows.back().root_win));

    EXPECT_EQ(info.version, kShardVersion);
    EXPECT_EQ(info.game, spec);
    EXPECT_EQ(info.generation, 12);
    EXPECT_EQ(info.row_count, rows.size());
    EXPECT_EQ(info.game_count, 6u);
    EXPECT_EQ(info.created_unix_ms, 1700000000123);
    EXPECT_EQ(info.writer, "w1");
    EXPECT_EQ(info.model, "gen12.pt");
    EXPECT_EQ(info.file_bytes, std::filesystem::file_size(path));
    const ShardInfo head = ShardReader::read_info(path, spec);
    EXPECT_EQ(head.row_count, info.row_count);
    EXPECT_EQ(head.generation, 12);
  }
}

TEST(TrainShard, ResultsAreFromTheMoversView) {
  const GameSpec spec = GameSpec::kalah(6, 4);
  ShardWriter w(spec, 0);
  ShardRow white, black;
  white.pos = black.pos = Position::start(spec);
  black.pos.to_move = 1;
  w.add_game({white, black}, Outcome::kWhiteWins, 10, 57);
  w.add_game({white, black}, Outcome::kDraw, 0, 40);
  const std::string dir = test::temp_dir("kz-shard");
  w.write(dir + "/x.kzshard");
  const auto rows = ShardReader::read(dir + "/x.kzshard");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].result, 1);
  EXPECT_EQ(rows[0].final_margin, 10);
  EXPECT_EQ(rows[1].result, -1);
  EXPECT_EQ(rows[1].final_margin, -10);
  EXPECT_EQ(rows[0].game_length, 57);
  EXPECT_EQ(rows[2].result, 0);
  EXPECT_EQ(rows[3].game_id, 1u);
}

TEST(TrainShard, WriterRefusesBadRowsAndKeepsNoneOfTheGame) {
  const GameSpec spec = GameSpec::togyz();
  ShardWriter w(spec, 0);
  ShardRow good, bad;
  good.pos = bad.pos = Position::start(spec);
  bad.root_win = std::nanf("");
  EXPECT_THROW(w.add_game({good, bad}, Outcome::kDraw, 0), std::invalid_argument);
  EXPECT_EQ(w.rows(), 0u);
  ShardRow kalah;
  kalah.pos = Position::start(GameSpec::kalah(6, 4));
  EXPECT_THROW(w.add_game({kalah}, Outcome::kDraw, 0), std::invalid_argument);
  EXPECT_THROW(w.add_game({good}, Outcome::kOngoing, 0), std::invalid_argument);
  ShardRow stones = good;
  stones.pos.pits[0] = 200;  // not 162 stones any more
  EXPECT_THROW(w.add_row(stones), std::invalid_argument);
  ShardRow policy = good;
  policy.policy[3] = 1.5f;
  EXPECT_THROW(w.add_row(policy), std::invalid_argument);
  EXPECT_EQ(w.rows(), 0u);
  w.add_game({good}, Outcome::kBlackWins, -4);
  EXPECT_EQ(w.rows(), 1u);
}

TEST(TrainShard, TruncatedShardsAreRefusedNamingTheFile) {
  const std::string dir = test::temp_dir("kz-shard");
  const std::string path = make_shard(dir, GameSpec::togyz(), 3, 1);
  const std::string bytes = read_bytes(path);
  const std::string cut = dir + "/cut.kzshard";
  // Empty, inside the magic, inside the fixed header, inside the strings, mid-row, and
  // the checksum's last byte missing.
  for (size_t len :
       {size_t(0), size_t(5), size_t(30), size_t(60), bytes.size() / 2, bytes.size() - 1}) {
    write_bytes(cut, bytes.substr(0, len));
    SCOPED_TRACE(len);
    expect_refused([&] { ShardReader::read(cut); }, cut, "truncated");
    expect_refused([&] { ShardReader::read_info(cut); }, cut, "truncated");
  }
  // Losing exactly the last row and the checksum is still "truncated".
  write_bytes(cut, bytes.substr(0, bytes.size() - 4 - kShardRowBytes));
  expect_refused([&] { ShardReader::read(cut); }, cut, "truncated");
  expect_refused([&] { ShardReader::read("/nonexistent/kz/none.kzshard"); },
                 "/nonexistent/kz/none.kzshard", "cannot open");
}

TEST(TrainShard, FlippedBytesAreRefused) {
  const std::string dir = test::temp_dir("kz-shard");
  std::vector<ShardRow> rows;
  const std::string path = make_shard(dir, GameSpec::kalah(4, 3), 1, 2, &rows);
  const std::string bytes = read_bytes(path);
  const std::string bad = dir + "/bad.kzshard";
  // A flip in the middle of the rows is caught by the checksum.
  std::string copy = bytes;
  copy[bytes.size() - 4 - kShardRowBytes / 2] ^= 0x10;
  write_bytes(bad, copy);
  expect_refused([&] { ShardReader::read(bad); }, bad, "checksum mismatch");
  // A bit flip anywhere is refused, by a header check or the CRC: every byte of the
  // header, the first row and the checksum, and every 5th byte between (a different bit
  // each time; each flip is a file write, and some file systems make those slow).
  const size_t first_row_end = bytes.size() - 4 - (rows.size() - 1) * kShardRowBytes;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i >= first_row_end && i + 4 < bytes.size() && i % 5 != 0) continue;
    copy = bytes;
    copy[i] ^= char(1 << (i % 8));
    write_bytes(bad, copy);
    EXPECT_THROW(ShardReader::read(bad), std::runtime_error) << "byte " << i;
  }
}

TEST(TrainShard, WrongGameIsRefused) {
  const std::string dir = test::temp_dir("kz-shard");
  const std::string path = make_shard(dir, GameSpec::kalah(6, 4), 2, 3);
  expect_refused([&] { ShardReader::read(path, nullptr, GameSpec::togyz()); }, path, "wrong game");
  expect_refused([&] { ShardReader::read_info(path, GameSpec::kalah(6, 4, true)); }, path,
                 "wrong game");
  expect_refused([&] { ShardReader::read_info(path, GameSpec::kalah(6, 5)); }, path, "wrong game");
  EXPECT_NO_THROW(ShardReader::read(path, nullptr, GameSpec::kalah(6, 4)));
}

TEST(TrainShard, OtherVersionsAreRefused) {
  const std::string dir = test::temp_dir("kz-shard");
  const std::string path = make_shard(dir, GameSpec::togyz(), 1, 4);
  std::string bytes = read_bytes(path);
  bytes[8] = 2;  // version field, little-endian uint32 at offset 8
  write_bytes(path, bytes);
  expect_refused([&] { ShardReader::read(path); }, path, "bad version 2");
  expect_refused([&] { ShardReader::read_info(path); }, path, "bad version 2");
  write_bytes(path, "PK\x03\x04 not a shard at all, but long enough to hold a header..........");
  expect_refused([&] { ShardReader::read(path); }, path, "bad magic");
}

TEST(TrainShard, RowCountMismatchIsRefused) {
  const std::string dir = test::temp_dir("kz-shard");
  const std::string path = make_shard(dir, GameSpec::togyz(), 1, 5);
  const std::string bytes = read_bytes(path);
  write_bytes(path, bytes + std::string(kShardRowBytes, '\0'));  // one row too many
  expect_refused([&] { ShardReader::read(path); }, path, "row count mismatch");
  std::string fewer = bytes;
  fewer[24] = char(uint8_t(fewer[24]) - 1);  // row count, uint64 at offset 24
  write_bytes(path, fewer);
  expect_refused([&] { ShardReader::read_info(path); }, path, "row count mismatch");
}

// A row that is inconsistent although the checksum matches (a writer bug, not damage)
// is refused with its index.
TEST(TrainShard, InconsistentRowWithValidChecksumIsRefused) {
  const std::string dir = test::temp_dir("kz-shard");
  const std::string path = make_shard(dir, GameSpec::togyz(), 1, 6);
  std::string bytes = read_bytes(path);
  const ShardInfo info = ShardReader::read_info(path);
  const size_t header = bytes.size() - 4 - info.row_count * kShardRowBytes;
  bytes[header + kShardRowBytes + 26] = 5;  // row 1's result byte
  const size_t body = bytes.size() - 4;
  const uint32_t crc = crc32(bytes.data(), body);
  for (int i = 0; i < 4; ++i) bytes[body + i] = char(crc >> (8 * i));
  write_bytes(path, bytes);
  expect_refused([&] { ShardReader::read(path); }, path, "bad row 1: result 5");
}

// Random damage with the checksum recomputed (so the header and row checks, not the CRC,
// must catch it): every outcome is a clean read or a std::runtime_error naming the file.
TEST(TrainShard, RandomDamageWithValidChecksumNeverCrashes) {
  const std::string dir = test::temp_dir("kz-shard");
  const std::string path = make_shard(dir, GameSpec::togyz(), 2, 11);
  const std::string bytes = read_bytes(path);
  std::mt19937_64 rng(31337);
  int refused = 0, accepted = 0;
  for (int iter = 0; iter < 400; ++iter) {
    std::string copy = bytes.substr(0, bytes.size() - 4);
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) copy[rng() % copy.size()] = char(rng());
    const uint32_t crc = crc32(copy.data(), copy.size());
    for (int i = 0; i < 4; ++i) copy += char(crc >> (8 * i));
    write_bytes(path, copy);
    try {
      const auto rows = ShardReader::read(path);
      ++accepted;  // e.g. a changed policy value that is still in [0, 1]
      for (const auto& r : rows) EXPECT_EQ(r.pos.total_stones(), kTogyzStones);
    } catch (const std::runtime_error& e) {
      ++refused;
      EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
    }
  }
  EXPECT_GT(refused, 100);
  EXPECT_GT(accepted, 10);
}

TEST(TrainShard, AtomicWriteLeavesNoTemporaryFiles) {
  const std::string dir = test::temp_dir("kz-shard");
  std::mt19937_64 rng(9);
  ShardWriter w(GameSpec::togyz(), 3);
  auto game = random_game(GameSpec::togyz(), rng, 0, 30);
  w.add_game(game.rows, game.outcome, game.white_margin);
  const std::string p1 = w.write_to_dir(dir + "/worker-a", "selfplay");
  EXPECT_EQ(w.rows(), 0u);  // write_to_dir clears
  w.add_game(game.rows, game.outcome, game.white_margin);
  const std::string p2 = w.write_to_dir(dir + "/worker-a", "selfplay");
  EXPECT_NE(p1, p2);
  auto files = test::files_in(dir);
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) EXPECT_TRUE(is_shard_name(f, 3)) << f;
  EXPECT_EQ(ShardReader::read(p2).size(), game.rows.size());

  // A failed write (the folder does not exist) throws naming the file and leaves nothing.
  const std::string missing = dir + "/no-such-folder/x.kzshard";
  expect_refused([&] { w.write(missing); }, missing, "");
  EXPECT_FALSE(std::filesystem::exists(dir + "/no-such-folder"));
  EXPECT_EQ(test::files_in(dir).size(), 2u);
}

TEST(TrainShard, NamesAreUniqueWithinAProcess) {
  std::set<std::string> names;
  for (int i = 0; i < 1000; ++i) names.insert(shard_file_name("p", 1));
  EXPECT_EQ(names.size(), 1000u);
}

}  // namespace
}  // namespace kz
