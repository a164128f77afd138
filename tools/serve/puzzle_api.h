// The puzzles of `kumalak serve` (docs/puzzles.md, docs/serve.md): a puzzle by id, the
// day's or a random one, and the check of an answer. The puzzle files are the shipped
// ones (core/puzzle_file.h shipped_puzzle_path), read once and kept; the player's
// rating stays in the browser, which sends it with an answer and gets it back updated
// (core/puzzle_rating.h), so the server keeps nothing per player.
#pragma once

#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// Adds GET /api/puzzle, POST /api/puzzle/check and POST /api/puzzle/try (a position of
// the player's own analysed game against the engine's move) to `router`. A check with the
// player's puzzle rating (`player`: {rating, deviation, volatility}) answers the rating
// after the attempt too (`player_after`, Glicko-2 against the puzzle's rating). Requests
// are checked like the rest of the API: 400 for a bad game, date, move or rating, 404 for
// an unknown id or a game without a puzzle file.
void add_puzzle_routes(ApiRouter& router);

}  // namespace kz::cli::serve
