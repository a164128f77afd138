#include "tools/serve/game_evidence.h"

#include <cmath>
#include <sstream>

#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/accuracy.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {

namespace {

using i18n::tr;

json numbers_json(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(std::isfinite(x) ? json(x) : json());
  return out;
}

}  // namespace

void no_human_model(const GameSpec& spec) {
  throw ApiError(503, tr("there is no human model for {game}, so no rating can be estimated",
                         {{"game", spec.name()}}));
}

EvidenceGame read_evidence_game(const std::string& text, const std::string& game,
                                const std::string& player) {
  std::istringstream in(text);
  const std::vector<GameRecord> games = read_pgn(in, tr("the uploaded record"));
  if (games.empty()) throw ApiError(400, tr("the record holds no game"));
  const GameRecord& g = games.front();
  const std::string variant = g.tag("Variant");
  // A ParseError (400) names an unknown game.
  const GameSpec spec = GameSpec::parse(!game.empty()      ? game
                                        : !variant.empty() ? variant
                                                           : "togyz");
  EvidenceGame out{spec, Position::start(spec), {}, 0};
  if (g.tag("White") == player)
    out.colour = 0;
  else if (g.tag("Black") == player)
    out.colour = 1;
  else
    throw ApiError(400, tr("{game}: '{player}' plays neither side",
                           {{"game", g.describe()}, {"player", player}}));
  out.start = record_start(g, spec);
  out.moves = replay_record(g, out.start).moves;  // a ParseError is a 400
  return out;
}

json evidence_answer(const EvidenceGame& g, const GameRatingLikelihoods& likelihoods,
                     std::optional<double> accuracy) {
  const std::optional<PlayedLike>& like = likelihoods.played_like[size_t(g.colour)];
  return {
      {"accuracy", accuracy ? json(*accuracy) : json()},
      {"colour", g.colour == 0 ? "white" : "black"},
      {"plies", g.moves.size()},
      {"grid", likelihoods.grid},
      {"player", numbers_json(likelihoods.loglik[size_t(g.colour)])},
      {"opponent", numbers_json(likelihoods.loglik[size_t(1 - g.colour)])},
      {"played_like",
       like ? json{{"rating", like->rating}, {"low", like->low}, {"high", like->high}} : json()}};
}

std::optional<json> evidence_result(RatingLevels* ratings, const EvidenceGame& g,
                                    const std::vector<MoveJudgement>& judged) {
  if (!ratings) return std::nullopt;
  const std::optional<GameRatingLikelihoods> likelihoods =
      ratings->game_likelihoods(g.spec, g.start, g.moves);
  if (!likelihoods) return std::nullopt;
  std::optional<double> accuracy;
  if (!judged.empty()) {
    GameAnalysis analysis;
    analysis.moves = judged;
    accuracy = game_accuracy(analysis, g.colour);
  }
  return evidence_answer(g, *likelihoods, accuracy);
}

}  // namespace kz::cli::serve
