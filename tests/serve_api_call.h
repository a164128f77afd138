// A call of the API's router without HTTP, as the page's engine makes it
// (tools/wasm/page_api.cpp), for the serve tests that exercise a router directly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// The status and JSON body of `router`'s answer to `method` `path`, without HTTP, as the
// page's engine asks it: for a GET, `body`'s fields are the query's parameters (strings);
// for a POST, its text is the request's body. `lang`: the Accept-Language header.
inline std::pair<int, nlohmann::json> answer_json(
    const ApiRouter& router, const std::string& method, const std::string& path,
    const nlohmann::json& body = nlohmann::json::object(), const std::string& lang = "") {
  ApiRequest request;
  request.method = method;
  request.path = path;
  if (method == "GET")
    request.params = body;
  else
    request.body = body.dump();
  request.accept_language = lang;
  const ApiResponse answer = router.answer(std::move(request));
  return {answer.status, nlohmann::json::parse(answer.body)};
}

}  // namespace kz::cli::serve
