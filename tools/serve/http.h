// HTTP plumbing of `kumalak serve` over cpp-httplib: the API's calls (api_router.h) as
// HTTP routes, the page's files, and the server's limits (body size, timeouts, threads)
// and guards (the Host check of a server bound to localhost, security headers).
//
// Why cpp-httplib (Debian's libcpp-httplib-dev): one small, widely used library with a
// thread-pool server, request size limits and timeouts, packaged by Debian; Boost.Beast
// would mean writing the HTTP server loop, parsing and limits ourselves.
#pragma once

#include <httplib.h>

#include <string>

#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// Every call of `router` as a route of `http`; `router` must outlive `http`. A GET's
// query and a POST's body reach the router as they came, with the Accept-Language
// header, and its answer goes back as it is.
void add_routes(httplib::Server& http, const ApiRouter& router);

// The page (tools/web/, compiled in): /, /index.html, /app.js, /style.css. With `site`
// set, the files of that folder instead (a static copy of the site: the page with the
// WebAssembly engine, tools/wasm/web_site.cmake), and the headers that make the page
// cross-origin isolated, which the engine's threads need.
void add_page_routes(httplib::Server& http, const std::string& site = "");

bool is_loopback(const std::string& host);

// `accept` (an Accept-Encoding value) without its "br" coding, the rest kept in order.
// Debian's cpp-httplib (0.11) compresses every answer for a browser that takes Brotli at
// Brotli's slowest quality, 11: 0.18 s for the 100 KB catalog of /api/lang/kk, 7.4 s for
// the 1.1 MB list of a file of 1,000 games, where its gzip takes 0.01 s and 0.3 s for
// answers a fifth larger. The server takes "br" out of every request, so the library
// chooses gzip.
std::string without_brotli(const std::string& accept);

// Threads answering requests, the body limit (kMaxBodyBytes), timeouts, error answers as
// JSON, security headers, and with `local_only` the Host check: a page on another site
// must not reach a server bound to localhost through a name that resolves here (DNS
// rebinding).
void configure_http(httplib::Server& http, int threads, bool local_only);

// Binds `host`:`port` (0: any free port) with a listen backlog of SOMAXCONN; returns the
// port, or 0 when it cannot listen there.
int bind_http(httplib::Server& http, const std::string& host, int port);

}  // namespace kz::cli::serve
