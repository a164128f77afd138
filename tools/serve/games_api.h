// A player's own games as the page keeps them (tools/web/your_games.js, docs/serve.md):
// what each game says of the player's rating in the human model's eyes, and the rating
// over all of them at once (nn/player_rating.h), so that the page can work through a
// thousand games one at a time in the background, keep each game's answer and ask for the
// estimate over all of them whenever a game is added. A game's evidence is engine work:
// ServeApi (api.h) queues it (game_evidence.h) and the page polls for it.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "mcts/player.h"
#include "tools/rating_levels.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// The most games POST /api/games/rating takes at once (a player's whole history on PlayOK
// is rarely more; the body's limit, kMaxBodyBytes, comes first at about 3,000).
inline constexpr size_t kMaxRatedGames = 20000;

// A game's evidence at once, on the calling thread, as POST /api/games/evidence's jobs
// work it out one move at a time in the engine queue: the first game of the record `text`
// in game `game` ("": the record's Variant tag, else Togyz) from `player`'s side (the
// White or Black tag's name): {"colour": "white" | "black", "plies", "grid", "player",
// "opponent" (the log-likelihoods of each side's moves at every rating of the grid,
// GameRatingLikelihoods), "played_like": {"rating", "low", "high"} | null, "accuracy":
// the player's accuracy (mcts/accuracy.h) judged by `engine` (analyze_game, new_game()
// first) at `visits` visits a move, as `kumalak analyze --player-report`; null without an
// engine, for visits 0, or a player with no judged move}. ApiError 400 for a record that
// does not replay or names no such player, 503 when `ratings` has no human model for the
// game.
json game_evidence_json(RatingLevels* ratings, Player* engine, int visits, const std::string& text,
                        const std::string& game, const std::string& player);

// The visits a move POST /api/games/evidence judges with by default (the terminal's
// --player-report's) and at most.
inline constexpr int kEvidenceVisits = 100;
inline constexpr int kMaxEvidenceVisits = 1000;

// POST /api/games/rating's answer for the games' log-likelihoods `games` (an array of
// {"player": [...], "opponent": [...]}, each as game_evidence_json gave it): {"rating",
// "low", "high", "games"}, the estimate over all of them with its 95 % interval. ApiError
// 400 for vectors that are not numbers or not the grid's length, 503 without a model.
json games_rating_json(RatingLevels* ratings, const std::string& game, const json& games);

// Adds POST /api/games/rating ({"game", "games"}) to `router`, answered with `ratings`
// (null: no human model). POST and GET /api/games/evidence are ServeApi's (api.h).
void add_games_routes(ApiRouter& router, std::shared_ptr<RatingLevels> ratings);

}  // namespace kz::cli::serve
