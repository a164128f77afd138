#include "train/follow.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/run_lock.h"
#include "nn/model_file.h"
#include "train/config_schema.h"
#include "train/gate.h"
#include "train/match.h"
#include "train/selfplay.h"
#include "train/shard.h"
#include "train/trainer.h"

namespace kz {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string generation_name(int g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gen%04d", g);
  return buf;
}

// "gen0012.pt" / "gen0012.json" -> 12; -1 for any other name.
int generation_of(const fs::path& file, const std::string& extension) {
  if (file.extension() != extension) return -1;
  const std::string stem = file.stem().string();
  if (stem.size() < 7 || stem.rfind("gen", 0) != 0) return -1;
  int g = 0;
  for (size_t i = 3; i < stem.size(); ++i) {
    if (stem[i] < '0' || stem[i] > '9' || g > 100000000) return -1;
    g = g * 10 + (stem[i] - '0');
  }
  return g;
}

// The highest generation number among `dir`'s genNNNN<extension> files (-1: none).
int newest_generation(const fs::path& dir, const std::string& extension) {
  int newest = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    newest = std::max(newest, generation_of(e.path(), extension));
  return newest;
}

// Creates `path` with the bytes `write` produces unless it exists, atomically: the file is
// written under a temporary name and hard-linked to `path`, which fails when another
// process created it first (link never replaces). So a file created once never changes:
// two processes starting a run at once cannot overwrite a best.pt already promoted.
void create_file_once(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (fs::exists(path)) return;
  const std::string temp = temp_name_for(path);
  write_file_atomically(temp, write);
  const int rc = ::link(temp.c_str(), path.c_str());
  const int err = errno;
  std::error_code ec;
  fs::remove(temp, ec);
  if (rc != 0 && err != EEXIST)
    throw std::runtime_error("cannot create '" + path + "': " + std::strerror(err));
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string safe_name(std::string s) {
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  return s;
}

// Bounds and the stop flag, shared by the three loops.
class Pacer {
 public:
  Pacer(const FollowBounds& bounds, const std::atomic<bool>* stop, double poll_seconds)
      : bounds_(bounds), stop_(stop), poll_(poll_seconds), t0_(Clock::now()) {}
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
  bool done(int items) const {
    return (stop_ && stop_->load()) ||
           (bounds_.max_seconds > 0 && elapsed() >= bounds_.max_seconds) ||
           (bounds_.max_items > 0 && items >= bounds_.max_items);
  }
  // Waits one poll interval (shorter when stopped or out of time); false when done.
  bool wait(int items) const {
    const auto until = Clock::now() + std::chrono::duration<double>(poll_);
    while (Clock::now() < until) {
      if (done(items)) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return !done(items);
  }

 private:
  FollowBounds bounds_;
  const std::atomic<bool>* stop_;
  double poll_;
  Clock::time_point t0_;
};

// Rows in every shard under a folder, reading each new shard's header once (shards never
// change, so a path seen once keeps its count; a run folder with thousands of shards on a
// network file system costs one directory walk per poll).
class ShardRowCounter {
 public:
  explicit ShardRowCounter(GameSpec game) : game_(game) {}
  int64_t total(const fs::path& dir) {
    int64_t rows = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (!it->is_regular_file(ec) || it->path().extension() != kShardExtension) continue;
      const std::string path = it->path().string();
      auto known = rows_.find(path);
      if (known == rows_.end()) {
        int64_t n = 0;
        try {
          n = int64_t(ShardReader::read_info(path, game_).row_count);
        } catch (const std::exception& e) {
          spdlog::warn("follow: ignoring unreadable shard {}", e.what());
        }
        known = rows_.emplace(path, n).first;
      }
      rows += known->second;
    }
    return rows;
  }

 private:
  GameSpec game_;
  std::map<std::string, int64_t> rows_;
};

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
}

// The start of the FNV-1a that turns a worker id into its seed: not FNV's offset basis
// (kFnv1a64Start, 14695981039346656037) but that number short of its last digit, as
// worker seeds have always been made. Kept so that a worker id of a seeded run plays the
// same games as it did in every earlier version.
constexpr uint64_t kWorkerSeedFnvStart = 1469598103934665603ull;

void say(const std::string& line) {
  std::cout << line << std::endl;
}

}  // namespace

RunConfig open_follow_run(const std::string& run_dir, const std::string& config_path) {
  const fs::path run(run_dir);
  for (const char* sub : {"models", "data", "gates", "logs"}) fs::create_directories(run / sub);
  const std::string config_file = (run / "config.toml").string();
  if (!fs::exists(config_file)) {
    if (config_path.empty())
      throw std::invalid_argument(run_dir + " has no config.toml: start a new run with --config");
    const RunConfig given = load_config(config_path);
    create_file_once(config_file, [&](std::ostream& out) {
      out << "# " << given.source << " with its bases resolved (continuous mode)\n"
          << config_as_toml(given);
    });
  }
  RunConfig cfg = load_config(config_file);
  if (!config_path.empty() && !(load_config(config_path).game == cfg.game))
    throw std::invalid_argument("--config " + config_path + " is for another game than the run " +
                                config_file);
  const std::string gen0 = (run / "models" / "gen0000.pt").string();
  if (!fs::exists(gen0)) {
    // save_model writes atomically to its own path; the once-only link is made from it.
    const std::string temp = temp_name_for(gen0) + ".pt";
    save_model(temp, make_random_model(cfg.game, cfg.network, cfg.seed));
    const std::string bytes = read_bytes(temp);
    std::error_code ec;
    fs::remove(temp, ec);
    create_file_once(gen0, [&](std::ostream& out) { out << bytes; });
  }
  const std::string best = (run / "models" / "best.pt").string();
  if (!fs::exists(best)) {
    const std::string bytes = read_bytes(gen0);
    create_file_once(best, [&](std::ostream& out) { out << bytes; });
  }
  return cfg;
}

const std::atomic<bool>& install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESETHAND;  // the second signal takes the default action
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_stop;
}

FollowSelfplayReport follow_selfplay(const FollowSelfplayOptions& o) {
  if (o.worker_id.empty()) throw std::invalid_argument("follow mode needs a --worker id");
  const fs::path run(o.run_dir), data = run / "data", best = run / "models" / "best.pt";
  const std::string id = safe_name(o.worker_id);
  const RunLock lock((data / (".worker-" + id + ".lock")).string(),
                     "self-play worker '" + o.worker_id + "' of run '" + o.run_dir + "'");
  say("selfplay-follow: worker " + o.worker_id + " started, holding " + lock.path());
  const GameSpec game = o.config.game;
  // Resume: the games this worker id already wrote anywhere in the run number the next.
  int next_game = 0;
  std::error_code ec;
  remove_stale_temp_files(data.string());
  for (auto it = fs::recursive_directory_iterator(data, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory(ec)) {
      remove_stale_temp_files(it->path().string());
      continue;
    }
    if (it->path().extension() != kShardExtension) continue;
    try {
      const ShardInfo info = ShardReader::read_info(it->path().string(), game);
      if (info.writer == o.worker_id) next_game += int(info.game_count);
    } catch (const std::exception& e) {
      spdlog::warn("selfplay-follow: ignoring unreadable shard {}", e.what());
    }
  }
  if (next_game > 0)
    say("selfplay-follow: worker " + o.worker_id + " resumes after " + std::to_string(next_game) +
        " games it wrote");

  const std::string snapshot = (data / (".worker-" + id + ".model.pt")).string();
  struct stat seen {};
  bool have_model = false;
  auto best_changed = [&] {
    struct stat now {};
    if (::stat(best.c_str(), &now) != 0)
      throw std::runtime_error(best.string() + ": no best model (open_follow_run makes one)");
    const bool changed = !have_model || now.st_ino != seen.st_ino || now.st_size != seen.st_size ||
                         now.st_mtim.tv_sec != seen.st_mtim.tv_sec ||
                         now.st_mtim.tv_nsec != seen.st_mtim.tv_nsec;
    if (changed) seen = now;
    return changed;
  };
  int generation = 0;
  std::string label;
  FollowSelfplayReport report;
  const Pacer pacer(o.bounds, o.stop, o.config.follow.poll_seconds);
  while (!pacer.done(report.games)) {
    if (best_changed()) {
      // One open of best.pt copies one whole file: promotion replaces it by rename only.
      const std::string temp = temp_name_for(snapshot);
      fs::copy_file(best, temp, fs::copy_options::overwrite_existing);
      fs::rename(temp, snapshot);
      Model m = load_model(snapshot, &game);
      generation = int(m.meta.generation);
      label = "best.pt gen=" + std::to_string(generation) +
              " weights=" + std::to_string(weights_checksum(m.net));
      if (have_model) ++report.model_switches;
      have_model = true;
      say("selfplay-follow: worker " + o.worker_id + " plays with " + label);
    }
    SelfplayOptions so;
    so.config = o.config;
    // The worker id picks the games: workers of one config never play the same ones.
    so.config.seed = o.config.seed ^ fnv1a64(o.worker_id, kWorkerSeedFnvStart);
    so.model_path = snapshot;
    so.model_label = label;
    so.out_dir = (data / generation_name(generation)).string();
    so.generation = generation;
    so.worker_id = o.worker_id;
    so.show_progress = false;
    // A round plays with one model until best.pt changes (looked at every poll_seconds),
    // a stop or the time bound: then no game starts, and the games in flight finish.
    auto last_look = Clock::now();
    bool round_over = false;
    so.keep_starting = [&] {
      if (round_over || pacer.done(0)) return !(round_over = true);
      if (Clock::now() - last_look >= std::chrono::duration<double>(o.config.follow.poll_seconds)) {
        last_look = Clock::now();
        round_over = best_changed();
        if (round_over) seen = {};  // the round's end reloads it
      }
      return !round_over;
    };
    so.on_shard_written = [&](const std::string& path, int games, int64_t rows) {
      ++report.shards;
      report.rows += rows;
      say("selfplay-follow: wrote " + path + " games=" + std::to_string(games) +
          " rows=" + std::to_string(rows) + " model=" + label);
    };
    const int games = o.bounds.max_items > 0 ? o.bounds.max_items - report.games : 100000000;
    const SelfplayReport r = play_selfplay_games(so, o.worker_id, next_game, games);
    next_game += r.games_played;
    report.games += r.games_played;
  }
  return report;
}

namespace {

// Rank 0's `values` on every rank (every rank calls it with as many values): what the
// leader decided. One rank: `values` themselves, no network.
std::vector<int64_t> from_leader(Communicator& comm, const std::vector<int64_t>& values,
                                 const std::string& what) {
  if (comm.world_size() == 1) return values;
  return comm.all_gather(values, what).at(0);
}

// Rank 0's `lines` on every rank (the others' are ignored; lines hold no '\n').
std::vector<std::string> lines_from_leader(Communicator& comm,
                                           const std::vector<std::string>& lines,
                                           const std::string& what) {
  if (comm.world_size() == 1) return lines;
  std::string joined;
  for (const std::string& line : lines) joined += line + '\n';
  const int64_t bytes = from_leader(comm, {int64_t(joined.size())}, what)[0];
  std::vector<int64_t> packed(size_t(std::max<int64_t>(1, (bytes + 7) / 8)), 0);
  if (comm.rank() == 0) std::memcpy(packed.data(), joined.data(), joined.size());
  packed = from_leader(comm, packed, what);
  const std::string got(reinterpret_cast<const char*>(packed.data()), size_t(bytes));
  std::vector<std::string> out;
  for (size_t start = 0; start < got.size();) {
    const size_t end = got.find('\n', start);
    out.push_back(got.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Every shard file under `data_dir`, spelled as ReplayBuffer::load's scan spells them.
std::vector<std::string> shard_files(const std::string& data_dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(data_dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    std::error_code fec;
    if (it->is_regular_file(fec) && it->path().extension() == kShardExtension)
      paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// What rank 0 decides for every rank at each poll of the continuous trainer.
enum class RoundDecision : int64_t { kStop = 0, kWait = 1, kTrain = 2 };

}  // namespace

FollowTrainReport follow_train(const FollowTrainOptions& o) {
  const fs::path run(o.run_dir), models = run / "models";
  const RunConfig& cfg = o.config;
  // Joining the job first (a no-op for one rank): a rank that fails below then ends the
  // others' waits at once.
  TrainOptions for_device;
  for_device.config = cfg;
  for_device.distributed = o.distributed;
  Communicator comm(o.distributed, training_device_of(for_device));
  // Rank 0 alone reads the run's state, decides and writes; the others follow its
  // decisions and never write into the run folder.
  const bool leader = comm.rank() == 0;
  std::unique_ptr<RunLock> lock;
  if (leader) {
    lock = std::make_unique<RunLock>((models / ".follow-trainer.lock").string(),
                                     "continuous trainer of run '" + o.run_dir + "'");
    say("train-follow: started, holding " + lock->path() +
        (comm.world_size() > 1 ? " (rank 0 of " + std::to_string(comm.world_size()) + ")" : ""));
    // A trainer killed between writing and renaming leaves a temporary (a candidate, a
    // checkpoint, the state file); those of dead processes of this host go, as a worker's.
    remove_stale_temp_files(models.string());
  } else {
    say("train-follow: rank " + std::to_string(comm.rank()) + " of " +
        std::to_string(comm.world_size()) + " started, following rank 0");
  }
  const std::string state_file = (models / "follow-trainer.json").string();
  // Rows needed since the last candidate before the next may train.
  const int64_t samples = int64_t(cfg.follow.candidate_every_steps) * cfg.train.batch_size;
  const int64_t needed = std::max<int64_t>(
      1, int64_t(std::ceil(double(samples) / cfg.follow.max_samples_per_new_position)));
  ShardRowCounter counter(cfg.game);
  FollowTrainReport report;
  const Pacer pacer(o.bounds, o.stop, cfg.follow.poll_seconds);
  int announced_wait = -1;  // the candidate whose wait was said
  // Rank 0's round: stop, wait one poll, or train candidate `latest + 1`.
  auto decide = [&]() -> std::vector<int64_t> {
    if (pacer.done(report.candidates)) return {int64_t(RoundDecision::kStop), -1};
    const int latest = newest_generation(models, ".pt");
    if (latest < 0) throw std::runtime_error(models.string() + ": no gen0000.pt (open_follow_run)");
    const int next = latest + 1;
    // The grant: which candidate may train, and the rows there were when it was granted.
    int granted = -1;
    int64_t rows_at_grant = 0;
    if (fs::exists(state_file)) {
      try {
        const auto j = nlohmann::json::parse(read_bytes(state_file));
        granted = j.at("granted_generation").get<int>();
        rows_at_grant = j.at("rows_at_grant").get<int64_t>();
      } catch (const std::exception& e) {
        throw std::runtime_error(state_file + ": unreadable trainer state (" + e.what() + ")");
      }
    }
    if (granted != next) {
      const int64_t rows = counter.total(run / "data");
      if (rows - rows_at_grant < needed) {
        if (announced_wait != next)
          say("train-follow: " + generation_name(next) + " waits for new positions: " +
              std::to_string(rows - rows_at_grant) + " of " + std::to_string(needed));
        announced_wait = next;
        return {int64_t(RoundDecision::kWait), latest};
      }
      write_file_atomically(state_file, [&](std::ostream& out) {
        out << nlohmann::json{{"granted_generation", next}, {"rows_at_grant", rows}}.dump() << "\n";
      });
    }
    return {int64_t(RoundDecision::kTrain), latest};
  };
  for (;;) {
    const std::vector<int64_t> round =
        from_leader(comm, leader ? decide() : std::vector<int64_t>{0, 0}, "the trainer's round");
    const auto what = RoundDecision(round[0]);
    if (what == RoundDecision::kStop) break;
    if (what == RoundDecision::kWait) {
      // The others go straight to the next round's collective and wait there for rank 0
      // (follow.poll_seconds, well within the collectives' timeout).
      if (leader) pacer.wait(report.candidates);  // a stop then is the next round's
      continue;
    }
    const int latest = int(round[1]);
    const int next = latest + 1;
    TrainOptions t;
    t.config = cfg;
    t.data_dir = (run / "data").string();
    t.init_model = (models / (generation_name(latest) + ".pt")).string();
    t.out_model = (models / (generation_name(next) + ".pt")).string();
    t.steps = cfg.follow.candidate_every_steps;
    t.generation = next;
    t.resume = true;  // a killed candidate continues from its checkpoint
    t.metrics_path = (run / "logs" / "train.jsonl").string();
    t.show_progress = false;
    t.distributed = o.distributed;
    t.communicator = &comm;
    t.batch_slices = o.batch_slices;
    // Several ranks train on the shards rank 0 saw: a shard written meanwhile would
    // make their windows differ (and run_training refuses ranks that disagree).
    if (comm.world_size() > 1)
      t.window_shards =
          lines_from_leader(comm, leader ? shard_files(t.data_dir) : std::vector<std::string>{},
                            "the window of " + generation_name(next));
    const TrainReport r = run_training(t);
    ++report.candidates;
    if (leader)
      say("train-follow: wrote " + t.out_model + " steps=" + std::to_string(r.steps_done) +
          " resumed_from=" + std::to_string(r.resumed_from_step) +
          " window_rows=" + std::to_string(r.window_rows) + " loss=" + std::to_string(r.last_loss));
  }
  return report;
}

FollowGateReport follow_gate(const FollowGateOptions& o) {
  const fs::path run(o.run_dir), models = run / "models", gates = run / "gates";
  const std::string best = (models / "best.pt").string();
  // The lock `kumalak-gate match --promote models/best.pt` takes too (tools/loop.sh).
  const RunLock lock((models / ".gatekeeper.lock").string(),
                     "gatekeeper of run '" + o.run_dir + "'");
  say("gate-follow: started, holding " + lock.path());
  remove_stale_temp_files(models.string());  // a killed promotion's copy of best.pt
  remove_stale_temp_files(gates.string());
  const RunConfig& cfg = o.config;
  FollowGateReport report;
  // A kill between a passing record and its promotion: the newest passing record names
  // the model best.pt should be.
  int last_gated = -1;
  {
    std::vector<fs::path> records;
    for (const auto& e : fs::directory_iterator(gates))
      if (generation_of(e.path(), ".json") >= 0) records.push_back(e.path());
    std::sort(records.begin(), records.end());
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
      if (!read_gate_record(it->string()).pass) continue;
      const std::string cand = (models / (it->stem().string() + ".pt")).string();
      if (fs::exists(cand) && read_bytes(cand) != read_bytes(best)) {
        promote_model(cand, best);
        say("gate-follow: finished the promotion of " + it->stem().string() +
            " that a stop interrupted");
      }
      break;
    }
    if (!records.empty()) last_gated = generation_of(records.back(), ".json");
  }
  const Pacer pacer(o.bounds, o.stop, cfg.follow.poll_seconds);
  while (!pacer.done(report.gated)) {
    const int newest = newest_generation(models, ".pt");
    if (newest <= last_gated || newest < 1) {
      if (!pacer.wait(report.gated)) break;
      continue;
    }
    const std::string name = generation_name(newest);
    const std::string cand = (models / (name + ".pt")).string();
    if (last_gated >= 0 && newest > last_gated + 1)
      say("gate-follow: skipping " + std::to_string(newest - last_gated - 1) +
          " older candidate(s) to gate the newest, " + name);
    MatchOptions m;
    m.config = cfg;
    m.a = cand;
    m.b = best;
    m.use_sprt = true;
    m.show_progress = false;
    const MatchResult r = play_match(m);
    const GateDecision d = decide_gate(r, cfg.gate, true);
    // The record first: once it exists the candidate counts as gated, and a restart
    // redoes the promotion it decided (above).
    write_gate_record((gates / (name + ".json")).string(), make_gate_record(cand, best, r, d));
    if (d.pass) {
      promote_model(cand, best);
      ++report.promoted;
    }
    ++report.gated;
    last_gated = newest;
    say("gate-follow: " + name + " vs best: " + describe_match(r) + " -> " +
        (d.pass ? "PASS, promoted" : "FAIL"));
  }
  return report;
}

int follow_selfplay_main(const std::string& run_dir, const std::string& config_path,
                         const FollowBounds& bounds, const FollowSelfplayFlags& flags) {
  // The stop signals first: a SIGTERM while the run opens (a scheduler's cancel, a
  // restart) then stops the worker cleanly at its first check instead of killing it.
  const std::atomic<bool>* stop = flags.summary ? nullptr : &install_stop_signals();
  const RunConfig run_config = open_follow_run(run_dir, config_path);
  if (flags.summary) {
    const ShardSummary s = summarize_shards(run_dir + "/data", run_config.game);
    std::cout << "shards=" << s.shards << " games=" << s.games << " rows=" << s.rows
              << " unreadable=" << s.unreadable << std::endl;
    return s.unreadable == 0 ? 0 : 1;
  }
  FollowSelfplayOptions o;
  o.run_dir = run_dir;
  o.config = run_config;
  if (flags.seed >= 0) o.config.seed = uint64_t(flags.seed);
  if (flags.visits > 0) o.config.selfplay.full_visits = flags.visits;
  if (flags.search_threads > 0) o.config.search_threads = flags.search_threads;
  torch::set_num_threads(flags.threads > 0 ? flags.threads : o.config.train.threads);
  o.worker_id = flags.worker_id;
  o.bounds = bounds;
  o.stop = stop;
  const FollowSelfplayReport r = follow_selfplay(o);
  say("selfplay-follow: stopped after " + std::to_string(r.games) + " games, " +
      std::to_string(r.shards) + " shards, " + std::to_string(r.rows) + " rows, " +
      std::to_string(r.model_switches) + " model switches");
  return 0;
}

int follow_train_main(const std::string& run_dir, const std::string& config_path,
                      const FollowBounds& bounds, const FollowTrainFlags& flags) {
  FollowTrainOptions o;
  o.stop = &install_stop_signals();  // before opening the run, as the worker's
  o.run_dir = run_dir;
  if (flags.distributed.rank == 0) {
    o.config = open_follow_run(run_dir, config_path);
  } else {
    // The other ranks never write into the run: they wait for rank 0 to open it (best.pt
    // is its last file) and read its config.
    const fs::path run(run_dir);
    const auto until = Clock::now() + std::chrono::seconds(flags.distributed.timeout_s);
    while (!fs::exists(run / "models" / "best.pt") || !fs::exists(run / "config.toml")) {
      if (Clock::now() >= until)
        throw DistributedError("rank " + std::to_string(flags.distributed.rank) +
                               ": rank 0 did not open the run " + run_dir + " within " +
                               std::to_string(flags.distributed.timeout_s) + " s");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    o.config = load_config((run / "config.toml").string());
  }
  torch::set_num_threads(flags.threads > 0 ? flags.threads : o.config.train.threads);
  o.bounds = bounds;
  o.distributed = flags.distributed;
  o.batch_slices = flags.batch_slices;
  const FollowTrainReport r = follow_train(o);
  say("train-follow: " +
      (flags.distributed.rank > 0 ? "rank " + std::to_string(flags.distributed.rank) + " "
                                  : std::string()) +
      "stopped after " + std::to_string(r.candidates) + " candidates");
  return 0;
}

int follow_gate_main(const std::string& run_dir, const std::string& config_path,
                     const FollowBounds& bounds, const FollowGateFlags& flags) {
  FollowGateOptions o;
  o.stop = &install_stop_signals();  // before opening the run, as the worker's
  o.run_dir = run_dir;
  o.config = open_follow_run(run_dir, config_path);
  if (flags.games > 0) o.config.gate.games = flags.games;
  if (flags.visits > 0) o.config.gate.visits = flags.visits;
  if (flags.parallel > 0) o.config.gate.games_in_parallel = flags.parallel;
  if (flags.search_threads > 0) o.config.search_threads = flags.search_threads;
  torch::set_num_threads(flags.threads > 0 ? flags.threads : o.config.train.threads);
  o.bounds = bounds;
  const FollowGateReport r = follow_gate(o);
  say("gate-follow: stopped after " + std::to_string(r.gated) + " matches, " +
      std::to_string(r.promoted) + " promotions");
  return 0;
}

ShardSummary summarize_shards(const std::string& data_dir, const GameSpec& game) {
  ShardSummary s;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(data_dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != kShardExtension) continue;
    ShardInfo info;
    try {
      const auto rows = ShardReader::read(it->path().string(), &info, game);
      ++s.shards;
      s.games += info.game_count;
      s.rows += int64_t(rows.size());
    } catch (const std::exception& e) {
      ++s.unreadable;
      spdlog::warn("{}", e.what());
    }
  }
  if (ec) throw std::runtime_error(data_dir + ": " + ec.message());
  return s;
}

}  // namespace kz
