#include "train/selfplay.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/notation.h"
#include "core/run_lock.h"
#include "mcts/driver.h"
#include "mcts/game_runner.h"
#include "nn/nn_evaluator.h"
#include "train/progress.h"
#include "train/shard.h"

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

float policy_surprise(const std::array<float, kMaxMoves>& target,
                      const std::array<float, kMaxMoves>& prior) {
  double kl = 0;
  for (int m = 0; m < kMaxMoves; ++m)
    if (target[m] > 0)
      kl += double(target[m]) * std::log(double(target[m]) / std::max(double(prior[m]), 1e-6));
  return float(std::max(kl, 0.0));
}

std::vector<int> surprise_copies(std::span<const float> surprise, float s, std::mt19937_64& rng) {
  std::vector<int> copies(surprise.size(), 1);
  if (s <= 0) return copies;
  double sum = 0;
  int full = 0;
  for (float x : surprise)
    if (x >= 0) {
      sum += x;
      ++full;
    }
  if (full == 0 || sum <= 0) return copies;
  const double mean = sum / full;
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < surprise.size(); ++i) {
    if (surprise[i] < 0) continue;
    const double weight = (1 - s) + s * surprise[i] / mean;
    const double whole = std::floor(weight);
    copies[i] = int(whole) + (u(rng) < weight - whole ? 1 : 0);
  }
  return copies;
}

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

// Self-play's side of the game runner (mcts/game_runner.h): what a self-play game is
// for. The runner plays the moves; this controller starts each game (its seed, an
// opening, whether it may resign), prepares each move (a full search with root noise or
// a fast one, and its visit target), turns each finished search into a training row and
// a move (temperature, resignation), and hands finished games to the shard writer.
class SelfplayController : public GameController {
 public:
  SelfplayController(const SelfplayOptions& o, std::string worker, int games_already_done,
                     int to_play, SelfplayReport& report)
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
        writer_(cfg_.game, o.generation,
                !o.model_label.empty() ? o.model_label
                : o.model_path.empty() ? "random-init"
                                       : o.model_path,
                worker_),
        next_game_number_(games_already_done),
        progress_("selfplay " + worker_, to_play) {
    if (!sc_.openings_file.empty())
      openings_ =
          load_openings(sc_.openings_file, cfg_.game,
                        sc_.openings_plies >= 0 ? sc_.openings_plies : sc_.random_opening_plies);
    full_params_ = cfg_.search;
    full_params_.dirichlet_alpha = sc_.dirichlet_alpha;
    full_params_.dirichlet_fraction = sc_.dirichlet_fraction;
    fast_params_ = cfg_.search;
    fast_params_.dirichlet_alpha = 0;
  }

  void run() {
    const int slots = std::min(sc_.games_in_parallel, to_play_);
    games_.resize(size_t(slots));
    GameSide side;
    side.name = "selfplay";
    side.driver = &driver_;
    side.params = full_params_;
    GameRunnerOptions ro;
    ro.schedule = GameRunnerOptions::Schedule::kPipelined;
    ro.slots = slots;
    ro.max_plies = sc_.max_plies;
    // Every thread needs games of its own.
    ro.threads = std::min(search_threads_or_default(cfg_.search_threads), slots);
    t0_ = Clock::now();
    GameRunner(std::span<const GameSide>(&side, 1), *this, ro).run();
    if (writer_.games() > 0) write_shard();
    progress_.finish();
    report_.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    report_.evaluations = int64_t(driver_.stats().evaluated);
  }

  void start_games(std::span<RunnerGame* const> free) override {
    for (RunnerGame* slot : free) {
      if (started_ >= to_play_ || (o_.keep_starting && !o_.keep_starting())) return;
      SelfplayGame& g = games_[size_t(slot->slot)];
      g = SelfplayGame{};
      // Game numbers continue after the resumed ones so that every game gets its own seed.
      g.rng.seed(derive_seed(cfg_.seed, uint64_t(o_.generation) * 1000003 + next_game_number_));
      slot->search_seed[0] = g.rng();
      std::uniform_real_distribution<float> u(0, 1);
      g.may_resign = u(g.rng) >= sc_.no_resign_fraction;
      // With openings_fraction 1 (the default) no number is drawn: seeded games stay the
      // same as before the fraction existed.
      const bool from_file =
          !openings_.empty() && (sc_.openings_fraction >= 1 || u(g.rng) < sc_.openings_fraction);
      slot->pos = from_file
                      ? openings_[g.rng() % openings_.size()]
                      : random_opening(Position::start(cfg_.game), sc_.random_opening_plies, g.rng);
      slot->index = next_game_number_;
      slot->side_of[0] = slot->side_of[1] = 0;
      slot->active = true;
      ++next_game_number_;
      ++started_;
    }
  }

  void prepare_move(RunnerGame& slot, Search& search, int64_t& target) override {
    SelfplayGame& g = games_[size_t(slot.slot)];
    std::uniform_real_distribution<float> u(0, 1);
    g.full = u(g.rng) < sc_.full_search_fraction;
    search.set_params(g.full ? full_params_ : fast_params_);
    target = g.full ? sc_.full_visits : sc_.fast_visits;
  }

  // Records the position, chooses the move (temperature) and keeps the resignation
  // bookkeeping on the mover's root value.
  int on_search_done(RunnerGame& slot, Search& s) override {
    SelfplayGame& g = games_[size_t(slot.slot)];
    const ThinkResult r = s.result();
    const int mover = slot.pos.to_move;
    ShardRow row;
    row.pos = slot.pos;
    // Fast searches still train the value heads; their policy is not a target.
    // With forced playouts the target is the pruned visits; `visits` stays the search's.
    float surprise = -1;  // fast searches: no policy target, no surprise
    if (g.full) {
      row.set_policy_from_visits(s.pruned_root_visit_counts());
      if (sc_.surprise_weight > 0) surprise = policy_surprise(row.policy, s.root_priors());
      uint32_t visits = 0;
      for (uint32_t n : s.root_visit_counts()) visits += n;
      row.visits = visits;
    }
    row.root_win = r.win;
    row.root_draw = r.draw;
    row.root_loss = r.loss;
    row.root_margin = r.margin;
    row.ply = uint16_t(std::min(slot.plies, 65535));
    row.flags = (g.full ? ShardRow::kRowFullSearch : 0) | (r.proven ? ShardRow::kRowProven : 0);
    g.rows.push_back(row);
    g.surprise.push_back(surprise);
    const float temperature =
        slot.plies < sc_.temperature_plies ? sc_.opening_temperature : sc_.final_temperature;
    const int move = s.pick_move(temperature, g.rng);
    g.rows.back().played_move = int8_t(move);
    if (r.win + r.draw < sc_.resign_threshold) {
      if (++g.low_streak[mover] >= sc_.resign_consecutive) {
        if (g.may_resign)
          slot.resigned = mover;
        else if (g.would_resign < 0)
          g.would_resign = mover;
      }
    } else {
      g.low_streak[mover] = 0;
    }
    return move;
  }

  void on_game_end(RunnerGame& slot, const GameEnd& end) override {
    SelfplayGame& g = games_[size_t(slot.slot)];
    const Outcome outcome = end.outcome;
    if (slot.resigned >= 0) ++report_.resigned;
    if (g.would_resign >= 0) {
      ++report_.no_resign_would_resign;
      const bool lost = (g.would_resign == 0 && outcome == Outcome::kBlackWins) ||
                        (g.would_resign == 1 && outcome == Outcome::kWhiteWins);
      if (!lost) ++report_.false_resignations;
    }
    report_.white_wins += outcome == Outcome::kWhiteWins;
    report_.black_wins += outcome == Outcome::kBlackWins;
    report_.draws += outcome == Outcome::kDraw;
    report_.plies += slot.plies;
    if (sc_.surprise_weight > 0) {
      // Surprising positions written more often, unsurprising ones less (their copies
      // stay together: a game's rows are contiguous).
      const std::vector<int> copies = surprise_copies(g.surprise, sc_.surprise_weight, g.rng);
      std::vector<ShardRow> weighted;
      weighted.reserve(g.rows.size() * 2);
      for (size_t i = 0; i < g.rows.size(); ++i)
        for (int k = 0; k < copies[i]; ++k) weighted.push_back(g.rows[i]);
      g.rows = std::move(weighted);
    }
    report_.rows += int64_t(g.rows.size());
    for (const auto& r : g.rows) report_.full_rows += r.full_search();
    writer_.add_game(std::move(g.rows), outcome, slot.pos.margin(), slot.plies);
    ++finished_;
    ++report_.games_played;
    if (int(writer_.games()) >= sc_.games_per_shard) write_shard();
    progress_.add(1);
    const double secs = std::chrono::duration<double>(Clock::now() - t0_).count();
    progress_.set_field("games/h", finished_ / secs * 3600, 5);
    progress_.set_field("moves/s", report_.plies / secs, 4);
    // With search threads the driver's figures arrive when the run ends.
    if (driver_.stats().evaluated > 0)
      progress_.set_field("evals/s", driver_.stats().evaluated / secs, 5);
    progress_.set_field("avg_len", double(report_.plies) / finished_, 4);
  }

 private:
  void write_shard() {
    const int games = int(writer_.games());
    const int64_t rows = int64_t(writer_.rows());
    report_.shards.push_back(writer_.write_to_dir(o_.out_dir, "selfplay"));
    if (o_.on_shard_written) o_.on_shard_written(report_.shards.back(), games, rows);
  }

  // What self-play keeps per game beyond the runner's RunnerGame.
  struct SelfplayGame {
    std::mt19937_64 rng;  // the game's own: search seed, opening, full/fast, temperature
    std::vector<ShardRow> rows;
    std::vector<float> surprise;  // by row: policy surprise, -1 for fast searches
    bool full = false;            // the current move gets a full search
    bool may_resign = true;
    int low_streak[2] = {0, 0};  // consecutive moves each side's root value was hopeless
    int would_resign = -1;       // no-resign games: the side that would have resigned
  };

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
  std::vector<SelfplayGame> games_;  // by runner slot
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
  SelfplayController(o, worker, report.games_already_done, to_play, report).run();
  return report;
}

SelfplayReport play_selfplay_games(const SelfplayOptions& o, const std::string& worker,
                                   int first_game_number, int games) {
  SelfplayReport report;
  std::filesystem::create_directories(o.out_dir);
  if (games > 0) SelfplayController(o, worker, first_game_number, games, report).run();
  return report;
}

}  // namespace kz
