// The JSON API of `kumalak serve` apart from any transport: a table of calls (method and
// path) and the one way a request is answered, with its refusals. The HTTP server
// (tools/serve/http.h) hands it requests from the network; the page's WebAssembly engine
// (tools/wasm/page_api.cpp) hands it the page's own requests without a network, so both
// answer every call with the same code, the same checks and the same words.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kz::cli::serve {

using json = nlohmann::json;

// A game record is about 4 KiB; a player's PlayOK export of a thousand games fits.
inline constexpr size_t kMaxBodyBytes = 4 * 1024 * 1024;
inline constexpr size_t kMaxParamChars = 200;  // one GET parameter's value

// A request the API refuses: the HTTP status and a message that says what is wrong.
struct ApiError : std::runtime_error {
  ApiError(int status, const std::string& message) : std::runtime_error(message), status(status) {}
  int status;
};

// One request as the transports pass it on.
struct ApiRequest {
  std::string method;  // "GET" or "POST"
  std::string path;    // "/api/state"
  // For a route that takes the rest of the path (ApiRouter::add's `with_tail`): that rest.
  std::string tail;
  json params = json::object();  // GET: the query's parameters, each a string
  std::string body;              // POST: a JSON object's text (empty: {})
  // The Accept-Language header's text: the answer's words are in its first language
  // that has a catalog, else English (language_of).
  std::string accept_language;
};

struct ApiResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
};

// A call that answers a JSON object, given the request's parameters (GET) or body (POST).
using ApiHandler = std::function<json(const json& request)>;
// A call that answers anything else (a file), given the whole request.
using ApiRawHandler = std::function<void(const ApiRequest& request, ApiResponse& response)>;

struct ApiRoute {
  std::string method;
  std::string path;
  bool with_tail = false;  // the path is a prefix: "/api/lang/" answers "/api/lang/kk"
  ApiRawHandler handler;
};

class ApiRouter {
 public:
  // A JSON call at `method` `path`: the request's parameters or body as a JSON object
  // (400 for a body that is not one, or a parameter longer than kMaxParamChars), the
  // handler's object as the answer.
  void add(const std::string& method, const std::string& path, ApiHandler handler);
  // Any other call; `with_tail`: `path` ends in '/' and the request's path goes on with
  // one more part (no '/'), given to the handler as `tail`.
  void add_raw(const std::string& method, const std::string& path, ApiRawHandler handler,
               bool with_tail = false);

  // The answer to `request`: its route's, with what a handler throws answered as
  // guarded() does, inside the request's language; 404 when no route takes it, 413 for
  // a body over kMaxBodyBytes.
  ApiResponse answer(ApiRequest request) const;

  const std::vector<ApiRoute>& routes() const { return routes_; }

 private:
  std::vector<ApiRoute> routes_;
};

// Runs `f`, answering what it throws: an ApiError with its status, a ParseError or
// malformed JSON with 400, anything else with 500 "internal error: ...".
void guarded(ApiResponse& response, const std::function<void()>& f);
// {"error": message} with `status`.
void error_response(ApiResponse& response, int status, const std::string& message);

// The answer to a body over kMaxBodyBytes.
std::string too_large_message();

// A GET's parameters as a handler reads them: an object of strings, none longer than
// kMaxParamChars; else an ApiError 400.
json checked_params(const json& params);

// The language of an Accept-Language header's text ("kk, ru;q=0.8"): its first language
// that has a catalog, else "en".
std::string language_of(const std::string& accept_language);

}  // namespace kz::cli::serve
