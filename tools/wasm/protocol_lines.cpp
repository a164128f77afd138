// The engine protocol (docs/protocol.md) in the one-thread page engine (kumalak-web-1t,
// tools/wasm/web_engine.cmake), for engine_worker.js in a page the browser does not
// isolate: no thread can wait for input there, so the worker hands each line of its
// messages to kz_protocol_line, which answers it before returning. The answers go to
// stdout, one line at a time (the worker posts each as {line}). A `go` searches in the
// call, to its limits, and has written its bestmove when the call returns; `go infinite`
// is bounded (EngineControl::kInfiniteSearchSeconds, or MoveTime) and holds its bestmove
// until `stop`.
#include <emscripten.h>

#include <iostream>
#include <memory>
#include <string>

#include "nn/model_evaluator.h"
#include "tools/engine_protocol.h"
#include "tools/human_level.h"

namespace kz::cli {
namespace {

std::unique_ptr<EngineProtocol> protocol;

}  // namespace
}  // namespace kz::cli

extern "C" {

// Starts the protocol as `kumalak engine --game GAME --level LEVEL` would (both may be
// empty: togyz, expert), with the shipped network and human models. A bad game or level
// is said with an `error` line, as natively, and the start's defaults are kept. Returns 0,
// or 1 after printing why it could not start. A second call starts a fresh protocol.
EMSCRIPTEN_KEEPALIVE int kz_protocol_start(const char* game, const char* level) {
  using namespace kz::cli;
  try {
    EngineProtocolSettings settings;
    if (game && *game) settings.game = game;
    if (level && *level) settings.level = level;
    settings.network = kz::load_model_evaluator;
    settings.ratings = std::make_shared<kz::ShippedRatingLevels>();
    settings.threads = false;
    protocol.reset();
    protocol = std::make_unique<EngineProtocol>(
        settings, [](const std::string& line) { std::cout << line << std::endl; });
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "the engine could not start: " << e.what() << std::endl;
    return 1;
  }
}

// Answers one line of the protocol (UTF-8, without its newline). Returns 1, or 0 after
// `quit` (and for every line after it) or when the protocol has not started.
EMSCRIPTEN_KEEPALIVE int kz_protocol_line(const char* line) {
  using namespace kz::cli;
  if (!protocol || !line) return 0;
  try {
    return protocol->line(line) ? 1 : 0;
  } catch (const std::exception& e) {
    // The loop answers bad input itself; anything else is said, and the engine goes on.
    std::cout << "error " << e.what() << std::endl;
    return 1;
  }
}

}  // extern "C"
