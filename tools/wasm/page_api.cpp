// The page's engine (docs/browser.md): `kumalak serve`'s API (tools/serve/api.h) inside the
// page's Web Worker, answering the page's calls without a network. The worker
// (tools/wasm/page_worker.js) starts it once and passes each call in as one JSON object,
// {"method", "path", "params" (GET), "body" (POST, the text), "lang" (the page's
// language)}, and gets back {"status", "type", "body", "headers"}: the same answer, from
// the same code, that `kumalak serve` sends over HTTP.
//
// Compiled twice (tools/wasm/web_engine.cmake): with threads (kumalak-web, for a
// cross-origin isolated page) the engine's jobs run on threads of their own; without
// (kumalak-web-1t, for a page the browser does not isolate) nothing runs on its own, and
// the worker calls kz_page_work between calls, each running one job to its end; the job's
// search pauses every few tens of milliseconds (tools/wasm/worker_yield.h), and the calls
// that came meanwhile are answered then, a stop ending the search as with threads.
#include <emscripten.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>

#include "tools/serve/api.h"
#include "tools/serve/api_router.h"
#include "tools/serve_engine.h"
#ifndef __EMSCRIPTEN_PTHREADS__
#include "tools/wasm/worker_yield.h"
#endif

namespace kz::cli {

namespace {

struct PageApi {
  ServeEngine engine;
  std::unique_ptr<serve::ServeApi> api;
  serve::ApiRouter router;

  explicit PageApi(const ServeEngineSettings& settings) : engine(settings) {
    serve::ServeApiOptions options;
    // One player's page: a handful of games at once; those it opens and forgets are
    // closed by the engine's idle rule (EngineQueueOptions::idle_minutes).
    options.max_sessions = 16;
    engine.configure(options);
    api = std::make_unique<serve::ServeApi>(options, engine.players());
    api->routes(router);
    api->start();
  }
};

PageApi* page = nullptr;

// Whether this module was compiled with threads (emscripten's -pthread).
#ifdef __EMSCRIPTEN_PTHREADS__
constexpr bool kThreads = true;
#else
constexpr bool kThreads = false;
#endif

char* copy_out(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace

}  // namespace kz::cli

extern "C" {

// Starts the engine with `workers` engine jobs at once (0: one per two of the browser's
// cores, at most 4). Returns 0, or 1 after printing why it could not start.
EMSCRIPTEN_KEEPALIVE int kz_page_start(int workers) {
  using namespace kz::cli;
  if (page) return 0;
  try {
    page = new PageApi({workers, 0, /*warm_networks=*/false, kThreads});
#ifndef __EMSCRIPTEN_PTHREADS__
    // The watchdog's check (no thread of its own here): a job past its time is stopped.
    install_worker_yield([] { page->api->stop_overdue_jobs(); });
#endif
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "the engine could not start: " << e.what() << std::endl;
    return 1;
  }
}

// Whether the worker must call kz_page_work: 1 in the module without threads.
EMSCRIPTEN_KEEPALIVE int kz_page_runs_jobs() {
  return kz::cli::kThreads ? 0 : 1;
}

// Without threads: runs the first queued engine job (a move, a hint, a ply of an
// analysis) to its end; returns 1 if there was one, so the worker calls again, 0 when the
// queue is empty. Its search pauses (kz_worker_paused() is then 1, and the worker waits
// for the call with Asyncify.whenDone()), and kz_page_call answers meanwhile; the worker
// never calls this again before the paused call has returned.
EMSCRIPTEN_KEEPALIVE int kz_page_work() {
  using namespace kz::cli;
  if (!page || kThreads) return 0;
#ifndef __EMSCRIPTEN_PTHREADS__
  if (worker_call_paused()) return 0;  // one job at a time, as on one worker thread
#endif
  try {
#ifndef __EMSCRIPTEN_PTHREADS__
    const PausableCall pausable;
#endif
    return page->api->work() ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "the engine's job failed: " << e.what() << std::endl;
    return 0;
  }
}

// The answer to one call (above), as a string the caller frees with free(); null only
// when memory ran out.
EMSCRIPTEN_KEEPALIVE char* kz_page_call(const char* request_text) {
  using namespace kz::cli;
  using serve::json;
  serve::ApiResponse response;
  serve::guarded(response, [&] {
    if (!page) throw serve::ApiError(503, "the engine has not started");
    const json call = json::parse(request_text);
    serve::ApiRequest request;
    request.method = call.value("method", "GET");
    request.path = call.value("path", "");
    request.params = call.value("params", json::object());
    request.body = call.value("body", "");
    request.accept_language = call.value("lang", "en");
    response = page->router.answer(std::move(request));
  });
  json headers = json::array();
  for (const auto& [name, value] : response.headers) headers.push_back({name, value});
  return copy_out(json{
      {"status", response.status},
      {"type", response.content_type},
      {"body", response.body},
      {"headers",
       headers}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // extern "C"
