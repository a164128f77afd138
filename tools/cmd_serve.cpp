// kumalak serve: the engine behind a board in the browser. One single-page app (the
// files of tools/web/, compiled into the executable) and a JSON API over the same
// engine code as `play`, `hint` and `analyze`. docs/serve.md describes the API. This
// file is the command: its flags and starting and stopping the server; the server is
// in tools/serve/ (http: HTTP plumbing and limits; request: reading requests; session:
// the games; views: the JSON sent back; engine_queue: the engine's jobs, workers and
// watchdog; api: the calls).
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/serve/api.h"
#include "tools/serve/http.h"
#include "tools/serve_engine.h"
#include "train/run_status.h"

namespace kz::cli {

namespace {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  int workers = 0;       // 0 = one per two cores, at least 1, at most 4
  int search_slots = 0;  // network searches at once; 0 = two per core (2-64)
  int max_sessions = 64;
  double idle_minutes = 30;
  double max_think_s = 10;
  int http_threads = 24;
  std::vector<std::string> runs;  // training run folders for the Run view (read only)
  // A static copy of the site (tools/wasm/web_site.cmake) served in place of the page
  // compiled in: the page with the WebAssembly engine; "" = kDefaultSite where the
  // command runs has one, else the compiled-in page.
  std::string site;
  // The compiled-in page (it asks this server's API for every move) even where a site is
  // found: for GUIs and tests of that page.
  bool builtin_page = false;
};

// Where `serve` looks for the WebAssembly site when not told, relative to the folder it
// runs in, as the levels look for models/: the repository root after
// `cmake --build build-wasm --target web-site` (docs/browser.md).
constexpr const char* kDefaultSite = "build-wasm/web-site";

// The site folder to serve ("" = the page built in).
std::string site_to_serve(const ServeOptions& opt) {
  if (!opt.site.empty() || opt.builtin_page) return opt.site;
  std::error_code ec;
  const std::filesystem::path dir = kDefaultSite;
  // Its page and its service worker: a folder the build only began is not a site.
  if (std::filesystem::is_regular_file(dir / "index.html", ec) &&
      std::filesystem::is_regular_file(dir / "sw.js", ec))
    return dir.string();
  return "";
}

// The engine's threads: the job queue's watchdog keeps one slot per worker.
constexpr int kMaxWorkers = 8;
constexpr int kMaxSearchSlots = 256;
constexpr int kMaxSessions = 10000;
constexpr int kMaxHttpThreads = 1024;
constexpr double kMaxMinutesOrSeconds = 1e6;

int run_serve(const ServeOptions& opt) {
  // SIGINT/SIGTERM are taken by one thread (sigwait) that stops the server cleanly; every
  // thread started from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  serve::ServeApiOptions api_options;
  api_options.max_sessions = opt.max_sessions;
  api_options.engine.max_think_s = opt.max_think_s;
  api_options.engine.idle_minutes = opt.idle_minutes;
  // The levels' engines (tools/serve_engine.h) outlive the server.
  ServeEngine engine({opt.workers, opt.search_slots, /*warm_networks=*/true});
  engine.configure(api_options);
  api_options.runs = serve::name_runs(opt.runs);
  auto run_reader = std::make_shared<RunStatusReader>();
  api_options.run_reader = [run_reader](const std::string& dir) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return serve::json(
        run_reader->read(dir, std::chrono::duration_cast<std::chrono::milliseconds>(now).count()));
  };
  serve::ServeApi server(api_options, engine.players());

  serve::ApiRouter router;
  server.routes(router);
  httplib::Server http;
  const bool local = serve::is_loopback(opt.host);
  serve::configure_http(http, opt.http_threads, local);
  const std::string site = site_to_serve(opt);
  serve::add_page_routes(http, site);
  serve::add_routes(http, router);
  const int port = serve::bind_http(http, opt.host, opt.port);
  if (port <= 0) {
    print_command_error("kumalak serve", "cannot listen on " + opt.host + ":" +
                                             std::to_string(opt.port) +
                                             " (in use, or not an address of this machine)");
    return 1;
  }
  server.start();
  const std::string shown =
      opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  std::cout << "kumalak serve: open http://" << (opt.host == "0.0.0.0" ? "127.0.0.1" : shown) << ":"
            << port << "/ in a browser (" << server.workers() << " engine worker"
            << (server.workers() == 1 ? "" : "s") << " and " << server.search_slots()
            << " network search slots, at most " << opt.max_sessions << " games; Ctrl-C stops)"
            << std::endl;
  if (!opt.runs.empty())
    std::cout << "kumalak serve: watching " << opt.runs.size() << " training run"
              << (opt.runs.size() == 1 ? "" : "s") << " at /run.html" << std::endl;
  if (!local)
    std::cout << "kumalak serve: listening on " << opt.host
              << ", not only localhost: anyone who can reach this machine on port " << port
              << " can use the engine" << std::endl;
  if (!site.empty())
    std::cout << "kumalak serve: the page plays with its own engine in WebAssembly, from " << site
              << " (offline too, once opened; --builtin-page: the page that asks this server)"
              << std::endl;
  else
    std::cout << "kumalak serve: the page built in asks this server for every move; the page "
                 "that plays in the browser, offline too: cmake --build build-wasm --target "
                 "web-site, then serve from the repository root (docs/browser.md)"
              << std::endl;
  std::atomic<bool> listen_returned{false};
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    // A stop() before listen_after_bind() has started is forgotten by cpp-httplib (the
    // loop then runs for ever): a SIGTERM right after the banner hung the server. Wait
    // until it listens, or until it has returned on its own.
    while (!http.is_running() && !listen_returned.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    http.stop();
  });
  http.listen_after_bind();
  listen_returned = true;
  // listen_after_bind returns when stopped by the signal thread; if it returned for any
  // other reason, wake that thread so it can end.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  server.stop();
  std::cout << "kumalak serve: stopped" << std::endl;
  return 0;
}

}  // namespace

void register_serve(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ServeOptions>();
  auto* cmd = app.add_subcommand("serve", "Play, hints and analysis on a board in the browser");
  cmd->add_option("--host", opt->host,
                  "address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: all)");
  cmd->add_option("--port", opt->port, "port (default 8080; 0 picks a free one)")
      ->check(in_range(0, 65535));
  cmd->add_option("--workers", opt->workers, "engine threads (default: one per two cores, 1-4)")
      ->check(in_range(0, kMaxWorkers));
  cmd->add_option("--search-slots", opt->search_slots,
                  "network searches (hard, expert) run at once, their positions evaluated "
                  "together in batches (default: two per core)")
      ->check(in_range(0, kMaxSearchSlots));
  cmd->add_option("--max-sessions", opt->max_sessions, "games open at once (default 64)")
      ->check(in_range(1, kMaxSessions));
  cmd->add_option("--idle-minutes", opt->idle_minutes,
                  "close a game nobody looked at for this long (default 30)")
      ->check(in_range(0.0, kMaxMinutesOrSeconds, Ends::kNotLow));
  cmd->add_option("--max-think", opt->max_think_s,
                  "seconds one engine task may take at most (default 10)")
      ->check(in_range(0.0, kMaxMinutesOrSeconds, Ends::kNotLow));
  cmd->add_option("--http-threads", opt->http_threads, "threads answering requests (default 24)")
      ->check(in_range(2, kMaxHttpThreads));
  cmd->add_option("--run", opt->runs,
                  "a training run folder to watch in the Run view (/run.html); repeatable; "
                  "only read")
      ->check(CLI::ExistingDirectory);
  auto* site = cmd->add_option("--site", opt->site,
                               "serve this static copy of the site (the page with the engine in "
                               "WebAssembly: cmake --build build-wasm --target web-site) instead "
                               "of the page built in (default: build-wasm/web-site where the "
                               "command runs has it)")
                   ->check(CLI::ExistingDirectory);
  cmd->add_flag("--builtin-page", opt->builtin_page,
                "serve the page built into this program, which asks this server for every "
                "move, even where a WebAssembly site is found")
      ->excludes(site);
  cmd->callback([opt, &exit_code] { exit_code = run_serve(*opt); });
}

}  // namespace kz::cli
