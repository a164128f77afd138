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

struct SelfplayGame {
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

namespace {

// One self-play worker's games, as a state machine per game slot: start a game (an
// opening, a fresh tree) -> prepare a move (full or fast search, its visit target) ->
// the driver searches -> advance (record the row, pick and play the move, resign?) ->
// prepare the next move, or finish the game (result, rows to the shard writer) and
// start the next one in the same slot.
class SelfplayWorker {
 public:
  SelfplayWorker(const SelfplayOptions& o, std::string worker, int games_already_done, int to_play,
                 SelfplayReport& report)
      : o_(o),
        cfg_(o.config),
        sc_(o.config.selfplay),
        worker_(std::move(worker)),
        to_play_(to_play),
        report_(report),
        device_(parse_device(cfg_.device)),
        model_(load_or_init_model(o.model_path, cfg_.game, cfg_.network, cfg_.seed, device_)),
        evaluator_(model_, device_),
        cache_(1 << 18),
        driver_(evaluator_, &cache_, sc_.max_batch),
        writer_(cfg_.game, o.generation, o.model_path.empty() ? "random-init" : o.model_path,
                worker_),
        next_game_number_(games_already_done),
        progress_("selfplay " + worker_, to_play) {
    if (!sc_.openings_file.empty())
      openings_ = load_openings(sc_.openings_file, cfg_.game, sc_.random_opening_plies);
    full_params_ = cfg_.search;
    full_params_.dirichlet_alpha = sc_.dirichlet_alpha;
    full_params_.dirichlet_fraction = sc_.dirichlet_fraction;
    fast_params_ = cfg_.search;
    fast_params_.dirichlet_alpha = 0;
  }

  void run() {
    games_.resize(size_t(std::min(sc_.games_in_parallel, to_play_)));
    for (auto& g : games_) {
      start_game(g);
      prepare_move(g);
    }
    t0_ = Clock::now();
    // Games alternate between two halves (even and odd slots) so that one half's tree
    // work overlaps the network's work on the other (SearchDriver::run_pipelined).
    driver_.run_pipelined(
        [&](int half, std::vector<Search*>& list, std::vector<int64_t>& list_targets) {
          for (size_t i = size_t(half); i < games_.size(); i += 2) {
            if (!games_[i].active) continue;
            list.push_back(games_[i].search.get());
            list_targets.push_back(games_[i].target);
          }
        },
        [&](int half) {
          for (size_t i = size_t(half); i < games_.size(); i += 2) advance(games_[i]);
          return finished_ < to_play_;
        });
    if (writer_.games() > 0) report_.shards.push_back(writer_.write_to_dir(o_.out_dir, "selfplay"));
    progress_.finish();
    report_.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    report_.evaluations = int64_t(driver_.stats().evaluated);
  }

 private:
  void start_game(SelfplayGame& g) {
    g = SelfplayGame{};
    // SelfplayGame numbers continue after the resumed ones so that every game gets its own seed.
    g.rng.seed(mix_seed(cfg_.seed, uint64_t(o_.generation) * 1000003 + next_game_number_));
    g.search = std::make_unique<Search>(full_params_, g.rng());
    std::uniform_real_distribution<float> u(0, 1);
    g.may_resign = u(g.rng) >= sc_.no_resign_fraction;
    g.pos = openings_.empty()
                ? random_opening(Position::start(cfg_.game), sc_.random_opening_plies, g.rng)
                : openings_[g.rng() % openings_.size()];
    g.active = true;
    ++next_game_number_;
    ++started_;
  }

  void prepare_move(SelfplayGame& g) {
    std::uniform_real_distribution<float> u(0, 1);
    g.full = u(g.rng) < sc_.full_search_fraction;
    g.search->set_params(g.full ? full_params_ : fast_params_);
    g.search->set_root(g.pos);
    g.target = g.full ? sc_.full_visits : sc_.fast_visits;
  }

  void finish_game(SelfplayGame& g) {
    // Finished, decided or (at max_plies) adjudicated by the stores; or resigned.
    Outcome outcome = g.pos.outcome_by_stores();
    const int white_margin = g.pos.margin();
    if (g.resigned >= 0) {
      outcome = g.resigned == 0 ? Outcome::kBlackWins : Outcome::kWhiteWins;
      ++report_.resigned;
    }
    if (g.would_resign >= 0) {
      ++report_.no_resign_would_resign;
      const bool lost = (g.would_resign == 0 && outcome == Outcome::kBlackWins) ||
                        (g.would_resign == 1 && outcome == Outcome::kWhiteWins);
      if (!lost) ++report_.false_resignations;
    }
    report_.white_wins += outcome == Outcome::kWhiteWins;
    report_.black_wins += outcome == Outcome::kBlackWins;
    report_.draws += outcome == Outcome::kDraw;
    report_.plies += g.ply;
    report_.rows += int64_t(g.rows.size());
    for (const auto& r : g.rows) report_.full_rows += r.full_search();
    writer_.add_game(std::move(g.rows), outcome, white_margin, g.ply);
    ++finished_;
    ++report_.games_played;
    if (int(writer_.games()) >= sc_.games_per_shard)
      report_.shards.push_back(writer_.write_to_dir(o_.out_dir, "selfplay"));
    g.active = false;
    progress_.add(1);
    const double secs = std::chrono::duration<double>(Clock::now() - t0_).count();
    progress_.set_field("games/h", finished_ / secs * 3600, 5);
    progress_.set_field("moves/s", report_.plies / secs, 4);
    progress_.set_field("evals/s", driver_.stats().evaluated / secs, 5);
    progress_.set_field("avg_len", double(report_.plies) / finished_, 4);
  }

  // Called once game g's latest answers are in: when its search for this move is done,
  // record the position, choose, play, and start the next move or game.
  void advance(SelfplayGame& g) {
    if (!g.active) return;
    Search& s = *g.search;
    if (!s.done(g.target)) return;
    const ThinkResult r = s.result();
    const int mover = g.pos.to_move;
    ShardRow row;
    row.pos = g.pos;
    // Fast searches still train the value heads; their policy is not a target.
    if (g.full) row.set_policy_from_visits(s.root_visit_counts());
    row.root_win = r.win;
    row.root_draw = r.draw;
    row.root_loss = r.loss;
    row.root_margin = r.margin;
    row.ply = uint16_t(std::min(g.ply, 65535));
    row.flags = (g.full ? ShardRow::kRowFullSearch : 0) | (r.proven ? ShardRow::kRowProven : 0);
    g.rows.push_back(row);
    const float temperature =
        g.ply < sc_.temperature_plies ? sc_.opening_temperature : sc_.final_temperature;
    const int move = s.pick_move(temperature, g.rng);
    g.rows.back().played_move = int8_t(move);
    // Resignation bookkeeping on the mover's root value.
    if (r.win + r.draw < sc_.resign_threshold) {
      if (++g.low_streak[mover] >= sc_.resign_consecutive) {
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
    const bool ended = g.resigned >= 0 || g.pos.is_decided() || g.ply >= sc_.max_plies;
    if (ended) {
      finish_game(g);
      if (started_ < to_play_) {
        start_game(g);
        prepare_move(g);
      }
    } else {
      prepare_move(g);
    }
  }

  const SelfplayOptions& o_;
  const RunConfig& cfg_;
  const SelfplayConfig& sc_;
  const std::string worker_;
  const int to_play_;
  SelfplayReport& report_;
  torch::Device device_;
  Model model_;
  NnEvaluator evaluator_;
  EvalCache cache_;
  SearchDriver driver_;
  ShardWriter writer_;
  std::vector<Position> openings_;
  SearchParams full_params_, fast_params_;
  int next_game_number_;
  int started_ = 0, finished_ = 0;
  std::vector<SelfplayGame> games_;
  Progress progress_;
  Clock::time_point t0_;
};

}  // namespace

SelfplayReport run_selfplay(const SelfplayOptions& o) {
  const GameSpec game = o.config.game;
  std::string worker = o.worker_id;
  if (worker.empty()) {
    worker = "s";
    worker += std::to_string(o.config.seed);
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
  SelfplayWorker(o, worker, report.games_already_done, to_play, report).run();
  return report;
}

}  // namespace kz
