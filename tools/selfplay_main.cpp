// kumalak-selfplay: one self-play worker. Start as many as you like, on any machines,
// all pointing --out at one shared folder; each writes uniquely named shards and
// resumes where it stopped when restarted with the same arguments.
//
// Continuous mode (train/follow.h): `--follow RUN --worker ID` plays until stopped
// (SIGTERM/SIGINT: the games in flight finish and are written), following RUN's best.pt.
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "nn/allocator.h"
#include "tools/cli_options.h"
#include "tools/command_error.h"
#include "train/follow.h"
#include "train/selfplay.h"

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
  CLI::App app{"KumalakZero self-play worker: plays games and writes training shards"};
  std::string config_path, model, out;
  int games = 0, generation = 0;
  // The overrides --follow and a plain run share (0 or -1 = the config's).
  kz::FollowSelfplayFlags flags;
  std::string follow;
  int max_games = 0;
  double max_seconds = 0;
  kz::cli::add_config_option(app, config_path);
  app.add_option("--follow", follow,
                 "continuous mode: play with RUN/models/best.pt until stopped, shards under "
                 "RUN/data (needs --worker)");
  app.add_option("--max-games", max_games, "with --follow: stop after this many games")
      ->check(kz::cli::in_range(1, 100000000));
  app.add_option("--max-seconds", max_seconds,
                 "with --follow: start no game after this many seconds")
      ->check(kz::cli::in_range(0.0, 1e9));
  app.add_flag("--summary", flags.summary,
               "with --follow: read every shard of RUN/data, print shards, games, rows and "
               "unreadable files, and exit");
  app.add_option("--model", model, "model file (default: a fresh generation-0 network)");
  app.add_option("--out", out, "folder for the shards (shared by all workers)");
  app.add_option("--games", games, "games this worker plays for this generation")
      ->check(kz::cli::in_range(1, 100000000));
  app.add_option("--generation", generation, "generation recorded in the shards")
      ->check(kz::cli::in_range(0, 1000000));
  app.add_option("--seed", flags.seed, "random seed (default: the config's); different per worker");
  app.add_option("--worker", flags.worker_id,
                 "worker id used for resuming (default: from seed and generation)");
  kz::cli::add_torch_threads_option(app, flags.threads);
  app.add_option("--visits", flags.visits, "override selfplay.full_visits")
      ->check(kz::cli::in_range(1, 10000000));
  kz::cli::add_search_threads_option(app, flags.search_threads);
  kz::cli::add_help_config_flag(app);  // the run config's keys (train/config_schema.cpp)
  CLI11_PARSE(app, argc, argv);
  try {
    if (!follow.empty()) {
      kz::FollowBounds bounds;
      bounds.max_items = max_games;
      bounds.max_seconds = max_seconds;
      return kz::follow_selfplay_main(follow, config_path, bounds, flags);
    }
    if (config_path.empty() || out.empty() || games == 0)
      throw std::invalid_argument("--config, --out and --games are required (or --follow RUN)");
    kz::SelfplayOptions o;
    o.config = kz::load_config(config_path);
    if (flags.seed >= 0) o.config.seed = uint64_t(flags.seed);
    if (flags.visits > 0) o.config.selfplay.full_visits = flags.visits;
    if (flags.search_threads > 0) o.config.search_threads = flags.search_threads;
    torch::set_num_threads(flags.threads > 0 ? flags.threads : o.config.train.threads);
    o.model_path = model;
    o.out_dir = out;
    o.games = games;
    o.generation = generation;
    o.worker_id = flags.worker_id;
    const auto r = kz::run_selfplay(o);
    std::cout << "selfplay: " << r.games_played << " games (" << r.games_already_done
              << " found done), " << r.rows << " rows (" << r.full_rows << " full), " << r.plies
              << " plies in " << r.seconds << " s; "
              << "W/B/D " << r.white_wins << "/" << r.black_wins << "/" << r.draws << ", resigned "
              << r.resigned << ", false resignations " << r.false_resignations << "/"
              << r.no_resign_would_resign << ", " << r.shards.size() << " shards" << std::endl;
  } catch (const std::exception& e) {
    kz::cli::print_command_error("kumalak-selfplay", e);
    return 1;
  }
  return 0;
}
