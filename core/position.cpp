#include "core/position.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <vector>

#include "core/checksum.h"
#include "core/i18n.h"

namespace kz {

namespace {

constexpr int kRing = 2 * kMaxPits;  // Togyz sows round 18 holes

// The Togyz move works on the first 24 bytes of a Position as three 64-bit words:
// pits[0..17], store[0..1], tuzdyk[0..1], to_move, variant. The sowing is computed in
// registers and written back with three word stores; what follows it (tuzdyks, the
// capture) reads single bytes where they lie and changes them by reading, adding to and
// writing back their aligned word. Byte-sized writes followed by word-sized reads of the
// same bytes would stall the CPU's store forwarding on every move; a byte read inside a
// word just stored, or a word read of a word just stored, is forwarded. (Picking byte i
// out of three registers instead, with i known only at run time, is a chain of selects,
// which V8 compiles badly: with it, perft under Node ran 225 x86 instructions a node
// against 128 natively; now 137 against 117, docs/performance.md.)
constexpr int kStoreByte = 18;   // offsetof(Position, store)
constexpr int kTuzdykByte = 20;  // offsetof(Position, tuzdyk)
constexpr int kToMoveByte = 22;  // offsetof(Position, to_move)

// A move from hole `from` holding n stones, with n = 18 * laps + rest, changes the 24
// bytes by kSow.m[from][rest'] + laps * kSow.lap[from] (as three 64-bit words, modulo
// 2^64), where rest' = rest except for the lone stone (n == 1), which has a slot of its
// own because it skips the emptied hole. m[from][rest'] empties `rest` stones from the
// hole and puts one in each of the next holes (from the hole itself: the first stone goes
// back into it); lap[from] is one stone into every hole, less the 18 taken out. Added as
// whole words the result is exact: every byte of it ends in 0..255, so whatever carries
// and borrows happen along the way cancel.
constexpr int kLoneStone = kRing;  // rest' of a one-stone move

struct alignas(32) SowDelta {
  uint64_t w[3];
  uint8_t last;           // the hole (Kalah: the ring cell) the last stone lands in
  uint8_t landing_index;  // Togyz: `last`'s place in its row, 0..8 (Kalah: unused)
  uint8_t in_their_row;   // Togyz: 1 when `last` is in the opponent's row (Kalah: unused)

  // Adds `stones` (negative to take them away) to byte `byte` of the 24, modulo 2^64.
  constexpr void add(int byte, int stones) {
    w[byte / 8] += uint64_t(int64_t(stones)) << (8 * (byte % 8));
  }
};
struct SowTable {
  SowDelta m[kRing][kRing + 1];
  SowDelta lap[kRing];
  constexpr SowTable() : m{}, lap{} {
    for (int from = 0; from < kRing; ++from) {
      for (int rest = 0; rest <= kRing; ++rest) {
        SowDelta& d = m[from][rest];
        const bool lone = rest == kLoneStone;
        const int stones = lone ? 1 : rest;
        const int start = lone ? (from + 1) % kRing : from;
        d.add(from, -stones);
        for (int j = 0; j < stones; ++j) d.add((start + j) % kRing, 1);
        // rest == 0 (whole laps only): the last stone lands just before the hole.
        d.last = uint8_t((start + stones - 1 + kRing) % kRing);
        d.landing_index = uint8_t(d.last % kMaxPits);
        d.in_their_row = uint8_t(d.last / kMaxPits != from / kMaxPits);
      }
      for (int hole = 0; hole < kRing; ++hole) lap[from].add(hole, 1);
      lap[from].add(from, -kRing);
    }
  }
};
constexpr SowTable kSow;

// n stones = laps whole laps of the ring plus rest'; a table saves two divisions.
struct LapsAndRest {
  uint8_t laps, rest;
};
struct LapsTable {
  LapsAndRest v[256];
  constexpr LapsTable() : v{} {
    for (int n = 0; n < 256; ++n)
      v[n] = {uint8_t(n / kRing), uint8_t(n == 1 ? kLoneStone : n % kRing)};
  }
};
constexpr LapsTable kLaps;

// Kalah(m, n) sows round a ring of 2m + 1 cells as seen by the mover: their pits 1..m,
// their store, the opponent's pits 1..m (the opponent's store is skipped). The same
// word arithmetic as Togyz: kKalahSow.m[m-1][mover][pit][rest] empties `rest` seeds
// from the pit and drops one into each of the next `rest` cells; lap[m-1][mover][pit]
// is one seed into every cell of the ring, less the 2m + 1 taken out; `last` is the
// ring cell of the last seed. kKalahLaps splits a pit's seeds into laps and rest.
constexpr int kMaxKalahRing = 2 * kMaxPits + 1;
constexpr int kMaxKalahSeeds = 2 * kMaxPits * 12;  // 9 pits, 12 seeds: 216

constexpr int kalah_cell_byte(int m, int mover, int cell) {
  if (cell < m) return mover * kMaxPits + cell;
  if (cell == m) return kStoreByte + mover;
  return (mover ^ 1) * kMaxPits + (cell - m - 1);
}

struct KalahSowTable {
  SowDelta m[kMaxPits][2][kMaxPits][kMaxKalahRing];
  SowDelta lap[kMaxPits][2][kMaxPits];
  constexpr KalahSowTable() : m{}, lap{} {
    for (int pits = 1; pits <= kMaxPits; ++pits) {
      const int ring = 2 * pits + 1;
      for (int mover = 0; mover < 2; ++mover)
        for (int pit = 0; pit < pits; ++pit) {
          for (int rest = 0; rest < ring; ++rest) {
            SowDelta& d = m[pits - 1][mover][pit][rest];
            d.add(kalah_cell_byte(pits, mover, pit), -rest);
            for (int j = 1; j <= rest; ++j)
              d.add(kalah_cell_byte(pits, mover, (pit + j) % ring), 1);
            d.last = uint8_t((pit + rest) % ring);
          }
          SowDelta& l = lap[pits - 1][mover][pit];
          for (int cell = 0; cell < ring; ++cell) l.add(kalah_cell_byte(pits, mover, cell), 1);
          l.add(kalah_cell_byte(pits, mover, pit), -ring);
        }
    }
  }
};
constexpr KalahSowTable kKalahSow;

struct KalahLapsTable {
  LapsAndRest v[kMaxPits][kMaxKalahSeeds + 1];
  constexpr KalahLapsTable() : v{} {
    for (int pits = 1; pits <= kMaxPits; ++pits)
      for (int n = 0; n <= kMaxKalahSeeds; ++n)
        v[pits - 1][n] = {uint8_t(n / (2 * pits + 1)), uint8_t(n % (2 * pits + 1))};
  }
};
constexpr KalahLapsTable kKalahLaps;

// The first 24 bytes of a Position during a move (both games), kept in registers:
// three scalars rather than an array, which the compiler would vectorise through the
// stack.
struct MoveWords {
  uint64_t w0, w1, w2;

  static MoveWords load(const Position& pos) {
    static_assert(offsetof(Position, pits) == 0 && offsetof(Position, store) == kStoreByte &&
                  offsetof(Position, tuzdyk) == kTuzdykByte &&
                  offsetof(Position, to_move) == kToMoveByte && sizeof(Position) >= 24);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&pos);
    MoveWords w;
    std::memcpy(&w.w0, bytes + 0, 8);
    std::memcpy(&w.w1, bytes + 8, 8);
    std::memcpy(&w.w2, bytes + 16, 8);
    return w;
  }
  // Three word stores: no byte store is ever followed by a word load of the same bytes.
  void store(Position& pos) const {
    auto* bytes = reinterpret_cast<unsigned char*>(&pos);
    std::memcpy(bytes + 0, &w0, 8);
    std::memcpy(bytes + 8, &w1, 8);
    std::memcpy(bytes + 16, &w2, 8);
  }
  // Sows a move's stones: one table entry plus `laps` times the whole-lap entry.
  [[gnu::always_inline]] void sow(const SowDelta& rest, int laps, const SowDelta& lap) {
    w0 += rest.w[0] + laps * lap.w[0];
    w1 += rest.w[1] + laps * lap.w[1];
    w2 += rest.w[2] + laps * lap.w[2];
  }
  // The same in two steps, for Togyz, where whole laps are rare (no hole reaches 18
  // stones in the first 8 plies): the table entry, then `laps` times the whole-lap entry
  // only when there are any.
  [[gnu::always_inline]] void sow(const SowDelta& rest) {
    w0 += rest.w[0];
    w1 += rest.w[1];
    w2 += rest.w[2];
  }
  [[gnu::always_inline]] void sow_laps(int laps, const SowDelta& lap) {
    w0 += laps * lap.w[0];
    w1 += laps * lap.w[1];
    w2 += laps * lap.w[2];
  }
  void pass_the_move() { w2 ^= uint64_t(1) << (8 * (kToMoveByte - 16)); }
  // Non-zero iff player p's row (White/South 0, Black/North 1) holds any stone.
  uint64_t row(int p) const { return p == 0 ? (w0 | (w1 & 0xFF)) : ((w1 >> 8) | (w2 & 0xFFFF)); }
  // Byte i of the 24.
  [[gnu::always_inline]] unsigned byte(int i) const {
    const uint64_t word = i < 8 ? w0 : i < 16 ? w1 : w2;
    return unsigned(word >> (8 * (i & 7))) & 0xFF;
  }
  // Adds `delta` (which may be negative) to byte i; callers keep every byte in 0..255, so
  // nothing carries or borrows across bytes.
  [[gnu::always_inline]] void add(int i, int64_t delta) {
    const uint64_t d = uint64_t(delta) << (8 * (i & 7));
    w0 += i < 8 ? d : 0;
    w1 += (i >= 8 && i < 16) ? d : 0;
    w2 += i >= 16 ? d : 0;
  }
};

// Adds `delta` (which may be negative) to byte i of the first 24 bytes at `bytes`, by
// reading, adding to and writing back the aligned word that holds it (see MoveWords).
// Callers keep every byte in 0..255, so nothing carries or borrows across bytes.
[[gnu::always_inline]] inline void add_to_byte(unsigned char* bytes, int i, int delta) {
  uint64_t word;
  std::memcpy(&word, bytes + (i & ~7), 8);
  word += uint64_t(int64_t(delta)) << (8 * (i & 7));
  std::memcpy(bytes + (i & ~7), &word, 8);
}
// The same for a byte of the last word (16 <= i < 24: a kazan, a tuzdyk), whose word is
// then known at compile time.
[[gnu::always_inline]] inline void add_to_high_byte(unsigned char* bytes, int i, int delta) {
  uint64_t word;
  std::memcpy(&word, bytes + 16, 8);
  word += uint64_t(int64_t(delta)) << (8 * (i - 16));
  std::memcpy(bytes + 16, &word, 8);
}

inline bool row_is_empty(const uint8_t* row) {
  uint64_t x;
  std::memcpy(&x, row, 8);
  return (x | row[8]) == 0;
}

// Bit i set where byte i of the 9-byte row is non-zero.
inline uint32_t nonzero_bytes9(const uint8_t* row) {
  uint64_t x;
  std::memcpy(&x, row, 8);
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
  const uint64_t high = (((x & kLow7) + kLow7) | x) & ~kLow7;  // 0x80 in each non-zero byte
  const uint32_t bits = uint32_t((high * 0x0002040810204081ull) >> 56);  // gather the 8 high bits
  return bits | (uint32_t(row[8] != 0) << 8);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A count: digits only. A sign is refused both ways ("-0" as well as "+0").
bool parse_int(std::string_view s, int& out) {
  s = trim(s);
  if (s.empty() || s[0] == '-') return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

}  // namespace

// ---------------------------------------------------------------------------------
// GameSpec

GameSpec GameSpec::kalah(int m, int n, bool empty_capture) {
  // Players type these (--game kalah:M,N), so they are said in the player's language.
  using i18n::tr;
  if (m < 1 || m > kMaxPits)
    throw ParseError(tr("Kalah pits per side must be 1..9, got {n}", {{"n", m}}));
  if (n < 1 || n > 12)
    throw ParseError(tr("Kalah seeds per pit must be 1..12, got {n}", {{"n", n}}));
  return {empty_capture ? Variant::kKalahEmpty : Variant::kKalah, uint8_t(m), uint8_t(n)};
}

GameSpec GameSpec::parse(std::string_view name) {
  using i18n::tr;
  name = trim(name);
  if (name == "togyz" || name == "togyz-kumalak" || name == "togyzkumalak") return togyz();
  if (name == "kalah") return kalah(6, 4, false);
  if (name == "bantumi") return kalah(5, 4, true);
  const i18n::Arg game("game", std::string(name));
  if (name.substr(0, 6) == "kalah:") {
    auto parts = split(name.substr(6), ',');
    int m = 0, n = 0;
    bool empty = false;
    if (parts.size() < 2 || parts.size() > 3 || !parse_int(parts[0], m) || !parse_int(parts[1], n))
      throw ParseError(tr("game '{game}': expected kalah:M,N or kalah:M,N,empty", {game}));
    if (parts.size() == 3) {
      if (trim(parts[2]) == "empty")
        empty = true;
      else if (trim(parts[2]) != "standard")
        throw ParseError(tr("game '{game}': third field must be 'empty' or 'standard'", {game}));
    }
    return kalah(m, n, empty);
  }
  throw ParseError(
      tr("unknown game '{game}' (expected togyz, kalah, bantumi, kalah:M,N or kalah:M,N,empty)",
         {game}));
}

std::string GameSpec::name() const {
  if (variant == Variant::kTogyz) return "togyz";
  std::string s = "kalah:" + std::to_string(pits) + "," + std::to_string(seeds);
  if (variant == Variant::kKalahEmpty) s += ",empty";
  return s;
}

// ---------------------------------------------------------------------------------
// Position

Position Position::start(const GameSpec& spec) {
  Position p;
  p.variant = spec.variant;
  p.npits = spec.pits;
  for (int i = 0; i < spec.pits; ++i) {
    p.pits[i] = spec.seeds;
    p.pits[kMaxPits + i] = spec.seeds;
  }
  return p;
}

int Position::total_stones() const {
  int t = store[0] + store[1];
  for (uint8_t v : pits) t += v;
  return t;
}

uint32_t Position::legal_mask() const {
  if (over) return 0;
  // Pits beyond npits are always empty, so no extra masking is needed.
  return nonzero_bytes9(&pits[to_move * kMaxPits]);
}

// Inlined into play() and perft(): it is the innermost loop of everything.
[[gnu::always_inline]] inline void Position::play_togyz(int move, MoveInfo& info) {
  const int me = to_move, opp = me ^ 1;
  const int from = me * kMaxPits + move;
  const int n = pits[from];
  const int my_tuzdyk = tuzdyk[me], their_tuzdyk = tuzdyk[opp];
  MoveWords w = MoveWords::load(*this);

  // Sow all n stones at once (see kSow): no loop over stones, no branch but the rare
  // whole laps.
  const LapsAndRest split = kLaps.v[n];
  const SowDelta& sow = kSow.m[from][split.rest];
  w.sow(sow);
  if (split.laps != 0) [[unlikely]]
    w.sow_laps(split.laps, kSow.lap[from]);
  w.pass_the_move();
  w.store(*this);
  // From here on the move reads and changes the position in memory (see MoveWords).
  auto* bytes = reinterpret_cast<unsigned char*>(this);

  // Stones that fell into a tuzdyk belong to its owner. Sowing past a tuzdyk is the same
  // as sowing into it and moving the stones out afterwards, because a tuzdyk is always
  // empty before a move.
  if ((my_tuzdyk & their_tuzdyk) != kNoTuzdyk) {  // at least one tuzdyk exists
    if (my_tuzdyk != kNoTuzdyk) {
      const int hole = opp * kMaxPits + my_tuzdyk;
      const int stones = bytes[hole];
      add_to_byte(bytes, hole, -stones);
      add_to_high_byte(bytes, kStoreByte + me, stones);
    }
    if (their_tuzdyk != kNoTuzdyk) {
      const int hole = me * kMaxPits + their_tuzdyk;
      const int stones = bytes[hole];
      add_to_byte(bytes, hole, -stones);
      add_to_high_byte(bytes, kStoreByte + opp, stones);
    }
  }

  const int last = sow.last;
  const int landing_index = sow.landing_index;
  info.landing_player = int8_t(last >= kMaxPits);
  info.landing_index = int8_t(landing_index);
  // Even capture: `take` is the count or 0, computed without a branch (whether a move
  // captures is as good as random).
  const int count = bytes[last];
  const int capturable = sow.in_their_row & int(my_tuzdyk != landing_index);
  int take = count & -(capturable & ~count & 1);
  info.made_tuzdyk = false;
  if (count == 3) [[unlikely]] {
    if (capturable && my_tuzdyk == kNoTuzdyk && landing_index != kMaxPits - 1 &&
        their_tuzdyk != landing_index) {
      take = 3;
      // 0xFF (no tuzdyk) -> the hole
      add_to_high_byte(bytes, kTuzdykByte + me, landing_index - 0xFF);
      info.made_tuzdyk = true;
    }
  }
  info.captured = uint8_t(take);
  add_to_byte(bytes, last, -take);
  add_to_high_byte(bytes, kStoreByte + me, take);

  // Only the player to move being out of stones ends the game ("atsyz").
  if (MoveWords::load(*this).row(opp) == 0) [[unlikely]] {
    info.mover_store_before_sweep = store[me];
    finish_if_over();
  }
  info.ended_game = over;
}

void Position::play_kalah(int move, MoveInfo& info) {
  const int me = to_move, opp = me ^ 1;
  const int m = npits;
  const int n = pits[me * kMaxPits + move];
  MoveWords w = MoveWords::load(*this);

  // Sow all n seeds at once (see kKalahSow).
  const LapsAndRest split = kKalahLaps.v[m - 1][n];
  const SowDelta& sow = kKalahSow.m[m - 1][me][move][split.rest];
  const SowDelta& lap = kKalahSow.lap[m - 1][me][move];
  w.sow(sow, split.laps, lap);
  const int last = sow.last;  // ring cell: 0..m-1 mine, m my store, m+1..2m theirs

  if (last == m) {
    info.landing_player = -1;
    info.landing_index = 0;
    info.extra_turn = true;
  } else if (last < m) {
    info.landing_player = int8_t(me);
    info.landing_index = int8_t(last);
    // The last pit holds exactly one seed iff it was empty before that seed arrived.
    const int here = me * kMaxPits + last, opposite = opp * kMaxPits + (m - 1 - last);
    if (w.byte(here) == 1) {
      const int across = int(w.byte(opposite));
      if (across != 0 || variant == Variant::kKalahEmpty) {
        info.captured = uint8_t(1 + across);
        w.add(here, -1);
        w.add(opposite, -across);
        w.add(kStoreByte + me, 1 + across);
      }
    }
  } else {
    info.landing_player = int8_t(opp);
    info.landing_index = int8_t(last - m - 1);
  }
  if (!info.extra_turn) w.pass_the_move();

  // Kalah ends as soon as either side's pits are empty.
  w.store(*this);
  if (w.row(0) == 0 || w.row(1) == 0) finish_if_over();
  info.ended_game = over;
}

Position::MoveInfo Position::play(int move) {
  MoveInfo info;
  if (variant == Variant::kTogyz)
    play_togyz(move, info);
  else
    play_kalah(move, info);
  return info;
}

void Position::finish_if_over() {
  bool ends;
  if (variant == Variant::kTogyz) {
    // Only the player to move being empty ends the game ("atsyz").
    ends = row_is_empty(&pits[to_move * kMaxPits]);
  } else {
    // Kalah ends as soon as either side's pits are empty.
    ends = row_is_empty(&pits[0]) || row_is_empty(&pits[kMaxPits]);
  }
  if (!ends) return;
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < kMaxPits; ++i) {
      store[p] += pits[p * kMaxPits + i];
      pits[p * kMaxPits + i] = 0;
    }
  }
  over = 1;
}

bool Position::is_decided() const {
  if (over) return true;
  if (variant == Variant::kTogyz) return store[0] >= kTogyzWinKazan || store[1] >= kTogyzWinKazan;
  const int total = total_stones();
  return 2 * store[0] > total || 2 * store[1] > total;
}

Outcome Position::outcome() const {
  return is_decided() ? outcome_by_stores() : Outcome::kOngoing;
}

const char* outcome_string(Outcome o) {
  switch (o) {
    case Outcome::kWhiteWins:
      return "1-0";
    case Outcome::kBlackWins:
      return "0-1";
    case Outcome::kDraw:
      return "1/2-1/2";
    default:
      return "*";
  }
}

std::string Position::to_string() const {
  std::string s;
  for (int p = 0; p < 2; ++p) {
    if (p) s += '/';
    for (int i = 0; i < npits; ++i) {
      if (i) s += ',';
      // A tuzdyk owned by the other player sits in this row.
      if (is_togyz() && tuzdyk[p ^ 1] == i)
        s += 'x';
      else
        s += std::to_string(pit(p, i));
    }
  }
  s += ' ' + std::to_string(store[0]) + ' ' + std::to_string(store[1]) + ' ';
  if (is_togyz())
    s += to_move == 0 ? 'w' : 'b';
  else
    s += to_move == 0 ? 's' : 'n';
  return s;
}

Position Position::parse(std::string_view text, const GameSpec& spec) {
  // A player types position strings (--position, the page's "Set up"): every problem is
  // said in the player's language (English where none is chosen, as in the tools).
  using i18n::tr;
  const std::string quoted(trim(text));
  auto fail = [&](const std::string& why) {
    throw ParseError(
        tr("position '{position}': {problem}", {{"position", quoted}, {"problem", why}}));
  };
  std::vector<std::string_view> fields;
  for (auto f : split(trim(text), ' '))
    if (!trim(f).empty()) fields.push_back(trim(f));
  // Togyz and Kalah name their stores and stones differently, so each has its messages.
  const bool togyz = spec.is_togyz();
  if (fields.size() != 4)
    fail(togyz ? tr("expected 4 fields '<row1>/<row2> <kazan1> <kazan2> <side>', got {n}",
                    {{"n", fields.size()}})
               : tr("expected 4 fields '<row1>/<row2> <store1> <store2> <side>', got {n}",
                    {{"n", fields.size()}}));
  auto rows = split(fields[0], '/');
  if (rows.size() != 2) fail(tr("expected two rows separated by '/'"));

  Position p;
  p.variant = spec.variant;
  p.npits = spec.pits;
  // Row 0 is White's (Togyz) or South's (Kalah); each message names its row whole.
  const auto row_has = [&](int r, size_t count) {
    const std::initializer_list<i18n::Arg> args = {{"count", count}, {"pits", int(spec.pits)}};
    return togyz ? (r == 0 ? tr("White's row has {count} holes, the game has {pits}", args)
                           : tr("Black's row has {count} holes, the game has {pits}", args))
                 : (r == 0 ? tr("South's row has {count} holes, the game has {pits}", args)
                           : tr("North's row has {count} holes, the game has {pits}", args));
  };
  const auto not_a_count = [&](int r, int hole, std::string_view cell) {
    const std::initializer_list<i18n::Arg> args = {{"hole", hole}, {"value", std::string(cell)}};
    return togyz ? (r == 0 ? tr("White's row hole {hole}: '{value}' is not a stone count", args)
                           : tr("Black's row hole {hole}: '{value}' is not a stone count", args))
                 : (r == 0 ? tr("South's row hole {hole}: '{value}' is not a stone count", args)
                           : tr("North's row hole {hole}: '{value}' is not a stone count", args));
  };
  for (int r = 0; r < 2; ++r) {
    auto cells = split(rows[r], ',');
    if (int(cells.size()) != spec.pits) fail(row_has(r, cells.size()));
    for (int i = 0; i < spec.pits; ++i) {
      auto cell = trim(cells[i]);
      if (cell == "x" || cell == "X") {
        if (!togyz)
          fail(r == 0 ? tr("a tuzdyk 'x' in South's row but Kalah has no tuzdyks")
                      : tr("a tuzdyk 'x' in North's row but Kalah has no tuzdyks"));
        if (i == kMaxPits - 1)
          fail(r == 0 ? tr("a tuzdyk on hole 9 of White's row is not allowed")
                      : tr("a tuzdyk on hole 9 of Black's row is not allowed"));
        if (p.tuzdyk[r ^ 1] != kNoTuzdyk)
          fail(r == 0 ? tr("two tuzdyks in White's row") : tr("two tuzdyks in Black's row"));
        p.tuzdyk[r ^ 1] = int8_t(i);
        continue;
      }
      int v;
      if (!parse_int(cell, v) || v < 0 || v > 255) fail(not_a_count(r, i + 1, cell));
      p.pits[r * kMaxPits + i] = uint8_t(v);
    }
  }
  if (p.tuzdyk[0] != kNoTuzdyk && p.tuzdyk[0] == p.tuzdyk[1])
    fail(
        tr("symmetric tuzdyks (both on hole {hole}) are not allowed", {{"hole", p.tuzdyk[0] + 1}}));
  for (int s = 0; s < 2; ++s) {
    int v;
    if (!parse_int(fields[1 + s], v) || v < 0 || v > 255)
      fail(togyz ? tr("kazan {store}: '{value}' is not a stone count",
                      {{"store", s + 1}, {"value", std::string(fields[1 + s])}})
                 : tr("store {store}: '{value}' is not a stone count",
                      {{"store", s + 1}, {"value", std::string(fields[1 + s])}}));
    p.store[s] = uint8_t(v);
  }
  const std::string_view side = fields[3];
  if (togyz ? side == "w" : side == "s")
    p.to_move = 0;
  else if (togyz ? side == "b" : side == "n")
    p.to_move = 1;
  else
    fail(togyz
             ? tr("side to move must be 'w' or 'b', got '{side}'", {{"side", std::string(side)}})
             : tr("side to move must be 's' or 'n', got '{side}'", {{"side", std::string(side)}}));
  const int expected = togyz ? kTogyzStones : spec.total_seeds();
  if (p.total_stones() != expected)
    fail(togyz ? tr("holds {count} stones in all, the game has {expected}",
                    {{"count", p.total_stones()}, {"expected", expected}})
               : tr("holds {count} seeds in all, the game has {expected}",
                    {{"count", p.total_stones()}, {"expected", expected}}));
  p.finish_if_over();
  return p;
}

// A hash_combine over the position's bytes with its own mixing step, not core's mix64:
// the hash seeds the evaluation cache, the alpha-beta table and the rollout evaluator's
// random numbers, so another formula would change every seeded search and match.
uint64_t Position::hash() const {
  uint64_t words[4] = {0, 0, 0, 0};
  static_assert(sizeof(Position) <= sizeof(words));
  std::memcpy(words, this, sizeof(Position));
  uint64_t h = kGoldenGamma;
  for (uint64_t w : words) {
    h ^= w + kGoldenGamma + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
  }
  return h;
}

uint64_t Position::perft_togyz(const Position& pos, int depth) {
  if (depth == 0 || pos.is_over()) return 1;
  uint32_t mask = pos.legal_mask();
  uint64_t nodes = 0;
  MoveInfo info;
  while (mask) {
    const int move = __builtin_ctz(mask);
    mask &= mask - 1;
    Position child = pos;
    child.play_togyz(move, info);
    if (depth > 1) {
      nodes += perft_togyz(child, depth - 1);
    } else {
      // The leaf is not looked at again; this keeps the compiler from skipping its move.
      asm volatile("" : : "m"(child));
      ++nodes;
    }
  }
  return nodes;
}

uint64_t perft(const Position& pos, int depth) {
  if (pos.is_togyz()) return Position::perft_togyz(pos, depth);
  if (depth == 0 || pos.is_over()) return 1;
  uint32_t mask = pos.legal_mask();
  uint64_t nodes = 0;
  while (mask) {
    const int move = __builtin_ctz(mask);
    mask &= mask - 1;
    Position child = pos;
    child.play(move);
    nodes += depth == 1 ? 1 : perft(child, depth - 1);
  }
  return nodes;
}

}  // namespace kz
