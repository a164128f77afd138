#include "train/selfplay.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "core/atomic_file.h"
#include "core/notation.h"
#include "core/run_lock.h"
#include "mcts/driver.h"
#include "nn/nn_evaluator.h"
#include "train/progress.h"
#include "train/shard.h"

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

struct Game {
  Position pos;
  std::unique_ptr<Search> search;
  std::mt19937_64 rng;
  std::vector<ShardRow> rows;
  int ply = 0;
  bool full = false;   // the current move gets a full search
  int64_t target = 0;  // visits for the current move
  bool may_resign = true;
  int low_streak[2] = {0, 0};  // consecutive moves each side's root value was hopeless
  int would_resign = -1;       // no-resign games: the side that would have resigned
  int resigned = -1;           // the side that resigned
  bool active = false;
};

uint64_t mix_seed(uint64_t a, uint64_t b) {
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

}  // namespace

std::vector<Position> load_openings(const std::string& path, const GameSpec& game, int plies) {
  if (const std::string why = why_not_a_file(path); !why.empty())
    throw ParseError("cannot open openings file '" + path + "': " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError("cannot open openings file '" + path + "'");
  std::vector<Position> out;
  if (path.size() > 4 && path.substr(path.size() - 4) == ".pgn") {
    for (const auto& record : read_pgn(in, path)) {
      GameRecord head = record;
      if (int(head.moves.size()) > plies) {
        head.moves.resize(plies);
        head.move_lines.resize(plies);
      }
      const auto r = replay_record(head, Position::start(game));
      if (!r.final_position.is_over()) out.push_back(r.final_position);
    }
  } else {
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
      try {
        out.push_back(Position::parse(line, game));
      } catch (const ParseError& e) {
        throw ParseError(path + ":" + std::to_string(number) + ": " + e.what());
      }
    }
  }
  if (out.empty()) throw ParseError("openings file '" + path + "' holds no usable position");
  return out;
}

SelfplayReport run_selfplay(const SelfplayOptions& o) {
  const RunConfig& cfg = o.config;
  const SelfplayConfig& sc = cfg.selfplay;
  const GameSpec game = cfg.game;
  std::string worker = o.worker_id;
  if (worker.empty()) {
    worker = "s";
    worker += std::to_string(cfg.seed);
    worker += "-g";
    worker += std::to_string(o.generation);
  }
  SelfplayReport report;
  std::filesystem::create_directories(o.out_dir);
  // One process per worker id: two would both count the same finished games and both
  // play the rest (core/run_lock.h). Held until this function returns.
  std::string lock_name = ".worker-" + worker + ".lock";
  for (char& c : lock_name)
    if (c == '/' || c == '\\') c = '_';
  const RunLock lock((std::filesystem::path(o.out_dir) / lock_name).string(),
                     "self-play worker '" + worker + "'");
  if (const int n = remove_stale_temp_files(o.out_dir); n > 0)
    spdlog::info("selfplay: removed {} unfinished shard(s) of killed workers", n);

  // Resume: count the games this worker already wrote for this generation.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(o.out_dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != kShardExtension) continue;
    try {
      const ShardInfo info = ShardReader::read_info(entry.path().string(), game);
      if (info.writer == worker && info.generation == o.generation)
        report.games_already_done += int(info.game_count);
    } catch (const std::exception& e) {
      spdlog::warn("selfplay: ignoring unreadable shard {}", e.what());
    }
  }
  const int to_play = std::max(0, o.games - report.games_already_done);
  if (report.games_already_done > 0)
    spdlog::info("selfplay: worker {} resumes: {} of {} games already written", worker,
                 report.games_already_done, o.games);
  if (to_play == 0) return report;

  const torch::Device device = parse_device(cfg.device);
  Model model = load_or_init_model(o.model_path, game, cfg.network, cfg.seed, device);
  NnEvaluator evaluator(model, device);
  EvalCache cache(1 << 18);
  SearchDriver driver(evaluator, &cache, sc.max_batch);

  std::vector<Position> openings;
  if (!sc.openings_file.empty())
    openings = load_openings(sc.openings_file, game, sc.random_opening_plies);

  SearchParams full_params = cfg.search;
  full_params.dirichlet_alpha = sc.dirichlet_alpha;
  full_params.dirichlet_fraction = sc.dirichlet_fraction;
  SearchParams fast_params = cfg.search;
  fast_params.dirichlet_alpha = 0;

  ShardWriter writer(game, o.generation, o.model_path.empty() ? "random-init" : o.model_path,
                     worker);
  // Game numbers continue after the resumed ones so that every game gets its own seed.
  int next_game_number = report.games_already_done;
  int started = 0, finished = 0;
  const int parallel = std::min(sc.games_in_parallel, to_play);
  std::vector<Game> games(parallel);

  auto start_game = [&](Game& g) {
    g = Game{};
    g.rng.seed(mix_seed(cfg.seed, uint64_t(o.generation) * 1000003 + next_game_number));
    g.search = std::make_unique<Search>(full_params, g.rng());
    std::uniform_real_distribution<float> u(0, 1);
    g.may_resign = u(g.rng) >= sc.no_resign_fraction;
    if (!openings.empty()) {
      g.pos = openings[g.rng() % openings.size()];
    } else {
      g.pos = Position::start(game);
      for (int i = 0; i < sc.random_opening_plies && !g.pos.is_decided(); ++i) {
        g.pos.play(random_legal_move(g.pos, g.rng));
      }
    }
    g.active = true;
    ++next_game_number;
    ++started;
  };
  auto prepare_move = [&](Game& g) {
    std::uniform_real_distribution<float> u(0, 1);
    g.full = u(g.rng) < sc.full_search_fraction;
    g.search->set_params(g.full ? full_params : fast_params);
    g.search->set_root(g.pos);
    g.target = g.full ? sc.full_visits : sc.fast_visits;
  };
  for (auto& g : games) {
    start_game(g);
    prepare_move(g);
  }

  Progress progress("selfplay " + worker, to_play);
  const auto t0 = Clock::now();

  auto finish_game = [&](Game& g) {
    Outcome outcome = g.pos.outcome();
    int white_margin = g.pos.margin();
    if (g.resigned >= 0) {
      outcome = g.resigned == 0 ? Outcome::kBlackWins : Outcome::kWhiteWins;
      ++report.resigned;
    } else if (outcome == Outcome::kOngoing) {  // ran into max_plies: adjudicate by stores
      outcome = white_margin > 0   ? Outcome::kWhiteWins
                : white_margin < 0 ? Outcome::kBlackWins
                                   : Outcome::kDraw;
    }
    if (g.would_resign >= 0) {
      ++report.no_resign_would_resign;
      const bool lost = (g.would_resign == 0 && outcome == Outcome::kBlackWins) ||
                        (g.would_resign == 1 && outcome == Outcome::kWhiteWins);
      if (!lost) ++report.false_resignations;
    }
    report.white_wins += outcome == Outcome::kWhiteWins;
    report.black_wins += outcome == Outcome::kBlackWins;
    report.draws += outcome == Outcome::kDraw;
    report.plies += g.ply;
    report.rows += int64_t(g.rows.size());
    for (const auto& r : g.rows) report.full_rows += r.full_search();
    writer.add_game(std::move(g.rows), outcome, white_margin, g.ply);
    ++finished;
    ++report.games_played;
    if (int(writer.games()) >= sc.games_per_shard)
      report.shards.push_back(writer.write_to_dir(o.out_dir, "selfplay"));
    g.active = false;
    progress.add(1);
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    progress.set_field("games/h", finished / secs * 3600, 5);
    progress.set_field("moves/s", report.plies / secs, 4);
    progress.set_field("evals/s", driver.stats().evaluated / secs, 5);
    progress.set_field("avg_len", double(report.plies) / finished, 4);
  };

  // Called once game g's latest answers are in: when its search for this move is done,
  // record the position, choose, play, and start the next move or game.
  auto advance = [&](Game& g) {
    if (!g.active) return;
    Search& s = *g.search;
    if (s.root_visits() < g.target && !s.root_proven() && !s.root_is_terminal()) return;
    // The search for this move is done: record, choose, play.
    const ThinkResult r = s.result();
    const int mover = g.pos.to_move;
    if (g.full) {
      ShardRow row;
      row.pos = g.pos;
      row.set_policy_from_visits(s.root_visit_counts());
      row.root_win = r.win;
      row.root_draw = r.draw;
      row.root_loss = r.loss;
      row.root_margin = r.margin;
      row.ply = uint16_t(std::min(g.ply, 65535));
      row.flags = ShardRow::kRowFullSearch | (r.proven ? ShardRow::kRowProven : 0);
      g.rows.push_back(row);
    } else {
      // Fast searches still train the value heads; their policy is not a target.
      ShardRow row;
      row.pos = g.pos;
      row.root_win = r.win;
      row.root_draw = r.draw;
      row.root_loss = r.loss;
      row.root_margin = r.margin;
      row.ply = uint16_t(std::min(g.ply, 65535));
      row.flags = r.proven ? ShardRow::kRowProven : 0;
      g.rows.push_back(row);
    }
    const float temperature =
        g.ply < sc.temperature_plies ? sc.opening_temperature : sc.final_temperature;
    const int move = s.pick_move(temperature, g.rng);
    g.rows.back().played_move = int8_t(move);
    // Resignation bookkeeping on the mover's root value.
    if (r.win + r.draw < sc.resign_threshold) {
      if (++g.low_streak[mover] >= sc.resign_consecutive) {
        if (g.may_resign)
          g.resigned = mover;
        else if (g.would_resign < 0)
          g.would_resign = mover;
      }
    } else {
      g.low_streak[mover] = 0;
    }
    g.pos.play(move);
    ++g.ply;
    const bool ended = g.resigned >= 0 || g.pos.is_decided() || g.ply >= sc.max_plies;
    if (ended) {
      finish_game(g);
      if (started < to_play) {
        start_game(g);
        prepare_move(g);
      }
    } else {
      prepare_move(g);
    }
  };

  // Games alternate between two halves (even and odd slots) so that one half's tree
  // work overlaps the network's work on the other (SearchDriver::run_pipelined).
  driver.run_pipelined(
      [&](int half, std::vector<Search*>& list, std::vector<int64_t>& list_targets) {
        for (size_t i = size_t(half); i < games.size(); i += 2) {
          if (!games[i].active) continue;
          list.push_back(games[i].search.get());
          list_targets.push_back(games[i].target);
        }
      },
      [&](int half) {
        for (size_t i = size_t(half); i < games.size(); i += 2) advance(games[i]);
        return finished < to_play;
      });
  if (writer.games() > 0) report.shards.push_back(writer.write_to_dir(o.out_dir, "selfplay"));
  progress.finish();
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  report.evaluations = int64_t(driver.stats().evaluated);
  return report;
}

}  // namespace kz
