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
#include "nn/features.h"

namespace kz {

namespace {

constexpr const char* kFormat = "kumalakzero-model";
constexpr int kFormatVersion = 1;
constexpr char kMagic[8] = {'K', 'Z', 'M', 'O', 'D', 'E', 'L', '\0'};
constexpr size_t kHeaderBytes = 28;  // magic, version, metadata length, payload length, CRC
constexpr uint64_t kMaxModelBytes = uint64_t(4) << 30;

template <class T>
void put_le(uint8_t* p, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) p[i] = uint8_t(uint64_t(v) >> (8 * i));
}
template <class T>
T get_le(const uint8_t* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(p[i]) << (8 * i);
  return T(v);
}

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
  std::memcpy(header, kMagic, 8);
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
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ModelError(where + "no such file");
  if (std::filesystem::is_directory(path, ec))
    throw ModelError(where + "is a directory, not a model file");
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw ModelError(where + "cannot read its size: " + ec.message());
  if (size == 0) throw ModelError(where + "the file is empty");
  if (size < kHeaderBytes)
    throw ModelError(where + "too short to be a model file (" + std::to_string(size) + " bytes)");
  if (size > kMaxModelBytes)
    throw ModelError(where + "implausibly large for a model (" + std::to_string(size) + " bytes)");
  std::string bytes(size, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    if (!in.read(bytes.data(), std::streamsize(size))) throw ModelError(where + "read error");
  }
  // Everything is checked before LibTorch parses a byte: a damaged archive can make it
  // allocate without bound.
  const auto* h = reinterpret_cast<const uint8_t*>(bytes.data());
  if (std::memcmp(h, kMagic, 8) != 0)
    throw ModelError(where + "not a KumalakZero model file (bad magic)");
  const uint32_t version = get_le<uint32_t>(h + 8);
  if (version != kFormatVersion)
    throw ModelError(where + "model format version " + std::to_string(version) +
                     ", this program reads version " + std::to_string(kFormatVersion));
  const uint64_t meta_len = get_le<uint32_t>(h + 12), payload_len = get_le<uint64_t>(h + 16);
  if (meta_len > size || payload_len > size || kHeaderBytes + meta_len + payload_len != size)
    throw ModelError(where + "truncated or padded: its header describes " +
                     std::to_string(kHeaderBytes + meta_len + payload_len) +
                     " bytes, the file has " + std::to_string(size));
  const char* meta_ptr = bytes.data() + kHeaderBytes;
  const char* payload_ptr = meta_ptr + meta_len;
  if (crc32(payload_ptr, payload_len, crc32(meta_ptr, meta_len)) != get_le<uint32_t>(h + 24))
    throw ModelError(where + "checksum mismatch: the file is corrupted");

  Model m;
  try {
    const auto j = nlohmann::json::parse(std::string(meta_ptr, meta_len));
    if (j.at("format").get<std::string>() != kFormat)
      throw ModelError(where + "is not a KumalakZero model");
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
      torch::serialize::InputArchive archive;
      archive.load_from(payload_ptr, payload_len);
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
