#include "tools/serve/games_api.h"

#include <cmath>
#include <vector>

#include "core/i18n.h"
#include "mcts/analysis.h"
#include "tools/serve/game_evidence.h"
#include "tools/serve/request.h"

namespace kz::cli::serve {

namespace {

using i18n::tr;

GameSpec spec_of(const std::string& game, const std::string& variant) {
  const std::string name = !game.empty() ? game : !variant.empty() ? variant : "togyz";
  return GameSpec::parse(name);  // a ParseError (400) names an unknown game
}

// One game's vector of log-likelihoods: empty, or numbers (finite or -inf are both
// what a likelihood can be; the page stores -inf as null, read back as -inf).
std::vector<double> loglik_field(const json& game, const char* name, size_t index) {
  std::vector<double> out;
  if (!game.contains(name) || game[name].is_null()) return out;
  const json& v = game[name];
  if (!v.is_array())
    throw ApiError(400, tr("game {n}: '{field}' must be an array of numbers",
                           {{"n", index + 1}, {"field", name}}));
  out.reserve(v.size());
  for (const json& x : v) {
    if (x.is_null())
      out.push_back(-INFINITY);
    else if (x.is_number())
      out.push_back(x.get<double>());
    else
      throw ApiError(400, tr("game {n}: '{field}' must be an array of numbers",
                             {{"n", index + 1}, {"field", name}}));
  }
  return out;
}

}  // namespace

json game_evidence_json(RatingLevels* ratings, Player* engine, int visits, const std::string& text,
                        const std::string& game, const std::string& player) {
  const EvidenceGame g = read_evidence_game(text, game, player);
  if (!ratings) no_human_model(g.spec);
  std::vector<MoveJudgement> judged;
  if (engine && visits > 0 && !g.moves.empty()) {
    ThinkLimits limits;
    limits.nodes = visits;
    judged = analyze_game(*engine, g.start, g.moves, limits).moves;
  }
  const std::optional<json> answer = evidence_result(ratings, g, judged);
  if (!answer) no_human_model(g.spec);
  return *answer;
}

json games_rating_json(RatingLevels* ratings, const std::string& game, const json& games) {
  const GameSpec spec = spec_of(game, "");
  if (!games.is_array()) throw ApiError(400, tr("'games' must be an array of games"));
  if (games.size() > kMaxRatedGames)
    throw ApiError(400, tr("at most {n} games at once", {{"n", kMaxRatedGames}}));
  std::vector<PlayerGameLikelihoods> list;
  list.reserve(games.size());
  for (size_t i = 0; i < games.size(); ++i) {
    if (!games[i].is_object()) throw ApiError(400, tr("'games' must be an array of games"));
    list.push_back({loglik_field(games[i], "player", i), loglik_field(games[i], "opponent", i)});
  }
  if (!ratings) no_human_model(spec);
  std::optional<ManyGamesRating> r;
  try {
    r = ratings->rating_over_games(spec, list);
  } catch (const std::invalid_argument& e) {
    throw ApiError(400, e.what());
  }
  if (!r) no_human_model(spec);
  return {{"rating", r->rating}, {"low", r->low}, {"high", r->high}, {"games", r->games}};
}

void add_games_routes(ApiRouter& router, std::shared_ptr<RatingLevels> ratings) {
  router.add("POST", "/api/games/rating", [ratings](const json& b) {
    return games_rating_json(ratings.get(), str_field(b, "game", ""),
                             b.contains("games") ? b["games"] : json::array());
  });
}

}  // namespace kz::cli::serve
