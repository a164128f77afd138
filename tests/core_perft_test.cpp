// perft counts and a cross-check of the rules core against a naive reference written
// here from the rules pages alone: stone-by-stone sowing on plain arrays, nothing taken
// from core/ (the reference makes its own position strings; core only parses them).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/position.h"

namespace kz {
namespace {

// ---------------------------------------------------------------------------------
// Naive Togyz Kumalak, straight from ../shared/rules/togyz-kumalak.md.
struct RefTogyz {
  int hole[2][9];  // hole[player][i], i = 0 for hole 1
  int kazan[2] = {0, 0};
  int tuz[2] = {-1, -1};  // tuz[p]: index of the hole in the *other* row that p owns
  int side = 0;
  bool over = false;
  // What the last move did.
  int last_row = 0, last_hole = 0, last_captured = 0;
  bool last_made_tuzdyk = false;

  RefTogyz() {
    for (auto& r : hole)
      for (int& h : r) h = 9;
  }

  // Who owns (row, i) as a tuzdyk, or -1.
  int tuzdyk_owner(int row, int i) const { return tuz[1 - row] == i ? 1 - row : -1; }

  bool row_empty(int p) const {
    for (int i = 0; i < 9; ++i)
      if (hole[p][i] != 0) return false;
    return true;
  }

  // "The game ends when the player to move has no stones": rows to their own kazans.
  void check_end() {
    if (!row_empty(side)) return;
    for (int p = 0; p < 2; ++p)
      for (int i = 0; i < 9; ++i) {
        kazan[p] += hole[p][i];
        hole[p][i] = 0;
      }
    over = true;
  }

  std::vector<int> moves() const {
    std::vector<int> m;
    if (over) return m;
    for (int i = 0; i < 9; ++i)
      if (hole[side][i] > 0) m.push_back(i);
    return m;
  }

  void play(int h) {
    const int me = side, opp = 1 - side;
    int n = hole[me][h];
    hole[me][h] = 0;
    int row = me, i = h;
    auto step = [&] {
      if (++i == 9) {
        i = 0;
        row = 1 - row;
      }
    };
    if (n == 1) step();  // a lone stone goes into the following hole
    for (int k = 0; k < n; ++k) {
      if (k > 0) step();  // with n >= 2 the first stone goes back into hole h
      const int owner = tuzdyk_owner(row, i);
      if (owner >= 0)
        kazan[owner] += 1;
      else
        hole[row][i] += 1;
    }
    last_row = row;
    last_hole = i;
    last_captured = 0;
    last_made_tuzdyk = false;
    if (row == opp && tuzdyk_owner(row, i) < 0) {
      const int c = hole[row][i];
      if (c % 2 == 0) {
        kazan[me] += c;
        hole[row][i] = 0;
        last_captured = c;
      } else if (c == 3 && tuz[me] == -1 && i != 8 && tuz[opp] != i) {
        kazan[me] += 3;
        hole[row][i] = 0;
        tuz[me] = i;
        last_captured = 3;
        last_made_tuzdyk = true;
      }
    }
    side = opp;
    check_end();
  }

  std::string str() const {
    std::string s;
    for (int r = 0; r < 2; ++r) {
      if (r) s += "/";
      for (int i = 0; i < 9; ++i) {
        if (i) s += ",";
        s += tuzdyk_owner(r, i) >= 0 ? std::string("x") : std::to_string(hole[r][i]);
      }
    }
    return s + " " + std::to_string(kazan[0]) + " " + std::to_string(kazan[1]) +
           (side == 0 ? " w" : " b");
  }
};

// ---------------------------------------------------------------------------------
// Naive Kalah(m, n) from ../shared/rules/kalah.md: one ring of 2m + 2 cells, South's
// pits, South's store, North's pits, North's store; a pit's opposite is its mirror
// image across the ring (cell c <-> 2m - c).
struct RefKalah {
  int m;
  bool empty_capture;
  std::vector<int> cell;
  int side = 0;
  bool over = false;
  bool last_extra = false;
  int last_captured = 0;

  RefKalah(int m_, int n, bool empty) : m(m_), empty_capture(empty), cell(2 * m_ + 2, n) {
    cell[m] = cell[2 * m + 1] = 0;
  }
  int store_cell(int p) const { return p == 0 ? m : 2 * m + 1; }
  int pit_cell(int p, int i) const { return p == 0 ? i : m + 1 + i; }
  bool side_empty(int p) const {
    for (int i = 0; i < m; ++i)
      if (cell[pit_cell(p, i)] != 0) return false;
    return true;
  }
  void check_end() {
    if (!side_empty(0) && !side_empty(1)) return;
    for (int p = 0; p < 2; ++p)
      for (int i = 0; i < m; ++i) {
        cell[store_cell(p)] += cell[pit_cell(p, i)];
        cell[pit_cell(p, i)] = 0;
      }
    over = true;
  }
  std::vector<int> moves() const {
    std::vector<int> v;
    if (over) return v;
    for (int i = 0; i < m; ++i)
      if (cell[pit_cell(side, i)] > 0) v.push_back(i);
    return v;
  }
  void play(int i) {
    const int ring = 2 * m + 2;
    int c = pit_cell(side, i);
    int n = cell[c];
    cell[c] = 0;
    while (n > 0) {
      c = (c + 1) % ring;
      if (c == store_cell(1 - side)) continue;
      cell[c] += 1;
      --n;
    }
    last_extra = c == store_cell(side);
    last_captured = 0;
    const bool own_pit = side == 0 ? c < m : (c > m && c < 2 * m + 1);
    if (own_pit && cell[c] == 1) {
      const int opposite = 2 * m - c;
      if (cell[opposite] > 0 || empty_capture) {
        last_captured = 1 + cell[opposite];
        cell[store_cell(side)] += last_captured;
        cell[c] = 0;
        cell[opposite] = 0;
      }
    }
    if (!last_extra) side = 1 - side;
    check_end();
  }
  std::string str() const {
    std::string s;
    for (int p = 0; p < 2; ++p) {
      if (p) s += "/";
      for (int i = 0; i < m; ++i) {
        if (i) s += ',';
        s += std::to_string(cell[pit_cell(p, i)]);
      }
    }
    return s + " " + std::to_string(cell[m]) + " " + std::to_string(cell[2 * m + 1]) +
           (side == 0 ? " s" : " n");
  }
};

template <class Ref>
uint64_t ref_perft(const Ref& r, int depth) {
  if (depth == 0 || r.over) return 1;
  uint64_t nodes = 0;
  for (int mv : r.moves()) {
    Ref child = r;
    child.play(mv);
    nodes += ref_perft(child, depth - 1);
  }
  return nodes;
}

// Field-by-field comparison (cheaper than strings in the long loops).
bool same(const Position& p, const RefTogyz& r) {
  for (int pl = 0; pl < 2; ++pl)
    for (int i = 0; i < 9; ++i)
      if (p.pit(pl, i) != r.hole[pl][i]) return false;
  return p.store[0] == r.kazan[0] && p.store[1] == r.kazan[1] && p.tuzdyk[0] == r.tuz[0] &&
         p.tuzdyk[1] == r.tuz[1] && p.to_move == r.side && p.is_over() == r.over;
}
bool same(const Position& p, const RefKalah& r) {
  for (int pl = 0; pl < 2; ++pl)
    for (int i = 0; i < r.m; ++i)
      if (p.pit(pl, i) != r.cell[r.pit_cell(pl, i)]) return false;
  return p.store[0] == r.cell[r.m] && p.store[1] == r.cell[2 * r.m + 1] && p.to_move == r.side &&
         p.is_over() == r.over;
}

uint32_t mask_of(const std::vector<int>& moves) {
  uint32_t mask = 0;
  for (int mv : moves) mask |= 1u << mv;
  return mask;
}

// ---------------------------------------------------------------------------------

TEST(Perft, TogyzMatchesTheRulesPage) {
  const Position start = Position::start(GameSpec::togyz());
  const uint64_t expected[] = {1, 9, 73, 613, 5199, 43184, 360035, 3003052};
  for (int d = 0; d <= 7; ++d) EXPECT_EQ(perft(start, d), expected[d]) << "depth " << d;
}

TEST(Perft, NaiveTogyzReferenceMatchesTheRulesPage) {
  // Checks the reference itself, so that the cross-checks below mean something.
  const uint64_t expected[] = {1, 9, 73, 613, 5199, 43184};
  for (int d = 0; d <= 5; ++d) EXPECT_EQ(ref_perft(RefTogyz{}, d), expected[d]) << "depth " << d;
}

TEST(Perft, FinishedGameIsALeaf) {
  const Position over =
      Position::parse("0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 81 81 w", GameSpec::togyz());
  EXPECT_EQ(perft(over, 0), 1u);
  EXPECT_EQ(perft(over, 3), 1u);
  // One legal move that ends the game: every depth >= 1 counts that one leaf.
  const Position last =
      Position::parse("0,0,0,0,0,0,0,1,0/0,0,0,0,0,0,0,0,0 80 81 w", GameSpec::togyz());
  EXPECT_EQ(perft(last, 1), 1u);
  EXPECT_EQ(perft(last, 5), 1u);
}

struct KalahCase {
  const char* game;
  int depth;
};

TEST(Perft, KalahMatchesTheNaiveReference) {
  const KalahCase cases[] = {
      {"kalah:1,12", 8},       {"kalah:2,3", 14}, {"kalah:2,2,empty", 10}, {"kalah:3,3", 12},
      {"kalah:3,3,empty", 12}, {"kalah:4,3", 10}, {"kalah:4,3,empty", 10}, {"kalah:6,4", 7},
      {"kalah:6,4,empty", 7},  {"bantumi", 8},    {"kalah:9,12", 4},       {"kalah:6,12", 5},
  };
  for (const auto& c : cases) {
    const GameSpec spec = GameSpec::parse(c.game);
    const Position start = Position::start(spec);
    const RefKalah ref(spec.pits, spec.seeds, spec.variant == Variant::kKalahEmpty);
    ASSERT_EQ(start.to_string(), ref.str()) << c.game;
    for (int d = 1; d <= c.depth; ++d) {
      const uint64_t want = ref_perft(ref, d);
      EXPECT_EQ(perft(start, d), want) << c.game << " depth " << d;
      if (d == c.depth)
        std::printf("[ perft    ] %s depth %d: %llu\n", c.game, d,
                    static_cast<unsigned long long>(want));
    }
  }
}

TEST(Perft, KalahRulesDifferBetweenCaptureRules) {
  // The two capture rules must really give different trees (else the comparison above
  // could not tell them apart).
  const Position a = Position::start(GameSpec::parse("kalah:4,3"));
  const Position b = Position::start(GameSpec::parse("kalah:4,3,empty"));
  bool differ = false;
  for (int d = 1; d <= 10 && !differ; ++d) differ = perft(a, d) != perft(b, d);
  EXPECT_TRUE(differ);
}

// A random legal Togyz position built by the reference: tuzdyks (allowed pairs only),
// 162 stones spread over kazans and holes, often piled up so that long laps happen.
RefTogyz random_togyz(std::mt19937& rng) {
  RefTogyz r;
  for (auto& row : r.hole)
    for (int& h : row) h = 0;
  auto coin = [&](int n) { return int(rng() % n); };
  for (int p = 0; p < 2; ++p) {
    if (coin(2)) continue;
    const int i = coin(8);  // never hole 9
    if (r.tuz[1 - p] == i) continue;
    r.tuz[p] = i;
  }
  int left = 162;
  r.kazan[0] = coin(70);
  r.kazan[1] = coin(70);
  left -= r.kazan[0] + r.kazan[1];
  std::vector<std::pair<int, int>> free_holes;
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 9; ++i)
      if (r.tuzdyk_owner(p, i) < 0) free_holes.push_back({p, i});
  const int piles = 1 + coin(6);  // few piles: big counts, long laps
  std::vector<std::pair<int, int>> targets;
  for (int k = 0; k < piles; ++k) targets.push_back(free_holes[coin(int(free_holes.size()))]);
  while (left > 0) {
    const auto [p, i] = coin(3) == 0 ? free_holes[coin(int(free_holes.size()))]
                                     : targets[coin(int(targets.size()))];
    r.hole[p][i] += 1;
    --left;
  }
  r.side = coin(2);
  if (coin(8) == 0) {  // one row empty: the side to move's (game over) or the other's
    const int empty_row = coin(2);
    int j = 0;
    for (int i = 0; i < 9; ++i) {
      while (r.tuzdyk_owner(1 - empty_row, j) >= 0) ++j;
      r.hole[1 - empty_row][j] += r.hole[empty_row][i];
      r.hole[empty_row][i] = 0;
    }
  }
  r.check_end();
  return r;
}

RefKalah random_kalah(std::mt19937& rng, int m, int n, bool empty) {
  RefKalah r(m, n, empty);
  const int total = 2 * m * n;
  std::fill(r.cell.begin(), r.cell.end(), 0);
  auto coin = [&](int k) { return int(rng() % k); };
  const int in_stores = coin(total / 2 + 1);
  for (int k = 0; k < in_stores; ++k) r.cell[r.store_cell(coin(2))] += 1;
  const int pile = r.pit_cell(coin(2), coin(m));
  for (int k = in_stores; k < total; ++k)
    r.cell[coin(2) == 0 ? pile : r.pit_cell(coin(2), coin(m))] += 1;
  r.side = coin(2);
  r.check_end();
  return r;
}

TEST(CrossCheck, TogyzRandomGamesFromTheStart) {
  std::mt19937 rng(20240601);
  const GameSpec spec = GameSpec::togyz();
  int games = 0, plies = 0, tuzdyks = 0, captures = 0, ended = 0;
  for (; games < 3000; ++games) {
    Position p = Position::start(spec);
    RefTogyz r;
    for (int ply = 0; ply < 1000 && !r.over; ++ply) {
      const auto moves = r.moves();
      ASSERT_EQ(p.legal_mask(), mask_of(moves)) << r.str();
      const int mv = moves[rng() % moves.size()];
      const auto info = p.play(mv);
      r.play(mv);
      ++plies;
      ASSERT_TRUE(same(p, r)) << "game " << games << " ply " << ply << "\ncore " << p.to_string()
                              << "\nref  " << r.str();
      ASSERT_EQ(info.landing_player, r.last_row);
      ASSERT_EQ(info.landing_index, r.last_hole);
      ASSERT_EQ(info.captured, r.last_captured);
      ASSERT_EQ(info.made_tuzdyk, r.last_made_tuzdyk);
      ASSERT_EQ(info.ended_game, r.over);
      tuzdyks += r.last_made_tuzdyk;
      captures += r.last_captured > 0;
    }
    ended += r.over;
    ASSERT_EQ(p.to_string(), r.str());
  }
  // The random games must actually have exercised the rules.
  EXPECT_GT(tuzdyks, 1000);
  EXPECT_GT(captures, 10000);
  EXPECT_GT(ended, games / 2);
  std::printf("[ crosschk ] togyz: %d games, %d plies, %d tuzdyks, %d captures, %d ended\n", games,
              plies, tuzdyks, captures, ended);
}

TEST(CrossCheck, TogyzRandomPositions) {
  std::mt19937 rng(7);
  const GameSpec spec = GameSpec::togyz();
  int long_laps = 0, over_at_start = 0;
  for (int k = 0; k < 3000; ++k) {
    RefTogyz r = random_togyz(rng);
    Position p = Position::parse(r.str(), spec);
    ASSERT_EQ(p.to_string(), r.str());
    ASSERT_TRUE(same(p, r)) << r.str();
    over_at_start += r.over;
    for (int ply = 0; ply < 60 && !r.over; ++ply) {
      const auto moves = r.moves();
      ASSERT_EQ(p.legal_mask(), mask_of(moves)) << r.str();
      const int mv = moves[rng() % moves.size()];
      long_laps += r.hole[r.side][mv] >= 18;
      const std::string before = r.str();
      const auto info = p.play(mv);
      r.play(mv);
      ASSERT_TRUE(same(p, r)) << "from " << before << " hole " << mv + 1 << "\ncore "
                              << p.to_string() << "\nref  " << r.str();
      ASSERT_EQ(info.landing_index, r.last_hole) << before;
      ASSERT_EQ(info.captured, r.last_captured) << before;
    }
  }
  EXPECT_GT(long_laps, 1000);
  EXPECT_GT(over_at_start, 50);
}

TEST(CrossCheck, KalahRandomGamesAndPositions) {
  std::mt19937 rng(99);
  const int sizes[][2] = {{1, 1}, {2, 5}, {3, 3}, {4, 3}, {5, 4}, {6, 4}, {6, 6}, {9, 12}};
  int extra = 0, captures = 0, laps = 0;
  for (const auto& sz : sizes) {
    for (bool empty : {false, true}) {
      const GameSpec spec = GameSpec::kalah(sz[0], sz[1], empty);
      for (int k = 0; k < 300; ++k) {
        RefKalah r = k % 2 ? random_kalah(rng, sz[0], sz[1], empty) : RefKalah(sz[0], sz[1], empty);
        Position p = Position::parse(r.str(), spec);
        ASSERT_TRUE(same(p, r)) << spec.name() << " " << r.str();
        for (int ply = 0; ply < 2000 && !r.over; ++ply) {
          const auto moves = r.moves();
          ASSERT_EQ(p.legal_mask(), mask_of(moves)) << r.str();
          const int mv = moves[rng() % moves.size()];
          laps += r.cell[r.pit_cell(r.side, mv)] >= 2 * sz[0] + 1;
          const std::string before = r.str();
          const auto info = p.play(mv);
          r.play(mv);
          ASSERT_TRUE(same(p, r)) << spec.name() << " from " << before << " pit " << mv + 1
                                  << "\ncore " << p.to_string() << "\nref  " << r.str();
          ASSERT_EQ(info.extra_turn, r.last_extra) << before;
          ASSERT_EQ(info.captured, r.last_captured) << before;
          ASSERT_EQ(info.ended_game, r.over) << before;
          extra += r.last_extra;
          captures += r.last_captured > 0;
        }
        ASSERT_TRUE(r.over) << "Kalah always ends";
      }
    }
  }
  EXPECT_GT(extra, 1000);
  EXPECT_GT(captures, 1000);
  EXPECT_GT(laps, 100);
}

}  // namespace
}  // namespace kz
