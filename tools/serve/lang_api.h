// The page's translations: the same compiled catalogs as the terminal's (core/i18n.h,
// tools/po/*.po) served as JSON, and the language an API request is answered in.
#pragma once

#include <httplib.h>

#include <string>

namespace kz::cli::serve {

// GET /api/lang: {"languages": ["en", "kk", ...]}.
// GET /api/lang/{code}: {"lang", "nplurals", "plural" (the Plural-Forms expression of n),
// "messages": {msgid: translation, or [forms] for a plural message keyed by its singular
// id}}; "en" has no messages (English is the source). An unknown code is a 404 naming the
// known ones; a code that is not 1-16 letters, digits, '-' or '_' a 400.
void add_language_routes(httplib::Server& http);

// The language of an API request: the first language of its Accept-Language header (the
// page sends the one chosen in its menu) that has a catalog, else English.
std::string request_language(const httplib::Request& req);

}  // namespace kz::cli::serve
