#include "mcts/kalah_solver.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/little_endian.h"
#include "mcts/search_yield.h"

namespace kz {

namespace {

constexpr int kMaxParts = 2 * kMaxPits;
// Databases are for the endgame: beyond this many seeds a table would not fit in
// memory anyway, and the binomials below stay within 64 bits.
constexpr int kMaxDbSeeds = 40;
constexpr int8_t kUnknown = -128;
// The solver tries enhanced transposition cutoffs only at nodes with at least this
// many seeds on the pits more than the endgame database covers (see search()).
constexpr int kEtcSeedsAboveDb = 4;

struct Binomials {
  // c[n][r] for n < 64 + kMaxParts, r <= kMaxParts.
  uint64_t c[64 + kMaxParts][kMaxParts + 1] = {};
  Binomials() {
    for (int n = 0; n < 64 + kMaxParts; ++n) {
      c[n][0] = 1;
      for (int r = 1; r <= std::min(n, kMaxParts); ++r)
        c[n][r] = c[n - 1][r - 1] + (r <= n - 1 ? c[n - 1][r] : 0);
    }
  }
};
const Binomials kBinom;

// Index of an arrangement of `k` seeds in `parts` pits among every arrangement of at
// most max seeds: all arrangements with fewer seeds come first (C(k + P - 1, P) of
// them), then this one's rank among those of exactly k seeds. The rank adds, for each
// pit but the last, the arrangements that agree before it and hold fewer seeds in it
// (a hockey-stick sum of binomials).
uint64_t arrangement_index(const uint8_t* a, int parts, int k) {
  uint64_t idx = kBinom.c[k + parts - 1][parts];
  int rem = k;
  for (int i = 0; i + 1 < parts; ++i) {
    const int t = parts - 2 - i;
    idx += kBinom.c[rem + t + 1][t + 1] - kBinom.c[rem - a[i] + t + 1][t + 1];
    rem -= a[i];
  }
  return idx;
}

// The pits with the mover's row first.
int mover_first(const Position& pos, uint8_t* a) {
  const int m = std::min<int>(pos.npits, kMaxPits), me = pos.to_move;
  int k = 0;
  for (int i = 0; i < m; ++i) k += a[i] = pos.pits[me * kMaxPits + i];
  for (int i = 0; i < m; ++i) k += a[m + i] = pos.pits[(me ^ 1) * kMaxPits + i];
  return k;
}

// Store difference gained by the mover of `parent` with the move that made `child`.
inline int gain_of(const Position& parent, const Position& child) {
  const int me = parent.to_move;
  return (int(child.store[me]) - int(parent.store[me])) -
         (int(child.store[me ^ 1]) - int(parent.store[me ^ 1]));
}

inline int store_diff(const Position& pos) {
  return int(pos.store[pos.to_move]) - int(pos.store[pos.to_move ^ 1]);
}

// Rounds a bound of `rest` to the parity every value of `rest` has (that of the seeds
// on the pits): an upper bound down, a lower bound up.
inline int parity_down(int v, int board) {
  return v - ((v - board) & 1);
}
inline int parity_up(int v, int board) {
  return v + ((v - board) & 1);
}

// Builds one table: memoised depth-first solving of every arrangement.
class DbBuilder {
 public:
  DbBuilder(Variant variant, int pits, int8_t* values)
      : variant_(variant), m_(pits), values_(values) {}

  // Solves every arrangement of `k` seeds; false when `stop` (may be null) was raised
  // first. A position's value is written only once it is solved, so a level stopped
  // part way is completed by solving it again (what is solved is skipped).
  bool solve_level(int k, const std::atomic<bool>* stop) {
    uint8_t a[kMaxParts] = {};
    stop_ = stop;
    return enumerate(a, 0, k, k);
  }

 private:
  // How many arrangements are visited between two polls of the stop flag: about half a
  // millisecond of building in a browser.
  static constexpr uint32_t kPollEvery = 1024;

  bool enumerate(uint8_t* a, int i, int rem, int k) {
    const int parts = 2 * m_;
    if (i == parts - 1) {
      if (++visited_ % kPollEvery == 0) {
        yield_search();  // the host may stop the build meanwhile (mcts/search_yield.h)
        if (stop_ && stop_->load(std::memory_order_relaxed)) return false;
      }
      a[i] = uint8_t(rem);
      const uint64_t idx = arrangement_index(a, parts, k);
      if (values_[idx] != kUnknown) return true;
      Position pos;
      pos.variant = variant_;
      pos.npits = uint8_t(m_);
      pos.to_move = 0;
      for (int j = 0; j < m_; ++j) {
        pos.pits[j] = a[j];
        pos.pits[kMaxPits + j] = a[m_ + j];
      }
      values_[idx] = int8_t(solve(pos));
      return true;
    }
    for (int v = 0; v <= rem; ++v) {
      a[i] = uint8_t(v);
      if (!enumerate(a, i + 1, rem - v, k)) return false;
    }
    return true;
  }

  int lookup(const Position& pos) {
    uint8_t a[kMaxParts];
    const int k = mover_first(pos, a);
    const uint64_t idx = arrangement_index(a, 2 * m_, k);
    int8_t v = values_[idx];
    if (v == kUnknown) v = values_[idx] = int8_t(solve(pos));
    return v;
  }

  // `rest` of a position that is not in the table yet. Its children with fewer seeds on
  // the pits are all in the table; those with as many are solved first (no cycles).
  int solve(const Position& pos) {
    int mine = 0, theirs = 0;
    for (int j = 0; j < m_; ++j) {
      mine += pos.pits[pos.to_move * kMaxPits + j];
      theirs += pos.pits[(pos.to_move ^ 1) * kMaxPits + j];
    }
    // A side without seeds ends the game: each side banks its own.
    if (mine == 0 || theirs == 0) return mine - theirs;
    int best = -1000;
    for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
      Position child = pos;
      child.store = {0, 0};
      Position base = child;
      child.play(__builtin_ctz(mask));
      const int g = gain_of(base, child);
      int v;
      if (child.is_over())
        v = g;
      else if (child.to_move == pos.to_move)
        v = g + lookup(child);
      else
        v = g - lookup(child);
      best = std::max(best, v);
    }
    return best;
  }

  Variant variant_;
  int m_;
  int8_t* values_;
  const std::atomic<bool>* stop_ = nullptr;
  uint32_t visited_ = 0;
};

// The database file: a header of kDbHeaderBytes, every number in it little-endian
// whatever the host, then the values (one signed byte each, so they need no byte order).
//    0  8  magic "KZEGTBLE"
//    8  4  format version (kDbFormatVersion)
//   12  1  rules (Variant: Kalah or Kalah with empty captures)
//   13  1  pits a side
//   14  1  most seeds on the pits
//   15  1  zero
//   16  8  values that follow (KalahEndgameDb::entries of pits and seeds)
//   24  4  CRC-32 of the values
//   28  4  zero
constexpr char kDbMagic[8] = {'K', 'Z', 'E', 'G', 'T', 'B', 'L', 'E'};
constexpr uint32_t kDbFormatVersion = 2;
constexpr uint64_t kDbHeaderBytes = 32;
// The magic of version 1 (until late 2026): no format version, and the size and
// checksum in the writing host's byte order. Recognised only to say "rebuild it".
constexpr char kDbMagicVersion1[8] = {'K', 'Z', 'E', 'G', 'T', 'B', '0', '1'};

// "kalah-4-standard-8": a table as people name it (its file name without ".egtb").
std::string table_name(Variant variant, int pits, int max_seeds) {
  return std::filesystem::path(egtb_file_name(variant, pits, max_seeds)).stem().string();
}

}  // namespace

int seeds_on_pits(const Position& pos) {
  int k = 0;
  for (int i = 0; i < pos.npits; ++i) k += pos.pits[i] + pos.pits[kMaxPits + i];
  return k;
}

// --- KalahEndgameDb ---------------------------------------------------------------

uint64_t KalahEndgameDb::entries(int pits, int max_seeds) {
  if (pits < 1 || pits > kMaxPits || max_seeds < 0 || max_seeds > kMaxDbSeeds) return 0;
  return kBinom.c[max_seeds + 2 * pits][2 * pits];
}

KalahEndgameDb KalahEndgameDb::build(Variant variant, int pits, int max_seeds,
                                     const std::function<void(int, double)>& progress) {
  KalahEndgameDbBuild build(variant, pits, max_seeds);
  build.run(nullptr, progress);
  return build.take();
}

KalahEndgameDbBuild::KalahEndgameDbBuild(Variant variant, int pits, int max_seeds) {
  if (variant == Variant::kTogyz) throw std::invalid_argument("endgame databases are for Kalah");
  if (pits < 1 || pits > kMaxPits || max_seeds < 0 || max_seeds > kMaxDbSeeds)
    throw std::invalid_argument("endgame database: pits must be 1.." + std::to_string(kMaxPits) +
                                " and seeds 0.." + std::to_string(kMaxDbSeeds));
  db_.variant_ = variant;
  db_.pits_ = pits;
  db_.max_seeds_ = max_seeds;
  db_.size_ = KalahEndgameDb::entries(pits, max_seeds);
  db_.values_.reset(static_cast<int8_t*>(big_alloc_zeroed(db_.size_)));
  std::memset(db_.values_.get(), kUnknown, db_.size_);
}

bool KalahEndgameDbBuild::run(const std::atomic<bool>* stop,
                              const std::function<void(int, double)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto seconds = [&] {
    return seconds_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  DbBuilder builder(db_.variant_, db_.pits_, db_.values_.get());
  while (!done()) {
    if (!builder.solve_level(next_level_, stop)) {
      seconds_ = seconds();
      return false;
    }
    if (progress) progress(next_level_, seconds());
    ++next_level_;
  }
  seconds_ = seconds();
  db_.crc_ = crc32(db_.values_.get(), db_.size_);
  return true;
}

KalahEndgameDb KalahEndgameDbBuild::take() {
  if (!done()) throw std::logic_error("the endgame database is not built yet");
  return std::move(db_);
}

uint64_t KalahEndgameDb::index(const Position& pos) const {
  uint8_t a[kMaxParts];
  const int k = mover_first(pos, a);
  return arrangement_index(a, 2 * pits_, k);
}

void KalahEndgameDb::save(const std::string& path) const {
  uint8_t header[kDbHeaderBytes] = {};
  std::memcpy(header, kDbMagic, sizeof kDbMagic);
  put_le(header + 8, kDbFormatVersion);
  header[12] = uint8_t(variant_);
  header[13] = uint8_t(pits_);
  header[14] = uint8_t(max_seeds_);
  put_le(header + 16, size_);
  put_le(header + 24, crc_);
  write_file_atomically(path, [&](std::ostream& o) {
    o.write(reinterpret_cast<const char*>(header), sizeof header);
    o.write(reinterpret_cast<const char*>(values_.get()), std::streamsize(size_));
  });
}

KalahEndgameDb KalahEndgameDb::load(const std::string& path) {
  return load(path, nullptr);
}

KalahEndgameDb KalahEndgameDb::load(const std::string& path, Variant variant, int pits,
                                    int max_seeds) {
  const Expected expected{variant, pits, max_seeds};
  return load(path, &expected);
}

KalahEndgameDb KalahEndgameDb::load(const std::string& path, const Expected* expected) {
  auto fail = [&](const std::string& why) {
    throw std::runtime_error("endgame database '" + path + "': " + why);
  };
  const char* const rebuild = "; rebuild it with `kumalak egtb build` (same --game and --seeds)";
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot be opened");
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(path, ec);
  if (ec) fail("cannot be opened (" + ec.message() + ")");
  uint8_t header[kDbHeaderBytes] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  const uint64_t got = uint64_t(in.gcount());
  if (got >= sizeof kDbMagicVersion1 &&
      std::memcmp(header, kDbMagicVersion1, sizeof kDbMagicVersion1) == 0)
    fail(std::string("written in the old format 1 (host byte order, no format version)") + rebuild);
  if (got < sizeof kDbMagic || std::memcmp(header, kDbMagic, sizeof kDbMagic) != 0)
    fail("not a KumalakZero endgame database (bad magic)");
  if (got < kDbHeaderBytes)
    fail("truncated header (" + std::to_string(got) + " of " + std::to_string(kDbHeaderBytes) +
         " bytes)");
  const uint32_t version = get_le<uint32_t>(header + 8);
  if (version != kDbFormatVersion)
    fail("format version " + std::to_string(version) + ", this build reads version " +
         std::to_string(kDbFormatVersion) + rebuild);
  KalahEndgameDb db;
  if (header[12] != uint8_t(Variant::kKalah) && header[12] != uint8_t(Variant::kKalahEmpty))
    fail("unknown rules " + std::to_string(header[12]) + " (another game)");
  db.variant_ = Variant(header[12]);
  db.pits_ = header[13];
  db.max_seeds_ = header[14];
  if (expected && (db.variant_ != expected->variant || db.pits_ != expected->pits ||
                   db.max_seeds_ != expected->max_seeds))
    fail("holds the table " + table_name(db.variant_, db.pits_, db.max_seeds_) + ", not " +
         table_name(expected->variant, expected->pits, expected->max_seeds) + " (another game)");
  const uint64_t n = get_le<uint64_t>(header + 16);
  const uint64_t want = entries(db.pits_, db.max_seeds_);
  if (want == 0 || n != want)
    fail("size " + std::to_string(n) + " does not match " + std::to_string(db.pits_) +
         " pits and " + std::to_string(db.max_seeds_) + " seeds");
  // Checked before allocating: a damaged header must not ask for terabytes.
  if (file_bytes < kDbHeaderBytes + n)
    fail("truncated (" + std::to_string(file_bytes - kDbHeaderBytes) + " of " + std::to_string(n) +
         " values)");
  if (file_bytes > kDbHeaderBytes + n)
    fail(std::to_string(file_bytes - kDbHeaderBytes - n) + " trailing bytes after the " +
         std::to_string(n) + " values");
  db.size_ = n;
  db.values_.reset(static_cast<int8_t*>(big_alloc_zeroed(n)));
  in.read(reinterpret_cast<char*>(db.values_.get()), std::streamsize(n));
  if (uint64_t(in.gcount()) != n)
    fail("truncated (" + std::to_string(in.gcount()) + " of " + std::to_string(n) + " values)");
  db.crc_ = crc32(db.values_.get(), n);
  if (db.crc_ != get_le<uint32_t>(header + 24)) fail("checksum mismatch (the file is damaged)");
  return db;
}

std::string default_egtb_dir() {
  if (const char* d = std::getenv("KZ_EGTB_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (std::filesystem::path(x) / "kumalak" / "egtb").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (std::filesystem::path(h) / ".cache" / "kumalak" / "egtb").string();
  return "egtb";
}

std::string egtb_file_name(Variant variant, int pits, int max_seeds) {
  return "kalah-" + std::to_string(pits) + "-" +
         (variant == Variant::kKalahEmpty ? "empty" : "standard") + "-" +
         std::to_string(max_seeds) + ".egtb";
}

int default_egtb_seeds(const GameSpec& spec) {
  constexpr uint64_t kBudget = uint64_t(32) << 20;
  int s = 0;
  while (s < std::min(spec.total_seeds(), kMaxDbSeeds) &&
         KalahEndgameDb::entries(spec.pits, s + 1) <= kBudget)
    ++s;
  return s;
}

int cached_or_default_egtb_seeds(const GameSpec& spec, const std::string& dir) {
  constexpr uint64_t kMaxEntries = uint64_t(1) << 30;  // a byte each: Kalah(6,n) 22 seeds
  const int fallback = default_egtb_seeds(spec);
  std::error_code ec;
  for (int s = std::min(spec.total_seeds(), kMaxDbSeeds); s > fallback; --s)
    if (KalahEndgameDb::entries(spec.pits, s) <= kMaxEntries &&
        std::filesystem::exists(
            std::filesystem::path(dir) / egtb_file_name(spec.variant, spec.pits, s), ec))
      return s;
  return fallback;
}

std::shared_ptr<const KalahEndgameDb> load_or_build_egtb(const GameSpec& spec, int max_seeds,
                                                         const std::string& dir, std::ostream* log,
                                                         const std::atomic<bool>* stop) {
  // Recursive: a call made from within a build on the same thread (while it pauses for
  // its host, mcts/search_yield.h) must be told that its table is being built, not wait
  // for itself. Another thread waits, as before.
  static std::recursive_mutex mutex;
  static std::map<std::string, std::shared_ptr<const KalahEndgameDb>> loaded;
  // Builds a stop interrupted, to go on with; and the tables being built now.
  static std::map<std::string, std::unique_ptr<KalahEndgameDbBuild>> unfinished;
  static std::set<std::string> building;
  const std::string path =
      (std::filesystem::path(dir) / egtb_file_name(spec.variant, spec.pits, max_seeds)).string();
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second;
  if (building.count(path))
    throw EgtbBuildStopped("the endgame database " + path + " is being built");
  std::shared_ptr<const KalahEndgameDb> db;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    try {
      db = std::make_shared<KalahEndgameDb>(
          KalahEndgameDb::load(path, spec.variant, spec.pits, max_seeds));
    } catch (const std::exception& e) {
      if (log) *log << e.what() << "; building it again\n";
    }
  }
  if (!db) {
    std::unique_ptr<KalahEndgameDbBuild>& build = unfinished[path];
    if (log)
      *log << (build ? "going on with the endgame database " : "building the endgame database ")
           << path << " (" << KalahEndgameDb::entries(spec.pits, max_seeds) / 1000000.0
           << " M positions, once)\n";
    if (!build) build = std::make_unique<KalahEndgameDbBuild>(spec.variant, spec.pits, max_seeds);
    building.insert(path);
    bool complete = false;
    try {
      complete = build->run(stop);
    } catch (...) {
      building.erase(path);
      throw;
    }
    building.erase(path);
    if (!complete) throw EgtbBuildStopped("stopped while building the endgame database " + path);
    auto built = std::make_shared<KalahEndgameDb>(build->take());
    unfinished.erase(path);
    try {
      std::filesystem::create_directories(dir);
      built->save(path);
    } catch (const std::exception& e) {
      // The table still serves this process; only the next one pays again.
      if (log) *log << "could not save the endgame database: " << e.what() << "\n";
    }
    db = built;
  }
  loaded[path] = db;
  return db;
}

// --- KalahSolver ---------------------------------------------------------------------

struct KalahSolver::Entry {
  uint64_t key = 0;
  int16_t lo = 0, hi = 0;  // bounds of `rest` (up to ±216 seeds in Kalah(9,12))
  int8_t move = -1;
  uint8_t board = 0;  // seeds on the pits: how much work the entry saves (replacement)
  uint8_t used = 0;   // 0 = empty slot
};

KalahSolver::KalahSolver(int tt_mib, std::shared_ptr<const KalahEndgameDb> db)
    : db_(std::move(db)) {
  static_assert(sizeof(Entry) == 16, "two entries make a 32-byte bucket");
  uint64_t n = 2;
  while (n * 2 * sizeof(Entry) <= uint64_t(std::max(tt_mib, 1)) << 20) n *= 2;
  tt_.reset(static_cast<Entry*>(big_alloc_zeroed(n * sizeof(Entry))));
  tt_entries_ = n;
  tt_mask_ = (n / 2) - 1;  // buckets of two entries
}

KalahSolver::~KalahSolver() = default;

void KalahSolver::clear() {
  std::memset(static_cast<void*>(tt_.get()), 0, tt_entries_ * sizeof(Entry));
}

int64_t KalahSolver::tt_bytes() const {
  return int64_t(tt_entries_ * sizeof(Entry));
}

namespace {
// The solver's table key: the pits with the mover's row first (so a position and its
// mirror share an entry), the ninth pit of each row folded in apart from the first eight.
uint64_t tt_key(const Position& pos) {
  const int me = pos.to_move;
  uint64_t a, b;
  std::memcpy(&a, &pos.pits[me * kMaxPits], 8);
  std::memcpy(&b, &pos.pits[(me ^ 1) * kMaxPits], 8);
  const uint64_t c =
      uint64_t(pos.pits[me * kMaxPits + 8]) | uint64_t(pos.pits[(me ^ 1) * kMaxPits + 8]) << 8;
  return mix64(a ^ mix64(b ^ kGoldenGamma) ^ (c << 48) ^ (c * 0x2545F4914F6CDD1DULL));
}
}  // namespace

void KalahSolver::begin(const SolveLimits& limits) {
  nodes_ = 0;
  node_limit_ = limits.nodes;
  stop_ = limits.stop;
  has_deadline_ = limits.movetime_s > 0;
  if (has_deadline_)
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(limits.movetime_s));
  next_check_ = 4096;
}

void KalahSolver::check_limits() {
  next_check_ = nodes_ + 4096;
  if (node_limit_ > 0 && nodes_ >= node_limit_) throw Aborted{};
  yield_search();  // the host may stop the solve meanwhile (mcts/search_yield.h)
  if (stop_ && stop_->load(std::memory_order_relaxed)) throw Aborted{};
  if (has_deadline_ && std::chrono::steady_clock::now() >= deadline_) throw Aborted{};
}

int KalahSolver::search(const Position& pos, int board, int alpha, int beta) {
  if (++nodes_ >= next_check_) check_limits();
  if (db_ && board <= db_->max_seeds()) return db_->rest(pos);
  if (alpha >= board) return board;
  if (beta <= -board) return -board;

  const uint64_t key = tt_key(pos);
  Entry* bucket = &tt_[(key & tt_mask_) * 2];
  Entry* hit = bucket[0].used && bucket[0].key == key   ? &bucket[0]
               : bucket[1].used && bucket[1].key == key ? &bucket[1]
                                                        : nullptr;
  int tt_move = -1;
  int lo = -board, hi = board;
  if (hit) {
    lo = hit->lo;
    hi = hit->hi;
    if (lo >= beta) return lo;
    if (hi <= alpha) return hi;
    if (lo == hi) return lo;
    tt_move = hit->move;
  }

  struct Child {
    Position pos;
    int gain, board, order;
    int8_t move;
    bool same, over;
  };
  Child kids[kMaxMoves];
  int n = 0;
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
    Child& c = kids[n++];
    c.move = int8_t(__builtin_ctz(mask));
    c.pos = pos;
    c.pos.play(c.move);
    c.gain = gain_of(pos, c.pos);
    c.board = board - ((int(c.pos.store[0]) + c.pos.store[1]) - (int(pos.store[0]) + pos.store[1]));
    c.over = c.pos.is_over();
    c.same = !c.over && c.pos.to_move == pos.to_move;
    c.order = (c.move == tt_move ? 10000 : 0) + (c.same ? 1000 : 0) + c.gain * 8 + c.move;
  }
  // Enhanced transposition cutoff: a child whose stored bound already lifts this node
  // to beta ends it without a search. Only a few seeds above the database: below that
  // the subtrees are so small that probing every child's entry (a cache miss each)
  // costs more than the searches it saves (Kalah(6,4) from the start, 20-seed table:
  // 30 s CPU instead of 37 s, though 29 % more nodes; docs/levels.md).
  if (board >= (db_ ? db_->max_seeds() : 0) + kEtcSeedsAboveDb)
    for (int i = 0; i < n; ++i) {
      const Child& c = kids[i];
      if (c.over) continue;
      if (db_ && c.board <= db_->max_seeds()) {
        const int r = db_->rest(c.pos);
        const int v = c.same ? c.gain + r : c.gain - r;
        if (v >= beta) return v;
        continue;
      }
      const uint64_t ck = tt_key(c.pos);
      const Entry* cb = &tt_[(ck & tt_mask_) * 2];
      const Entry* e = cb[0].used && cb[0].key == ck   ? &cb[0]
                       : cb[1].used && cb[1].key == ck ? &cb[1]
                                                       : nullptr;
      if (!e) continue;
      const int at_least = c.same ? c.gain + e->lo : c.gain - e->hi;
      if (at_least >= beta) return at_least;
    }
  // Insertion sort, best first.
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && kids[j].order > kids[j - 1].order; --j)
      std::swap(kids[j], kids[j - 1]);

  const int a0 = alpha, b0 = beta;
  int best = -1000, best_move = -1;
  for (int i = 0; i < n; ++i) {
    const Child& c = kids[i];
    int v;
    if (c.over)
      v = c.gain;
    else if (c.same)
      v = c.gain + search(c.pos, c.board, alpha - c.gain, beta - c.gain);
    else
      v = c.gain - search(c.pos, c.board, c.gain - beta, c.gain - alpha);
    if (v > best) {
      best = v;
      best_move = c.move;
      if (v > alpha) {
        alpha = v;
        if (alpha >= beta) break;
      }
    }
  }

  int new_lo = lo, new_hi = hi;
  if (best <= a0)
    new_hi = std::min(hi, parity_down(best, board));
  else if (best >= b0)
    new_lo = std::max(lo, parity_up(best, board));
  else
    new_lo = new_hi = best;
  Entry* slot = hit ? hit : (!bucket[0].used || board >= bucket[0].board ? &bucket[0] : &bucket[1]);
  slot->key = key;
  slot->lo = int16_t(new_lo);
  slot->hi = int16_t(new_hi);
  slot->move = int8_t(best_move);
  slot->board = uint8_t(board);
  slot->used = 1;
  return best;
}

int KalahSolver::mtdf(const Position& pos, int board, int guess) {
  int lo = -board, hi = board;
  int g = std::clamp(guess, lo, hi);
  while (lo < hi) {
    // Test "rest >= beta" for a beta of the right parity strictly inside (lo, hi].
    int beta = parity_up(std::max(g, lo + 1), board);
    if (beta > hi) beta = hi;
    const int v = search(pos, board, beta - 1, beta);
    if (v < beta)
      hi = parity_down(std::min(v, beta - 1), board);
    else
      lo = parity_up(v, board);
    g = v < beta ? hi : lo;
  }
  return lo;
}

SolveResult KalahSolver::solve(const Position& pos, const SolveLimits& limits, bool all_moves) {
  if (pos.is_togyz()) throw std::invalid_argument("the exact solver is for Kalah only");
  if (db_ && (db_->variant() != pos.variant || db_->pits() != pos.npits)) db_.reset();
  const auto t0 = std::chrono::steady_clock::now();
  SolveResult r;
  r.move_margin.fill(kUnknownMargin);
  begin(limits);
  try {
    if (pos.is_over()) {
      r.margin = store_diff(pos);
      r.solved = true;
    } else {
      const int board = seeds_on_pits(pos);
      const int rest = mtdf(pos, board, 0);
      r.margin = store_diff(pos) + rest;
      // The value of one move of `p` for its mover, exactly or as "at least `target`?".
      auto child_rest = [&](const Position& p, int p_board, int move, int target,
                            bool exact) -> std::pair<int, bool> {
        Position c = p;
        c.play(move);
        const int g = gain_of(p, c);
        if (c.is_over()) return {g, g >= target};
        const int cb = p_board - ((int(c.store[0]) + c.store[1]) - (int(p.store[0]) + p.store[1]));
        const bool same = c.to_move == p.to_move;
        if (exact) {
          const int v = mtdf(c, cb, same ? target - g : g - target);
          const int val = same ? g + v : g - v;
          return {val, val >= target};
        }
        // Null window around target - g (or its negation).
        const int val = same ? g + search(c, cb, target - g - 1, target - g)
                             : g - search(c, cb, g - target, g - target + 1);
        return {val, val >= target};
      };
      for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
        const int mv = __builtin_ctz(mask);
        if (!all_moves && r.best_move >= 0) break;
        auto [val, keeps] = child_rest(pos, board, mv, rest, all_moves);
        if (all_moves) r.move_margin[mv] = store_diff(pos) + val;
        if (keeps && r.best_move < 0) {
          r.best_move = mv;
          r.move_margin[mv] = r.margin;
        }
      }
      // A perfect line: at each step the first move that keeps the value.
      Position p = pos;
      int p_rest = rest;
      for (int ply = 0; ply < 200 && !p.is_over(); ++ply) {
        const int pb = seeds_on_pits(p);
        int chosen = -1;
        for (uint32_t mask = p.legal_mask(); mask && chosen < 0; mask &= mask - 1) {
          const int mv = __builtin_ctz(mask);
          if (child_rest(p, pb, mv, p_rest, false).second) chosen = mv;
        }
        if (chosen < 0) break;  // cannot happen with exact values; guards the loop
        r.pv.push_back(chosen);
        Position c = p;
        c.play(chosen);
        const int g = gain_of(p, c);
        p_rest = c.is_over() ? 0 : (c.to_move == p.to_move ? p_rest - g : g - p_rest);
        p = c;
      }
      r.solved = true;
    }
  } catch (const Aborted&) {
    r.solved = false;
  }
  r.nodes = nodes_;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// --- Facts for the words ------------------------------------------------------------

namespace {
int outcome_class(int margin) {
  return margin > 0 ? 1 : margin < 0 ? -1 : 0;
}
}  // namespace

ExactMoveOutcome exact_move_outcome(int margin, int best) {
  if (margin == best) return ExactMoveOutcome::kKeeps;
  if (outcome_class(margin) == outcome_class(best)) return ExactMoveOutcome::kDrops;
  if (margin > 0) return ExactMoveOutcome::kDropsStillWins;
  if (margin == 0) return ExactMoveOutcome::kDropsToADraw;
  return ExactMoveOutcome::kDropsToALoss;
}

std::vector<ExactMove> exact_moves(const Position& pos, const SolveResult& r) {
  std::vector<std::pair<int, int>> moves;  // margin, move
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
    const int mv = __builtin_ctz(mask);
    if (r.move_margin[mv] != kUnknownMargin) moves.emplace_back(r.move_margin[mv], mv);
  }
  std::stable_sort(moves.begin(), moves.end(), [](auto& x, auto& y) { return x.first > y.first; });
  std::vector<ExactMove> out;
  for (const auto& [m, mv] : moves) out.push_back({mv, m, exact_move_outcome(m, r.margin)});
  return out;
}

int stones_lost(const SolveResult& r, int move) {
  if (!r.solved || move < 0 || move >= kMaxMoves || r.move_margin[move] == kUnknownMargin)
    return -1;
  return r.margin - r.move_margin[move];
}

}  // namespace kz
