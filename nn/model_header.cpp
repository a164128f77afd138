#include "nn/model_header.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/little_endian.h"
#include "core/position.h"
#include "nn/features.h"

namespace kz {

namespace {

// The weights `name` of a human head: a non-empty array of numbers, each read as a double
// and bounded before narrowing (a double beyond float's range does not convert to float,
// undefined behaviour; human_head_problem's limits are far inside the bound). Throws
// ModelError starting with `malformed` and naming what is wrong.
std::vector<float> read_human_weights(const nlohmann::json& w, const std::string& name,
                                      const std::string& malformed) {
  if (!w.is_array()) throw ModelError(malformed + name + " is not an array of numbers");
  if (w.empty()) throw ModelError(malformed + name + " is empty");
  std::vector<float> out;
  for (const auto& x : w) {
    if (!x.is_number())
      throw ModelError(malformed + name + " holds " + x.dump() + ", not a number");
    const double v = x.get<double>();
    if (!std::isfinite(v) || std::abs(v) > 1e6)
      throw ModelError(malformed + name + " holds " + x.dump() + ", out of range");
    out.push_back(float(v));
  }
  return out;
}

// Where the two parts of a model file lie in its bytes.
struct ModelParts {
  std::string_view metadata;  // JSON
  std::string_view payload;   // the weights
};

// The framing of a model file: its size, magic, format version, the lengths its header
// gives and the checksum over both parts. Throws ModelError starting with `where`.
ModelParts check_framing(std::string_view bytes, const std::string& where) {
  const uint64_t size = bytes.size();
  if (size == 0) throw ModelError(where + "the file is empty");
  if (size < kModelHeaderBytes)
    throw ModelError(where + "too short to be a model file (" + std::to_string(size) + " bytes)");
  const auto* h = reinterpret_cast<const uint8_t*>(bytes.data());
  if (std::memcmp(h, kModelMagic, 8) != 0)
    throw ModelError(where + "not a KumalakZero model file (bad magic)");
  const uint32_t version = get_le<uint32_t>(h + 8);
  if (version != kModelFormatVersion)
    throw ModelError(where + "model format version " + std::to_string(version) +
                     ", this program reads version " + std::to_string(kModelFormatVersion));
  const uint64_t meta_len = get_le<uint32_t>(h + 12), payload_len = get_le<uint64_t>(h + 16);
  if (meta_len > size || payload_len > size || kModelHeaderBytes + meta_len + payload_len != size)
    throw ModelError(where + "truncated or padded: its header describes " +
                     std::to_string(kModelHeaderBytes + meta_len + payload_len) +
                     " bytes, the file has " + std::to_string(size));
  const char* meta_ptr = bytes.data() + kModelHeaderBytes;
  const char* payload_ptr = meta_ptr + meta_len;
  if (crc32(payload_ptr, payload_len, crc32(meta_ptr, meta_len)) != get_le<uint32_t>(h + 24))
    throw ModelError(where + "checksum mismatch: the file is corrupted");
  return {std::string_view(meta_ptr, meta_len), std::string_view(payload_ptr, payload_len)};
}

// The "weights_format" of the metadata `j`; absent in files from before the plain
// format: a LibTorch archive.
WeightsFormat read_weights_format(const nlohmann::json& j, const std::string& where) {
  const std::string weights_format = j.value("weights_format", "libtorch-archive");
  if (weights_format == "safetensors") return WeightsFormat::kSafetensors;
  if (weights_format == "libtorch-archive") return WeightsFormat::kLibTorchArchive;
  throw ModelError(where + "weights_format '" + weights_format +
                   "' in its metadata: expected safetensors or libtorch-archive");
}

// The metadata's "network" object `n` into `net`.
void read_network(const nlohmann::json& n, NetConfig& net) {
  net.channels = n.at("channels").get<int>();
  net.blocks = n.at("blocks").get<int>();
  net.policy_channels = n.at("policy_channels").get<int>();
  net.value_channels = n.at("value_channels").get<int>();
  net.value_hidden = n.at("value_hidden").get<int>();
  // Absent in models from before the head: they have none.
  net.opponent_policy_head = n.value("opponent_policy_head", false);
  net.score_distribution_head = n.value("score_distribution_head", false);
  net.human_policy_head = n.value("human_policy_head", false);
  net.human_rating_temperature =
      net.human_policy_head && n.value("human_rating_temperature", false);
}

// The human head's "rating_pair_prior" `counts`: whole counts that fit an int, at least
// one. Throws ModelError starting with `malformed`.
std::vector<int> read_rating_pair_prior(const nlohmann::json& counts,
                                        const std::string& malformed) {
  if (!counts.is_array())
    throw ModelError(malformed + "human.rating_pair_prior is not an array of counts");
  std::vector<int> prior;
  for (const auto& x : counts) {
    // Read wide and bounded before narrowing to int.
    const bool fits = x.is_number_unsigned()
                          ? x.get<uint64_t>() <= uint64_t(INT32_MAX)
                          : x.is_number_integer() && x.get<int64_t>() >= INT32_MIN &&
                                x.get<int64_t>() <= INT32_MAX;
    if (!fits)
      throw ModelError(malformed + "human.rating_pair_prior holds " + x.dump() +
                       ", not a whole count");
    prior.push_back(int(x.get<int64_t>()));
  }
  if (prior.empty()) throw ModelError(malformed + "human.rating_pair_prior is empty");
  return prior;
}

// The human head's "search_mix" object `mix` into `human`. Throws ModelError starting
// with `malformed`.
void read_search_mix(const nlohmann::json& mix, const std::string& malformed,
                     HumanHeadInfo& human) {
  if (!mix.is_object() || !mix.contains("visits") || !mix.contains("weights"))
    throw ModelError(malformed + "human.search_mix is not an object with visits and weights");
  const auto read_visits = [&](const char* key) {
    const auto& visits = mix.at(key);
    if (!visits.is_number_integer() || visits.get<int64_t>() < 1 ||
        visits.get<int64_t>() > kHumanMaxSearchMixVisits)
      throw ModelError(malformed + "human.search_mix." + key + " is " + visits.dump() +
                       ", not a whole number 1.." + std::to_string(kHumanMaxSearchMixVisits));
    return int(visits.get<int64_t>());
  };
  human.search_mix_visits = read_visits("visits");
  // Absent where the levels play the fit's own search.
  if (mix.contains("play_visits")) human.search_play_visits = read_visits("play_visits");
  human.search_mix_weights =
      read_human_weights(mix.at("weights"), "human.search_mix.weights", malformed);
  // Absent in models from before the calibrated play weights: the levels play the fit.
  if (mix.contains("play_weights"))
    human.search_mix_play_weights =
        read_human_weights(mix.at("play_weights"), "human.search_mix.play_weights", malformed);
  // Absent in models from before the search filter: the levels play the mixture.
  if (mix.contains("play_filter"))
    human.search_filter_play_weights =
        read_human_weights(mix.at("play_filter"), "human.search_mix.play_filter", malformed);
}

// The metadata's "human" object `h` into `human`, checked whole by human_head_problem.
// Throws ModelError starting with `malformed`.
void read_human_head(const nlohmann::json& h, const std::string& malformed, HumanHeadInfo& human) {
  human.rating_min = h.at("rating_min").get<int>();
  human.rating_max = h.at("rating_max").get<int>();
  human.rating_mean = h.at("rating_mean").get<int>();
  // Absent in models from before the prior: none.
  if (h.contains("rating_prior")) human.rating_prior = h.at("rating_prior").get<std::vector<int>>();
  // Absent in models from before the two-sided prior: none.
  if (h.contains("rating_pair_prior"))
    human.rating_pair_prior = read_rating_pair_prior(h.at("rating_pair_prior"), malformed);
  // Absent in models from before the value term: none.
  if (h.contains("value_weights"))
    human.value_weights =
        read_human_weights(h.at("value_weights"), "human.value_weights", malformed);
  // Absent in models from before the search mixture: none.
  if (h.contains("search_mix")) read_search_mix(h.at("search_mix"), malformed, human);
  if (const std::string why = human_head_problem(human); !why.empty())
    throw ModelError(malformed + why);
}

// The metadata JSON `text` into `m` (all but the payload). Throws ModelError starting
// with `where`; a JSON that is malformed or misses a field says so.
void read_metadata(std::string_view text, const std::string& where, CheckedModel& m) {
  ModelMetadata& meta = m.meta;
  try {
    const auto j = nlohmann::json::parse(std::string(text));
    if (!j.is_object() || j.at("format").get<std::string>() != kModelFormatName)
      throw ModelError(where + "is not a KumalakZero model");
    meta.game = j.at("game").get<std::string>();
    m.weights_format = read_weights_format(j, where);
    meta.feature_version = j.at("feature_version").get<int>();
    read_network(j.at("network"), meta.network);
    if (meta.network.human_policy_head)
      read_human_head(j.at("human"), where + "malformed human head in its metadata: ", meta.human);
    meta.generation = j.at("generation").get<int>();
    meta.training_steps = j.at("training_steps").get<int64_t>();
    meta.created = j.value("created", "");
    meta.note = j.value("note", "");
    const std::string checksum = j.at("weights_checksum").get<std::string>();
    if (checksum.empty() || checksum.size() > 20 ||
        checksum.find_first_not_of("0123456789") != std::string::npos)
      throw ModelError(where + "malformed weights checksum in the metadata");
    m.weights_checksum = std::stoull(checksum);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(where + "malformed metadata: " + e.what());
  } catch (const std::out_of_range&) {
    throw ModelError(where + "malformed weights checksum in the metadata");
  }
}

// What this program needs of the model `meta` describes: a game it knows, its input
// features and a plausible network whose parameters fit in the `payload_bytes` of
// weights. Sets the score distribution's range, which depends on the game. Throws
// ModelError starting with `where`.
void check_usable(ModelMetadata& meta, uint64_t payload_bytes, const std::string& where) {
  try {
    const GameSpec game = GameSpec::parse(meta.game);
    // The score distribution covers every margin of the model's game.
    meta.network.score_max_margin = meta.network.score_distribution_head ? game.total_seeds() : 0;
  } catch (const ParseError& e) {
    throw ModelError(where + "metadata names an unknown game: " + e.what());
  }
  if (meta.feature_version != kFeatureVersion)
    throw ModelError(where + "uses input features version " + std::to_string(meta.feature_version) +
                     ", this program computes version " + std::to_string(kFeatureVersion));
  if (const std::string why = net_config_problem(meta.network); !why.empty())
    throw ModelError(where + "implausible network in its metadata: " + why);
  // Every parameter is stored as a 4-byte float: weights smaller than that cannot be
  // the network the metadata describes (checked before a byte of it is allocated).
  const uint64_t needed = uint64_t(expected_parameter_count(meta.network)) * 4;
  if (payload_bytes < needed)
    throw ModelError(where + "its metadata describes a network of " +
                     std::to_string(expected_parameter_count(meta.network)) +
                     " parameters (at least " + std::to_string(needed) + " bytes of weights), " +
                     "but the weights take " + std::to_string(payload_bytes) + " bytes");
}

}  // namespace

std::string to_string(WeightsFormat format) {
  return format == WeightsFormat::kSafetensors ? "safetensors" : "libtorch-archive";
}

CheckedModel check_model_bytes(std::string_view bytes, const std::string& where) {
  const ModelParts parts = check_framing(bytes, where);
  CheckedModel m;
  m.payload = parts.payload;
  read_metadata(parts.metadata, where, m);
  check_usable(m.meta, parts.payload.size(), where);
  return m;
}

CheckedModel read_checked_model(const std::string& path, std::string& bytes) {
  const std::string where = "model '" + path + "': ";
  if (const std::string why = why_not_a_file(path); !why.empty()) throw ModelError(where + why);
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw ModelError(where + "cannot read its size: " + ec.message());
  if (size > kMaxModelBytes)
    throw ModelError(where + "implausibly large for a model (" + std::to_string(size) + " bytes)");
  bytes.assign(size, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    if (!in.read(bytes.data(), std::streamsize(size))) throw ModelError(where + "read error");
  }
  return check_model_bytes(bytes, where);
}

}  // namespace kz
