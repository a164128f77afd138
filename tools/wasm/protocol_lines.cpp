// The engine protocol (docs/protocol.md) in the one-thread page engine (kumalak-web-1t,
// tools/wasm/web_engine.cmake), for engine_worker.js in a page the browser does not
// isolate: no thread can wait for input there, so the worker hands each line of its
// messages to kz_protocol_line. The answers go to stdout, one line at a time (the worker
// posts each as {line}). A `go` searches in its call, which pauses every few tens of
// milliseconds (tools/wasm/worker_yield.h): the worker then waits for the call and passes
// the lines that come meanwhile to kz_protocol_line as plain calls, answered at once as
// natively (`isready`, `stop`, which ends the search with its bestmove, the session's
// commands refused until then). `go infinite` searches until `stop`.
#include <emscripten.h>

#include <iostream>
#include <memory>
#include <string>

#include "nn/model_evaluator.h"
#include "tools/engine_protocol.h"
#include "tools/human_level.h"
#include "tools/wasm/worker_yield.h"

namespace kz::cli {
namespace {

std::unique_ptr<EngineProtocol> protocol;

}  // namespace
}  // namespace kz::cli

extern "C" {

// Starts the protocol as `kumalak engine --game GAME --level LEVEL` would (both may be
// empty: togyz, expert), with the shipped network and human models. A bad game or level
// is said with an `error` line, as natively, and the start's defaults are kept. Returns 0,
// or 1 after printing why it could not start. A second call starts a fresh protocol
// (never while a line's call is paused: that one's search uses the protocol).
EMSCRIPTEN_KEEPALIVE int kz_protocol_start(const char* game, const char* level) {
  using namespace kz::cli;
  if (worker_call_paused()) {
    std::cerr << "the engine could not start: a search is still running" << std::endl;
    return 1;
  }
  install_worker_yield();
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
// `quit` (and for every line after it) or when the protocol has not started. A `go` may
// pause the call (kz_worker_paused() is then 1: the worker waits for it and passes the
// lines that come meanwhile here, as calls that never pause).
EMSCRIPTEN_KEEPALIVE int kz_protocol_line(const char* line) {
  using namespace kz::cli;
  if (!protocol || !line) return 0;
  try {
    const PausableCall pausable;
    return protocol->line(line) ? 1 : 0;
  } catch (const std::exception& e) {
    // The loop answers bad input itself; anything else is said, and the engine goes on.
    std::cout << "error " << e.what() << std::endl;
    return 1;
  }
}

}  // extern "C"
