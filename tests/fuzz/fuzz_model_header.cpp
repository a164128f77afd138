// Fuzz target: a model file's container and metadata (check_model_bytes), everything
// done before LibTorch sees a byte. The fuzzer would rarely get past the CRC, so the
// lengths and the CRC in the header are made consistent with the input first; the
// metadata JSON, the game, the sizes and the weights-size check are what is fuzzed.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/checksum.h"
#include "nn/model_header.h"

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
  } catch (const ModelError&) {
  }
  return 0;
}
