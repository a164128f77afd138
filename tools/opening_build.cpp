#include "tools/opening_build.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "core/timestamp.h"
#include "tools/json_text.h"
#include "train/shard.h"

namespace kz::cli {

namespace fs = std::filesystem;

void list_explorer_inputs(const std::string& input, std::vector<std::string>& pgns,
                          std::vector<std::string>& shards) {
  auto take = [&](const fs::path& p) {
    if (p.extension() == kShardExtension)
      shards.push_back(p.string());
    else
      pgns.push_back(p.string());
  };
  std::error_code ec;
  if (!fs::is_directory(input, ec)) {
    take(input);
    return;
  }
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(input, ec))
    if (e.is_regular_file() &&
        (e.path().extension() == ".pgn" || e.path().extension() == kShardExtension))
      found.push_back(e.path());
  if (ec) throw ParseError("cannot read the folder '" + input + "': " + ec.message());
  std::sort(found.begin(), found.end());
  for (const auto& p : found) take(p);
}

namespace {

// Whether `path` is the input `name` names: as given, or its file name.
bool names_file(const std::string& name, const std::string& path) {
  return path == name || fs::path(path).filename() == name;
}

}  // namespace

std::map<std::string, ExplorerLabel> parse_source_labels(const std::vector<std::string>& labels,
                                                         const std::vector<std::string>& pgns) {
  std::map<std::string, ExplorerLabel> out;
  for (const std::string& l : labels) {
    const size_t eq = l.rfind('=');
    if (eq == std::string::npos || eq == 0)
      throw ParseError("--source-label '" + l +
                       "': give NAME=LABEL, e.g. tournament-2018.pgn=titled");
    out[l.substr(0, eq)] = parse_explorer_label(l.substr(eq + 1));
  }
  for (const auto& [name, label] : out) {
    bool used = false;
    for (const std::string& p : pgns) used |= names_file(name, p);
    if (!used) throw ParseError("--source-label names '" + name + "', which is no PGN input");
  }
  return out;
}

std::vector<std::vector<GameRecord>> read_explorer_records(const std::vector<std::string>& pgns) {
  std::vector<std::vector<GameRecord>> records;
  for (const std::string& p : pgns) {
    try {
      records.push_back(read_pgn_file(p));
    } catch (const ParseError& e) {
      // The reader's messages name the file (and line) already, most of them.
      const std::string why = e.what();
      throw ParseError((why.find(p) == std::string::npos ? p + ": " : "") + why);
    }
  }
  return records;
}

namespace {

// The games of one record file, a chunk at a time, so that the progress moves through a
// long file.
ExplorerSourceReport add_record_file(OpeningTreeBuilder& builder, const ExplorerBuildInput& input,
                                     size_t i, const std::function<void(int64_t)>& progress) {
  ExplorerSourceReport r;
  r.file = input.pgns[i];
  r.label = ExplorerLabel::kAuto;
  for (const auto& [name, label] : input.labels)
    if (names_file(name, r.file)) {
      r.label = label;
      break;
    }
  const std::vector<GameRecord>& games = input.records[i];
  constexpr size_t kChunk = 256;
  for (size_t from = 0; from < games.size(); from += kChunk) {
    const std::vector<GameRecord> chunk(
        games.begin() + std::ptrdiff_t(from),
        games.begin() + std::ptrdiff_t(std::min(games.size(), from + kChunk)));
    add_records(builder, chunk, input.spec, r.label, r);
    if (progress) progress(int64_t(chunk.size()));
  }
  return r;
}

// The moves of one readable shard; r.used its games. Throws when a row does not read or
// holds a move that is not legal (a broken writer): the shard is then left out whole.
void add_shard_moves(OpeningTreeBuilder& builder, const GameSpec& spec, const std::string& shard,
                     ExplorerSourceReport& r) {
  const std::vector<ShardRow> rows = ShardReader::read(shard, nullptr, spec);
  // A game of this shard is told from the same game number of another by the file.
  const uint64_t file_key = fnv1a64(shard) << 20;
  // Rows without their move (-1) say nothing about the opening.
  for (const ShardRow& row : rows)
    if (row.played_move >= 0 && !row.pos.is_legal(row.played_move))
      throw std::runtime_error(shard + ": game " + std::to_string(row.game_id) + " ply " +
                               std::to_string(row.ply) + ": the move played is not legal");
  std::map<uint32_t, bool> games_seen;
  for (const ShardRow& row : rows) {
    if (row.played_move < 0) continue;
    builder.add_move(file_key ^ row.game_id, row.ply, row.pos, row.played_move, row.result,
                     ExplorerBucket::kEngine, 0);
    games_seen[row.game_id] = true;
  }
  r.used = int64_t(games_seen.size());
}

// The explorer's metadata (docs/openings.md) without its size, which comes after the build.
nlohmann::ordered_json explorer_metadata(const ExplorerBuildInput& input,
                                         const std::vector<ExplorerSourceReport>& reports) {
  nlohmann::ordered_json meta;
  meta["format"] = "kumalak-openings";
  meta["version"] = kExplorerVersion;
  meta["game"] = input.spec.name();
  meta["created_utc"] = utc_timestamp_now();
  meta["min_games"] = input.min_games;
  meta["max_plies"] = input.max_plies;
  meta["results"] = "from the mover's view";
  meta["rating_bands"] = {"below-1200", "1200-1499", "1500-1799", "1800-up"};
  meta["sources"] = nlohmann::ordered_json::array();
  for (const ExplorerSourceReport& r : reports)
    meta["sources"].push_back({{"file", fs::path(r.file).filename().string()},
                               {"label", explorer_label_name(r.label)},
                               {"games", r.games},
                               {"used", r.used},
                               {"skipped", r.games - r.used},
                               {"no_result", r.no_result}});
  for (size_t i = 0; i < reports.size(); ++i)
    if (reports[i].label == ExplorerLabel::kEngine && reports[i].used == 0 &&
        !reports[i].skipped.empty())
      meta["sources"][i]["left_out"] = "the shard does not read";
  return meta;
}

}  // namespace

ExplorerBuild build_explorer(const ExplorerBuildInput& input,
                             const std::function<void(int64_t total)>& total,
                             const std::function<void(int64_t games)>& progress) {
  ExplorerBuild out;
  for (const auto& games : input.records) out.total_games += int64_t(games.size());
  // A shard whose header does not read is left out with its reason, as are broken games.
  std::vector<std::optional<ShardInfo>> shard_infos;
  std::vector<std::string> shard_errors(input.shards.size());
  for (size_t i = 0; i < input.shards.size(); ++i) {
    try {
      shard_infos.push_back(ShardReader::read_info(input.shards[i], input.spec));
      out.total_games += shard_infos.back()->game_count;
    } catch (const std::exception& e) {
      shard_infos.push_back(std::nullopt);
      shard_errors[i] = e.what();
    }
  }
  if (total) total(out.total_games);
  OpeningTreeBuilder builder(input.spec, input.max_plies, input.min_games);
  for (size_t i = 0; i < input.pgns.size(); ++i) {
    out.reports.push_back(add_record_file(builder, input, i, progress));
    out.skipped += int64_t(out.reports.back().skipped.size());
  }
  for (size_t i = 0; i < input.shards.size(); ++i) {
    ExplorerSourceReport r;
    r.file = input.shards[i];
    r.label = ExplorerLabel::kEngine;
    if (!shard_infos[i]) {
      r.skipped.push_back(shard_errors[i]);
      ++out.unreadable_shards;
      out.reports.push_back(std::move(r));
      continue;
    }
    r.games = shard_infos[i]->game_count;
    try {
      add_shard_moves(builder, input.spec, input.shards[i], r);
    } catch (const std::exception& e) {
      r.skipped.push_back(e.what());
      r.used = 0;
      ++out.unreadable_shards;
    }
    out.skipped += r.games - r.used;
    if (progress) progress(r.games);
    out.reports.push_back(std::move(r));
  }
  nlohmann::ordered_json meta = explorer_metadata(input, out.reports);
  out.explorer = builder.finish("{}");
  meta["positions"] = out.explorer.positions().size();
  meta["moves"] = out.explorer.move_count();
  out.explorer.set_metadata_json(json_text(meta));
  return out;
}

std::pair<double, double> time_explorer_queries(const OpeningExplorer& explorer) {
  std::vector<double> us;
  us.reserve(explorer.positions().size());
  uint64_t sink = 0;
  for (const ExplorerPosition& p : explorer.positions()) {
    const auto start = std::chrono::steady_clock::now();
    const ExplorerPosition* e = explorer.find(p.position);
    if (e)
      for (const ExplorerMove& m : e->moves) sink += m.total().games();
    us.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() *
                 1e6);
  }
  if (us.empty() || sink == 0) return {0, 0};
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.back()};
}

}  // namespace kz::cli
