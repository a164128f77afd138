// HTTP plumbing of `kumalak serve` over cpp-httplib: the error type every handler throws
// and how it is answered, JSON routes, the page's files, and the server's limits (body
// size, timeouts, threads) and guards (the Host check of a server bound to localhost,
// security headers).
//
// Why cpp-httplib (Debian's libcpp-httplib-dev): one small, widely used library with a
// thread-pool server, request size limits and timeouts, packaged by Debian; Boost.Beast
// would mean writing the HTTP server loop, parsing and limits ourselves.
#pragma once

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace kz::cli::serve {

using json = nlohmann::json;

inline constexpr size_t kMaxBodyBytes = 256 * 1024;  // a long game record is about 4 KiB

// A request the API refuses: the HTTP status and a message that says what is wrong.
struct ApiError : std::runtime_error {
  ApiError(int status, const std::string& message) : std::runtime_error(message), status(status) {}
  int status;
};

// Answers {"error": message} with `status`.
void error_reply(httplib::Response& res, int status, const std::string& message);

// Runs `f`, answering what it throws: an ApiError with its status, a ParseError or
// malformed JSON with 400, anything else with 500 "internal error: ...".
void guarded(httplib::Response& res, const std::function<void()>& f);

// GET parameters as a JSON object of strings (session=..., ply=...); 400 for one longer
// than 200 characters.
json params_of(const httplib::Request& req);

// A JSON call: GET takes its parameters, POST a JSON object body; `fn`'s object is the
// answer.
using ApiHandler = std::function<json(const json& request)>;
void add_api_route(httplib::Server& http, const std::string& method, const std::string& path,
                   ApiHandler fn);

// The page (tools/web/, compiled in): /, /index.html, /app.js, /style.css.
void add_page_routes(httplib::Server& http);

bool is_loopback(const std::string& host);

// Threads answering requests, the body limit (kMaxBodyBytes), timeouts, error answers as
// JSON, security headers, and with `local_only` the Host check: a page on another site
// must not reach a server bound to localhost through a name that resolves here (DNS
// rebinding).
void configure_http(httplib::Server& http, int threads, bool local_only);

// Binds `host`:`port` (0: any free port) with a listen backlog of SOMAXCONN; returns the
// port, or 0 when it cannot listen there.
int bind_http(httplib::Server& http, const std::string& host, int port);

}  // namespace kz::cli::serve
