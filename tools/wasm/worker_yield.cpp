#include "tools/wasm/worker_yield.h"

#include <emscripten.h>

#include "mcts/search_yield.h"

// Pauses the calling export until the worker's event loop has run once: Asyncify unwinds
// the stack, a message to a channel of its own comes back after the messages already
// waiting (the page's calls, the protocol's lines), and its arrival rewinds the stack.
// A message rather than emscripten_sleep(0)'s setTimeout: browsers hold a timeout set
// from within another one for at least 4 ms after a few in a row, which would cost a
// tenth of the search. Named in ASYNCIFY_IMPORTS (tools/wasm/web_engine.cmake).
EM_JS(void, kz_yield_to_worker, (), {
  Asyncify.handleSleep(function(wakeUp) {
    const channel = new MessageChannel();
    channel.port1.onmessage = function() {
      channel.port1.close();
      wakeUp();
    };
    channel.port2.postMessage(0);
  });
});

namespace kz::cli {

namespace {

bool in_pausable_call = false;  // a PausableCall is running (perhaps paused)
bool paused = false;            // ... and is paused now
double last_run_ms = 0;         // when its search last began or went on
void (*resumed)() = nullptr;    // install_worker_yield's on_resume

void pause_search() {
  if (!in_pausable_call || paused) return;
  if (emscripten_get_now() - last_run_ms < kPauseEveryMs) return;
  paused = true;
  kz_yield_to_worker();
  paused = false;
  last_run_ms = emscripten_get_now();
  if (resumed) resumed();
}

}  // namespace

void install_worker_yield(void (*on_resume)()) {
  resumed = on_resume;
  set_search_yield_hook(&pause_search);
}

PausableCall::PausableCall() : outer_(!paused) {
  if (!outer_) return;
  in_pausable_call = true;
  last_run_ms = emscripten_get_now();
}

PausableCall::~PausableCall() {
  if (outer_) in_pausable_call = false;
}

bool worker_call_paused() {
  return paused;
}

}  // namespace kz::cli

extern "C" {

// 1 while a call is paused: the worker then waits for it (Asyncify.whenDone()) instead of
// reading what the export returned, and answers what comes meanwhile.
EMSCRIPTEN_KEEPALIVE int kz_worker_paused() {
  return kz::cli::worker_call_paused() ? 1 : 0;
}

}  // extern "C"
