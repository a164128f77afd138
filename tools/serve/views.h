// What `kumalak serve` sends the page, as JSON (docs/serve.md describes every field): the
// board, the engine's progress, a move, and a session's whole state. The hint inside the
// state is tools/hint_json.h's, the same object `kumalak hint --json` prints.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/position.h"
#include "mcts/player.h"
#include "tools/rating_levels.h"
#include "tools/serve/api_router.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {

// The board of `p`: pits, stores, tuzdyks, side to move, legal moves, whether it is over.
json board_json(const Position& p);
// A search in progress from `pos`: depth, nodes, W/D/L, margin, principal variation.
json progress_json(const Position& pos, const ThinkResult& r);
// Ply `ply` (1-based), `move` played from `before`: what it did.
json move_json(const Position& before, int move, size_t ply);
// What players of `rating` play in `pos` (the hint's "human"): the rating and the
// likeliest moves, at most three, with their probabilities.
json human_hint_json(const Position& pos, int rating, const std::vector<HumanMove>& moves);
// A side's estimated rating (the analysis' "played_like"): rating, low, high, and each of
// its moves' probability at that rating.
json played_like_json(const PlayedLike& like);
// The whole state of a session; `queue_ahead`: the jobs ahead of its queued one.
json state_json(const Session& s, std::optional<size_t> queue_ahead);

}  // namespace kz::cli::serve
