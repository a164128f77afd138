#include "nn/model_file.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/little_endian.h"
#include "core/timestamp.h"
#include "nn/features.h"
#include "nn/model_evaluator.h"
#include "nn/nn_evaluator.h"
#include "nn/plain_model.h"
#include "nn/safetensors.h"

namespace kz {

namespace {

// The first line of a LibTorch error: the rest is a C++ backtrace nobody needs.
std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

}  // namespace

uint64_t weights_checksum(Network& net) {
  uint64_t h = kFnv1a64Start;
  auto mix = [&](const torch::Tensor& t) {
    const auto c = t.detach().to(torch::kCPU).contiguous();
    h = fnv1a64(c.data_ptr(), size_t(c.numel()) * c.element_size(), h);
  };
  for (const auto& p : net->parameters()) mix(p);
  for (const auto& b : net->buffers()) mix(b);
  return h;
}

Model make_random_model(const GameSpec& game, const NetConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  Model m;
  m.meta.game = game.name();
  m.meta.network = config;
  m.meta.network.score_max_margin = config.score_distribution_head ? game.total_seeds() : 0;
  m.meta.feature_version = kFeatureVersion;
  m.meta.created = utc_timestamp_now();
  m.net = Network(m.meta.network);
  return m;
}

NamedTensors module_tensors(Network& net) {
  NamedTensors tensors;
  auto add = [&](const std::string& name, const torch::Tensor& t) {
    const torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    PlainTensor p;
    p.shape = c.sizes().vec();
    if (c.scalar_type() == torch::kFloat32) {
      p.dtype = TensorDtype::kF32;
      p.f32.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    } else if (c.scalar_type() == torch::kInt64) {
      p.dtype = TensorDtype::kI64;
      p.i64.assign(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
    } else {
      throw ModelError("tensor '" + name + "' of the network is neither float32 nor int64");
    }
    tensors.emplace_back(name, std::move(p));
  };
  for (const auto& p : net->named_parameters()) add(p.key(), p.value());
  for (const auto& b : net->named_buffers()) add(b.key(), b.value());
  return tensors;
}

void save_model(const std::string& path, const Model& model) {
  Network net = model.net;
  NamedTensors tensors;
  {
    torch::NoGradGuard no_grad;
    tensors = module_tensors(net);
  }
  save_plain_model(path, model.meta, tensors);
}

namespace {

// Fills `net`'s parameters and buffers from `tensors` (network_tensor_specs of its
// config: read_safetensors checked every name, dtype and shape).
void fill_module(Network& net, const NamedTensors& tensors, const std::string& where) {
  torch::NoGradGuard no_grad;
  auto fill = [&](const std::string& name, torch::Tensor& t) {
    const PlainTensor* p = find_tensor(tensors, name);
    if (!p || p->shape != t.sizes().vec())
      throw ModelError(where + "tensor '" + name + "' is missing or has another shape");
    if (p->dtype == TensorDtype::kF32 && t.scalar_type() == torch::kFloat32)
      t.copy_(torch::from_blob(const_cast<float*>(p->f32.data()), t.sizes(), torch::kFloat32));
    else if (p->dtype == TensorDtype::kI64 && t.scalar_type() == torch::kInt64)
      t.copy_(torch::from_blob(const_cast<int64_t*>(p->i64.data()), t.sizes(), torch::kInt64));
    else
      throw ModelError(where + "tensor '" + name + "' has another dtype than the network's");
  };
  for (auto& p : net->named_parameters()) fill(p.key(), p.value());
  for (auto& b : net->named_buffers()) fill(b.key(), b.value());
}

// A LibTorch archive's weights as plain tensors (set_libtorch_archive_reader).
NamedTensors read_libtorch_archive(std::string_view payload, const NetConfig& config,
                                   const std::string& where) {
  Network net(config);
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(payload.data(), payload.size());
    net->load(archive);
  } catch (const c10::Error& e) {
    throw ModelError(
        where + "weights do not match the network its metadata describes: " + first_line(e.what()));
  }
  torch::NoGradGuard no_grad;
  return module_tensors(net);
}

}  // namespace

PlainModel plain_model_of(Model& model) {
  torch::NoGradGuard no_grad;
  PlainModel plain;
  plain.meta = model.meta;
  plain.tensors = module_tensors(model.net);
  return plain;
}

void install_libtorch_model_support() {
  set_libtorch_archive_reader(&read_libtorch_archive);
  set_libtorch_evaluator_loader([](const GameSpec& spec, const std::string& path) {
    return std::shared_ptr<Evaluator>(std::make_shared<NnEvaluator>(load_model(path, &spec)));
  });
}

Model load_model(const std::string& path, const GameSpec* expected_game,
                 const torch::Device& device) {
  const std::string where = "model '" + path + "': ";
  // Everything is checked before LibTorch parses a byte or a network is allocated
  // (nn/model_header.h): a damaged archive can make LibTorch allocate without bound.
  std::string bytes;
  const CheckedModel checked = read_checked_model(path, bytes);
  Model m;
  m.meta = checked.meta;
  if (expected_game && GameSpec::parse(m.meta.game) != *expected_game)
    throw ModelError(where + "was trained for game '" + m.meta.game + "', not '" +
                     expected_game->name() + "'");
  m.net = Network(m.meta.network);
  if (checked.weights_format == WeightsFormat::kSafetensors) {
    // Checked against the network's tensors and the weights checksum as they are read.
    fill_module(m.net, read_model_tensors(checked, where), where);
  } else {
    try {
      torch::serialize::InputArchive archive;
      archive.load_from(checked.payload.data(), checked.payload.size());
      m.net->load(archive);
    } catch (const c10::Error& e) {
      throw ModelError(where + "weights do not match the network its metadata describes: " +
                       first_line(e.what()));
    }
    if (weights_checksum(m.net) != checked.weights_checksum)
      throw ModelError(where + "weights checksum mismatch: the file is corrupted");
  }
  m.net->eval();
  m.net->to(device);
  return m;
}

namespace {

// The rebuilt network's freshly initialised tensor `fresh` takes `old` in its leading
// corner (all of it when the shapes are equal). Where a weight's inputs (dimension 1) grew, the new
// inputs are cut from the old outputs, so that the old channels compute what they computed; the new
// outputs keep their fresh weights from every input. 1-d tensors (biases, batch norm) keep their
// fresh values for the new channels (batch norm: scale 1, shift 0, mean 0, variance 1).
void place_in_corner(torch::Tensor fresh, const torch::Tensor& old, const std::string& name) {
  if (fresh.dim() != old.dim())
    throw ModelError("growing the network: '" + name + "' changed its rank");
  // The corner as views cut with narrow(): LibTorch's TensorIndex (Slice) reads an
  // uninitialised bool when copied, which UndefinedBehaviorSanitizer reports.
  torch::Tensor corner = fresh;
  for (int64_t d = 0; d < old.dim(); ++d) {
    if (old.size(d) > fresh.size(d))
      throw ModelError("growing the network: '" + name + "' would shrink");
    corner = corner.narrow(d, 0, old.size(d));
  }
  corner.copy_(old);  // a scalar (batch norm's batch count) is its own corner
  if (fresh.dim() >= 2 && fresh.size(1) > old.size(1))
    fresh.narrow(0, 0, old.size(0)).narrow(1, old.size(1), fresh.size(1) - old.size(1)).zero_();
}

// `model` rebuilt as the network `config` (other heads, or a larger tower): every weight
// and statistic of the same name is copied (into the leading corner of a larger one,
// place_in_corner), the rest initialised from `seed`.
Model with_network(const Model& model, const NetConfig& config, uint64_t seed) {
  Model m;
  m.meta = model.meta;
  m.meta.network = config;
  const torch::Device device = model.net->parameters().empty()
                                   ? torch::Device(torch::kCPU)
                                   : model.net->parameters()[0].device();
  torch::manual_seed(seed);  // the new head's, channels' or blocks' weights
  m.net = Network(m.meta.network);
  {
    torch::NoGradGuard no_grad;
    const auto old_params = model.net->named_parameters();
    const auto old_buffers = model.net->named_buffers();
    for (auto& p : m.net->named_parameters())
      if (const torch::Tensor* old = old_params.find(p.key()))
        place_in_corner(p.value(), *old, p.key());
    for (auto& b : m.net->named_buffers())
      if (const torch::Tensor* old = old_buffers.find(b.key()))
        place_in_corner(b.value(), *old, b.key());
  }
  m.net->train(model.net->is_training());
  m.net->to(device);
  return m;
}

}  // namespace

Model with_opponent_policy_head(const Model& model, bool on, uint64_t seed) {
  if (model.meta.network.opponent_policy_head == on) return model;
  NetConfig c = model.meta.network;
  c.opponent_policy_head = on;
  return with_network(model, c, seed);
}

Model with_score_distribution_head(const Model& model, bool on, uint64_t seed) {
  if (model.meta.network.score_distribution_head == on) return model;
  NetConfig c = model.meta.network;
  c.score_distribution_head = on;
  c.score_max_margin = on ? GameSpec::parse(model.meta.game).total_seeds() : 0;
  return with_network(model, c, seed);
}

Model with_human_policy_head(const Model& model, const HumanHeadInfo& info) {
  if (const std::string why = human_head_problem(info); !why.empty()) throw ModelError(why);
  if (model.meta.network.human_policy_head) return model;
  NetConfig c = model.meta.network;
  c.human_policy_head = true;
  Model m = with_network(model, c, 0);
  m.meta.human = info;
  torch::NoGradGuard no_grad;
  m.net->human_conv->weight.copy_(m.net->policy_conv->weight);
  m.net->human_rating_fc->weight.zero_();
  m.net->human_bn->weight.copy_(m.net->policy_bn->weight);
  m.net->human_bn->bias.copy_(m.net->policy_bn->bias);
  m.net->human_bn->running_mean.copy_(m.net->policy_bn->running_mean);
  m.net->human_bn->running_var.copy_(m.net->policy_bn->running_var);
  m.net->human_out->weight.copy_(m.net->policy_out->weight);
  m.net->human_out->bias.copy_(m.net->policy_out->bias);
  return m;
}

Model with_human_rating_temperature(const Model& model) {
  if (!model.meta.network.human_policy_head)
    throw ModelError("a rating temperature needs a human policy head");
  if (model.meta.network.human_rating_temperature) return model;
  NetConfig c = model.meta.network;
  c.human_rating_temperature = true;
  Model m = with_network(model, c, 0);
  torch::NoGradGuard no_grad;
  m.net->human_temperature_fc->weight.zero_();
  return m;
}

Model grown_model(const Model& model, int channels, int blocks, uint64_t seed) {
  const NetConfig& from = model.meta.network;
  auto size = [](int c, int b) { return std::to_string(c) + " x " + std::to_string(b); };
  if (channels < from.channels || blocks < from.blocks)
    throw ModelError("a network can only grow: " + size(from.channels, from.blocks) +
                     " (channels x blocks) cannot become " + size(channels, blocks) +
                     "; train a smaller network from scratch on the run's data instead");
  NetConfig to = from;
  to.channels = channels;
  to.blocks = blocks;
  if (const std::string problem = net_config_problem(to); !problem.empty())
    throw ModelError("growing the network: " + problem);
  if (to == from) return model;
  Model m = with_network(model, to, seed);  // the new channels' and blocks' weights: seeded
  m.meta.created.clear();  // a new network: dated when saved (its steps and generation go on)
  // New blocks (after the old ones): relu(x + bn2(...)) with bn2 at 0 is x, since x
  // comes out of a relu. bn2's scale still gets a gradient, so the block learns.
  torch::NoGradGuard no_grad;
  for (int b = from.blocks; b < blocks; ++b) {
    ResidualBlockImpl* block = m.net->tower->ptr(size_t(b))->as<ResidualBlock>();
    block->bn2->weight.zero_();
    block->bn2->bias.zero_();
  }
  return m;
}

Model load_or_init_model(const std::string& path, const GameSpec& game, const NetConfig& fresh,
                         uint64_t seed, const torch::Device& device) {
  if (!path.empty()) return load_model(path, &game, device);
  Model m = make_random_model(game, fresh, seed);
  m.net->eval();
  m.net->to(device);
  return m;
}

torch::Device parse_device(const std::string& name) {
  if (name.empty() || name == "cpu") return torch::kCPU;
  if (name.rfind("cuda", 0) == 0) {
    if (!torch::cuda::is_available())
      throw ModelError("device '" + name + "': this LibTorch has no CUDA or no GPU is visible");
    try {
      return torch::Device(name);
    } catch (const c10::Error& e) {
      throw ModelError("device '" + name + "': " + first_line(e.what()));
    }
  }
  throw ModelError("unknown device '" + name + "' (expected cpu, cuda or cuda:N)");
}

}  // namespace kz
