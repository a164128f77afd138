// The exact Kalah solver, the endgame databases and the perfect level: published
// perfect-play margins, agreement with a brute-force reference on random positions,
// the database file's checks, and the player's choices.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>

#include "mcts/kalah_solver.h"
#include "mcts/levels.h"
#include "mcts/perfect_player.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// Brute force: the best final-margin change the mover can force, by plain memoised
// negamax over every move (no pruning, no tables shared with the library).
class Reference {
 public:
  int rest(const Position& pos) {
    if (pos.is_over()) return 0;
    uint64_t key = pos.to_move;
    for (int p = 0; p < 2; ++p)
      for (int i = 0; i < pos.npits; ++i) key = key * 64 + pos.pit(p, i);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const int me = pos.to_move;
    int best = -1000;
    for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
      Position child = pos;
      child.play(__builtin_ctz(mask));
      const int gained =
          (child.store[me] - pos.store[me]) - (child.store[me ^ 1] - pos.store[me ^ 1]);
      best = std::max(best, gained + (child.to_move == me ? rest(child) : -rest(child)));
    }
    memo_.emplace(key, best);
    return best;
  }

 private:
  std::unordered_map<uint64_t, int> memo_;
};

int final_margin(const Position& pos, int rest) {
  return int(pos.store[pos.to_move]) - int(pos.store[pos.to_move ^ 1]) + rest;
}

// Positions reached by random play from the start, of every stage of the game.
std::vector<Position> random_positions(const GameSpec& spec, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  while (int(out.size()) < count) {
    Position p = Position::start(spec);
    const int plies = int(rng() % 40);
    for (int i = 0; i < plies && !p.is_over(); ++i) p.play(random_legal_move(p, rng));
    if (!p.is_over()) out.push_back(p);
  }
  return out;
}

using test::read_bytes;
using test::temp_dir;
using test::write_bytes;

// The published perfect-play margins of the first player (Irving, Donkers &
// Uiterwijk 2000; the rules page lists them). Each solve takes well under a second;
// Kalah(5,4) and (6,4) are checked by `kumalak solve` (docs/levels.md).
TEST(KalahSolver, PublishedMarginsOfSmallKalahs) {
  const struct {
    const char* game;
    int margin;
  } known[] = {{"kalah:4,3", 6},       {"kalah:4,3,empty", 8}, {"kalah:4,4", 2},
               {"kalah:4,4,empty", 2}, {"kalah:5,3", 6},       {"kalah:5,3,empty", 8}};
  for (const auto& k : known) {
    KalahSolver solver(16);
    const SolveResult r = solver.solve(Position::start(GameSpec::parse(k.game)));
    ASSERT_TRUE(r.solved) << k.game;
    EXPECT_EQ(r.margin, k.margin) << k.game;
    EXPECT_EQ(r.move_margin[r.best_move], k.margin) << k.game;
  }
}

TEST(KalahSolver, PublishedMarginsWithAnEndgameDatabase) {
  for (const auto& [game, margin] : {std::pair{"kalah:4,4", 2}, std::pair{"kalah:5,3,empty", 8}}) {
    const GameSpec spec = GameSpec::parse(game);
    auto db = std::make_shared<KalahEndgameDb>(KalahEndgameDb::build(spec.variant, spec.pits, 10));
    KalahSolver solver(16, db);
    EXPECT_EQ(solver.solve(Position::start(spec)).margin, margin) << game;
  }
}

TEST(KalahSolver, AgreesWithBruteForceOnRandomPositions) {
  for (const char* game : {"kalah:4,2", "kalah:3,4,empty", "kalah:3,3"}) {
    const GameSpec spec = GameSpec::parse(game);
    Reference ref;
    KalahSolver solver(8);
    for (const Position& p : random_positions(spec, 60, 7)) {
      const SolveResult r = solver.solve(p, {}, /*all_moves=*/true);
      ASSERT_TRUE(r.solved);
      EXPECT_EQ(r.margin, final_margin(p, ref.rest(p))) << game << " " << p.to_string();
      // Every move's margin is the reference's value of its child.
      for (uint32_t mask = p.legal_mask(); mask; mask &= mask - 1) {
        const int mv = __builtin_ctz(mask);
        Position c = p;
        c.play(mv);
        const int me = p.to_move;
        const int child_rest = c.is_over() ? 0 : c.to_move == me ? ref.rest(c) : -ref.rest(c);
        EXPECT_EQ(r.move_margin[mv], int(c.store[me]) - int(c.store[me ^ 1]) + child_rest)
            << game << " " << p.to_string() << " move " << mv + 1;
      }
      EXPECT_EQ(r.move_margin[r.best_move], r.margin);
      EXPECT_EQ(stones_lost(r, r.best_move), 0);
      // The line is perfect: playing it ends with the solved margin.
      Position q = p;
      for (int mv : r.pv) {
        ASSERT_TRUE(q.is_legal(mv));
        q.play(mv);
      }
      EXPECT_TRUE(q.is_over());
      const int diff = int(q.store[p.to_move]) - int(q.store[p.to_move ^ 1]);
      EXPECT_EQ(diff, r.margin) << p.to_string();
    }
  }
}

TEST(KalahSolver, KnownPositions) {
  const GameSpec spec = GameSpec::parse("kalah");
  KalahSolver solver(8);
  // South's last seed ends in the store: another turn, but South's pits are empty, so
  // the game ends and North banks its one seed: 21 - 27.
  EXPECT_EQ(solver.solve(Position::parse("0,0,0,0,0,1/1,0,0,0,0,0 20 26 s", spec)).margin, -6);
  // Pit 5's single seed lands in the empty pit 6 and captures the 7 seeds opposite,
  // which empties North's row: South banks all 9 seeds on the board.
  const Position cap = Position::parse("1,0,0,0,1,0/7,0,0,0,0,0 19 20 s", spec);
  const SolveResult r = solver.solve(cap, {}, true);
  EXPECT_EQ(r.margin, 19 - 20 + 9);
  EXPECT_EQ(r.best_move, 4);
  EXPECT_LT(r.move_margin[0], r.margin);
  // Margins beyond a byte: Kalah(9,12) has 216 seeds. South's only move banks its last
  // seed and empties its row, so North banks all 150 of its seeds: 31 - 185.
  const GameSpec big = GameSpec::parse("kalah:9,12");
  const Position p = Position::parse("0,0,0,0,0,0,0,0,1/17,17,17,17,17,17,16,16,16 30 35 s", big);
  KalahSolver big_solver(8);
  const SolveResult b = big_solver.solve(p, {}, true);
  ASSERT_TRUE(b.solved);
  EXPECT_EQ(b.margin, 31 - 185);
  EXPECT_EQ(b.move_margin[8], 31 - 185);
  // And the other way round, North to move with the mirror position.
  const Position q = Position::parse("17,17,17,17,17,17,16,16,16/0,0,0,0,0,0,0,0,1 35 30 n", big);
  EXPECT_EQ(big_solver.solve(q).margin, 31 - 185);
}

TEST(KalahSolver, LimitsStopItWithoutAnAnswer) {
  KalahSolver solver(8);
  SolveLimits l;
  l.nodes = 1000;
  const SolveResult r = solver.solve(Position::start(GameSpec::parse("kalah")), l);
  EXPECT_FALSE(r.solved);
  EXPECT_LT(r.nodes, 20000);
  std::atomic<bool> stop{true};
  SolveLimits s;
  s.stop = &stop;
  EXPECT_FALSE(solver.solve(Position::start(GameSpec::parse("kalah")), s).solved);
  // What it stored before stopping is still right.
  EXPECT_EQ(solver.solve(Position::start(GameSpec::parse("kalah:4,3"))).margin, 6);
  EXPECT_THROW(solver.solve(Position::start(GameSpec::togyz())), std::invalid_argument);
}

TEST(KalahSolver, TheExactMovesBestFirstWithTheirOutcomes) {
  const Position p = Position::start(GameSpec::parse("kalah:4,3"));
  KalahSolver solver(8);
  const SolveResult r = solver.solve(p, {}, true);
  const std::vector<ExactMove> moves = exact_moves(p, r);
  ASSERT_EQ(moves.size(), size_t(std::popcount(p.legal_mask())));
  EXPECT_EQ(moves[0].move, 1);  // pit 2 keeps +6
  EXPECT_EQ(moves[0].margin, 6);
  EXPECT_EQ(moves[0].outcome, ExactMoveOutcome::kKeeps);
  for (size_t i = 0; i < moves.size(); ++i) {
    EXPECT_EQ(moves[i].margin, r.move_margin[moves[i].move]);
    if (i > 0) {
      EXPECT_GE(moves[i - 1].margin, moves[i].margin);
    }
    EXPECT_EQ(stones_lost(r, moves[i].move), r.margin - moves[i].margin);
    EXPECT_GE(stones_lost(r, moves[i].move), 0);
  }
  EXPECT_EQ(stones_lost(r, 8), -1);
  EXPECT_EQ(exact_move_outcome(6, 6), ExactMoveOutcome::kKeeps);
  EXPECT_EQ(exact_move_outcome(2, 6), ExactMoveOutcome::kDrops);
  EXPECT_EQ(exact_move_outcome(-2, -1), ExactMoveOutcome::kDrops);
  EXPECT_EQ(exact_move_outcome(0, 0), ExactMoveOutcome::kKeeps);
  EXPECT_EQ(exact_move_outcome(0, 6), ExactMoveOutcome::kDropsToADraw);
  EXPECT_EQ(exact_move_outcome(-4, 6), ExactMoveOutcome::kDropsToALoss);
  EXPECT_EQ(exact_move_outcome(-4, 0), ExactMoveOutcome::kDropsToALoss);
}

TEST(KalahEndgameDb, MatchesBruteForceOnEveryPositionOfSmallBoards) {
  for (const char* game : {"kalah:3,3", "kalah:3,3,empty", "kalah:4,2,empty"}) {
    const GameSpec spec = GameSpec::parse(game);
    const KalahEndgameDb db = KalahEndgameDb::build(spec.variant, spec.pits, 9);
    EXPECT_EQ(db.size(), KalahEndgameDb::entries(spec.pits, 9));
    Reference ref;
    int checked = 0;
    for (const Position& p : random_positions(spec, 300, 11)) {
      if (!db.covers(p, seeds_on_pits(p))) continue;
      EXPECT_EQ(db.rest(p), ref.rest(p)) << game << " " << p.to_string();
      ++checked;
    }
    EXPECT_GT(checked, 50) << game;
  }
}

// The message of load()'s refusal of `path` (with the table `expect` asks for, when
// given), or a test failure when it loads.
std::string refusal(const std::string& path, const KalahEndgameDb* expect = nullptr) {
  try {
    if (expect)
      KalahEndgameDb::load(path, expect->variant(), expect->pits(), expect->max_seeds());
    else
      KalahEndgameDb::load(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "loaded a wrong file: " << path;
  return "";
}

TEST(KalahEndgameDb, SavesAndLoadsLittleEndianWithAHeader) {
  const std::string dir = temp_dir("db");
  const KalahEndgameDb db = KalahEndgameDb::build(Variant::kKalah, 4, 8);
  const std::string path = dir + "/" + egtb_file_name(Variant::kKalah, 4, 8);
  EXPECT_EQ(egtb_file_name(Variant::kKalah, 4, 8), "kalah-4-standard-8.egtb");
  db.save(path);
  const KalahEndgameDb back = KalahEndgameDb::load(path, Variant::kKalah, 4, 8);
  EXPECT_EQ(back.size(), db.size());
  EXPECT_EQ(back.checksum(), db.checksum());
  EXPECT_EQ(back.variant(), Variant::kKalah);
  EXPECT_EQ(back.pits(), 4);
  EXPECT_EQ(back.max_seeds(), 8);
  for (const Position& p : random_positions(GameSpec::parse("kalah:4,2"), 50, 3))
    EXPECT_EQ(back.rest(p), db.rest(p));

  // The header, byte for byte: the same on every host.
  const std::string bytes = read_bytes(path);
  ASSERT_EQ(bytes.size(), 32 + db.size());
  auto le = [&](size_t at, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(bytes[at + i])) << (8 * i);
    return v;
  };
  EXPECT_EQ(bytes.substr(0, 8), "KZEGTBLE");
  EXPECT_EQ(le(8, 4), 2u);  // format version
  EXPECT_EQ(le(12, 1), uint64_t(Variant::kKalah));
  EXPECT_EQ(le(13, 1), 4u);
  EXPECT_EQ(le(14, 1), 8u);
  EXPECT_EQ(le(15, 1), 0u);
  EXPECT_EQ(le(16, 8), db.size());
  EXPECT_EQ(le(24, 4), db.checksum());
  EXPECT_EQ(le(28, 4), 0u);
  // Written under a temporary name and renamed: nothing else is left in the folder.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);

  // load_or_build_egtb builds a missing table once, saves it and then reads it.
  const GameSpec spec = GameSpec::parse("kalah:3,2");
  auto built = load_or_build_egtb(spec, 6, dir);
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + egtb_file_name(Variant::kKalah, 3, 6)));
  EXPECT_EQ(load_or_build_egtb(spec, 6, dir).get(), built.get());
  std::filesystem::remove_all(dir);
}

TEST(KalahEndgameDb, RefusesWrongFilesSayingWhatIsWrongAndWhere) {
  const std::string dir = temp_dir("db");
  const KalahEndgameDb db = KalahEndgameDb::build(Variant::kKalah, 4, 8);
  const std::string good = dir + "/good.egtb",
                    path = dir + "/" + egtb_file_name(Variant::kKalah, 4, 8);
  db.save(good);
  const std::string bytes = read_bytes(good);
  auto expect_refused = [&](const std::string& content, const std::string& why,
                            const KalahEndgameDb* expect = nullptr) {
    write_bytes(path, content);
    const std::string message = refusal(path, expect);
    EXPECT_NE(message.find(why), std::string::npos) << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
  };

  expect_refused("hello, world, this is not a table", "bad magic");
  expect_refused("KZEG", "bad magic");
  // Format 1 (host byte order, no version): rebuild.
  std::string old = bytes;
  old.replace(0, 8, "KZEGTB01");
  expect_refused(old, "old format 1");
  expect_refused(old, "rebuild it with `kumalak egtb build`");
  std::string other_version = bytes;
  other_version[8] = 3;
  expect_refused(other_version, "format version 3, this build reads version 2");
  expect_refused(other_version, "kumalak egtb build");
  // Another game: rules that are not Kalah's, or the table of other rules or size.
  std::string togyz = bytes;
  togyz[12] = char(uint8_t(Variant::kTogyz));
  expect_refused(togyz, "another game");
  const KalahEndgameDb empty_rules = KalahEndgameDb::build(Variant::kKalahEmpty, 4, 8);
  expect_refused(bytes, "holds the table kalah-4-standard-8, not kalah-4-empty-8", &empty_rules);
  const KalahEndgameDb fewer_seeds = KalahEndgameDb::build(Variant::kKalah, 4, 6);
  expect_refused(bytes, "not kalah-4-standard-6 (another game)", &fewer_seeds);
  std::string wrong_size = bytes;
  wrong_size[16] ^= 1;
  expect_refused(wrong_size, "does not match 4 pits and 8 seeds");
  // Truncated in the header and in the values; trailing bytes.
  expect_refused(bytes.substr(0, 20), "truncated header (20 of 32 bytes)");
  expect_refused(bytes.substr(0, 50), "truncated (18 of " + std::to_string(db.size()) + " values)");
  expect_refused(bytes + "x", "1 trailing bytes");
  // One value changed; the stored checksum changed.
  std::string flipped = bytes;
  flipped[100] = char(flipped[100] ^ 0x10);
  expect_refused(flipped, "checksum mismatch");
  std::string wrong_crc = bytes;
  wrong_crc[24] ^= 1;
  expect_refused(wrong_crc, "checksum mismatch");
  EXPECT_NE(refusal(dir + "/missing.egtb").find("cannot be opened"), std::string::npos);

  // The cache replaces a table it cannot read (here: the old format) by building it again.
  const GameSpec spec = GameSpec::parse("kalah:4,2");
  write_bytes(path, old);
  std::ostringstream log;
  const auto rebuilt = load_or_build_egtb(spec, 8, dir, &log);
  EXPECT_EQ(rebuilt->checksum(), db.checksum());
  EXPECT_NE(log.str().find("old format 1"), std::string::npos) << log.str();
  EXPECT_EQ(read_bytes(path), bytes);
  std::filesystem::remove_all(dir);
}

TEST(KalahEndgameDb, DefaultSizeStaysSmall) {
  EXPECT_EQ(default_egtb_seeds(GameSpec::parse("kalah")), 16);
  EXPECT_EQ(default_egtb_seeds(GameSpec::parse("bantumi")), 20);
  EXPECT_EQ(default_egtb_seeds(GameSpec::parse("kalah:3,2")), 12);  // all its seeds
  EXPECT_LE(KalahEndgameDb::entries(6, default_egtb_seeds(GameSpec::parse("kalah"))), uint64_t(32)
                                                                                          << 20);
}

// A larger table built beforehand (`kumalak egtb build --seeds 20`) is used instead of
// the default; one over 1 GiB, or of other rules, is not.
TEST(KalahEndgameDb, TheLargestCachedTableIsPreferred) {
  const std::string dir = temp_dir("cached");
  const GameSpec kalah = GameSpec::parse("kalah");
  EXPECT_EQ(cached_or_default_egtb_seeds(kalah, dir), 16);
  std::ofstream(dir + "/" + egtb_file_name(Variant::kKalahEmpty, 6, 20));  // other rules
  std::ofstream(dir + "/" + egtb_file_name(Variant::kKalah, 6, 24));       // 1.25 G positions
  std::ofstream(dir + "/" + egtb_file_name(Variant::kKalah, 6, 12));       // smaller than default
  EXPECT_EQ(cached_or_default_egtb_seeds(kalah, dir), 16);
  std::ofstream(dir + "/" + egtb_file_name(Variant::kKalah, 6, 18));
  std::ofstream(dir + "/" + egtb_file_name(Variant::kKalah, 6, 20));
  EXPECT_EQ(cached_or_default_egtb_seeds(kalah, dir), 20);
  EXPECT_EQ(cached_or_default_egtb_seeds(GameSpec::parse("kalah:6,4,empty"), dir), 20);
  EXPECT_EQ(cached_or_default_egtb_seeds(GameSpec::parse("bantumi"), dir), 20);
  std::filesystem::remove_all(dir);
}

TEST(PerfectLevel, PlaysEveryGameToThePerfectMargin) {
  const std::string dir = temp_dir("level");
  for (const auto& [game, margin] : {std::pair{"kalah:4,3", 6}, std::pair{"kalah:4,3,empty", 8}}) {
    const GameSpec spec = GameSpec::parse(game);
    PerfectPlayerOptions o;
    o.egtb_dir = dir;
    o.egtb_seeds = 10;
    o.tt_mib = 8;
    PerfectPlayer a(spec, nullptr, o), b(spec, nullptr, o);
    Position p = Position::start(spec);
    while (!p.is_over()) {
      PerfectPlayer& who = p.to_move == 0 ? a : b;
      const ThinkResult r = who.think(p, {});
      ASSERT_TRUE(r.proven);
      ASSERT_TRUE(p.is_legal(r.best_move));
      p.play(r.best_move);
    }
    EXPECT_EQ(p.margin(), margin) << game;
  }
  std::filesystem::remove_all(dir);
}

TEST(PerfectLevel, LevelsAndTheirLimits) {
  EXPECT_EQ(parse_level("perfect"), Level::kPerfect);
  EXPECT_STREQ(level_name(Level::kPerfect), "perfect");
  EXPECT_THROW(make_level_player(GameSpec::togyz(), Level::kPerfect, ""), ParseError);
  // Kalah's expert tries the solver first and says so in its name.
  EXPECT_EQ(make_level_player(GameSpec::parse("kalah"), Level::kExpert, "")->name(),
            "solver+alphabeta-expert");
  LevelPlayerOptions plain;
  plain.force_alphabeta = true;
  EXPECT_EQ(make_level_player(GameSpec::parse("kalah"), Level::kExpert, "", plain)->name(),
            "alphabeta-expert");
  EXPECT_EQ(make_level_player(GameSpec::togyz(), Level::kExpert, "")->name(), "alphabeta-expert");
  // Where the solver cannot finish, the wrapped engine answers.
  const GameSpec spec = GameSpec::parse("kalah");
  PerfectPlayerOptions o;
  o.egtb_seeds = 0;
  o.solve_share = 0.01;
  o.tt_mib = 8;
  AlphaBetaOptions ab;
  ab.depth = 3;
  PerfectPlayer p(spec, std::make_unique<AlphaBetaPlayer>(ab), o);
  ThinkLimits l;
  l.movetime_s = 0.05;
  const ThinkResult r = p.think(Position::start(spec), l);
  EXPECT_FALSE(p.last_solve().solved);
  EXPECT_FALSE(r.proven);
  EXPECT_TRUE(Position::start(spec).is_legal(r.best_move));
  // A late position is solved, and every move gets its exact margin for hints.
  PerfectPlayerOptions all = o;
  all.all_moves = true;
  all.solve_share = 1;
  PerfectPlayer q(spec, nullptr, all);
  const Position late = Position::parse("2,0,3,1,0,2/1,1,0,2,0,3 18 15 s", spec);
  // A budget that only a very slow build runs out of (ThreadSanitizer's): the solver
  // returns as soon as the position is solved, in milliseconds.
  ThinkLimits generous;
  generous.movetime_s = 10;
  const ThinkResult s = q.think(late, generous);
  ASSERT_TRUE(s.proven);
  EXPECT_EQ(int(s.moves.size()), late.legal_count());
  EXPECT_EQ(s.moves.front().margin, s.margin);
  EXPECT_EQ(s.moves.front().move, s.best_move);
}

}  // namespace
}  // namespace kz
