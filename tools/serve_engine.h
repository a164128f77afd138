// The engine behind `kumalak serve`'s API as the programs make it: the levels' players
// with one batching front per network (tools/serve/network_fronts.h), the shipped rating
// levels, the number of engine workers and of network searches at once. `kumalak serve`
// (tools/cmd_serve.cpp) and the page's WebAssembly engine (tools/wasm/page_api.cpp) make
// it this one way, so the page plays the same engine wherever it runs.
#pragma once

#include <memory>

#include "tools/serve/api.h"
#include "tools/serve/network_fronts.h"

namespace kz::cli {

struct ServeEngineSettings {
  int workers = 0;       // engine jobs at once; 0 = one per two cores, at least 1, at most 4
  int search_slots = 0;  // network searches at once; 0 = two per core (2-64)
  // Load each shipped network and run it once at every batch size before the first
  // search (LevelEngines::preload): a server starts once and answers many; the page
  // would rather show its board first.
  bool warm_networks = true;
  // false: a host without threads (the page's one-thread WebAssembly engine): one worker
  // that the host runs job by job (ServeApi::work), networks without batching fronts, the
  // Openings view's columns searched in the call (EngineQueueOptions::no_threads).
  bool threads = true;
};

// What the API's engine needs, kept alive as long as the API.
class ServeEngine {
 public:
  explicit ServeEngine(const ServeEngineSettings& settings);
  // Sets `options`' engine part (workers, search slots, which jobs use a network, the
  // rating levels, whether there are threads) for this engine.
  void configure(serve::ServeApiOptions& options) const;
  serve::PlayerFactory players() { return engines_.factory(); }

 private:
  ServeEngineSettings settings_;
  serve::LevelEngines engines_;
};

}  // namespace kz::cli
