// The games of an uploaded record file (docs/serve.md): POST /api/record/games lists
// them, so that the page can offer a chooser for a file of many games (a player's PlayOK
// export) before POST /api/load takes the one chosen by its `index`.
#pragma once

#include <string>

#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// {"games": [{"index", "white", "black", "white_elo", "black_elo", "result", "date",
// "event", "plies", "error"}]}: every game of the record `text`, in file order; `plies`
// is how many of its moves replay under the rules of `game` (its own Variant tag first),
// and `error` (absent when it replays whole) says where it stops and why, in the
// request's language. A text that is no record at all is a ParseError (400).
// `with_texts` (the page's own game store, tools/web/your_games.js): each game that
// replays also has "text", its own record as the project writes it (write_pgn), and
// "opening", its first kOpeningPlies moves in notation; the rating tags are read as
// "white_rating"/"black_rating" (null when absent, unknown as "?", or not a plausible
// rating: core/rated_games.h); a game without a result is not taken ("error" says so).
json record_games_json(const std::string& text, const std::string& game, bool with_texts = false);

// The plies a game's "opening" lists (record_games_json).
inline constexpr int kOpeningPlies = 4;

// Adds POST /api/record/games ({"pgn", "game", "texts"}) to `router`.
void add_record_routes(ApiRouter& router);

}  // namespace kz::cli::serve
