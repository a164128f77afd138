// The opening explorer of `kumalak serve` (docs/openings.md, docs/serve.md): for a
// position, the moves played there in the explorer's games with their counts, the
// mover's wins/draws/losses and the movers' mean rating, for the source the page chose.
// The explorer file is the shipped one (core/opening_explorer.h shipped_explorer_path),
// read once and kept; the page keeps the line it explores, so the server keeps nothing
// per player.
#pragma once

#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// Adds GET /api/openings to `router`: parameters `game` (default togyz), `position` (the
// rules pages' position string; default the start), `source` (all, players, rated,
// unrated, titled, engine; default all) and `band` (below-1200, 1200-1499, 1500-1799,
// 1800-up, with source rated or all). 400 for a bad position, source or band; 404 in a
// player's words for a game without an explorer file (Kalah, Bantumi).
void add_openings_routes(ApiRouter& router);

}  // namespace kz::cli::serve
