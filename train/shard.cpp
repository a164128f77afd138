#include "train/shard.h"

#include <unistd.h>

#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/little_endian.h"

namespace kz {

namespace {

// Fixed part of the header; the three length-prefixed strings follow it.
constexpr size_t kFixedHeaderBytes = 52;
constexpr size_t kMaxHeaderString = 1024;  // longer writer/model strings are truncated
constexpr size_t kMaxHeaderBytes = kFixedHeaderBytes + 3 * (2 + kMaxHeaderString);
constexpr size_t kTrailerBytes = 4;

// --- little-endian fields (core/little_endian.h): the format is the same on every host

void put_str(std::string& s, const std::string& v) {
  const size_t n = std::min(v.size(), kMaxHeaderString);
  append_le<uint16_t>(s, uint16_t(n));
  s.append(v, 0, n);
}

// memcpy rather than std::bit_cast, which the WebAssembly build's libc++ lacks.
void store_f32(uint8_t* p, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  put_le<uint32_t>(p, bits);
}
float load_f32(const uint8_t* p) {
  const uint32_t bits = get_le<uint32_t>(p);
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

std::string host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) return "host";
  std::string h = host;
  for (char& c : h)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_')) c = '_';
  return h.empty() ? "host" : h;
}

int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool valid_game_bytes(uint8_t variant, uint8_t pits, uint8_t seeds) {
  if (variant > uint8_t(Variant::kKalahEmpty)) return false;
  if (pits < 1 || pits > kMaxPits || seeds < 1) return false;
  if (variant == uint8_t(Variant::kTogyz)) return pits == kTogyzHoles && seeds == 9;
  return 2 * pits * seeds <= 255;  // stores are uint8
}

// Parses and checks the header from the first `avail` bytes of a file of `file_size`
// bytes. Returns the header size (offset of the first row).
size_t parse_header(const uint8_t* d, size_t avail, uint64_t file_size, const std::string& path,
                    const std::optional<GameSpec>& expected, ShardInfo& info) {
  const bool magic_prefix_ok =
      std::memcmp(d, kShardMagic, std::min<size_t>(avail, sizeof(kShardMagic))) == 0;
  if (!magic_prefix_ok) fail(path, "not a shard file (bad magic bytes)");
  if (avail < kFixedHeaderBytes)
    fail(path, "truncated: " + std::to_string(file_size) + " bytes, shorter than the " +
                   std::to_string(kFixedHeaderBytes) + "-byte header");
  info.version = get_le<uint32_t>(d + 8);
  if (info.version != kShardVersion)
    fail(path, "bad version " + std::to_string(info.version) + " (this build reads version " +
                   std::to_string(kShardVersion) + ")");
  const uint32_t header_bytes = get_le<uint32_t>(d + 12);
  const uint32_t row_bytes = get_le<uint32_t>(d + 16);
  info.header_flags = get_le<uint32_t>(d + 20);
  info.row_count = get_le<uint64_t>(d + 24);
  info.game_count = get_le<uint32_t>(d + 32);
  info.generation = int32_t(get_le<uint32_t>(d + 36));
  info.created_unix_ms = int64_t(get_le<uint64_t>(d + 40));
  const uint8_t variant = d[48], pits = d[49], seeds = d[50], reserved = d[51];
  if (row_bytes != kShardRowBytes)
    fail(path, "corrupt header: row size " + std::to_string(row_bytes) + ", expected " +
                   std::to_string(kShardRowBytes));
  if (info.header_flags != 0)
    fail(path, "unsupported header flags 0x" + std::to_string(info.header_flags) +
                   " (compression is not part of version 1)");
  if (header_bytes < kFixedHeaderBytes + 6 || header_bytes > kMaxHeaderBytes)
    fail(path, "corrupt header: header size " + std::to_string(header_bytes));
  if (reserved != 0 || !valid_game_bytes(variant, pits, seeds))
    fail(path, "corrupt header: invalid game (variant " + std::to_string(variant) + ", pits " +
                   std::to_string(pits) + ", seeds " + std::to_string(seeds) + ")");
  info.game = {Variant(variant), pits, seeds};
  if (file_size < header_bytes || avail < header_bytes)
    fail(path, "truncated: " + std::to_string(file_size) + " bytes, header alone needs " +
                   std::to_string(header_bytes));

  // Three length-prefixed strings: game name, writer, model.
  size_t at = kFixedHeaderBytes;
  std::string strings[3];
  for (auto& s : strings) {
    if (at + 2 > header_bytes) fail(path, "corrupt header: strings overrun the header");
    const size_t n = get_le<uint16_t>(d + at);
    at += 2;
    if (at + n > header_bytes) fail(path, "corrupt header: strings overrun the header");
    s.assign(reinterpret_cast<const char*>(d + at), n);
    at += n;
  }
  if (at != header_bytes) fail(path, "corrupt header: header size does not match its strings");
  if (strings[0] != info.game.name())
    fail(path, "corrupt header: game name '" + strings[0] + "' disagrees with the game fields ('" +
                   info.game.name() + "')");
  info.writer = strings[1];
  info.model = strings[2];

  // Size: rows are fixed-size, so the file size follows from the row count exactly.
  const uint64_t body = file_size - header_bytes;
  const uint64_t room = body < kTrailerBytes ? 0 : (body - kTrailerBytes) / kShardRowBytes;
  if (body < kTrailerBytes || info.row_count > room)
    fail(path, "truncated: header says " + std::to_string(info.row_count) + " rows but the file (" +
                   std::to_string(file_size) + " bytes) has room for " + std::to_string(room));
  const uint64_t expected_size = header_bytes + info.row_count * kShardRowBytes + kTrailerBytes;
  if (file_size != expected_size)
    fail(path, "row count mismatch: header says " + std::to_string(info.row_count) + " rows (" +
                   std::to_string(expected_size) + " bytes) but the file has " +
                   std::to_string(file_size) + " bytes");
  info.file_bytes = file_size;

  if (expected && !(*expected == info.game))
    fail(path,
         "wrong game: shard holds '" + info.game.name() + "', expected '" + expected->name() + "'");
  return header_bytes;
}

std::string read_prefix(const std::string& path, size_t max_bytes, uint64_t& file_size) {
  if (const std::string why = why_not_a_file(path); !why.empty()) fail(path, "cannot open: " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  if (end < 0) fail(path, "cannot determine the file size");
  file_size = uint64_t(end);
  in.seekg(0);
  const size_t n = size_t(std::min<uint64_t>(file_size, max_bytes));
  std::string buf(n, '\0');
  in.read(buf.data(), std::streamsize(n));
  if (size_t(in.gcount()) != n) fail(path, "read error");
  // Room for the fixed header so that parse_header can index it after the size checks.
  return buf;
}

}  // namespace

// ---------------------------------------------------------------------------------
// Rows

void ShardRow::set_policy_from_visits(const std::array<uint32_t, kMaxMoves>& counts) {
  uint64_t total = 0;
  for (uint32_t c : counts) total += c;
  for (int i = 0; i < kMaxMoves; ++i)
    policy[i] = total ? float(double(counts[i]) / double(total)) : 0.0f;
  visits = uint32_t(std::min<uint64_t>(total, UINT32_MAX));
}

void encode_shard_row(const ShardRow& r, uint8_t* o) {
  std::memset(o, 0, kShardRowBytes);
  for (int i = 0; i < 2 * kMaxPits; ++i) o[i] = r.pos.pits[i];
  o[18] = r.pos.store[0];
  o[19] = r.pos.store[1];
  o[20] = uint8_t(r.pos.tuzdyk[0]);
  o[21] = uint8_t(r.pos.tuzdyk[1]);
  o[22] = r.pos.to_move;
  o[23] = uint8_t(r.pos.variant);
  o[24] = r.pos.npits;
  o[25] = r.pos.over;
  o[26] = uint8_t(r.result);
  o[27] = r.flags;
  for (int i = 0; i < kMaxMoves; ++i) store_f32(o + 28 + 4 * i, r.policy[i]);
  put_le<uint32_t>(o + 64, r.visits);
  store_f32(o + 68, r.root_win);
  store_f32(o + 72, r.root_draw);
  store_f32(o + 76, r.root_loss);
  store_f32(o + 80, r.root_margin);
  put_le<uint16_t>(o + 84, uint16_t(r.final_margin));
  put_le<uint16_t>(o + 86, r.ply);
  put_le<uint16_t>(o + 88, r.game_length);
  o[90] = uint8_t(r.played_move);
  o[91] = 0;  // reserved
  put_le<uint32_t>(o + 92, r.game_id);
}

std::optional<ShardRow> decode_shard_row(const uint8_t* in, const GameSpec& game,
                                         std::string* why) {
  auto bad = [&](const std::string& w) -> std::optional<ShardRow> {
    if (why) *why = w;
    return std::nullopt;
  };
  ShardRow r;
  Position& p = r.pos;
  for (int i = 0; i < 2 * kMaxPits; ++i) p.pits[i] = in[i];
  p.store = {in[18], in[19]};
  p.tuzdyk = {int8_t(in[20]), int8_t(in[21])};
  p.to_move = in[22];
  if (in[23] != uint8_t(game.variant) || in[24] != game.pits)
    return bad("position is not of game " + game.name());
  p.variant = game.variant;
  p.npits = in[24];
  p.over = in[25];
  if (p.to_move > 1 || p.over > 1) return bad("invalid side to move or game-over byte");
  for (int s = 0; s < 2; ++s) {
    const int t = p.tuzdyk[s];
    if (t != kNoTuzdyk && (!game.is_togyz() || t < 0 || t >= p.npits))
      return bad("invalid tuzdyk " + std::to_string(t));
    for (int i = p.npits; i < kMaxPits; ++i)
      if (p.pits[s * kMaxPits + i] != 0) return bad("stones in a pit beyond the board");
  }
  if (p.total_stones() != game.total_seeds())
    return bad("position holds " + std::to_string(p.total_stones()) + " stones, the game has " +
               std::to_string(game.total_seeds()));

  r.result = int8_t(in[26]);
  r.flags = in[27];
  for (int i = 0; i < kMaxMoves; ++i) r.policy[i] = load_f32(in + 28 + 4 * i);
  r.visits = get_le<uint32_t>(in + 64);
  r.root_win = load_f32(in + 68);
  r.root_draw = load_f32(in + 72);
  r.root_loss = load_f32(in + 76);
  r.root_margin = load_f32(in + 80);
  r.final_margin = int16_t(get_le<uint16_t>(in + 84));
  r.ply = get_le<uint16_t>(in + 86);
  r.game_length = get_le<uint16_t>(in + 88);
  r.played_move = int8_t(in[90]);
  r.game_id = get_le<uint32_t>(in + 92);

  if (r.result < -1 || r.result > 1) return bad("result " + std::to_string(r.result));
  if (r.flags & ~ShardRow::kRowKnownFlags) return bad("unknown row flags");
  if (in[91] != 0) return bad("reserved byte is not zero");
  if (r.played_move < -1 || r.played_move >= p.npits)
    return bad("played move " + std::to_string(r.played_move));
  if (std::abs(int(r.final_margin)) > game.total_seeds())
    return bad("final margin " + std::to_string(r.final_margin));
  for (float v : r.policy)
    if (!(v >= 0.0f && v <= 1.0f)) return bad("policy value outside [0, 1]");
  for (float v : {r.root_win, r.root_draw, r.root_loss, r.root_margin})
    if (!std::isfinite(v)) return bad("non-finite root value");
  return r;
}

// ---------------------------------------------------------------------------------
// Writer

ShardWriter::ShardWriter(const GameSpec& game, int32_t generation, std::string model,
                         std::string writer) {
  info_.game = game;
  info_.generation = generation;
  info_.model = std::move(model);
  info_.writer = writer.empty() ? host_name() + "-" + std::to_string(getpid()) : std::move(writer);
}

namespace {

// The reader's row checks, run at the writer so that a bad row fails the self-play worker
// that produced it (with the reason) rather than a training job much later.
void check_row_for_writer(const ShardRow& row, const GameSpec& game, const char* what) {
  uint8_t buf[kShardRowBytes];
  encode_shard_row(row, buf);
  std::string why;
  if (!decode_shard_row(buf, game, &why))
    throw std::invalid_argument(std::string("ShardWriter::") + what + ": bad row: " + why);
}

}  // namespace

void ShardWriter::add_game(std::vector<ShardRow> rows, Outcome outcome, int white_margin,
                           int game_length) {
  if (outcome == Outcome::kOngoing)
    throw std::invalid_argument("ShardWriter::add_game: the game has no result yet");
  if (std::abs(white_margin) > info_.game.total_seeds() || game_length < 0 ||
      game_length > UINT16_MAX)
    throw std::invalid_argument("ShardWriter::add_game: margin or game length out of range");
  if (games_ == UINT32_MAX) throw std::invalid_argument("ShardWriter::add_game: too many games");
  const int white_result = int(outcome);  // +1 White won, 0 draw, -1 Black won
  for (ShardRow& r : rows) {
    const int sign = r.pos.to_move == 0 ? 1 : -1;
    r.game_id = games_;
    r.result = int8_t(sign * white_result);
    r.final_margin = int16_t(sign * white_margin);
    if (game_length > 0) r.game_length = uint16_t(game_length);
    check_row_for_writer(r, info_.game, "add_game");  // before any row is kept
  }
  rows_.insert(rows_.end(), rows.begin(), rows.end());
  ++games_;
}

void ShardWriter::add_row(const ShardRow& row) {
  check_row_for_writer(row, info_.game, "add_row");
  if (row.game_id == UINT32_MAX) throw std::invalid_argument("ShardWriter::add_row: bad game id");
  rows_.push_back(row);
  games_ = std::max(games_, row.game_id + 1);
}

void ShardWriter::clear() {
  rows_.clear();
  games_ = 0;
}

void ShardWriter::write(const std::string& path) const {
  std::string buf;
  buf.reserve(kMaxHeaderBytes + rows_.size() * kShardRowBytes + kTrailerBytes);
  buf.append(kShardMagic, sizeof(kShardMagic));
  const std::string name = info_.game.name();
  const uint32_t header_bytes = uint32_t(kFixedHeaderBytes + 6 + name.size() +
                                         std::min(info_.writer.size(), kMaxHeaderString) +
                                         std::min(info_.model.size(), kMaxHeaderString));
  append_le<uint32_t>(buf, kShardVersion);
  append_le<uint32_t>(buf, header_bytes);
  append_le<uint32_t>(buf, kShardRowBytes);
  append_le<uint32_t>(buf, 0);  // header flags
  append_le<uint64_t>(buf, rows_.size());
  append_le<uint32_t>(buf, games_);
  append_le<uint32_t>(buf, uint32_t(info_.generation));
  append_le<uint64_t>(buf, uint64_t(fixed_time_ms_ >= 0 ? fixed_time_ms_ : now_unix_ms()));
  append_le<uint8_t>(buf, uint8_t(info_.game.variant));
  append_le<uint8_t>(buf, info_.game.pits);
  append_le<uint8_t>(buf, info_.game.seeds);
  append_le<uint8_t>(buf, 0);
  put_str(buf, name);
  put_str(buf, info_.writer);
  put_str(buf, info_.model);
  if (buf.size() != header_bytes) throw std::logic_error("shard header size mismatch");
  const size_t rows_at = buf.size();
  buf.resize(rows_at + rows_.size() * kShardRowBytes);
  for (size_t i = 0; i < rows_.size(); ++i)
    encode_shard_row(rows_[i],
                     reinterpret_cast<uint8_t*>(buf.data() + rows_at + i * kShardRowBytes));
  append_le<uint32_t>(buf, crc32(buf.data(), buf.size()));
  write_file_atomically(
      path, [&](std::ostream& out) { out.write(buf.data(), std::streamsize(buf.size())); });
}

std::string shard_file_name(const std::string& prefix, int32_t generation) {
  static const uint32_t process_random = [] {
    std::random_device rd;
    return uint32_t(rd()) ^ uint32_t(now_unix_ms() * 2654435761u);
  }();
  static std::atomic<uint32_t> seq{0};
  std::ostringstream s;
  s << prefix << "-gen" << std::setw(6) << std::setfill('0') << generation << "-" << host_name()
    << "-" << getpid() << "-" << std::hex << std::setw(8) << std::setfill('0') << process_random
    << std::dec << "-" << std::setw(6) << std::setfill('0') << seq++ << kShardExtension;
  return s.str();
}

std::string ShardWriter::write_to_dir(const std::string& dir, const std::string& prefix) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create directory: " + ec.message());
  std::string path;
  do {
    path = (std::filesystem::path(dir) / shard_file_name(prefix, info_.generation)).string();
  } while (std::filesystem::exists(path, ec));
  write(path);
  clear();
  return path;
}

// ---------------------------------------------------------------------------------
// Reader

ShardInfo ShardReader::read_info(const std::string& path,
                                 const std::optional<GameSpec>& expected_game) {
  uint64_t size = 0;
  const std::string buf = read_prefix(path, kMaxHeaderBytes, size);
  ShardInfo info;
  if (buf.empty()) fail(path, "truncated: the file is empty");
  parse_header(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(), size, path, expected_game,
               info);
  return info;
}

std::vector<ShardRow> ShardReader::read(const std::string& path, ShardInfo* info_out,
                                        const std::optional<GameSpec>& expected_game) {
  uint64_t size = 0;
  const std::string buf = read_prefix(path, SIZE_MAX, size);
  if (buf.empty()) fail(path, "truncated: the file is empty");
  const auto* d = reinterpret_cast<const uint8_t*>(buf.data());
  ShardInfo info;
  const size_t rows_at = parse_header(d, buf.size(), size, path, expected_game, info);
  const size_t body_end = rows_at + info.row_count * kShardRowBytes;
  const uint32_t stored = get_le<uint32_t>(d + body_end);
  const uint32_t actual = crc32(d, body_end);
  if (stored != actual) {
    std::ostringstream s;
    s << "checksum mismatch (stored " << std::hex << stored << ", computed " << actual
      << "): the file is corrupted";
    fail(path, s.str());
  }
  std::vector<ShardRow> rows;
  rows.reserve(info.row_count);
  std::string why;
  for (uint64_t i = 0; i < info.row_count; ++i) {
    auto row = decode_shard_row(d + rows_at + i * kShardRowBytes, info.game, &why);
    if (!row) fail(path, "bad row " + std::to_string(i) + ": " + why);
    if (row->game_id >= info.game_count)
      fail(path, "bad row " + std::to_string(i) + ": game id " + std::to_string(row->game_id) +
                     " but the header says " + std::to_string(info.game_count) + " games");
    rows.push_back(*row);
  }
  if (info_out) *info_out = info;
  return rows;
}

}  // namespace kz
