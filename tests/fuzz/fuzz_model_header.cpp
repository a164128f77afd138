// Fuzz target: a model file's container and metadata (check_model_bytes), then its
// safetensors weights checked against the network the metadata describes
// (read_safetensors, the weights checksum): everything a load does before a network
// exists. The fuzzer would rarely get past the CRC, so the lengths and the CRC in the
// header are made consistent with the input first; the metadata JSON, the game, the
// sizes, the weights-size check and the safetensors header are what is fuzzed.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/checksum.h"
#include "nn/model_header.h"
#include "nn/network_layout.h"
#include "nn/safetensors.h"

using namespace kz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= kModelHeaderBytes && data[0] == 'K') {
    auto* h = reinterpret_cast<uint8_t*>(bytes.data());
    const uint64_t body = bytes.size() - kModelHeaderBytes;
    uint32_t meta_len = 0;
    std::memcpy(&meta_len, h + 12, 4);
    if (meta_len > body) meta_len = uint32_t(body);
    const uint64_t payload_len = body - meta_len;
    std::memcpy(h + 12, &meta_len, 4);
    std::memcpy(h + 16, &payload_len, 8);
    const char* meta = bytes.data() + kModelHeaderBytes;
    const uint32_t crc = crc32(meta + meta_len, payload_len, crc32(meta, meta_len));
    std::memcpy(h + 24, &crc, 4);
  }
  try {
    const CheckedModel m = check_model_bytes(bytes, "fuzz: ");
    if (!net_config_problem(m.meta.network).empty()) __builtin_trap();
    if (m.payload.size() < uint64_t(expected_parameter_count(m.meta.network)) * 4) __builtin_trap();
    if (m.weights_format == WeightsFormat::kSafetensors) {
      const std::vector<TensorSpec> specs = network_tensor_specs(m.meta.network);
      const NamedTensors tensors = read_safetensors(m.payload, "fuzz: ", &specs);
      // What was read is exactly the network's tensors, each with its values.
      if (tensors.size() != specs.size()) __builtin_trap();
      for (size_t i = 0; i < specs.size(); ++i)
        if (tensors[i].first != specs[i].name || tensors[i].second.shape != specs[i].shape)
          __builtin_trap();
      (void)plain_weights_checksum(tensors);
    }
  } catch (const ModelError&) {
  }
  return 0;
}
