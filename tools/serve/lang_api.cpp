#include "tools/serve/lang_api.h"

#include "core/i18n.h"
#include "tools/serve/http.h"

namespace kz::cli::serve {

namespace {

std::string known_list() {
  std::string list;
  for (const std::string& code : i18n::languages()) list += (list.empty() ? "" : ", ") + code;
  return list;
}

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

}  // namespace

void add_language_routes(httplib::Server& http) {
  http.Get("/api/lang", [](const httplib::Request&, httplib::Response& res) {
    guarded(res, [&] {
      res.set_content(json{{"languages", i18n::languages()}}.dump(), "application/json");
    });
  });
  http.Get(R"(/api/lang/([^/]*))", [](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      res.set_content(catalog_json(req.matches[1].str()).dump(), "application/json");
      res.set_header("Cache-Control", "no-cache");
    });
  });
}

std::string request_language(const httplib::Request& req) {
  // "kk, ru;q=0.8, en;q=0.5": the languages in the order given (the page sends one).
  const std::string header = req.get_header_value("Accept-Language");
  size_t start = 0;
  while (start < header.size() && start < 1024) {
    size_t end = header.find(',', start);
    if (end == std::string::npos) end = header.size();
    std::string item = header.substr(start, end - start);
    item = item.substr(0, item.find(';'));
    const size_t a = item.find_first_not_of(' ');
    const std::string code = a == std::string::npos ? "" : i18n::language_code(item.substr(a));
    if (code == "en" || i18n::catalog(code)) return code;
    start = end + 1;
  }
  return "en";
}

}  // namespace kz::cli::serve
