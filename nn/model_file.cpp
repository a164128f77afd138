#include "nn/model_file.h"

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/little_endian.h"
#include "nn/features.h"

namespace kz {

namespace {

constexpr const char* kFormat = kModelFormatName;
constexpr int kFormatVersion = kModelFormatVersion;
constexpr size_t kHeaderBytes = kModelHeaderBytes;

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

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
  m.meta.created = now_iso8601();
  m.net = Network(m.meta.network);
  return m;
}

void save_model(const std::string& path, const Model& model) {
  Network net = model.net;
  torch::serialize::OutputArchive archive;
  std::string meta;
  {
    torch::NoGradGuard no_grad;
    // Save from CPU so a file written on a GPU machine loads anywhere.
    auto device =
        net->parameters().empty() ? torch::Device(torch::kCPU) : net->parameters()[0].device();
    net->to(torch::kCPU);
    net->save(archive);
    nlohmann::ordered_json j;
    j["format"] = kFormat;
    j["format_version"] = kFormatVersion;
    j["game"] = model.meta.game;
    j["feature_version"] = kFeatureVersion;
    j["network"] = {{"channels", model.meta.network.channels},
                    {"blocks", model.meta.network.blocks},
                    {"policy_channels", model.meta.network.policy_channels},
                    {"value_channels", model.meta.network.value_channels},
                    {"value_hidden", model.meta.network.value_hidden}};
    // Written only when there is a head, so that a model without one has the metadata
    // it had before the keys existed. (A program from before them refuses a model with a
    // head: its weights checksum covers the head, which that program does not build.)
    if (model.meta.network.opponent_policy_head) j["network"]["opponent_policy_head"] = true;
    if (model.meta.network.score_distribution_head) j["network"]["score_distribution_head"] = true;
    if (model.meta.network.human_policy_head) {
      j["network"]["human_policy_head"] = true;
      if (model.meta.network.human_rating_temperature)
        j["network"]["human_rating_temperature"] = true;
      j["human"] = {{"rating_min", model.meta.human.rating_min},
                    {"rating_max", model.meta.human.rating_max},
                    {"rating_mean", model.meta.human.rating_mean}};
      if (!model.meta.human.rating_prior.empty())
        j["human"]["rating_prior"] = model.meta.human.rating_prior;
      if (!model.meta.human.value_weights.empty())
        j["human"]["value_weights"] = model.meta.human.value_weights;
      if (!model.meta.human.rating_pair_prior.empty())
        j["human"]["rating_pair_prior"] = model.meta.human.rating_pair_prior;
      if (!model.meta.human.search_mix_weights.empty()) {
        j["human"]["search_mix"] = {{"visits", model.meta.human.search_mix_visits},
                                    {"weights", model.meta.human.search_mix_weights}};
        if (!model.meta.human.search_mix_play_weights.empty())
          j["human"]["search_mix"]["play_weights"] = model.meta.human.search_mix_play_weights;
        if (!model.meta.human.search_filter_play_weights.empty())
          j["human"]["search_mix"]["play_filter"] = model.meta.human.search_filter_play_weights;
        if (model.meta.human.search_play_visits > 0)
          j["human"]["search_mix"]["play_visits"] = model.meta.human.search_play_visits;
      }
    }
    j["generation"] = model.meta.generation;
    j["training_steps"] = model.meta.training_steps;
    j["weights_checksum"] = std::to_string(weights_checksum(net));
    j["created"] = model.meta.created.empty() ? now_iso8601() : model.meta.created;
    j["note"] = model.meta.note;
    meta = j.dump();
    net->to(device);
  }
  std::ostringstream payload_stream;
  try {
    archive.save_to(payload_stream);
  } catch (const c10::Error& e) {
    throw ModelError("cannot write model '" + path + "': " + first_line(e.what()));
  }
  const std::string payload = payload_stream.str();
  uint8_t header[kHeaderBytes] = {};
  std::memcpy(header, kModelMagic, 8);
  put_le(header + 8, uint32_t(kFormatVersion));
  put_le(header + 12, uint32_t(meta.size()));
  put_le(header + 16, uint64_t(payload.size()));
  put_le(header + 24, crc32(payload.data(), payload.size(), crc32(meta.data(), meta.size())));
  write_file_atomically(path, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(header), kHeaderBytes);
    out.write(meta.data(), std::streamsize(meta.size()));
    out.write(payload.data(), std::streamsize(payload.size()));
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
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(checked.payload.data(), checked.payload.size());
    m.net->load(archive);
  } catch (const c10::Error& e) {
    throw ModelError(
        where + "weights do not match the network its metadata describes: " + first_line(e.what()));
  }
  if (weights_checksum(m.net) != checked.weights_checksum)
    throw ModelError(where + "weights checksum mismatch: the file is corrupted");
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
