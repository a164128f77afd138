// One game's rating evidence (POST /api/games/evidence, docs/serve.md): the human model's
// log-likelihoods of each side's moves at every rating of its grid, and how accurately
// the player played as the engine judges each move. Judging the moves is engine work (a
// search of 100 visits a move, about 3 s a game), so the engine queue does it
// (engine_queue.h) in a session of its own: one job per move, each with the game's own
// analysis player so that the moves are judged in order by one player exactly as
// analyze_game judges them, then one job for the human model's likelihoods and the
// answer. Other sessions' jobs go between two moves as between two plies of an analysis.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mcts/analysis.h"
#include "tools/rating_levels.h"

namespace kz::cli::serve {

using json = nlohmann::json;

// The game the evidence is about.
struct EvidenceGame {
  GameSpec spec = GameSpec::togyz();
  Position start = Position::start(GameSpec::togyz());
  std::vector<int> moves;  // as played, legal from `start`
  int colour = 0;          // the player's side: 0 White, 1 Black
};

// The first game of the record `text` in game `game` ("": the record's Variant tag, else
// Togyz) from `player`'s side (the White or Black tag's name). ApiError 400 for a record
// that holds no game, does not replay or names no such player.
EvidenceGame read_evidence_game(const std::string& text, const std::string& game,
                                const std::string& player);

// Throws ApiError 503: there is no human model for `spec`'s game.
[[noreturn]] void no_human_model(const GameSpec& spec);

// The answer for `g` from the human model's `likelihoods` of its moves and the player's
// `accuracy` (none: null): {"colour", "plies", "grid", "player", "opponent",
// "played_like", "accuracy"} (games_api.h's game_evidence_json).
json evidence_answer(const EvidenceGame& g, const GameRatingLikelihoods& likelihoods,
                     std::optional<double> accuracy);

// The answer for `g` once its moves are judged (`judged`: each ply's judgement, or none
// when the moves are not judged): nullopt when `ratings` has no human model for the game.
std::optional<json> evidence_result(RatingLevels* ratings, const EvidenceGame& g,
                                    const std::vector<MoveJudgement>& judged);

// A game's evidence as a session works it out in the engine queue.
struct EvidenceWork {
  EvidenceGame game;
  int visits = 0;      // each move judged with this many visits
  bool judge = false;  // the moves are judged (visits > 0, an engine to judge, a move)
  // The player judging the moves: made by the first job and used by each in turn (a
  // session runs one job at a time), dropped by the last.
  std::unique_ptr<Player> engine;
  // Guarded by the session table's mutex (the jobs read them as their job starts):
  std::vector<MoveJudgement> judged;                 // the moves judged so far, from the first
  Position at = Position::start(GameSpec::togyz());  // the position after them
  std::optional<json> answer;                        // the answer, once done
  bool no_model = false;  // done: the human model had no likelihoods for the game
  std::string failure;    // done: what the engine threw

  bool done() const { return answer || no_model || !failure.empty(); }
  // Whether the next job judges a move (the ply judged.size()); else it makes the answer.
  bool judging() const { return judge && judged.size() < game.moves.size(); }
};

}  // namespace kz::cli::serve
