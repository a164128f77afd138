#include "tools/serve/http.h"

#include <sys/socket.h>

#include <memory>
#include <sstream>

#include "core/i18n.h"
#include "core/position.h"
#include "tools/json_text.h"
#include "web_assets.h"  // generated from tools/web/ by tools/embed_web.cmake

namespace kz::cli::serve {

namespace {

void error_reply(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json_text(json{{"error", message}}), "application/json");
}

// The headers that make a page cross-origin isolated (SharedArrayBuffer, so threads):
// its documents open no window of another site, and load nothing another site has not
// allowed.
void isolate(httplib::Response& res) {
  res.set_header("Cross-Origin-Opener-Policy", "same-origin");
  res.set_header("Cross-Origin-Embedder-Policy", "require-corp");
}

}  // namespace

void add_routes(httplib::Server& http, const ApiRouter& router) {
  for (const ApiRoute& route : router.routes()) {
    auto handler = [&router](const httplib::Request& req, httplib::Response& res) {
      ApiRequest request{req.method,     req.path, "",
                         json::object(), req.body, req.get_header_value("Accept-Language")};
      for (const auto& [name, value] : req.params) request.params[name] = value;
      const ApiResponse answer = router.answer(std::move(request));
      res.status = answer.status;
      res.set_content(answer.body, answer.content_type);
      for (const auto& [name, value] : answer.headers) res.set_header(name, value);
    };
    // cpp-httplib matches its patterns as regular expressions; the API's paths hold no
    // character that means anything there.
    const std::string pattern = route.with_tail ? route.path + "[^/]+" : route.path;
    if (route.method == "GET")
      http.Get(pattern, handler);
    else
      http.Post(pattern, handler);
  }
}

void add_page_routes(httplib::Server& http, const std::string& site) {
  auto serve = [isolated = !site.empty()](const web::Asset& asset) {
    return [&asset, isolated](const httplib::Request&, httplib::Response& res) {
      res.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type));
      res.set_header("Cache-Control", "no-cache");
      if (isolated) isolate(res);
    };
  };
  if (!site.empty()) {
    // The folder's files at their names; cpp-httplib refuses paths that climb out of it.
    http.set_mount_point("/", site);
    http.set_file_extension_and_mimetype_mapping("webmanifest", "application/manifest+json");
    http.set_file_request_handler([](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-cache");
      isolate(res);
    });
    // The Run view watches training runs on this server's disk, so the static site leaves
    // it out (tools/wasm/make_site.cmake); its files come from the page built in. They
    // share the site's other files (api.js sends the view's calls to this server), and
    // cpp-httplib answers from the folder first, so the site's own files win.
    for (const web::Asset& asset : web::kAssets)
      if (asset.path == "/run.html" || asset.path == "/run.js" || asset.path == "/run.css")
        http.Get(std::string(asset.path), serve(asset));
    return;
  }
  // Each file of tools/web/ at its own name, and index.html at "/" too. The paths are
  // fixed strings from the build, so a request can name no other file.
  for (const web::Asset& asset : web::kAssets) {
    http.Get(std::string(asset.path), serve(asset));
    if (asset.path == "/index.html") http.Get("/", serve(asset));
  }
}

std::string without_brotli(const std::string& accept) {
  std::string out;
  std::istringstream items(accept);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    item = item.substr(first, item.find_last_not_of(" \t") + 1 - first);
    if (item.substr(0, item.find_first_of(" \t;")) == "br") continue;
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

void configure_http(httplib::Server& http, int threads, bool local_only) {
  http.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  http.set_payload_max_length(kMaxBodyBytes);
  http.set_read_timeout(5, 0);
  http.set_write_timeout(5, 0);
  http.set_keep_alive_timeout(2);
  http.set_keep_alive_max_count(100);
  http.set_pre_routing_handler([local_only](const httplib::Request& req, httplib::Response& res) {
    if (local_only) {
      std::string host = req.get_header_value("Host");
      if (host.rfind("[::1]", 0) == 0)
        host = "::1";
      else
        host = host.substr(0, host.find(':'));
      if (!is_loopback(host)) {
        error_reply(res, 403, "this server answers to localhost only");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    // The request is the server's own object, passed const to the handlers: its
    // Accept-Encoding is the only thing changed, before the answer is compressed.
    auto& headers = const_cast<httplib::Request&>(req).headers;
    for (auto [it, end] = headers.equal_range("Accept-Encoding"); it != end; ++it)
      it->second = without_brotli(it->second);
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
                   "style-src 'self' 'unsafe-inline'; img-src 'self' data:");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string msg = res.status == 404   ? "no such page or API call: " + req.path
                      : res.status == 413 ? too_large_message()
                                          : "request refused";
    res.set_content(json_text(json{{"error", msg}}), "application/json");
  });
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        error_reply(res, 500, "internal error: " + what);
      });
}

int bind_http(httplib::Server& http, const std::string& host, int port) {
  // cpp-httplib listens with a backlog of 5 (compiled into Debian's library), and a burst
  // of new connections beyond that is reset; the socket is taken here, as it is made,
  // and its backlog raised after the bind.
  auto listen_fd = std::make_shared<int>(-1);
  http.set_socket_options([listen_fd](int fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    *listen_fd = fd;
  });
  if (port == 0) {
    port = http.bind_to_any_port(host);
    if (port < 0) port = 0;
  } else if (!http.bind_to_port(host, port)) {
    port = 0;
  }
  if (port > 0 && *listen_fd >= 0) ::listen(*listen_fd, SOMAXCONN);
  return port;
}

}  // namespace kz::cli::serve
