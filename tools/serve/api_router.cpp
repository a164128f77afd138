#include "tools/serve/api_router.h"

#include "core/i18n.h"
#include "core/position.h"
#include "tools/json_text.h"

namespace kz::cli::serve {

json checked_params(const json& params) {
  if (!params.is_object()) throw ApiError(400, i18n::tr("the request body must be a JSON object"));
  for (const auto& [name, value] : params.items()) {
    if (!value.is_string())
      throw ApiError(
          400, i18n::tr("malformed JSON: {error}", {{"error", "'" + name + "' is not a string"}}));
    if (value.get_ref<const std::string&>().size() > kMaxParamChars)
      throw ApiError(400, i18n::tr("'{field}' is too long (at most {max} characters)",
                                   {{"field", name}, {"max", kMaxParamChars}}));
  }
  return params;
}

namespace {

// A POST's body as the handler reads it: a JSON object ({} when empty).
json parsed_body(const std::string& body) {
  if (body.empty()) return json::object();
  json parsed;
  try {
    parsed = json::parse(body);
  } catch (const json::parse_error& e) {
    throw ApiError(400, i18n::tr("malformed JSON: {error}", {{"error", e.what()}}));
  }
  if (!parsed.is_object()) throw ApiError(400, i18n::tr("the request body must be a JSON object"));
  return parsed;
}

bool takes(const ApiRoute& route, const ApiRequest& request) {
  if (route.method != request.method) return false;
  if (!route.with_tail) return route.path == request.path;
  return request.path.size() > route.path.size() &&
         request.path.compare(0, route.path.size(), route.path) == 0 &&
         request.path.find('/', route.path.size()) == std::string::npos;
}

}  // namespace

void error_response(ApiResponse& response, int status, const std::string& message) {
  response.status = status;
  response.body = json_text(json{{"error", message}});
  response.content_type = "application/json";
  response.headers.clear();
}

void guarded(ApiResponse& response, const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiError& e) {
    error_response(response, e.status, e.what());
  } catch (const ParseError& e) {
    error_response(response, 400, e.what());
  } catch (const json::exception& e) {
    error_response(response, 400, std::string("malformed JSON: ") + e.what());
  } catch (const std::exception& e) {
    error_response(response, 500, std::string("internal error: ") + e.what());
  }
}

void ApiRouter::add(const std::string& method, const std::string& path, ApiHandler handler) {
  add_raw(method, path,
          [handler = std::move(handler)](const ApiRequest& request, ApiResponse& response) {
            const json input = request.method == "GET" ? checked_params(request.params)
                                                       : parsed_body(request.body);
            response.body = json_text(handler(input));
            response.content_type = "application/json";
          });
}

void ApiRouter::add_raw(const std::string& method, const std::string& path, ApiRawHandler handler,
                        bool with_tail) {
  routes_.push_back({method, path, with_tail, std::move(handler)});
}

ApiResponse ApiRouter::answer(ApiRequest request) const {
  ApiResponse response;
  for (const ApiRoute& route : routes_) {
    if (!takes(route, request)) continue;
    if (request.body.size() > kMaxBodyBytes) {
      error_response(response, 413, too_large_message());
      return response;
    }
    if (route.with_tail) request.tail = request.path.substr(route.path.size());
    guarded(response, [&] {
      // The words in the answer (errors, the hints' reasons) in the language asked for;
      // refusals are made inside it, since guarded() answers outside.
      const i18n::ScopedLanguage language(language_of(request.accept_language));
      route.handler(request, response);
    });
    return response;
  }
  error_response(response, 404, "no such page or API call: " + request.path);
  return response;
}

std::string too_large_message() {
  return "request too large (at most " + std::to_string(kMaxBodyBytes / (1024 * 1024)) + " MiB)";
}

std::string language_of(const std::string& accept_language) {
  // "kk, ru;q=0.8, en;q=0.5": the languages in the order given (the page sends one).
  size_t start = 0;
  while (start < accept_language.size() && start < 1024) {
    size_t end = accept_language.find(',', start);
    if (end == std::string::npos) end = accept_language.size();
    std::string item = accept_language.substr(start, end - start);
    item = item.substr(0, item.find(';'));
    const size_t a = item.find_first_not_of(' ');
    const std::string code = a == std::string::npos ? "" : i18n::language_code(item.substr(a));
    if (code == "en" || i18n::catalog(code)) return code;
    start = end + 1;
  }
  return "en";
}

}  // namespace kz::cli::serve
