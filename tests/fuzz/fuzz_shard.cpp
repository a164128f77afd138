// Fuzz target: the shard reader (ShardReader::read_info and read). The reader takes a
// path, so the input is written to a file in /tmp first (one per process, rewritten
// per input). The fuzzer would rarely get past the CRC at the end, so it is made to
// match the bytes before it: the header, size and row checks are what is fuzzed. Seeds:
// valid shards written by make_seeds.cpp (tools/fuzz.sh).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "train/shard.h"

using namespace kz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/kz-fuzz-shard-" + std::to_string(getpid()) + ".kzshard";
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() > 4) {
    const uint32_t crc = crc32(bytes.data(), bytes.size() - 4);
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = char(uint8_t(crc >> (8 * i)));
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  try {
    ShardReader::read_info(path, std::nullopt);
  } catch (const std::exception&) {
  }
  try {
    ShardInfo info;
    const auto rows = ShardReader::read(path, &info);
    if (rows.size() != info.row_count) __builtin_trap();
  } catch (const std::exception&) {
  }
  return 0;
}
