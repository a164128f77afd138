// The engine protocol's loop (docs/protocol.md; tools/engine_protocol.cpp) one line at a
// time, for a host that cannot wait for input on a thread of its own: the one-thread
// WebAssembly engine, whose Web Worker hands it each line of its messages
// (tools/wasm/protocol_lines.cpp, tools/wasm/engine_worker.js). `kumalak engine` reads its
// lines in a loop instead (run_engine_protocol, tools/commands.h).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "mcts/levels.h"
#include "tools/rating_levels.h"

namespace kz::cli {

class ProtocolLoop;

struct EngineProtocolSettings {
  std::string game = "togyz";    // the game at the start (--game)
  std::string level = "expert";  // the level at the start (--level): a name or a rating
  EvaluatorFactory network;      // nullptr: every level alpha-beta, Engine mcts refused at go
  std::shared_ptr<RatingLevels> ratings;  // nullptr: no level named by a rating
  // false: no threads (EngineControl's search_thread): each `go` searches in the call
  // that brought it and has answered when the call returns; the Threads option's only
  // value is 1. Where the host pauses the search to pass more lines in (mcts/search_yield.h;
  // the one-thread WebAssembly engine), `stop` ends it and `go infinite` runs until then;
  // otherwise `go infinite` is bounded and holds its bestmove until `stop`.
  bool threads = true;
};

class EngineProtocol {
 public:
  // Writes one whole output line (without its newline).
  using Output = std::function<void(const std::string& line)>;

  // `output` receives every line the engine writes, from the search thread too when
  // there is one (one line at a time, never two at once).
  EngineProtocol(const EngineProtocolSettings& settings, Output output);
  ~EngineProtocol();  // stops a running search and joins it
  EngineProtocol(const EngineProtocol&) = delete;
  EngineProtocol& operator=(const EngineProtocol&) = delete;

  // Answers one command line (a trailing '\r' is ignored); false after `quit`, which
  // stops a search (a held bestmove is written first). Lines after quit are ignored.
  bool line(const std::string& text);

 private:
  std::unique_ptr<ProtocolLoop> loop_;
  bool quit_ = false;
};

}  // namespace kz::cli
