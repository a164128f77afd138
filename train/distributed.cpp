#include "train/distributed.h"

#include <cstdlib>

#include "core/numbers.h"

#ifdef USE_C10D_GLOO
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

namespace kz {

namespace {

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// The variable's value, or nullptr when unset or empty.
const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int env_integer(const char* name, int64_t lo, int64_t hi) {
  try {
    return int(parse_integer(env(name), lo, hi, name));
  } catch (const std::exception& e) {
    throw DistributedError(std::string("environment variable ") + e.what());
  }
}

}  // namespace

DistributedOptions distributed_from_environment(DistributedOptions o) {
  // torchrun's names first; SLURM's as the fallback, so that a plain `srun` works.
  if (env("RANK"))
    o.rank = env_integer("RANK", 0, 1 << 20);
  else if (env("SLURM_PROCID"))
    o.rank = env_integer("SLURM_PROCID", 0, 1 << 20);
  if (env("WORLD_SIZE"))
    o.world_size = env_integer("WORLD_SIZE", 1, 1 << 20);
  else if (env("SLURM_NTASKS"))
    o.world_size = env_integer("SLURM_NTASKS", 1, 1 << 20);
  if (env("LOCAL_RANK"))
    o.local_rank = env_integer("LOCAL_RANK", 0, 1 << 20);
  else if (env("SLURM_LOCALID"))
    o.local_rank = env_integer("SLURM_LOCALID", 0, 1 << 20);
  if (env("MASTER_ADDR")) o.master_addr = env("MASTER_ADDR");
  if (env("MASTER_PORT")) o.master_port = env_integer("MASTER_PORT", 1, 65535);
  return o;
}

std::string distributed_problem(const DistributedOptions& o) {
  if (o.world_size < 1) return "world size " + std::to_string(o.world_size) + " is below 1";
  if (o.rank < 0 || o.rank >= o.world_size)
    return "rank " + std::to_string(o.rank) + " is outside 0.." + std::to_string(o.world_size - 1);
  if (o.world_size > 1 && o.master_addr.empty()) return "no master address (MASTER_ADDR)";
  if (o.master_port < 1 || o.master_port > 65535)
    return "master port " + std::to_string(o.master_port) + " is outside 1..65535";
  if (o.timeout_s < 1) return "timeout " + std::to_string(o.timeout_s) + " s is below 1 s";
  if (o.world_size > 1 && !gloo_available() && !nccl_available())
    return "this build has no c10d backend (configure with libgloo-dev installed; "
           "tools/install-deps.sh)";
  return "";
}

bool gloo_available() {
#ifdef USE_C10D_GLOO
  return true;
#else
  return false;
#endif
}

bool nccl_available() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

struct Communicator::Impl {
#if defined(USE_C10D_GLOO) || defined(USE_C10D_NCCL)
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> group;
#endif
  std::string backend = "none";
  bool through_host = false;  // CUDA tensors over Gloo: copied to host memory and back
};

Communicator::Communicator(const DistributedOptions& options, const torch::Device& device)
    : options_(options), device_(device), impl_(std::make_unique<Impl>()) {
  if (const std::string why = distributed_problem(options_); !why.empty())
    throw DistributedError("distributed training: " + why);
  if (options_.world_size == 1) return;
#if defined(USE_C10D_GLOO) || defined(USE_C10D_NCCL)
  const auto timeout = std::chrono::milliseconds(int64_t(options_.timeout_s) * 1000);
  const std::string where = options_.master_addr + ":" + std::to_string(options_.master_port);
  try {
    c10d::TCPStoreOptions so;
    so.port = uint16_t(options_.master_port);
    // torchrun's static rendezvous hosts the store on MASTER_PORT itself and says so;
    // then every rank is a client. Otherwise rank 0 hosts it.
    const char* agent_store = env("TORCHELASTIC_USE_AGENT_STORE");
    so.isServer = options_.rank == 0 && !(agent_store && std::string(agent_store) == "True");
    so.numWorkers = options_.world_size;
    so.waitWorkers = true;
    so.timeout = timeout;
    // Our keys under a prefix of their own, apart from a launcher's in a shared store,
    // and per torchrun attempt: an agent's store outlives the ranks it restarts, so the
    // keys of a failed attempt must not be read by the next one (as torch.distributed's
    // own env:// rendezvous does).
    std::string prefix = "kumalak-train/";
    if (env("TORCHELASTIC_RESTART_COUNT"))
      prefix +=
          "attempt-" + std::to_string(env_integer("TORCHELASTIC_RESTART_COUNT", 0, 1 << 20)) + "/";
    impl_->store = c10::make_intrusive<c10d::PrefixStore>(
        prefix, c10::make_intrusive<c10d::TCPStore>(options_.master_addr, so));
  } catch (const std::exception& e) {
    throw DistributedError(
        "rank " + std::to_string(options_.rank) + " of " + std::to_string(options_.world_size) +
        ": no rendezvous at " + where + " within " + std::to_string(options_.timeout_s) +
        " s (are all ranks started, is the port free?): " + first_line(e.what()));
  }
  try {
#ifdef USE_C10D_NCCL
    if (device_.is_cuda()) {
      // Without these, a dead peer leaves NCCL waiting forever: blocking waits make
      // wait() honour the timeout and throw. A launcher's own settings are kept.
      setenv("NCCL_BLOCKING_WAIT", "1", 0);
      setenv("NCCL_ASYNC_ERROR_HANDLING", "1", 0);
      auto o = c10d::ProcessGroupNCCL::Options::create();
      o->timeout = timeout;
      impl_->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, options_.rank,
                                                                 options_.world_size, o);
      impl_->backend = "nccl";
      return;
    }
#endif
#ifdef USE_C10D_GLOO
    auto o = c10d::ProcessGroupGloo::Options::create(timeout);
    // Which interface Gloo binds to: as PyTorch chooses it. A loopback master means
    // every rank is on this machine; else GLOO_SOCKET_IFNAME names the interface, or
    // the address the hostname resolves to is used.
    const bool loopback =
        options_.master_addr == "localhost" || options_.master_addr.rfind("127.", 0) == 0;
    if (loopback)
      o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(options_.master_addr));
    else if (env("GLOO_SOCKET_IFNAME"))
      o->devices.push_back(
          c10d::ProcessGroupGloo::createDeviceForInterface(env("GLOO_SOCKET_IFNAME")));
    else
      o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    o->threads = 1;
    impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, options_.rank,
                                                               options_.world_size, o);
    impl_->backend = "gloo";
    impl_->through_host = device_.is_cuda();
#else
    throw DistributedError(
        "this build has NCCL but no Gloo: distributed training needs device = cuda");
#endif
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    throw DistributedError("rank " + std::to_string(options_.rank) + " of " +
                           std::to_string(options_.world_size) + ": cannot join the job at " +
                           where + ": " + first_line(e.what()));
  }
#else
  throw DistributedError("distributed training: this build has no c10d backend");
#endif
}

Communicator::~Communicator() = default;

std::string Communicator::backend() const {
  return impl_->backend;
}

void Communicator::fail(const std::string& what, const std::exception& e) const {
  throw DistributedError("rank " + std::to_string(options_.rank) + " of " +
                         std::to_string(options_.world_size) + ": " + what +
                         " failed: another rank died, was killed or did not answer within " +
                         std::to_string(options_.timeout_s) + " s (" + first_line(e.what()) + ")");
}

void Communicator::all_reduce_sum(torch::Tensor& t, const std::string& what) {
  if (options_.world_size == 1) return;
#if defined(USE_C10D_GLOO) || defined(USE_C10D_NCCL)
  try {
    std::vector<at::Tensor> ts{impl_->through_host ? t.to(torch::kCPU) : t};
    impl_->group->allreduce(ts)->wait();
    if (impl_->through_host) t.copy_(ts[0]);
  } catch (const std::exception& e) {
    fail("the all-reduce of " + what, e);
  }
#else
  (void)what;
#endif
}

std::vector<std::vector<int64_t>> Communicator::all_gather(const std::vector<int64_t>& values,
                                                           const std::string& what) {
  if (options_.world_size == 1) return {values};
  std::vector<std::vector<int64_t>> out(size_t(options_.world_size));
#if defined(USE_C10D_GLOO) || defined(USE_C10D_NCCL)
  try {
    const auto on = torch::TensorOptions()
                        .dtype(torch::kInt64)
                        .device(impl_->backend == "nccl" ? device_ : torch::Device(torch::kCPU));
    std::vector<at::Tensor> input{
        torch::tensor(std::vector<int64_t>(values), torch::kInt64).to(on.device())};
    std::vector<std::vector<at::Tensor>> output(1);
    for (int r = 0; r < options_.world_size; ++r)
      output[0].push_back(torch::empty({int64_t(values.size())}, on));
    impl_->group->allgather(output, input)->wait();
    for (int r = 0; r < options_.world_size; ++r) {
      const auto c = output[0][size_t(r)].to(torch::kCPU).contiguous();
      out[size_t(r)].assign(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
    }
  } catch (const std::exception& e) {
    fail("the all-gather of " + what, e);
  }
#else
  (void)what;
#endif
  return out;
}

}  // namespace kz
