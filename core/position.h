// The rules core: one fixed-size position type that plays Togyz Kumalak and any
// Kalah(m, n), following ../shared/rules/togyz-kumalak.md and ../shared/rules/kalah.md.
//
// Why one type for both games: the search, the network features, the data files and
// the tools all handle "a position" without templates or virtual calls. The game is
// a byte inside the position; the hot functions switch on it once per call, a branch
// that is perfectly predicted inside any one search.
//
// Nothing here allocates. A Position is 26 bytes of state padded to 32 and aligned to
// 16, trivially copyable, and moves are made by copy ("copy-make"): `Position next = pos;
// next.play(move);`. The padding is not waste: a copy is then two aligned 16-byte
// stores, which the move's 8-byte reads can be forwarded from without a stall, and a
// Position never straddles a cache line.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kz {

// Thrown for malformed user input (positions, moves, game names, records). The
// message always says what was wrong and, where known, where.
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Variant : uint8_t {
  kTogyz = 0,       // Togyz Kumalak, 9 holes a side, 9 stones each.
  kKalah = 1,       // Kalah(m, n), standard capture: only when the opposite pit holds seeds.
  kKalahEmpty = 2,  // Kalah(m, n), empty-capture rule: the lone seed is captured too.
};

inline constexpr int kMaxPits = 9;          // holes/pits a side, for every game
inline constexpr int kMaxMoves = kMaxPits;  // a move is "which of my pits"
inline constexpr int kTogyzHoles = 9;
inline constexpr int kTogyzStones = 162;
inline constexpr int kTogyzWinKazan = 82;  // a kazan at 82+ decides the game
inline constexpr int kNoTuzdyk = -1;

// A game's identity: the variant plus, for Kalah, its size. Parsed from the names used
// on every command line: togyz, kalah, bantumi, kalah:M,N and kalah:M,N,empty.
struct GameSpec {
  Variant variant = Variant::kTogyz;
  uint8_t pits = 9;   // m, pits (holes) per side
  uint8_t seeds = 9;  // n, seeds (stones) per pit at the start

  static GameSpec parse(std::string_view name);  // throws ParseError
  static GameSpec togyz() { return {Variant::kTogyz, 9, 9}; }
  static GameSpec kalah(int m, int n, bool empty_capture = false);

  bool is_togyz() const { return variant == Variant::kTogyz; }
  int total_seeds() const { return 2 * pits * seeds; }
  // The canonical name, which parse() accepts: "togyz", "kalah:6,4", "kalah:5,4,empty".
  std::string name() const;
  bool operator==(const GameSpec&) const = default;
};

// Outcome from White's / South's (player 0's) point of view.
enum class Outcome : int8_t { kOngoing = 2, kWhiteWins = 1, kDraw = 0, kBlackWins = -1 };

// A game's result for `player` (0 = White): +1 won, 0 drawn (or not decided), -1 lost.
inline int outcome_score(Outcome o, int player) {
  const int white = o == Outcome::kWhiteWins ? 1 : o == Outcome::kBlackWins ? -1 : 0;
  return player == 0 ? white : -white;
}

struct alignas(16) Position {
  // pits[p * 9 + i] = stones in player p's hole i+1 (player 0 = White/South). For Kalah
  // with m < 9 only indexes 0..m-1 of each row are used; the rest stay 0.
  std::array<uint8_t, 2 * kMaxPits> pits{};
  std::array<uint8_t, 2> store{};  // kazans / Kalah stores
  // tuzdyk[p] = index 0..8 of the hole in the *opponent's* row that player p owns,
  // or kNoTuzdyk. Always kNoTuzdyk in Kalah.
  std::array<int8_t, 2> tuzdyk{kNoTuzdyk, kNoTuzdyk};
  uint8_t to_move = 0;  // 0 = White/South, 1 = Black/North
  Variant variant = Variant::kTogyz;
  uint8_t npits = 9;                // m
  uint8_t over = 0;                 // 1 once the game has ended (rows swept into the stores)
  std::array<uint8_t, 6> unused{};  // always zero (hash() and == read it)

  static Position start(const GameSpec& spec);

  bool is_togyz() const { return variant == Variant::kTogyz; }
  int pit(int player, int i) const { return pits[player * kMaxPits + i]; }
  int total_stones() const;

  // Legal moves are the mover's pits 0..npits-1 that hold stones. Returns a bitmask
  // (bit i = pit i+1 is legal); 0 when the game is over.
  uint32_t legal_mask() const;
  bool is_legal(int move) const {
    return move >= 0 && move < npits && ((legal_mask() >> move) & 1);
  }
  int legal_count() const { return __builtin_popcount(legal_mask()); }

  // What a move did, for notation, hints and annotations.
  struct MoveInfo {
    int8_t landing_player = 0;  // whose row the last stone landed in (-1: a Kalah store)
    int8_t landing_index = 0;   // 0-based hole in that row
    uint8_t captured = 0;       // stones taken by the capture rule (even/tuzdyk/Kalah capture)
    bool made_tuzdyk = false;
    bool extra_turn = false;  // Kalah: the last seed fell in the mover's store
    bool ended_game = false;
    // Togyz, when the move ended the game: the mover's kazan after the capture but before
    // the rows were swept into the kazans, which is what online rooms write as the
    // move's "(n)" annotation. Unset (0) otherwise.
    uint8_t mover_store_before_sweep = 0;
  };
  // Plays `move` (0-based pit of the side to move). The move must be legal: this is the
  // hot path and does not check; use is_legal() on untrusted input.
  MoveInfo play(int move);

  bool is_over() const { return over != 0; }
  // The result can no longer change (Togyz: a kazan holds 82+; Kalah: a store holds more
  // than half the seeds). A search may stop there; the rules would play on.
  bool is_decided() const;
  // Final (or current, if decided) outcome. kOngoing while neither over nor decided.
  Outcome outcome() const;
  // Who is ahead in the stores: the outcome of a finished or decided game, and the
  // adjudication of one stopped before its end (a ply limit in self-play or a match).
  Outcome outcome_by_stores() const {
    return store[0] > store[1]   ? Outcome::kWhiteWins
           : store[1] > store[0] ? Outcome::kBlackWins
                                 : Outcome::kDraw;
  }
  int margin() const { return int(store[0]) - int(store[1]); }  // White minus Black

  // Position string as in the rules pages. parse() needs the game for Kalah sizes
  // and throws ParseError with the reason.
  std::string to_string() const;
  static Position parse(std::string_view text, const GameSpec& spec);

  // 64-bit hash of everything that affects play (for evaluation caches).
  uint64_t hash() const;

  bool operator==(const Position&) const = default;

 private:
  friend uint64_t perft(const Position& pos, int depth);
  static uint64_t perft_togyz(const Position& pos, int depth);
  void play_togyz(int move, MoveInfo& info);
  void play_kalah(int move, MoveInfo& info);
  void finish_if_over();
};

static_assert(sizeof(Position) == 32, "Position is meant to stay small and flat");

// A uniformly random legal move (0-based pit) of a position that has one, drawn with
// exactly one call of `rng` (any generator returning unsigned integers): random
// openings, rollouts and tests are reproducible from their seeds, so keep the draw as is.
template <class Rng>
int random_legal_move(const Position& pos, Rng& rng) {
  uint32_t mask = pos.legal_mask();
  for (int pick = int(uint64_t(rng()) % uint64_t(__builtin_popcount(mask))); pick > 0; --pick)
    mask &= mask - 1;
  return __builtin_ctz(mask);
}

// An opening: `plies` uniformly random legal moves from `start` (random_legal_move, one
// draw each), stopping early at a decided position. Up to `attempts` tries are made to
// end on an undecided position; the last try is returned either way. Self-play, matches
// and the level matches all open their games with this, so a seed means the same
// openings everywhere.
template <class Rng>
Position random_opening(const Position& start, int plies, Rng& rng, int attempts = 1) {
  Position p = start;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    p = start;
    for (int i = 0; i < plies && !p.is_decided(); ++i) p.play(random_legal_move(p, rng));
    if (!p.is_decided()) break;
  }
  return p;
}

// Counts every legal move sequence of `depth` plies; finished games count as leaves.
// Every move is made, the last ply's too (no counting of legal moves in place of
// playing them), so that perft's speed is the speed of making moves.
uint64_t perft(const Position& pos, int depth);

const char* outcome_string(Outcome o);  // "1-0", "0-1", "1/2-1/2", "*"

}  // namespace kz
