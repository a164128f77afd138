// nn/model_header.h: every refusal of check_model_bytes, word for word and in the order
// the checks run, on the shipped human model (it has every optional part of the
// metadata) with one part changed at a time; and what it reads from a good file.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "core/checksum.h"
#include "core/little_endian.h"
#include "nn/features.h"
#include "nn/model_header.h"
#include "tests/test_util.h"

namespace kz {
namespace {

using ojson = nlohmann::ordered_json;
const std::string kWhere = "model 'x.pt': ";

// A model file of metadata `meta` and weights `payload`, its header and CRC right.
std::string model_bytes(const std::string& meta, const std::string& payload) {
  uint8_t header[kModelHeaderBytes] = {};
  std::memcpy(header, kModelMagic, 8);
  put_le(header + 8, uint32_t(kModelFormatVersion));
  put_le(header + 12, uint32_t(meta.size()));
  put_le(header + 16, uint64_t(payload.size()));
  put_le(header + 24, crc32(payload.data(), payload.size(), crc32(meta.data(), meta.size())));
  return std::string(reinterpret_cast<const char*>(header), kModelHeaderBytes) + meta + payload;
}

// The shipped human model, its metadata parsed and its weights apart.
struct ShippedModel {
  ojson meta;
  std::string payload;
  ShippedModel() {
    const std::string bytes = test::read_bytes(test::source_dir() + "/models/togyz-human.pt");
    const uint32_t meta_len = get_le<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 12);
    meta = ojson::parse(bytes.substr(kModelHeaderBytes, meta_len));
    payload = bytes.substr(kModelHeaderBytes + meta_len);
  }
};

// The message check_model_bytes refuses `bytes` with ("" when it accepts them).
std::string refusal(const std::string& bytes) {
  try {
    check_model_bytes(bytes, kWhere);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

// The message for the shipped model with its metadata changed by `change`.
template <class Change>
std::string refusal_of_metadata(Change change) {
  ShippedModel m;
  change(m.meta);
  return refusal(model_bytes(m.meta.dump(), m.payload));
}

TEST(ModelHeader, TheShippedHumanModelIsReadWhole) {
  ShippedModel m;
  const std::string bytes = model_bytes(m.meta.dump(), m.payload);
  const CheckedModel c = check_model_bytes(bytes, kWhere);
  EXPECT_EQ(c.meta.game, "togyz");
  EXPECT_EQ(c.weights_format, WeightsFormat::kSafetensors);
  EXPECT_EQ(c.payload.size(), m.payload.size());
  EXPECT_EQ(c.meta.network.channels, m.meta["network"]["channels"].get<int>());
  EXPECT_TRUE(c.meta.network.human_policy_head);
  EXPECT_EQ(c.meta.network.score_max_margin, 0);
  const ojson& h = m.meta["human"];
  EXPECT_EQ(c.meta.human.rating_min, h["rating_min"].get<int>());
  EXPECT_EQ(c.meta.human.rating_mean, h["rating_mean"].get<int>());
  EXPECT_EQ(c.meta.human.rating_prior.size(), h["rating_prior"].size());
  EXPECT_EQ(c.meta.human.rating_pair_prior.size(), h["rating_pair_prior"].size());
  EXPECT_EQ(c.meta.human.value_weights.size(), h["value_weights"].size());
  EXPECT_EQ(c.meta.human.search_mix_visits, h["search_mix"]["visits"].get<int>());
  EXPECT_EQ(c.meta.human.search_play_visits, h["search_mix"]["play_visits"].get<int>());
  EXPECT_EQ(c.meta.human.search_mix_play_weights.size(), h["search_mix"]["play_weights"].size());
  EXPECT_EQ(c.meta.human.search_filter_play_weights.size(), h["search_mix"]["play_filter"].size());
  EXPECT_EQ(std::to_string(c.weights_checksum), m.meta["weights_checksum"].get<std::string>());
  EXPECT_EQ(c.meta.generation, m.meta["generation"].get<int>());
}

TEST(ModelHeader, TheContainersRefusalsNameWhatIsWrong) {
  ShippedModel m;
  const std::string good = model_bytes(m.meta.dump(), m.payload);
  EXPECT_EQ(refusal(""), kWhere + "the file is empty");
  EXPECT_EQ(refusal(good.substr(0, 10)), kWhere + "too short to be a model file (10 bytes)");
  std::string bad = good;
  bad[1] = 'X';
  EXPECT_EQ(refusal(bad), kWhere + "not a KumalakZero model file (bad magic)");
  bad = good;
  bad[8] = 2;
  EXPECT_EQ(refusal(bad), kWhere + "model format version 2, this program reads version 1");
  const std::string n = std::to_string(good.size());
  EXPECT_EQ(refusal(good + "x"), kWhere + "truncated or padded: its header describes " + n +
                                     " bytes, the file has " + std::to_string(good.size() + 1));
  bad = good;
  bad[good.size() - 3] ^= 1;
  EXPECT_EQ(refusal(bad), kWhere + "checksum mismatch: the file is corrupted");
  const std::string not_json = refusal(model_bytes("{\"format\":", m.payload));
  EXPECT_EQ(not_json.rfind(kWhere + "malformed metadata: [json.exception.parse_error", 0), 0u)
      << not_json;
}

TEST(ModelHeader, TheMetadatasRefusalsNameWhatIsWrong) {
  const std::string human = kWhere + "malformed human head in its metadata: ";
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["format"] = "other"; }),
            kWhere + "is not a KumalakZero model");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j.erase("game"); }),
            kWhere + "malformed metadata: [json.exception.out_of_range.403] key 'game' not found");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["weights_format"] = "onnx"; }),
            kWhere +
                "weights_format 'onnx' in its metadata: expected safetensors or "
                "libtorch-archive");
  EXPECT_EQ(
      refusal_of_metadata([](ojson& j) { j["network"].erase("blocks"); }),
      kWhere + "malformed metadata: [json.exception.out_of_range.403] key 'blocks' not found");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["rating_pair_prior"] = 3; }),
            human + "human.rating_pair_prior is not an array of counts");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["rating_pair_prior"][2] = 1.5; }),
            human + "human.rating_pair_prior holds 1.5, not a whole count");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["rating_pair_prior"] = ojson::array(); }),
            human + "human.rating_pair_prior is empty");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["value_weights"] = "x"; }),
            human + "human.value_weights is not an array of numbers");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["search_mix"].erase("weights"); }),
            human + "human.search_mix is not an object with visits and weights");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["search_mix"]["visits"] = 0; }),
            human + "human.search_mix.visits is 0, not a whole number 1..1024");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["search_mix"]["play_visits"] = 2.5; }),
            human + "human.search_mix.play_visits is 2.5, not a whole number 1..1024");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["search_mix"]["weights"][1] = "w"; }),
            human + "human.search_mix.weights holds \"w\", not a number");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["search_mix"]["play_weights"] = {}; }),
            human + "human.search_mix.play_weights is not an array of numbers");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["human"]["search_mix"]["play_filter"][0] = 1e7; }),
            human + "human.search_mix.play_filter holds 10000000.0, out of range");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["weights_checksum"] = "12a"; }),
            kWhere + "malformed weights checksum in the metadata");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["weights_checksum"] = "99999999999999999999"; }),
            kWhere + "malformed weights checksum in the metadata");
  const std::string chess = refusal_of_metadata([](ojson& j) { j["game"] = "chess"; });
  EXPECT_EQ(chess.rfind(kWhere + "metadata names an unknown game: ", 0), 0u) << chess;
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["feature_version"] = 999; }),
            kWhere + "uses input features version 999, this program computes version " +
                std::to_string(kFeatureVersion));
}

TEST(ModelHeader, TheHeadAndNetworkRefusalsCarryTheirChecksWords) {
  ShippedModel m;
  const CheckedModel good = check_model_bytes(model_bytes(m.meta.dump(), m.payload), kWhere);
  HumanHeadInfo head = good.meta.human;
  head.rating_max = head.rating_min;
  const std::string why_head = human_head_problem(head);
  ASSERT_FALSE(why_head.empty());
  EXPECT_EQ(
      refusal_of_metadata([](ojson& j) { j["human"]["rating_max"] = j["human"]["rating_min"]; }),
      kWhere + "malformed human head in its metadata: " + why_head);

  NetConfig huge = good.meta.network;
  huge.channels = 4096;
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["network"]["channels"] = 4096; }),
            kWhere + "implausible network in its metadata: " + net_config_problem(huge));

  NetConfig wider = good.meta.network;
  wider.channels = 64;
  const int64_t params = expected_parameter_count(wider);
  EXPECT_EQ(refusal_of_metadata([](ojson& j) { j["network"]["channels"] = 64; }),
            kWhere + "its metadata describes a network of " + std::to_string(params) +
                " parameters (at least " + std::to_string(params * 4) +
                " bytes of weights), but the weights take " + std::to_string(m.payload.size()) +
                " bytes");
}

TEST(ModelHeader, OfSeveralFaultsTheFirstCheckedIsReported) {
  // A missing field of the JSON before the unknown game and the features version.
  EXPECT_EQ(
      refusal_of_metadata([](ojson& j) {
        j.erase("generation");
        j["game"] = "chess";
        j["feature_version"] = 999;
      }),
      kWhere + "malformed metadata: [json.exception.out_of_range.403] key 'generation' not found");
  // The unknown game before the features version, that before the network.
  const std::string game = refusal_of_metadata([](ojson& j) {
    j["game"] = "chess";
    j["feature_version"] = 999;
  });
  EXPECT_EQ(game.rfind(kWhere + "metadata names an unknown game: ", 0), 0u) << game;
  EXPECT_EQ(refusal_of_metadata([](ojson& j) {
              j["feature_version"] = 999;
              j["network"]["channels"] = 4096;
            }),
            kWhere + "uses input features version 999, this program computes version " +
                std::to_string(kFeatureVersion));
  // The weights format before the human head, the head before the checksum.
  EXPECT_EQ(refusal_of_metadata([](ojson& j) {
              j["weights_format"] = "onnx";
              j["human"]["value_weights"] = "x";
            }),
            kWhere +
                "weights_format 'onnx' in its metadata: expected safetensors or "
                "libtorch-archive");
  EXPECT_EQ(refusal_of_metadata([](ojson& j) {
              j["human"]["rating_pair_prior"] = ojson::array();
              j["human"]["search_mix"]["visits"] = 0;
              j["weights_checksum"] = "12a";
            }),
            kWhere + "malformed human head in its metadata: human.rating_pair_prior is empty");
}

}  // namespace
}  // namespace kz
