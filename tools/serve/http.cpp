#include "tools/serve/http.h"

#include <sys/socket.h>

#include <memory>

#include "core/i18n.h"
#include "core/position.h"
#include "tools/serve/lang_api.h"
#include "web_assets.h"  // generated from tools/web/ by tools/embed_web.cmake

namespace kz::cli::serve {

void error_reply(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json{{"error", message}}.dump(), "application/json");
}

void guarded(httplib::Response& res, const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiError& e) {
    error_reply(res, e.status, e.what());
  } catch (const ParseError& e) {
    error_reply(res, 400, e.what());
  } catch (const json::exception& e) {
    error_reply(res, 400, std::string("malformed JSON: ") + e.what());
  } catch (const std::exception& e) {
    error_reply(res, 500, std::string("internal error: ") + e.what());
  }
}

json params_of(const httplib::Request& req) {
  json j = json::object();
  for (const auto& [k, v] : req.params) {
    if (v.size() > 200)
      throw ApiError(400, i18n::tr("'{field}' is too long (at most {max} characters)",
                                   {{"field", k}, {"max", 200}}));
    j[k] = v;
  }
  return j;
}

void add_api_route(httplib::Server& http, const std::string& method, const std::string& path,
                   ApiHandler fn) {
  auto handler = [fn = std::move(fn)](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      // The words in the answer (the hints' reasons) in the language the page asked for.
      const i18n::ScopedLanguage language(request_language(req));
      json body;
      if (req.method == "GET") {
        body = params_of(req);
      } else {
        // Refused here, inside the request's language: guarded() answers outside it.
        try {
          body = req.body.empty() ? json::object() : json::parse(req.body);
        } catch (const json::parse_error& e) {
          throw ApiError(400, i18n::tr("malformed JSON: {error}", {{"error", e.what()}}));
        }
        if (!body.is_object())
          throw ApiError(400, i18n::tr("the request body must be a JSON object"));
      }
      res.set_content(fn(body).dump(), "application/json");
    });
  };
  if (method == "GET")
    http.Get(path, handler);
  else
    http.Post(path, handler);
}

void add_page_routes(httplib::Server& http) {
  auto serve = [](const web::Asset& asset) {
    return [&asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type));
      res.set_header("Cache-Control", "no-cache");
    };
  };
  // Each file of tools/web/ at its own name, and index.html at "/" too. The paths are
  // fixed strings from the build, so a request can name no other file.
  for (const web::Asset& asset : web::kAssets) {
    http.Get(std::string(asset.path), serve(asset));
    if (asset.path == "/index.html") http.Get("/", serve(asset));
  }
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
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string msg = res.status == 404   ? "no such page or API call: " + req.path
                      : res.status == 413 ? "request too large (at most 256 KiB)"
                                          : "request refused";
    res.set_content(json{{"error", msg}}.dump(), "application/json");
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
