// The opening explorer of `kumalak serve` (docs/openings.md, docs/serve.md): for a
// position, the moves played there in the explorer's games with their counts, the
// mover's wins/draws/losses and the movers' mean rating, for the source the page chose.
// The explorer file is the shipped one (core/opening_explorer.h shipped_explorer_path),
// read once and kept; the page keeps the line it explores, so the server keeps nothing
// per player. Beside it, the engine's and the human model's view of the same position,
// and the same explorer over a file of the player's own games ("my openings").
#pragma once

#include <functional>
#include <memory>

#include "core/position.h"
#include "mcts/player.h"
#include "tools/rating_levels.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// The engine's short search of an explored position: the hard level's engine for
// analysis (the network MCTS where the game has a model) at the hard level's own 1000
// visits, so that the column says what the hard level sees. On the 2-core VM it takes
// about 0.01 s natively, some 0.02-0.05 s with the human model's column (docs/openings.md
// has the measurement), so a few hundred visits would save nothing worth the noisier
// values of the moves the search visits least.
inline constexpr int64_t kOpeningsEngineVisits = 1000;
inline constexpr double kOpeningsEngineSeconds = 2.0;  // a guard for a very slow machine
// The human model's rating when the page names none.
inline constexpr int kOpeningsDefaultRating = 1500;

// What the engine columns need from the server's engine; each part may be missing (then
// its column is null in the answer).
struct OpeningsEngine {
  // One search of `pos` at the fixed budget above, every legal move in its `moves`.
  std::function<ThinkResult(const GameSpec& spec, const Position& pos)> search;
  // The human model: each legal move's probability at a rating.
  std::shared_ptr<RatingLevels> ratings;
  // The call itself computes what is not kept (never `pending`): a host without threads
  // (the page's one-thread engine), where nothing else could, and where the search
  // starts no thread a waiting call would hold up.
  bool search_in_call = false;
};

// Adds to `router`:
// - GET /api/openings: parameters `game` (default togyz), `position` (the rules pages'
//   position string; default the start), `source` (all, players, rated, unrated, titled,
//   engine; default all) and `band` (below-1200, 1200-1499, 1500-1799, 1800-up, with
//   source rated or all). 400 for a bad position, source or band; 404 in a player's
//   words for a game without an explorer file (Kalah, Bantumi).
// - GET /api/openings/engine: `game`, `position` as above and `rating` (default 1500):
//   every legal move with the mover's win chance after it from `engine`'s search, the
//   engine's best move marked, and each move's probability at the rating from the human
//   model. Kept per position (and rating); what is not kept yet is computed on a thread
//   of the call's own while the answer says `pending` (its columns null): the page asks
//   again, and no request ever waits for a search (but with `search_in_call`). 400 for a bad
//   position, a finished game or a rating outside the model's range.
// - POST /api/openings/games: {game, pgn (a file of records), player ("" = the name
//   playing most games), colour (white, black, both), position}: the answer of GET
//   /api/openings over the player's own games (tools/serve/player_openings.h), each move
//   with the player's own counts too. The last file's explorer is kept (keyed by a hash
//   of the text and the player), so walking its tree does not build it again. 400 for a
//   text that is not records, a file without the player's games; a game that does not
//   replay is left out and named (its number and line) in `about.skipped`.
void add_openings_routes(ApiRouter& router, OpeningsEngine engine = {});

}  // namespace kz::cli::serve
