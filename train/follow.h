// Continuous mode: self-play workers, one trainer and one gatekeeper that run at the
// same time on one run folder (any machines sharing it), each following the others
// through files only. The run folder is tools/loop.sh's, so a run can move between the
// two modes:
//
//   config.toml            the run's config, bases resolved (the first process writes it)
//   models/gen0000.pt      the fresh network; models/genNNNN.pt the trainer's candidates
//   models/best.pt         the current best: the gatekeeper promotes, workers follow it
//   models/follow-trainer.json  the trainer's data budget (rows seen at its last grant)
//   data/genNNNN/          shards played by the model of generation NNNN
//   gates/genNNNN.json     the gating match of candidate NNNN (its existence = gated)
//
// Who writes what: workers write only shards (unique names, temp + rename); the trainer
// only candidates and its state file; the gatekeeper only gate records and best.pt. A
// second trainer or gatekeeper on one run, or two workers with one id, stop at start
// with an error naming the lock and its holder (core/run_lock.h); a lock of a killed
// process is free at once. Every file appears whole or not at all, so kill -9 of any
// process at any time loses at most the work in progress, and a restart with the same
// arguments continues.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "train/config.h"
#include "train/distributed.h"

namespace kz {

// Creates the run's folders and, when missing, config.toml (from `config_path`, bases
// resolved), models/gen0000.pt and models/best.pt, each atomically; several processes
// starting at once write identical files, so whichever renames last changes nothing.
// Returns the run's config (config.toml). Throws when the run has no config.toml and
// `config_path` is empty, or when `config_path` names another game than the run's.
RunConfig open_follow_run(const std::string& run_dir, const std::string& config_path);

// SIGINT and SIGTERM set the returned flag (first signal) and restore the default
// action, so a second signal ends the process at once; every file is atomic either way.
const std::atomic<bool>& install_stop_signals();

struct FollowBounds {
  double max_seconds = 0;  // stop starting new work after this long (0 = no limit)
  int max_items = 0;       // games / candidates / gates, then stop (0 = no limit)
};

// kumalak-selfplay --follow: plays until stopped, in rounds with one model each. A round
// starts by copying models/best.pt to a private snapshot (one open of a file that
// promotion only ever replaces by rename, so never a mix of two models) and plays from
// it, writing a shard every selfplay.games_per_shard games; every follow.poll_seconds it
// looks at best.pt, and when a new one was promoted (or on SIGTERM / a bound) it starts
// no new game, lets the games in flight finish with the model they started with, writes
// them, and the next round loads the new model. So a shard's games all come from one
// model, named in its header ("best.pt gen=N weights=CHECKSUM"). Prints one line per
// shard written ("selfplay-follow: wrote PATH games=G rows=R model=..."). Resumes by
// counting the games this worker id wrote in every shard of the run (game numbers seed
// the games, so a restart plays new games).
struct FollowSelfplayOptions {
  std::string run_dir;
  RunConfig config;       // open_follow_run's, with command-line overrides
  std::string worker_id;  // required: the lock and the shards' writer
  FollowBounds bounds;    // max_items = games
  const std::atomic<bool>* stop = nullptr;
};
struct FollowSelfplayReport {
  int games = 0, shards = 0, model_switches = 0;
  int64_t rows = 0;
};
FollowSelfplayReport follow_selfplay(const FollowSelfplayOptions& options);

// kumalak-train --follow: trains candidate after candidate, each from the previous one
// (models/gen<g>.pt -> gen<g+1>.pt, follow.candidate_every_steps steps on the newest
// window, reloaded per candidate). Before a candidate it waits until enough new
// positions arrived since the previous one: steps x batch_size / follow.
// max_samples_per_new_position rows. A kill resumes from the candidate's checkpoint.
//
// Several ranks (train/distributed.h; `srun --ntasks N`): rank 0 alone holds the lock,
// reads the run (the newest candidate, the grant, the shards of the window), decides each
// poll whether to stop, wait or train which candidate, and hands its decision and its list
// of shards to the others; every rank trains its slice of each batch with averaged
// gradients, and rank 0 alone writes candidates, checkpoints, metrics and the state file.
// The bounds and the stop signal count on rank 0 only. A rank that dies or hangs ends the
// others with DistributedError at their next collective (at once, or after
// distributed.timeout_s), so the job fails and a scheduler's requeue restarts it.
struct FollowTrainOptions {
  std::string run_dir;
  RunConfig config;
  FollowBounds bounds;  // max_items = candidates
  const std::atomic<bool>* stop = nullptr;
  DistributedOptions distributed;  // world_size 1 = one process
  int batch_slices = 1;            // TrainOptions::batch_slices
};
struct FollowTrainReport {
  int candidates = 0;
};
FollowTrainReport follow_train(const FollowTrainOptions& options);

// kumalak-gate --follow: gates the newest candidate newer than every gated one against
// best.pt (the loop's match: SPRT, else gate.promote_min_score), writes
// gates/genNNNN.json, then promotes a passing candidate over best.pt. Older ungated
// candidates are skipped so that the gate keeps up with the trainer. On start it redoes a
// promotion that a kill between the record and the copy left undone.
struct FollowGateOptions {
  std::string run_dir;
  RunConfig config;
  FollowBounds bounds;  // max_items = gates
  const std::atomic<bool>* stop = nullptr;
};
struct FollowGateReport {
  int gated = 0, promoted = 0;
};
FollowGateReport follow_gate(const FollowGateOptions& options);

// The --follow entry points of kumalak-selfplay, kumalak-train and kumalak-gate: open the
// run, apply the command line's overrides (0 = the config's), install the stop signals,
// run, print a summary; return the exit status. Errors are thrown to the caller's handler.
struct FollowSelfplayFlags {
  std::string worker_id;   // --worker: required unless `summary`
  int threads = 0;         // LibTorch threads (0 = [train] threads)
  int64_t seed = -1;       // the run's seed (-1 = the config's); the worker id is mixed in
  int visits = 0;          // selfplay.full_visits
  int search_threads = 0;  // search threads (0 = the config's)
  // Print the totals of every shard of RUN/data (summarize_shards) instead of playing;
  // exit status 1 when one is unreadable.
  bool summary = false;
};
int follow_selfplay_main(const std::string& run_dir, const std::string& config_path,
                         const FollowBounds& bounds, const FollowSelfplayFlags& flags);
struct FollowTrainFlags {
  int threads = 0;                 // LibTorch threads (0 = [train] threads)
  DistributedOptions distributed;  // this rank (--rank, RANK, SLURM_PROCID...)
  int batch_slices = 1;            // --batch-slices
};
// Rank 0 opens the run (open_follow_run); the others wait for its config.toml and best.pt
// (at most distributed.timeout_s) and only read them.
int follow_train_main(const std::string& run_dir, const std::string& config_path,
                      const FollowBounds& bounds, const FollowTrainFlags& flags);
struct FollowGateFlags {
  int threads = 0;         // LibTorch threads (0 = [train] threads)
  int games = 0;           // games per match (0 = gate.games)
  int visits = 0;          // visits per move (0 = gate.visits)
  int parallel = 0;        // games at once (0 = gate.games_in_parallel)
  int search_threads = 0;  // search threads (0 = the config's)
};
int follow_gate_main(const std::string& run_dir, const std::string& config_path,
                     const FollowBounds& bounds, const FollowGateFlags& flags);

// Every shard under `data_dir`, read whole (checksums and rows checked): totals for
// `kumalak-selfplay --follow RUN --summary` and the tests' "no game lost" count.
struct ShardSummary {
  int shards = 0, unreadable = 0;
  int64_t games = 0, rows = 0;
};
ShardSummary summarize_shards(const std::string& data_dir, const GameSpec& game);

}  // namespace kz
