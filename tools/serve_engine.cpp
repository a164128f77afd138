#include "tools/serve_engine.h"

#include <algorithm>
#include <thread>

#include "nn/model_evaluator.h"
#include "tools/human_level.h"

namespace kz::cli {

ServeEngine::ServeEngine(const ServeEngineSettings& settings)
    : settings_(settings),
      engines_(load_model_evaluator, serve::LevelEngines::kMaxBatch,
               serve::LevelEngines::kCacheEntries, std::chrono::microseconds(0),
               /*shared_fronts=*/settings.threads) {
  const std::vector<GameSpec> games{GameSpec::togyz(), GameSpec::kalah(6, 4),
                                    GameSpec::kalah(5, 4, true)};
  if (settings.warm_networks) engines_.preload(games);
}

void ServeEngine::configure(serve::ServeApiOptions& options) const {
  const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
  options.engine.workers = settings_.workers > 0 ? settings_.workers : std::clamp(hw / 2, 1, 4);
  // Two searches per core: the network evaluates at most 64 positions per pass and core
  // (nn/onednn_network.cpp), four searches' 16 leaves; more searches at once only finish
  // all together later (measured in docs/serve.md, "Many games, one network").
  options.engine.search_slots =
      settings_.search_slots > 0 ? settings_.search_slots : std::clamp(2 * hw, 2, 64);
  options.engine.network_jobs = [this](serve::Task task, const GameSpec& spec, Level level) {
    return engines_.uses_network(task, spec, level);
  };
  options.engine.ratings = std::make_shared<ShippedRatingLevels>();
  options.engine.no_threads = !settings_.threads;
}

}  // namespace kz::cli
