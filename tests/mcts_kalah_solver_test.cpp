// The exact Kalah solver, the endgame databases and the perfect level: published
// perfect-play margins, agreement with a brute-force reference on random positions,
// the database file's checks, and the player's choices.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <unordered_map>

#include "mcts/kalah_solver.h"
#include "mcts/levels.h"
#include "mcts/perfect_player.h"

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

std::string temp_dir(const char* name) {
  const auto d = std::filesystem::temp_directory_path() /
                 (std::string("kz_solver_test_") + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

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

TEST(KalahSolver, DescribesTheExactResult) {
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

TEST(KalahEndgameDb, SavesLoadsAndRefusesDamagedFiles) {
  const std::string dir = temp_dir("db");
  const KalahEndgameDb db = KalahEndgameDb::build(Variant::kKalah, 4, 8);
  const std::string path = dir + "/" + egtb_file_name(Variant::kKalah, 4, 8);
  EXPECT_EQ(egtb_file_name(Variant::kKalah, 4, 8), "kalah-4-standard-8.egtb");
  db.save(path);
  const KalahEndgameDb back = KalahEndgameDb::load(path);
  EXPECT_EQ(back.size(), db.size());
  EXPECT_EQ(back.checksum(), db.checksum());
  EXPECT_EQ(back.pits(), 4);
  EXPECT_EQ(back.max_seeds(), 8);
  for (const Position& p : random_positions(GameSpec::parse("kalah:4,2"), 50, 3))
    EXPECT_EQ(back.rest(p), db.rest(p));

  auto expect_refused = [&](const std::string& file, const char* why) {
    try {
      KalahEndgameDb::load(file);
      ADD_FAILURE() << "loaded a damaged file: " << why;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  {  // one value flipped
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put(char(77));
  }
  expect_refused(path, "checksum");
  std::filesystem::resize_file(path, 50);
  expect_refused(path, "truncated");
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "hello, world, this is not a table";
  }
  expect_refused(path, "not a KumalakZero database");
  expect_refused(dir + "/missing.egtb", "cannot be opened");

  // load_or_build_egtb builds a missing table once, saves it and then reads it.
  const GameSpec spec = GameSpec::parse("kalah:3,2");
  auto built = load_or_build_egtb(spec, 6, dir);
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + egtb_file_name(Variant::kKalah, 3, 6)));
  EXPECT_EQ(load_or_build_egtb(spec, 6, dir).get(), built.get());
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
  const ThinkResult s = q.think(late, l);
  ASSERT_TRUE(s.proven);
  EXPECT_EQ(int(s.moves.size()), late.legal_count());
  EXPECT_EQ(s.moves.front().margin, s.margin);
  EXPECT_EQ(s.moves.front().move, s.best_move);
}

}  // namespace
}  // namespace kz
