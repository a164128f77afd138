// The pause of the page's engine without threads (kumalak-web-1t, docs/browser.md): its
// searches run on the Web Worker's only thread, so while one runs nothing else would be
// answered. Built with emscripten's Asyncify (tools/wasm/web_engine.cmake), the search
// hook (mcts/search_yield.h) unwinds the search's stack every kPauseEveryMs and lets the
// worker's event loop run: the page's calls and the protocol's lines that came meanwhile
// are answered (a stop raises the flag the search polls right after), then the search
// goes on where it was. Only calls that the worker makes to be resumed later may pause
// (PausableCall); the worker learns that one did from kz_worker_paused() and waits for
// it with Asyncify.whenDone() (tools/wasm/page_worker.js, engine_worker.js).
#pragma once

namespace kz::cli {

// How long a search runs between two pauses: the worker answers within about this long,
// and each pause costs a message round trip (a small fraction of a millisecond).
constexpr double kPauseEveryMs = 40;

// Installs the search hook (again: nothing more). `on_resume` (nullptr: none) runs each
// time a paused search goes on, before it reads its stop flag: the page engine's watchdog
// (EngineQueue::stop_overdue).
void install_worker_yield(void (*on_resume)() = nullptr);

// For the duration of one call that may pause (kz_page_work; kz_protocol_line): its
// searches pause every kPauseEveryMs. A call made while another is paused never pauses
// (Asyncify resumes one call at a time), nor does a call without a PausableCall (the
// worker calls kz_page_call as a plain function: it must return its answer).
class PausableCall {
 public:
  PausableCall();
  ~PausableCall();
  PausableCall(const PausableCall&) = delete;
  PausableCall& operator=(const PausableCall&) = delete;

 private:
  bool outer_;  // no other call was paused when this one began
};

// Whether a call is paused now (its search waits for the worker's event loop).
bool worker_call_paused();

}  // namespace kz::cli
