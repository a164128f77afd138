#include "nn/model_file.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "nn/features.h"

namespace kz {

namespace {

constexpr const char* kMetadataKey = "kz_metadata";
constexpr const char* kFormat = "kumalakzero-model";
constexpr int kFormatVersion = 1;

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
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const torch::Tensor& t) {
    const auto c = t.detach().to(torch::kCPU).contiguous();
    const auto* bytes = static_cast<const uint8_t*>(c.data_ptr());
    const size_t n = size_t(c.numel()) * c.element_size();
    for (size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
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
  m.meta.feature_version = kFeatureVersion;
  m.meta.created = now_iso8601();
  m.net = Network(config);
  return m;
}

void save_model(const std::string& path, const Model& model) {
  Network net = model.net;
  torch::serialize::OutputArchive archive;
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
    j["generation"] = model.meta.generation;
    j["training_steps"] = model.meta.training_steps;
    j["weights_checksum"] = std::to_string(weights_checksum(net));
    j["created"] = model.meta.created.empty() ? now_iso8601() : model.meta.created;
    j["note"] = model.meta.note;
    archive.write(kMetadataKey, c10::IValue(j.dump()));
    net->to(device);
  }
  const std::string temp = temp_name_for(path);
  try {
    archive.save_to(temp);
  } catch (const c10::Error& e) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw ModelError("cannot write model '" + path + "': " + first_line(e.what()));
  }
  commit_temp_file(temp, path);
}

Model load_model(const std::string& path, const GameSpec* expected_game,
                 const torch::Device& device) {
  const std::string where = "model '" + path + "': ";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ModelError(where + "no such file");
  if (std::filesystem::is_directory(path, ec))
    throw ModelError(where + "is a directory, not a model file");
  if (std::filesystem::file_size(path, ec) == 0) throw ModelError(where + "the file is empty");

  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error& e) {
    throw ModelError(
        where + "not a readable model archive (truncated or corrupted?): " + first_line(e.what()));
  }
  c10::IValue meta_value;
  bool have_meta = false;
  try {
    have_meta = archive.try_read(kMetadataKey, meta_value);
  } catch (const c10::Error& e) {
    throw ModelError(where + "cannot read its metadata (corrupted?): " + first_line(e.what()));
  }
  if (!have_meta || !meta_value.isString()) throw ModelError(where + "has no KumalakZero metadata");

  Model m;
  try {
    const auto j = nlohmann::json::parse(meta_value.toStringRef());
    if (j.at("format").get<std::string>() != kFormat)
      throw ModelError(where + "is not a KumalakZero model");
    if (j.at("format_version").get<int>() != kFormatVersion)
      throw ModelError(where + "model format version " +
                       std::to_string(j.at("format_version").get<int>()) +
                       ", this program reads version " + std::to_string(kFormatVersion));
    m.meta.game = j.at("game").get<std::string>();
    m.meta.feature_version = j.at("feature_version").get<int>();
    const auto& n = j.at("network");
    m.meta.network.channels = n.at("channels").get<int>();
    m.meta.network.blocks = n.at("blocks").get<int>();
    m.meta.network.policy_channels = n.at("policy_channels").get<int>();
    m.meta.network.value_channels = n.at("value_channels").get<int>();
    m.meta.network.value_hidden = n.at("value_hidden").get<int>();
    m.meta.generation = j.at("generation").get<int>();
    m.meta.training_steps = j.at("training_steps").get<int64_t>();
    m.meta.created = j.value("created", "");
    m.meta.note = j.value("note", "");
    const uint64_t checksum = std::stoull(j.at("weights_checksum").get<std::string>());
    const auto& c = m.meta.network;
    if (c.channels < 1 || c.channels > 4096 || c.blocks < 0 || c.blocks > 256 ||
        c.policy_channels < 1 || c.policy_channels > 4096 || c.value_channels < 1 ||
        c.value_channels > 4096 || c.value_hidden < 1 || c.value_hidden > 65536)
      throw ModelError(where + "implausible network sizes in its metadata");
    if (expected_game && GameSpec::parse(m.meta.game) != *expected_game)
      throw ModelError(where + "was trained for game '" + m.meta.game + "', not '" +
                       expected_game->name() + "'");
    if (m.meta.feature_version != kFeatureVersion)
      throw ModelError(where + "uses input features version " +
                       std::to_string(m.meta.feature_version) + ", this program computes version " +
                       std::to_string(kFeatureVersion));
    m.net = Network(m.meta.network);
    try {
      m.net->load(archive);
    } catch (const c10::Error& e) {
      throw ModelError(where + "weights do not match the network its metadata describes: " +
                       first_line(e.what()));
    }
    if (weights_checksum(m.net) != checksum)
      throw ModelError(where + "weights checksum mismatch: the file is corrupted");
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(where + "malformed metadata: " + e.what());
  } catch (const ParseError& e) {
    throw ModelError(where + "metadata names an unknown game: " + e.what());
  } catch (const std::invalid_argument&) {
    throw ModelError(where + "malformed weights checksum in the metadata");
  } catch (const std::out_of_range&) {
    throw ModelError(where + "malformed weights checksum in the metadata");
  }
  m.net->eval();
  m.net->to(device);
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
