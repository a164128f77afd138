// kumalak-selfplay: one self-play worker. Start as many as you like, on any machines,
// all pointing --out at one shared folder; each writes uniquely named shards and
// resumes where it stopped when restarted with the same arguments.
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "nn/allocator.h"
#include "tools/config_flags.h"
#include "train/selfplay.h"

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
  CLI::App app{"KumalakZero self-play worker: plays games and writes training shards"};
  std::string config_path, model, out, worker;
  int games = 0, generation = 0, threads = 0, visits = 0, search_threads = 0;
  int64_t seed = -1;
  app.add_option("--config", config_path, "run config (configs/*.toml)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--model", model, "model file (default: a fresh generation-0 network)");
  app.add_option("--out", out, "folder for the shards (shared by all workers)")->required();
  app.add_option("--games", games, "games this worker plays for this generation")
      ->required()
      ->check(CLI::Range(1, 100000000));
  app.add_option("--generation", generation, "generation recorded in the shards")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--seed", seed, "random seed (default: the config's); different per worker");
  app.add_option("--worker", worker,
                 "worker id used for resuming (default: from seed and generation)");
  app.add_option("--threads", threads, "LibTorch threads (default: the config's train.threads)");
  app.add_option("--visits", visits, "override selfplay.full_visits");
  app.add_option("--search-threads", search_threads,
                 "search threads, each playing its share of the games (default: the config's "
                 "search.threads, else half the cores)")
      ->check(CLI::Range(1, 256));
  kz::add_help_config_flag(app);  // the run config's keys (train/config_schema.cpp)
  CLI11_PARSE(app, argc, argv);
  try {
    kz::SelfplayOptions o;
    o.config = kz::load_config(config_path);
    if (seed >= 0) o.config.seed = uint64_t(seed);
    if (visits > 0) o.config.selfplay.full_visits = visits;
    if (search_threads > 0) o.config.search_threads = search_threads;
    torch::set_num_threads(threads > 0 ? threads : o.config.train.threads);
    o.model_path = model;
    o.out_dir = out;
    o.games = games;
    o.generation = generation;
    o.worker_id = worker;
    const auto r = kz::run_selfplay(o);
    std::cout << "selfplay: " << r.games_played << " games (" << r.games_already_done
              << " found done), " << r.rows << " rows (" << r.full_rows << " full), " << r.plies
              << " plies in " << r.seconds << " s; "
              << "W/B/D " << r.white_wins << "/" << r.black_wins << "/" << r.draws << ", resigned "
              << r.resigned << ", false resignations " << r.false_resignations << "/"
              << r.no_resign_would_resign << ", " << r.shards.size() << " shards" << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "kumalak-selfplay: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
