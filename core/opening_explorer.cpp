#include "core/opening_explorer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/i18n.h"
#include "core/little_endian.h"
#include "core/rated_games.h"

namespace kz {

namespace {

constexpr int kStateBytes = 26;  // the fields of Position before its padding

// The 26 state bytes in the order of a shard row (docs/data-format.md, bytes 0-25).
void put_state(const Position& p, uint8_t* out) {
  std::memcpy(out, p.pits.data(), 18);
  out[18] = p.store[0];
  out[19] = p.store[1];
  out[20] = uint8_t(p.tuzdyk[0]);
  out[21] = uint8_t(p.tuzdyk[1]);
  out[22] = p.to_move;
  out[23] = uint8_t(p.variant);
  out[24] = p.npits;
  out[25] = p.over;
}

Position get_state(const uint8_t* in) {
  Position p;
  std::memcpy(p.pits.data(), in, 18);
  p.store = {in[18], in[19]};
  p.tuzdyk = {int8_t(in[20]), int8_t(in[21])};
  p.to_move = in[22];
  p.variant = Variant(in[23]);
  p.npits = in[24];
  p.over = in[25];
  return p;
}

// Why `p` cannot be a position of `game`, or "" when it can.
std::string position_problem(const Position& p, const GameSpec& game) {
  if (p.variant != game.variant || p.npits != game.pits) return "a position of another game";
  if (p.to_move > 1 || p.over > 1) return "side to move or game-over flag out of range";
  int stones = p.store[0] + p.store[1];
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < kMaxPits; ++i) {
      if (i >= p.npits && p.pit(s, i) != 0) return "stones in a pit beyond the board";
      stones += p.pit(s, i);
    }
  if (stones != game.total_seeds()) return "the stones do not add up";
  for (int s = 0; s < 2; ++s) {
    const int t = p.tuzdyk[size_t(s)];
    if (t != kNoTuzdyk && (!game.is_togyz() || t < 0 || t >= p.npits)) return "a bad tuzdyk";
  }
  return "";
}

// LEB128 varints: the counts are mostly small, so most take one byte.
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out.push_back(char(uint8_t(v)));
}

bool get_varint(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const uint8_t b = *p++;
    if (shift == 63 && b > 1) return false;  // more than 64 bits
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

struct Refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

ExplorerBucket explorer_rating_bucket(int rating) {
  int band = 0;
  while (band < int(kExplorerBandStarts.size()) && rating >= kExplorerBandStarts[size_t(band)])
    ++band;
  return ExplorerBucket(band);
}

const char* explorer_bucket_name(ExplorerBucket bucket) {
  switch (bucket) {
    case ExplorerBucket::kRatedBelow1200:
      return "rated-below-1200";
    case ExplorerBucket::kRated1200:
      return "rated-1200-1499";
    case ExplorerBucket::kRated1500:
      return "rated-1500-1799";
    case ExplorerBucket::kRated1800:
      return "rated-1800-up";
    case ExplorerBucket::kUnrated:
      return "unrated";
    case ExplorerBucket::kTitled:
      return "titled";
    case ExplorerBucket::kEngine:
      return "engine";
  }
  return "?";
}

const char* explorer_band_name(int band) {
  static const char* const names[] = {"below-1200", "1200-1499", "1500-1799", "1800-up"};
  return band >= 0 && band < kExplorerRatedBands ? names[band] : "?";
}

ExplorerBuckets explorer_selection(std::string_view source, std::string_view band) {
  // The query's words, which a player types: refused in the player's language.
  using i18n::tr;
  constexpr ExplorerBuckets rated = (1u << kExplorerRatedBands) - 1;
  ExplorerBuckets s = 0;
  if (source == "all")
    s = kAllExplorerBuckets;
  else if (source == "rated")
    s = rated;
  else if (source == "unrated")
    s = 1u << int(ExplorerBucket::kUnrated);
  else if (source == "titled")
    s = 1u << int(ExplorerBucket::kTitled);
  else if (source == "engine")
    s = 1u << int(ExplorerBucket::kEngine);
  else
    throw ParseError(tr("unknown source '{source}': all, rated, unrated, titled or engine",
                        {{"source", std::string(source)}}));
  if (band.empty()) return s;
  if (!(s & rated))
    throw ParseError(tr("a rating band goes with --source rated or all, not {source}",
                        {{"source", std::string(source)}}));
  for (int b = 0; b < kExplorerRatedBands; ++b)
    if (band == explorer_band_name(b)) return 1u << b;
  throw ParseError(tr("unknown rating band '{band}': below-1200, 1200-1499, 1500-1799 or 1800-up",
                      {{"band", std::string(band)}}));
}

double ExplorerCounts::score() const {
  const uint64_t decided = uint64_t(wins) + draws + losses;
  return decided ? (wins + 0.5 * draws) / double(decided) : 0.0;
}

double ExplorerCounts::mean_rating() const {
  return rated ? double(rating_sum) / rated : 0.0;
}

void ExplorerCounts::add(const ExplorerCounts& o) {
  wins += o.wins;
  draws += o.draws;
  losses += o.losses;
  no_result += o.no_result;
  rated += o.rated;
  rating_sum += o.rating_sum;
}

ExplorerCounts ExplorerMove::total(ExplorerBuckets selection) const {
  ExplorerCounts t;
  for (int b = 0; b < kExplorerBuckets; ++b)
    if (selection & (1u << b)) t.add(by_bucket[size_t(b)]);
  return t;
}

uint64_t ExplorerPosition::games(ExplorerBuckets selection) const {
  uint64_t n = 0;
  for (const ExplorerMove& m : moves) n += m.total(selection).games();
  return n;
}

std::vector<const ExplorerMove*> ExplorerPosition::moves_by_games(ExplorerBuckets selection) const {
  std::vector<const ExplorerMove*> played;
  for (const ExplorerMove& m : moves)
    if (m.total(selection).games() > 0) played.push_back(&m);
  std::stable_sort(played.begin(), played.end(), [&](const ExplorerMove* a, const ExplorerMove* b) {
    return a->total(selection).games() > b->total(selection).games();
  });
  return played;
}

uint64_t explorer_key(const Position& pos) {
  uint8_t state[kStateBytes];
  put_state(pos, state);
  return mix64(fnv1a64(state, sizeof state));
}

// ---- The file ---------------------------------------------------------------------

OpeningExplorer::OpeningExplorer(GameSpec game, int min_games, int max_plies,
                                 std::string metadata_json, std::vector<ExplorerPosition> positions)
    : game_(game),
      min_games_(min_games),
      max_plies_(max_plies),
      metadata_json_(std::move(metadata_json)),
      positions_(std::move(positions)) {
  auto order = [](const ExplorerPosition& a, const ExplorerPosition& b) {
    if (a.key != b.key) return a.key < b.key;
    return std::memcmp(&a.position, &b.position, kStateBytes) < 0;
  };
  std::sort(positions_.begin(), positions_.end(), order);
}

const ExplorerPosition* OpeningExplorer::find(const Position& pos) const {
  const uint64_t key = explorer_key(pos);
  auto it = std::lower_bound(positions_.begin(), positions_.end(), key,
                             [](const ExplorerPosition& e, uint64_t k) { return e.key < k; });
  for (; it != positions_.end() && it->key == key; ++it)
    if (it->position == pos) return &*it;
  return nullptr;
}

size_t OpeningExplorer::move_count() const {
  size_t n = 0;
  for (const auto& p : positions_) n += p.moves.size();
  return n;
}

std::string OpeningExplorer::encode() const {
  if (metadata_json_.size() < 2 || metadata_json_.size() > kExplorerMaxMetadataBytes ||
      metadata_json_.front() != '{' || metadata_json_.back() != '}')
    throw std::invalid_argument("the explorer's metadata must be a JSON object of at most 1 MiB");
  std::string moves;
  for (const ExplorerPosition& p : positions_)
    for (const ExplorerMove& m : p.moves) {
      uint8_t mask = 0;
      for (int b = 0; b < kExplorerBuckets; ++b)
        if (m.by_bucket[size_t(b)].games() > 0) mask |= uint8_t(1u << b);
      moves.push_back(char(m.move));
      moves.push_back(char(mask));
      for (int b = 0; b < kExplorerBuckets; ++b) {
        if (!(mask & (1u << b))) continue;
        const ExplorerCounts& c = m.by_bucket[size_t(b)];
        for (uint64_t v : {uint64_t(c.wins), uint64_t(c.draws), uint64_t(c.losses),
                           uint64_t(c.no_result), uint64_t(c.rated), c.rating_sum})
          put_varint(moves, v);
      }
    }
  std::string out;
  out.append(kExplorerMagic, sizeof kExplorerMagic);
  append_le<uint32_t>(out, kExplorerVersion);
  append_le<uint32_t>(out, kExplorerHeaderBytes);
  append_le<uint32_t>(out, 0);  // flags
  out.push_back(char(game_.variant));
  out.push_back(char(game_.pits));
  out.push_back(char(game_.seeds));
  out.push_back(char(kExplorerBuckets));
  append_le<uint32_t>(out, uint32_t(min_games_));
  append_le<uint32_t>(out, uint32_t(max_plies_));
  append_le<uint32_t>(out, uint32_t(metadata_json_.size()));
  append_le<uint32_t>(out, uint32_t(positions_.size()));
  append_le<uint32_t>(out, uint32_t(moves.size()));
  append_le<uint32_t>(out, uint32_t(move_count()));
  out += metadata_json_;
  for (const ExplorerPosition& p : positions_) {
    append_le<uint64_t>(out, p.key);
    uint8_t state[kStateBytes];
    put_state(p.position, state);
    out.append(reinterpret_cast<const char*>(state), kStateBytes);
    out.push_back(char(p.moves.size()));
    out.push_back(0);  // reserved
  }
  out += moves;
  append_le<uint32_t>(out, crc32(out.data(), out.size()));
  return out;
}

void OpeningExplorer::write(const std::string& path) const {
  const std::string bytes = encode();
  write_file_atomically(
      path, [&](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

OpeningExplorer OpeningExplorer::decode(std::string_view bytes, const std::string& name) {
  auto refuse = [&](const std::string& why) -> Refusal {
    return Refusal(name + ": " + why + " (not a sound opening explorer file)");
  };
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint64_t size = bytes.size();
  if (size < sizeof kExplorerMagic || std::memcmp(data, kExplorerMagic, sizeof kExplorerMagic))
    throw refuse("bad magic");
  if (size < kExplorerHeaderBytes) throw refuse("truncated header");
  const uint32_t version = get_le<uint32_t>(data + 8);
  if (version != kExplorerVersion)
    throw refuse("format version " + std::to_string(version) + ", this build reads version " +
                 std::to_string(kExplorerVersion));
  if (get_le<uint32_t>(data + 12) != kExplorerHeaderBytes) throw refuse("bad header size");
  if (get_le<uint32_t>(data + 16) != 0) throw refuse("unknown header flags");
  GameSpec game;
  game.variant = Variant(data[20]);
  game.pits = data[21];
  game.seeds = data[22];
  const bool togyz = game == GameSpec::togyz();
  const bool kalah = (game.variant == Variant::kKalah || game.variant == Variant::kKalahEmpty) &&
                     game.pits >= 1 && game.pits <= kMaxPits && game.seeds >= 1 &&
                     game.total_seeds() <= 255;
  if (!togyz && !kalah) throw refuse("bad game fields");
  if (data[23] != kExplorerBuckets) throw refuse("bad source count");
  const uint32_t min_games = get_le<uint32_t>(data + 24);
  const uint32_t max_plies = get_le<uint32_t>(data + 28);
  if (min_games < 1 || min_games > 1000000 || max_plies < 1 || max_plies > 1000)
    throw refuse("threshold or depth out of range");
  const uint64_t metadata_bytes = get_le<uint32_t>(data + 32);
  const uint64_t position_count = get_le<uint32_t>(data + 36);
  const uint64_t move_bytes = get_le<uint32_t>(data + 40);
  const uint64_t move_count = get_le<uint32_t>(data + 44);
  if (metadata_bytes > kExplorerMaxMetadataBytes) throw refuse("metadata length out of range");
  // Each move takes 2 bytes at least, and a position at most one move per pit.
  if (move_count * 2 > move_bytes || move_count > position_count * kMaxPits ||
      move_count < position_count)
    throw refuse("move count does not fit the move block");
  const uint64_t expected = uint64_t(kExplorerHeaderBytes) + metadata_bytes +
                            position_count * kExplorerPositionBytes + move_bytes + 4;
  if (size < expected) throw refuse("truncated");
  if (size > expected) throw refuse("size mismatch (bytes after the checksum)");
  if (crc32(data, size - 4) != get_le<uint32_t>(data + size - 4)) throw refuse("checksum mismatch");

  std::string metadata(bytes.substr(kExplorerHeaderBytes, metadata_bytes));
  if (metadata.empty() || metadata.front() != '{' || metadata.back() != '}')
    throw refuse("the metadata is not a JSON object");
  const uint8_t* table = data + kExplorerHeaderBytes + metadata_bytes;
  const uint8_t* moves = table + position_count * kExplorerPositionBytes;
  const uint8_t* moves_end = moves + move_bytes;
  std::vector<ExplorerPosition> positions(position_count);
  uint64_t moves_read = 0;
  for (uint64_t i = 0; i < position_count; ++i) {
    const uint8_t* rec = table + i * kExplorerPositionBytes;
    ExplorerPosition& p = positions[i];
    const std::string where = "position " + std::to_string(i);
    p.key = get_le<uint64_t>(rec);
    p.position = get_state(rec + 8);
    const std::string problem = position_problem(p.position, game);
    if (!problem.empty()) throw refuse(where + ": " + problem);
    if (p.key != explorer_key(p.position)) throw refuse(where + ": key does not match");
    if (i > 0) {
      const ExplorerPosition& prev = positions[i - 1];
      if (prev.key > p.key || (prev.key == p.key && std::memcmp(rec - kExplorerPositionBytes + 8,
                                                                rec + 8, kStateBytes) >= 0))
        throw refuse(where + ": out of order or repeated");
    }
    const int n = rec[8 + kStateBytes];
    if (n < 1 || n > game.pits || rec[8 + kStateBytes + 1] != 0)
      throw refuse(where + ": bad move count");
    moves_read += uint64_t(n);
    if (moves_read > move_count) throw refuse(where + ": more moves than the header says");
    p.moves.resize(size_t(n));
    int previous_pit = -1;
    for (ExplorerMove& m : p.moves) {
      if (moves_end - moves < 2) throw refuse(where + ": move block ends early");
      m.move = moves[0];
      const uint8_t mask = moves[1];
      moves += 2;
      if (m.move <= previous_pit || !p.position.is_legal(m.move))
        throw refuse(where + ": pit " + std::to_string(m.move + 1) + " is not a legal move");
      previous_pit = m.move;
      if (mask == 0 || mask > kAllExplorerBuckets) throw refuse(where + ": bad source mask");
      for (int b = 0; b < kExplorerBuckets; ++b) {
        if (!(mask & (1u << b))) continue;
        uint64_t v[6];
        for (uint64_t& x : v)
          if (!get_varint(moves, moves_end, x)) throw refuse(where + ": a count is cut off");
        for (int k = 0; k < 5; ++k)
          if (v[k] > UINT32_MAX) throw refuse(where + ": a count out of range");
        ExplorerCounts& c = m.by_bucket[size_t(b)];
        c = {uint32_t(v[0]), uint32_t(v[1]), uint32_t(v[2]), uint32_t(v[3]), uint32_t(v[4]), v[5]};
        if (c.games() == 0 || c.rated > c.games() ||
            c.rating_sum > uint64_t(c.rated) * kMaxPlausibleRating ||
            c.rating_sum < uint64_t(c.rated) * kMinPlausibleRating)
          throw refuse(where + ": inconsistent counts");
      }
    }
  }
  if (moves_read != move_count) throw refuse("fewer moves than the header says");
  if (moves != moves_end) throw refuse("bytes left over in the move block");
  OpeningExplorer e;
  e.game_ = game;
  e.min_games_ = int(min_games);
  e.max_plies_ = int(max_plies);
  e.metadata_json_ = std::move(metadata);
  e.positions_ = std::move(positions);
  return e;
}

OpeningExplorer OpeningExplorer::read(const std::string& path) {
  const std::string why = why_not_a_file(path);
  if (!why.empty()) throw std::runtime_error(path + ": cannot open: " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (!in && !in.eof()) throw std::runtime_error(path + ": cannot read");
  return decode(buf.str(), path);
}

// ---- Building ---------------------------------------------------------------------

OpeningTreeBuilder::OpeningTreeBuilder(const GameSpec& game, int max_plies, int min_games)
    : game_(game), max_plies_(max_plies), min_games_(min_games) {
  if (max_plies < 1 || max_plies > 1000)
    throw std::invalid_argument("the depth must be 1..1000 plies, not " +
                                std::to_string(max_plies));
  if (min_games < 1 || min_games > 1000000)
    throw std::invalid_argument("the threshold must be 1..1000000 games, not " +
                                std::to_string(min_games));
}

void OpeningTreeBuilder::count(const Position& pos, int move, int mover_result,
                               ExplorerBucket bucket, int rating) {
  ExplorerCounts& c = by_position_[pos][size_t(move)][size_t(bucket)];
  if (mover_result == 1)
    ++c.wins;
  else if (mover_result == 0)
    ++c.draws;
  else if (mover_result == -1)
    ++c.losses;
  else
    ++c.no_result;
  if (rating >= kMinPlausibleRating && rating <= kMaxPlausibleRating) {
    ++c.rated;
    c.rating_sum += uint64_t(rating);
  }
}

void OpeningTreeBuilder::add_game(const Position& start, std::span<const int> moves, Outcome result,
                                  const std::array<ExplorerBucket, 2>& buckets,
                                  const std::array<int, 2>& ratings) {
  // A game could come back to a position it has been in (sowing alone need not change
  // the rows for good); it still counts once there.
  std::vector<std::pair<Position, int>> seen;
  Position pos = start;
  for (size_t ply = 0; ply < moves.size() && int(ply) < max_plies_; ++ply) {
    const int move = moves[ply];
    if (!pos.is_legal(move))
      throw std::invalid_argument("ply " + std::to_string(ply + 1) + ": an illegal move");
    const std::pair<Position, int> here{pos, move};
    if (std::find(seen.begin(), seen.end(), here) == seen.end()) {
      seen.push_back(here);
      const int mover = pos.to_move;
      const int mover_result = result == Outcome::kOngoing ? 2 : outcome_score(result, mover);
      count(pos, move, mover_result, buckets[size_t(mover)], ratings[size_t(mover)]);
    }
    pos.play(move);
  }
}

void OpeningTreeBuilder::add_move(uint64_t game, int ply, const Position& pos, int move,
                                  int mover_result, ExplorerBucket bucket, int rating) {
  const std::string problem = position_problem(pos, game_);
  if (!problem.empty()) throw std::invalid_argument("a position of no game here: " + problem);
  if (!pos.is_legal(move)) throw std::invalid_argument("an illegal move");
  if (ply < 0 || ply >= max_plies_) return;
  if (game != current_game_) {
    current_game_ = game;
    seen_in_game_.clear();
  }
  if (!seen_in_game_.insert(explorer_key(pos) * 31 + uint64_t(move)).second) return;
  count(pos, move, mover_result, bucket, rating);
}

OpeningExplorer OpeningTreeBuilder::finish(std::string metadata_json) const {
  std::vector<ExplorerPosition> kept;
  for (const auto& [pos, by_move] : by_position_) {
    ExplorerPosition p;
    p.key = explorer_key(pos);
    p.position = pos;
    for (int m = 0; m < kMaxPits; ++m) {
      ExplorerMove move;
      move.move = m;
      move.by_bucket = by_move[size_t(m)];
      if (move.total().games() > 0) p.moves.push_back(move);
    }
    if (p.games() >= uint64_t(min_games_)) kept.push_back(std::move(p));
  }
  return OpeningExplorer(game_, min_games_, max_plies_, std::move(metadata_json), std::move(kept));
}

// ---- Records ----------------------------------------------------------------------

const char* explorer_label_name(ExplorerLabel label) {
  switch (label) {
    case ExplorerLabel::kAuto:
      return "auto";
    case ExplorerLabel::kTitled:
      return "titled";
    case ExplorerLabel::kEngine:
      return "engine";
  }
  return "?";
}

ExplorerLabel parse_explorer_label(std::string_view text) {
  for (ExplorerLabel l : {ExplorerLabel::kAuto, ExplorerLabel::kTitled, ExplorerLabel::kEngine})
    if (text == explorer_label_name(l)) return l;
  throw ParseError("unknown source label '" + std::string(text) + "': auto, titled or engine");
}

std::optional<ExplorerGame> replay_for_explorer(const GameRecord& record, const GameSpec& game,
                                                std::vector<std::string>& skipped) {
  ExplorerGame g;
  try {
    g.start = record_start(record, game);
    g.replay = replay_record(record, g.start);
  } catch (const ParseError& e) {
    // replay_record's message names the game, its file and line; a FEN tag's does not.
    std::string why = e.what();
    if (why.find(record.describe()) == std::string::npos) why = record.describe() + ": " + why;
    skipped.push_back(why);
    return std::nullopt;
  }
  g.result = record.result == "1-0"       ? Outcome::kWhiteWins
             : record.result == "0-1"     ? Outcome::kBlackWins
             : record.result == "1/2-1/2" ? Outcome::kDraw
                                          : Outcome::kOngoing;
  return g;
}

void add_records(OpeningTreeBuilder& builder, const std::vector<GameRecord>& records,
                 const GameSpec& game, ExplorerLabel label, ExplorerSourceReport& report) {
  for (const GameRecord& record : records) {
    ++report.games;
    const std::optional<ExplorerGame> replayed = replay_for_explorer(record, game, report.skipped);
    if (!replayed) continue;
    const Position& start = replayed->start;
    const ReplayResult& replay = replayed->replay;
    const Outcome result = replayed->result;
    std::array<ExplorerBucket, 2> buckets{};
    std::array<int, 2> ratings{0, 0};
    const bool online_clock = !record.tag("TimeControl", "\x01").starts_with('\x01');
    for (int s = 0; s < 2; ++s) {
      const SideRating r = side_rating(record, s);
      if (label == ExplorerLabel::kEngine)
        buckets[size_t(s)] = ExplorerBucket::kEngine;
      else if (label == ExplorerLabel::kTitled ||
               (r.status == RatingStatus::kMissing && !online_clock))
        buckets[size_t(s)] = ExplorerBucket::kTitled;
      else if (r.rated()) {
        // Only a rated band's ratings make its mean: a tournament's own rating scale or
        // an engine's number is not a PlayOK rating.
        buckets[size_t(s)] = explorer_rating_bucket(r.rating);
        ratings[size_t(s)] = r.rating;
      } else
        buckets[size_t(s)] = ExplorerBucket::kUnrated;
    }
    builder.add_game(start, replay.moves, result, buckets, ratings);
    ++report.used;
    if (result == Outcome::kOngoing) ++report.no_result;
  }
}

std::string shipped_explorer_path(const GameSpec& game) {
  const char* env = std::getenv("KZ_MODELS_DIR");
  const std::string dir = env && *env ? env : "models";
  std::string stem;
  if (game == GameSpec::togyz())
    stem = "togyz";
  else if (game == GameSpec::kalah(6, 4))
    stem = "kalah";
  else
    for (char c : game.name()) stem += (c == ':' || c == ',') ? '-' : c;
  return dir + "/openings/" + stem + ".kzo";
}

}  // namespace kz
