// The page's translations: the same compiled catalogs as the terminal's (core/i18n.h,
// tools/po/*.po) served as JSON. (The language a request is answered in: language_of,
// tools/serve/api_router.h.)
#pragma once

#include <string>

#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// GET /api/lang: {"languages": ["en", "kk", ...]}.
// GET /api/lang/{code}: {"lang", "nplurals", "plural" (the Plural-Forms expression of n),
// "messages": {msgid: translation, or [forms] for a plural message keyed by its singular
// id}}; "en" has no messages (English is the source). An unknown code is a 404 naming the
// known ones; a code that is not 1-16 letters, digits, '-' or '_' a 400.
void add_language_routes(ApiRouter& router);

// The JSON of GET /api/lang/{code} (above), for `kumalak catalog` and the static site's
// catalog files too. Throws ApiError (400, 404) as the call answers.
json catalog_json(const std::string& code);

}  // namespace kz::cli::serve
