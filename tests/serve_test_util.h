// kumalak serve's HTTP side in-process for the serve tests: a server on an ephemeral
// port of 127.0.0.1 that listens on its own thread for the fixture's lifetime, and the
// whole API (ServeApi) on one. Every serve test starts its server this one way.
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>

#include "mcts/mcts_player.h"
#include "mcts/rollout_evaluator.h"
#include "tools/serve/api.h"
#include "tools/serve/http.h"

namespace kz::cli::serve {

// A small MCTS player of `visits` whose evaluator needs no network (random playouts
// seeded by the position), so that an engine job runs in milliseconds; it keeps its tree
// from move to move, as the network's does.
inline std::unique_ptr<Player> rollout_player(int visits = 50) {
  MctsPlayerOptions options;
  options.visits = visits;
  options.cache_entries = 1 << 10;
  return std::make_unique<MctsPlayer>(std::make_shared<RolloutEvaluator>(1), options);
}

// An HTTP server with the API calls `add_routes` gives its router, bound to an ephemeral port of
// 127.0.0.1 and listening from construction until destruction.
class LocalHttpServer {
 public:
  LocalHttpServer(int threads, const std::function<void(ApiRouter&)>& add_api) {
    configure_http(http_, threads, true);
    add_api(router_);
    add_routes(http_, router_);
    port_ = bind_http(http_, "127.0.0.1", 0);
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    while (!http_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LocalHttpServer() {
    http_.stop();
    thread_.join();
  }
  LocalHttpServer(const LocalHttpServer&) = delete;
  LocalHttpServer& operator=(const LocalHttpServer&) = delete;

  int port() const { return port_; }

  // The status and JSON body of a GET (or, for any other method, a POST of `body`);
  // status 0 and a null body when no answer came within `read_timeout_s`.
  std::pair<int, nlohmann::json> call(const std::string& method, const std::string& path,
                                      const nlohmann::json& body = nlohmann::json::object(),
                                      int read_timeout_s = 10) const {
    httplib::Client cli("127.0.0.1", port_);
    cli.set_read_timeout(read_timeout_s, 0);
    auto r = method == "GET" ? cli.Get(path.c_str())
                             : cli.Post(path.c_str(), body.dump(), "application/json");
    if (!r) return {0, nlohmann::json()};
    return {r->status, nlohmann::json::parse(r->body, nullptr, false)};
  }

 private:
  ApiRouter router_;  // before http_, which answers through it until destroyed
  httplib::Server http_;
  int port_ = 0;
  std::thread thread_;
};

// ServeApi with `options` and `players` on a LocalHttpServer of `http_threads`, its
// engine started once the port is bound, and stopped after the HTTP server (as
// `kumalak serve` does), so no request is answered by a stopped engine.
class InProcessApi {
 public:
  InProcessApi(const ServeApiOptions& options, PlayerFactory players, int http_threads = 4)
      : api_(std::make_unique<ServeApi>(options, std::move(players))),
        http_(std::make_unique<LocalHttpServer>(
            http_threads, [this](ApiRouter& router) { api_->routes(router); })) {
    api_->start();
  }
  ~InProcessApi() {
    http_.reset();
    api_->stop();
  }
  InProcessApi(const InProcessApi&) = delete;
  InProcessApi& operator=(const InProcessApi&) = delete;

  int port() const { return http_->port(); }
  const ServeApi& api() const { return *api_; }

  // The status and state of `session` once its engine's task has ended (or the first
  // answer that is not 200), polled every 10 ms for at most `tries` times.
  std::pair<int, nlohmann::json> settled_state(const std::string& session, int tries = 500) const {
    std::pair<int, nlohmann::json> r;
    for (int i = 0; i < tries; ++i) {
      r = call("GET", "/api/state?session=" + session);
      if (r.first != 200 || r.second["engine"]["task"] == "") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return r;
  }

  // As LocalHttpServer::call.
  std::pair<int, nlohmann::json> call(const std::string& method, const std::string& path,
                                      const nlohmann::json& body = nlohmann::json::object(),
                                      int read_timeout_s = 10) const {
    return http_->call(method, path, body, read_timeout_s);
  }

 private:
  std::unique_ptr<ServeApi> api_;
  std::unique_ptr<LocalHttpServer> http_;
};

}  // namespace kz::cli::serve
