#include "tools/serve/lang_api.h"

#include "core/i18n.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {

namespace {

std::string known_list() {
  std::string list;
  for (const std::string& code : i18n::languages()) list += (list.empty() ? "" : ", ") + code;
  return list;
}

}  // namespace

json catalog_json(const std::string& code) {
  for (char c : code)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      throw ApiError(400, "a language code is letters, digits, '-' or '_'");
  if (code.empty() || code.size() > 16) throw ApiError(400, "a language code is 1-16 characters");
  if (code == "en")
    return {{"lang", "en"}, {"nplurals", 2}, {"plural", "n != 1"}, {"messages", json::object()}};
  const i18n::Catalog* c = i18n::catalog(code);
  if (!c)
    throw ApiError(404, "no translation for language '" + code + "' (known: " + known_list() + ")");
  json messages = json::object();
  for (const auto& [msgid, entry] : c->entries()) {
    if (entry.plural_id.empty())
      messages[msgid] = entry.forms.empty() ? "" : entry.forms[0];
    else
      messages[msgid] = entry.forms;
  }
  return {{"lang", c->code()},
          {"nplurals", c->nplurals()},
          {"plural", c->plural_expression()},
          {"messages", messages}};
}

void add_language_routes(ApiRouter& router) {
  router.add("GET", "/api/lang", [](const json&) {
    return json{{"languages", i18n::languages()}};
  });
  router.add_raw(
      "GET", "/api/lang/",
      [](const ApiRequest& request, ApiResponse& response) {
        response.body = catalog_json(request.tail).dump();
        response.headers.emplace_back("Cache-Control", "no-cache");
      },
      /*with_tail=*/true);
}

}  // namespace kz::cli::serve
