// Data-parallel training across processes ("ranks"): who this process is in the job,
// and the collectives the trainer needs, over LibTorch's c10d (Gloo between CPUs; NCCL
// between GPUs where the LibTorch was built with it).
//
// A job of W ranks is started by any launcher that sets the usual variables:
// `torchrun --no_python` (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; with
// TORCHELASTIC_RESTART_COUNT each restarted attempt rendezvouses under its own keys),
// SLURM's `srun` (SLURM_PROCID, SLURM_NTASKS; MASTER_ADDR/MASTER_PORT still come from the
// job script), or the trainer's flags. Rank 0 hosts the rendezvous (a c10d TCPStore on
// MASTER_PORT).
//
// Failure: every collective waits at most `timeout_s`; a rank that dies closes its
// sockets, and the others fail at their next collective at once (Gloo) or at the
// timeout (a rank that hangs). Either way DistributedError says which rank, which
// operation and why, so a job never hangs on a dead peer. docs/training.md, "Several
// processes".
#pragma once

#include <torch/torch.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kz {

struct DistributedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DistributedOptions {
  int rank = 0;
  int world_size = 1;  // 1 = a single process: no rendezvous, collectives are no-ops
  // This rank's number among the ranks on its machine (LOCAL_RANK, SLURM_LOCALID; -1 =
  // unknown): picks its GPU when the config says plain "cuda".
  int local_rank = -1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  // Longest wait of any collective (and of the rendezvous for the other ranks to start).
  // Rank 0 validates and writes checkpoints while the others wait in the next step's
  // all-reduce, so this must cover a validation pass and a checkpoint.
  int timeout_s = 300;
};

// The launch variables: RANK/WORLD_SIZE, else SLURM_PROCID/SLURM_NTASKS; LOCAL_RANK,
// else SLURM_LOCALID; MASTER_ADDR, MASTER_PORT. Unset variables keep `base`'s values; a malformed
// one throws DistributedError naming it.
DistributedOptions distributed_from_environment(DistributedOptions base = {});

// "" when the options can start a job, else what is wrong with them.
std::string distributed_problem(const DistributedOptions& o);

// Whether this build can run several ranks: Gloo (CPU) and NCCL (CUDA, only with a CUDA
// LibTorch built with it). Decided when the project is configured (CMakeLists.txt).
bool gloo_available();
bool nccl_available();

// One process's membership in a job. World size 1 needs no network at all.
class Communicator {
 public:
  // Joins the job (blocks until every rank has joined, at most timeout_s). Tensors given
  // to the collectives live on `device`: NCCL for CUDA where built with it, else Gloo
  // (CUDA tensors then go through host memory).
  Communicator(const DistributedOptions& options, const torch::Device& device);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return options_.rank; }
  int world_size() const { return options_.world_size; }
  std::string backend() const;  // "none", "gloo" or "nccl"

  // Sums a contiguous float tensor over all ranks, in place. `what` names the operation
  // in errors ("the gradients of step 12").
  void all_reduce_sum(torch::Tensor& t, const std::string& what);

  // Every rank's `values` (the same length everywhere), indexed by rank.
  std::vector<std::vector<int64_t>> all_gather(const std::vector<int64_t>& values,
                                               const std::string& what);

 private:
  struct Impl;
  DistributedOptions options_;
  torch::Device device_;
  std::unique_ptr<Impl> impl_;
  [[noreturn]] void fail(const std::string& what, const std::exception& e) const;
};

}  // namespace kz
