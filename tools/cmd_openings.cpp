// kumalak openings: the opening explorer (core/opening_explorer.h). For a position, each
// move played there in the explorer's games with the number of games, the mover's score,
// wins/draws/losses, the mean rating of the players who chose it and a bar; optionally
// the engine's evaluation of each move and what the human model says players of a rating
// play. --json answers programs (docs/openings.md describes the object).
//
// kumalak openings build: reads PGN records (PlayOK exports, tournament files) and the
// self-play shards of a run and writes an explorer file; docs/openings.md has the command
// that rebuilt the shipped one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/i18n.h"
#include "core/notation.h"
#include "core/opening_explorer.h"
#include "core/timestamp.h"
#include "mcts/advice.h"
#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/hint_json.h"
#include "tools/human_level.h"
#include "train/progress.h"
#include "train/shard.h"

namespace kz::cli {

namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- build ------------------------------------------------------------------------

struct BuildOptions {
  std::string game = "togyz";
  std::string out;
  int min_games = 3;
  int max_plies = 30;
  // NAME=LABEL: the games of the input file NAME (as given, or its file name) count as
  // LABEL (auto, titled, engine).
  std::vector<std::string> labels;
  std::vector<std::string> inputs;
};

// The record files and shards an input names: itself, or for a folder every *.pgn and
// *.kzshard under it, in name order.
void list_inputs(const std::string& input, std::vector<std::string>& pgns,
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

// How long a lookup of each position of `explorer` takes (find and the selection's
// totals, what a query does before printing), in microseconds: median and max.
std::pair<double, double> time_queries(const OpeningExplorer& explorer) {
  std::vector<double> us;
  us.reserve(explorer.positions().size());
  uint64_t sink = 0;
  for (const ExplorerPosition& p : explorer.positions()) {
    const auto start = std::chrono::steady_clock::now();
    const ExplorerPosition* e = explorer.find(p.position);
    if (e)
      for (const ExplorerMove& m : e->moves) sink += m.total().games();
    us.push_back(seconds_since(start) * 1e6);
  }
  if (us.empty() || sink == 0) return {0, 0};
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.back()};
}

int run_build(const BuildOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  const char* me = "kumalak openings build";
  GameSpec spec;
  std::map<std::string, ExplorerLabel> labels;
  std::vector<std::string> pgns, shards;
  try {
    spec = GameSpec::parse(opt.game);
    for (const std::string& l : opt.labels) {
      const size_t eq = l.rfind('=');
      if (eq == std::string::npos || eq == 0)
        throw ParseError("--source-label '" + l +
                         "': give NAME=LABEL, e.g. tournament-2018.pgn=titled");
      labels[l.substr(0, eq)] = parse_explorer_label(l.substr(eq + 1));
    }
    for (const std::string& in : opt.inputs) list_inputs(in, pgns, shards);
    for (const auto& [name, label] : labels) {
      bool used = false;
      for (const std::string& p : pgns) used |= p == name || fs::path(p).filename() == name;
      if (!used) throw ParseError("--source-label names '" + name + "', which is no PGN input");
    }
  } catch (const ParseError& e) {
    print_command_error(me, e);
    return 2;
  }
  auto label_of = [&](const std::string& path) {
    for (const auto& [name, label] : labels)
      if (path == name || fs::path(path).filename() == name) return label;
    return ExplorerLabel::kAuto;
  };

  // The records are read first, so that the progress line knows how many games there are.
  std::vector<std::vector<GameRecord>> records;
  int64_t total_games = 0;
  for (const std::string& p : pgns) {
    try {
      records.push_back(read_pgn_file(p));
    } catch (const ParseError& e) {
      // The reader's messages name the file (and line) already, most of them.
      const std::string why = e.what();
      print_command_error(me, (why.find(p) == std::string::npos ? p + ": " : "") + why);
      return 1;
    }
    total_games += int64_t(records.back().size());
  }
  // A shard whose header does not read is left out with its reason, as are broken games.
  std::vector<std::optional<ShardInfo>> shard_infos;
  std::vector<std::string> shard_errors(shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    try {
      shard_infos.push_back(ShardReader::read_info(shards[i], spec));
      total_games += shard_infos.back()->game_count;
    } catch (const std::exception& e) {
      shard_infos.push_back(std::nullopt);
      shard_errors[i] = e.what();
    }
  }

  OpeningTreeBuilder builder(spec, opt.max_plies, opt.min_games);
  Progress::Options po;
  po.unit = "games";
  po.line_interval_s = 2;
  Progress progress("openings build", total_games, po);
  std::vector<ExplorerSourceReport> reports;
  int64_t skipped = 0, unreadable_shards = 0;
  for (size_t i = 0; i < pgns.size(); ++i) {
    ExplorerSourceReport r;
    r.file = pgns[i];
    r.label = label_of(pgns[i]);
    // A chunk at a time, so that the progress line moves through a long file.
    constexpr size_t kChunk = 256;
    for (size_t from = 0; from < records[i].size(); from += kChunk) {
      const std::vector<GameRecord> chunk(
          records[i].begin() + std::ptrdiff_t(from),
          records[i].begin() + std::ptrdiff_t(std::min(records[i].size(), from + kChunk)));
      add_records(builder, chunk, spec, r.label, r);
      progress.add(int64_t(chunk.size()));
    }
    skipped += int64_t(r.skipped.size());
    reports.push_back(std::move(r));
  }
  for (size_t i = 0; i < shards.size(); ++i) {
    ExplorerSourceReport r;
    r.file = shards[i];
    r.label = ExplorerLabel::kEngine;
    if (!shard_infos[i]) {
      r.skipped.push_back(shard_errors[i]);
      ++unreadable_shards;
      reports.push_back(std::move(r));
      continue;
    }
    r.games = shard_infos[i]->game_count;
    try {
      const std::vector<ShardRow> rows = ShardReader::read(shards[i], nullptr, spec);
      // A game of this shard is told from the same game number of another by the file.
      const uint64_t file_key = fnv1a64(shards[i]) << 20;
      // Rows without their move (-1) say nothing about the opening; a row whose move is
      // not legal in its position means a broken writer, and leaves the shard out whole.
      for (const ShardRow& row : rows)
        if (row.played_move >= 0 && !row.pos.is_legal(row.played_move))
          throw std::runtime_error(shards[i] + ": game " + std::to_string(row.game_id) + " ply " +
                                   std::to_string(row.ply) + ": the move played is not legal");
      std::map<uint32_t, bool> games_seen;
      for (const ShardRow& row : rows) {
        if (row.played_move < 0) continue;
        builder.add_move(file_key ^ row.game_id, row.ply, row.pos, row.played_move, row.result,
                         ExplorerBucket::kEngine, 0);
        games_seen[row.game_id] = true;
      }
      r.used = int64_t(games_seen.size());
    } catch (const std::exception& e) {
      // A shard that does not read (or holds a row without its move) is left out whole.
      r.skipped.push_back(e.what());
      r.used = 0;
      ++unreadable_shards;
    }
    skipped += r.games - r.used;
    progress.add(r.games);
    reports.push_back(std::move(r));
  }
  progress.finish();

  nlohmann::ordered_json meta;
  meta["format"] = "kumalak-openings";
  meta["version"] = kExplorerVersion;
  meta["game"] = spec.name();
  meta["created_utc"] = utc_timestamp_now();
  meta["min_games"] = opt.min_games;
  meta["max_plies"] = opt.max_plies;
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
  OpeningExplorer explorer = builder.finish("{}");
  meta["positions"] = explorer.positions().size();
  meta["moves"] = explorer.move_count();
  explorer.set_metadata_json(meta.dump());
  try {
    explorer.write(opt.out);
  } catch (const std::exception& e) {
    print_command_error(me, e);
    return 1;
  }
  const double build_s = seconds_since(start);

  for (const ExplorerSourceReport& r : reports)
    for (const std::string& why : r.skipped) print_command_error(me, "skipped " + why);
  // Read back as a player's query would, and time every position's lookup.
  const auto load_start = std::chrono::steady_clock::now();
  OpeningExplorer loaded;
  try {
    loaded = OpeningExplorer::read(opt.out);
  } catch (const std::exception& e) {
    print_command_error(me, e, "the file written does not read back");
    return 1;
  }
  const double load_ms = seconds_since(load_start) * 1e3;
  const auto [median_us, max_us] = time_queries(loaded);
  std::printf(
      "%s: %s: %zu positions, %zu moves, %llu bytes; %lld games read, %lld skipped, %lld "
      "shards left out; built in %.2f s\n",
      me, opt.out.c_str(), loaded.positions().size(), loaded.move_count(),
      static_cast<unsigned long long>(fs::file_size(opt.out)), static_cast<long long>(total_games),
      static_cast<long long>(skipped), static_cast<long long>(unreadable_shards), build_s);
  std::printf(
      "%s: read back in %.1f ms; a lookup over all %zu positions: median %.2f us, max %.2f us\n",
      me, load_ms, loaded.positions().size(), median_us, max_us);
  return 0;
}

// ---- the query --------------------------------------------------------------------

struct QueryOptions {
  std::string game = "togyz";
  std::string explorer;  // "" = the shipped one
  std::string moves;
  bool moves_given = false;
  std::string position;
  std::string source = "all";
  std::string band;
  bool json = false;
  bool eval = false;  // the engine's evaluation of each move
  std::string model;  // --model (implies eval); "" = the shipped network
  std::string level = "expert";
  double movetime = 0;
  std::string human_model;  // "" = the shipped human model
  int rating = 0;           // > 0: what players of this rating play (human model)
  std::string lang;
};

// "all", "rated 1500-1799": the selection in the options' own words.
std::string selection_words(const QueryOptions& opt) {
  return opt.band.empty() ? opt.source : opt.source + " " + opt.band;
}

// A bar of `width` characters: wins, draws and losses of the mover in proportion.
std::string result_bar(const ExplorerCounts& c, int width = 20) {
  const double decided = double(c.wins) + c.draws + c.losses;
  if (decided <= 0) return std::string(size_t(width), ' ');
  const int w = int(std::lround(width * c.wins / decided));
  const int d = std::min(width - w, int(std::lround(width * c.draws / decided)));
  std::string bar;
  for (int i = 0; i < width; ++i) bar += i < w ? "█" : i < w + d ? "▒" : "░";
  return bar;
}

std::string pad(const std::string& text, size_t width, bool right = false) {
  // Display width: count UTF-8 code points, not bytes (the headings are translated).
  size_t shown = 0;
  for (unsigned char c : text) shown += (c & 0xC0) != 0x80;
  if (shown >= width) return text;
  const std::string fill(width - shown, ' ');
  return right ? fill + text : text + fill;
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

int run_query(const QueryOptions& opt) {
  using i18n::tr;
  apply_language(opt.lang);
  const char* me = "kumalak openings";
  GameSpec spec;
  Position pos;
  ExplorerBuckets selection = 0;
  std::string path;
  try {
    spec = GameSpec::parse(opt.game);
    selection = explorer_selection(opt.source, opt.band);
    if (!opt.position.empty() && opt.moves_given)
      throw ParseError(tr("give --position or --moves (moves from the start), not both"));
    if (opt.moves_given)
      pos = replay_moves(parse_move_list(opt.moves), Position::start(spec)).final_position;
    else if (!opt.position.empty())
      pos = Position::parse(opt.position, spec);
    else
      pos = Position::start(spec);
  } catch (const ParseError& e) {
    print_command_error(me, e);
    return 2;
  }
  path = opt.explorer.empty() ? shipped_explorer_path(spec) : opt.explorer;
  OpeningExplorer explorer;
  nlohmann::ordered_json meta;
  try {
    explorer = OpeningExplorer::read(path);
    meta = nlohmann::ordered_json::parse(explorer.metadata_json());
  } catch (const nlohmann::json::exception& e) {
    print_command_error(me, e, path + ": the metadata is not JSON");
    return 1;
  } catch (const std::exception& e) {
    print_command_error(me, e);
    return 1;
  }
  if (!(explorer.game() == spec)) {
    print_command_error(
        me, tr("the explorer file {file} is for {file_game}, not {game}",
               {{"file", path}, {"file_game", explorer.game().name()}, {"game", spec.name()}}));
    return 2;
  }

  const ExplorerPosition* entry = explorer.find(pos);
  std::vector<const ExplorerMove*> moves;
  uint64_t games = 0;
  if (entry) {
    moves = entry->moves_by_games(selection);
    games = entry->games(selection);
  }

  // The engine's evaluation of every legal move, and the human model's probabilities.
  std::map<int, MoveEval> engine_eval;
  std::string engine_name;
  std::map<int, float> human_probability;
  if ((opt.eval || !opt.model.empty()) && !pos.is_over()) {
    try {
      LevelPlayerOptions lo;
      lo.network = load_model_evaluator;
      const int count = pos.legal_count();
      auto player = make_analysis_player(spec, parse_level(opt.level), opt.model, count, lo);
      ThinkLimits limits;
      limits.movetime_s = opt.movetime;
      const Hint h = make_hint(*player, pos, limits, count);
      for (const HintMove& m : h.moves) engine_eval[m.move] = m.eval;
      engine_name = player->name();
    } catch (const std::exception& e) {
      print_command_error(me, e);
      return 2;
    }
  }
  if (opt.rating > 0 && !pos.is_over()) {
    try {
      auto policy = load_human_level(spec, opt.rating, opt.human_model);
      for (const HumanMove& m :
           human_moves(*policy, pos, opt.rating,
                       human_level_search(spec, *policy, MixUse::kDescribe).get()))
        human_probability[m.move] = m.probability;
    } catch (const std::exception& e) {
      print_command_error(me, e);
      return 2;
    }
  }

  if (opt.json) {
    nlohmann::ordered_json j;
    j["position"] = pos.to_string();
    j["to_move"] = side_to_move_word(pos);
    j["explorer"] = {{"file", path},
                     {"min_games", explorer.min_games()},
                     {"max_plies", explorer.max_plies()},
                     {"created_utc", meta.value("created_utc", "")},
                     {"sources", meta.value("sources", nlohmann::ordered_json::array())}};
    j["selection"] = {{"source", opt.source},
                      {"rating_band", opt.band.empty() ? nlohmann::ordered_json()
                                                       : nlohmann::ordered_json(opt.band)}};
    j["games"] = games;
    j["moves"] = nlohmann::ordered_json::array();
    for (const ExplorerMove* m : moves) {
      const ExplorerCounts c = m->total(selection);
      nlohmann::ordered_json jm;
      jm["move"] = m->move + 1;
      jm["notation"] = format_move(pos, m->move);
      jm["games"] = c.games();
      jm["share"] = games ? double(c.games()) / double(games) : 0.0;
      jm["wins"] = c.wins;
      jm["draws"] = c.draws;
      jm["losses"] = c.losses;
      jm["no_result"] = c.no_result;
      jm["score"] = c.wins + c.draws + c.losses ? nlohmann::ordered_json(c.score())
                                                : nlohmann::ordered_json();
      jm["mean_rating"] =
          c.rated ? nlohmann::ordered_json(std::lround(c.mean_rating())) : nlohmann::ordered_json();
      jm["rated_games"] = c.rated;
      nlohmann::ordered_json by = nlohmann::ordered_json::object();
      for (int b = 0; b < kExplorerBuckets; ++b) {
        const ExplorerCounts& bc = m->by_bucket[size_t(b)];
        if (!(selection & (1u << b)) || bc.games() == 0) continue;
        by[explorer_bucket_name(ExplorerBucket(b))] = {
            {"games", bc.games()},
            {"wins", bc.wins},
            {"draws", bc.draws},
            {"losses", bc.losses},
            {"no_result", bc.no_result},
            {"mean_rating", bc.rated ? nlohmann::ordered_json(std::lround(bc.mean_rating()))
                                     : nlohmann::ordered_json()}};
      }
      jm["by_source"] = by;
      if (auto it = engine_eval.find(m->move); it != engine_eval.end())
        jm["engine"] = {{"win", it->second.win},
                        {"draw", it->second.draw},
                        {"loss", it->second.loss},
                        {"margin", it->second.margin}};
      if (auto it = human_probability.find(m->move); it != human_probability.end())
        jm["human_probability"] = it->second;
      j["moves"].push_back(jm);
    }
    if (!engine_name.empty()) {
      j["engine"] = {{"name", engine_name}, {"moves", nlohmann::ordered_json::array()}};
      for (const auto& [move, ev] : engine_eval)
        j["engine"]["moves"].push_back({{"move", move + 1},
                                        {"notation", format_move(pos, move)},
                                        {"win", ev.win},
                                        {"draw", ev.draw},
                                        {"loss", ev.loss},
                                        {"margin", ev.margin}});
    }
    if (!human_probability.empty()) {
      j["human"] = {{"rating", opt.rating}, {"moves", nlohmann::ordered_json::array()}};
      for (const auto& [move, p] : human_probability)
        j["human"]["moves"].push_back(
            {{"move", move + 1}, {"notation", format_move(pos, move)}, {"probability", p}});
    }
    std::cout << j.dump() << "\n";
    return 0;
  }

  const bool white = pos.to_move == 0;
  std::cout
      << (pos.is_togyz()
              ? white ? tr("Position {position} (white to move)", {{"position", pos.to_string()}})
                      : tr("Position {position} (black to move)", {{"position", pos.to_string()}})
          : white ? tr("Position {position} (south to move)", {{"position", pos.to_string()}})
                  : tr("Position {position} (north to move)", {{"position", pos.to_string()}}))
      << "\n";
  if (moves.empty()) {
    std::cout << tr("No game in the explorer reaches this position (source: {source}).",
                    {{"source", selection_words(opt)}})
              << "\n";
  } else {
    std::cout << i18n::trn("{n} game goes through this position (source: {source}).",
                           "{n} games go through this position (source: {source}).",
                           (long long)games, {{"source", selection_words(opt)}})
              << "\n";
    std::string head = pad(tr("move"), 6) + pad(tr("games"), 14, true) + "  " +
                       pad(tr("score"), 6, true) + "  " + pad(tr("win/draw/loss"), 16) + " " +
                       pad(tr("rating"), 6, true);
    if (!engine_eval.empty()) head += "  " + pad("", 20) + "  " + pad(tr("engine"), 5, true);
    if (!human_probability.empty())
      head += (engine_eval.empty() ? "  " + pad("", 20) : "") + "  " +
              tr("players at {rating}", {{"rating", opt.rating}});
    std::cout << head << "\n";
    for (const ExplorerMove* m : moves) {
      const ExplorerCounts c = m->total(selection);
      const bool decided = c.wins + c.draws + c.losses > 0;
      std::string line =
          pad(format_move(pos, m->move), 6) +
          pad(std::to_string(c.games()) + " (" + percent(float(double(c.games()) / double(games))) +
                  ")",
              14, true) +
          "  " + pad(decided ? fixed(100 * c.score(), 1) + "%" : "-", 6, true) + "  " +
          pad(std::to_string(c.wins) + "/" + std::to_string(c.draws) + "/" +
                  std::to_string(c.losses),
              16) +
          " " + pad(c.rated ? std::to_string(std::lround(c.mean_rating())) : "-", 6, true) + "  " +
          result_bar(c);
      if (!engine_eval.empty()) {
        auto it = engine_eval.find(m->move);
        line += "  " +
                pad(it == engine_eval.end() ? "-" : percent(it->second.win + it->second.draw / 2),
                    5, true);
      }
      if (!human_probability.empty()) {
        auto it = human_probability.find(m->move);
        line += "  " + pad(it == human_probability.end() ? "-" : percent(it->second), 5, true);
      }
      std::cout << line << "\n";
    }
  }
  return 0;
}

}  // namespace

void register_openings(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<QueryOptions>();
  auto* cmd = app.add_subcommand(
      "openings",
      tr_noop("Opening statistics: the moves played in a position and how they scored"));
  add_game_option(cmd, opt->game);
  cmd->add_option("--explorer", opt->explorer,
                  tr_noop("the opening explorer file (default: the shipped one)"));
  cmd->add_option("--position", opt->position, tr_noop("the position string"));
  cmd->add_option("--moves", opt->moves, tr_noop("moves from the start: the mover's pit numbers"))
      ->each([opt](const std::string&) { opt->moves_given = true; });
  cmd->add_option("--source", opt->source,
                  tr_noop("whose games: all, rated, unrated, titled or engine"));
  cmd->add_option(
      "--rating-band", opt->band,
      tr_noop("rated players of one band: below-1200, 1200-1499, 1500-1799 or 1800-up"));
  cmd->add_flag("--json", opt->json, tr_noop("print one JSON object"));
  cmd->add_flag("--eval", opt->eval, tr_noop("also the engine's evaluation of each move"));
  add_model_option(cmd, opt->model);
  add_level_option(cmd, opt->level);
  add_movetime_option(cmd, opt->movetime);
  add_human_model_option(cmd, opt->human_model);
  cmd->add_option("--rating", opt->rating,
                  tr_noop("also say how often players of this PlayOK rating play each move (Togyz, "
                          "with the human model)"))
      ->check(in_range(1, 100000));
  add_lang_option(cmd, opt->lang);

  auto bopt = std::make_shared<BuildOptions>();
  auto* build = cmd->add_subcommand(
      "build", "Build an opening explorer file from PGN records and self-play shards");
  add_game_option(build, bopt->game);
  build->add_option("--out,-o", bopt->out, "the explorer file to write")->required();
  build
      ->add_option("--min-games", bopt->min_games,
                   "keep a position when at least this many games went through it")
      ->check(in_range(1, 1000000));
  build->add_option("--max-plies", bopt->max_plies, "collect the positions of the first N plies")
      ->check(in_range(1, 1000));
  build
      ->add_option("--source-label", bopt->labels,
                   "NAME=LABEL: count the games of input file NAME as auto (by their rating "
                   "tags), titled or engine (repeatable)")
      ->allow_extra_args(false);  // one NAME=LABEL each time: the inputs after it stay inputs
  build->add_option("inputs", bopt->inputs, "PGN files, *.kzshard shards, or folders of them")
      ->required();
  build->callback([bopt, &exit_code] { exit_code = run_build(*bopt); });
  cmd->callback([opt, build, &exit_code] {
    if (build->parsed()) return;  // `openings build`: its own callback did the work
    exit_code = run_query(*opt);
  });
}

}  // namespace kz::cli
