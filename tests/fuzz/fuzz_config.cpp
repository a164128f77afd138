// Fuzz target: the TOML run config (parse_config): any text either gives a config
// whose every number passed the range checks, or a ConfigError.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "train/config.h"

using namespace kz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const RunConfig c =
        parse_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml");
    const float checked[] = {c.selfplay.full_search_fraction, c.selfplay.dirichlet_alpha,
                             c.train.learning_rate, c.search.c_puct, c.gate.alpha};
    for (float v : checked)
      if (!std::isfinite(v)) __builtin_trap();
    if (c.selfplay.dirichlet_alpha <= 0) __builtin_trap();
  } catch (const ConfigError&) {
  }
  return 0;
}
