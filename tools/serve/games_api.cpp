#include "tools/serve/games_api.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/accuracy.h"
#include "mcts/analysis.h"
#include "tools/serve/request.h"

namespace kz::cli::serve {

namespace {

using i18n::tr;

GameSpec spec_of(const std::string& game, const std::string& variant) {
  const std::string name = !game.empty() ? game : !variant.empty() ? variant : "togyz";
  return GameSpec::parse(name);  // a ParseError (400) names an unknown game
}

[[noreturn]] void no_human_model(const GameSpec& spec) {
  throw ApiError(503, tr("there is no human model for {game}, so no rating can be estimated",
                         {{"game", spec.name()}}));
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

json numbers_json(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(std::isfinite(x) ? json(x) : json());
  return out;
}

}  // namespace

json game_evidence_json(RatingLevels* ratings, Player* engine, int visits, const std::string& text,
                        const std::string& game, const std::string& player) {
  std::istringstream in(text);
  const std::vector<GameRecord> games = read_pgn(in, tr("the uploaded record"));
  if (games.empty()) throw ApiError(400, tr("the record holds no game"));
  const GameRecord& g = games.front();
  const GameSpec spec = spec_of(game, g.tag("Variant"));
  int colour;
  if (g.tag("White") == player)
    colour = 0;
  else if (g.tag("Black") == player)
    colour = 1;
  else
    throw ApiError(400, tr("{game}: '{player}' plays neither side",
                           {{"game", g.describe()}, {"player", player}}));
  const Position start = record_start(g, spec);
  const ReplayResult replayed = replay_record(g, start);  // a ParseError is a 400
  if (!ratings) no_human_model(spec);
  const std::optional<GameRatingLikelihoods> evidence =
      ratings->game_likelihoods(spec, start, replayed.moves);
  if (!evidence) no_human_model(spec);
  const std::optional<PlayedLike>& like = evidence->played_like[size_t(colour)];
  std::optional<double> accuracy;
  if (engine && visits > 0 && !replayed.moves.empty()) {
    ThinkLimits limits;
    limits.nodes = visits;
    accuracy = game_accuracy(analyze_game(*engine, start, replayed.moves, limits), colour);
  }
  return {
      {"accuracy", accuracy ? json(*accuracy) : json()},

      {"colour", colour == 0 ? "white" : "black"},
      {"plies", replayed.moves.size()},
      {"grid", evidence->grid},
      {"player", numbers_json(evidence->loglik[size_t(colour)])},
      {"opponent", numbers_json(evidence->loglik[size_t(1 - colour)])},
      {"played_like",
       like ? json{{"rating", like->rating}, {"low", like->low}, {"high", like->high}} : json()}};
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

void add_games_routes(ApiRouter& router, std::shared_ptr<RatingLevels> ratings,
                      PlayerFactory players) {
  router.add("POST", "/api/games/evidence", [ratings, players](const json& b) {
    const std::string text = str_field(b, "pgn", "", kMaxBodyBytes);
    if (text.empty()) throw ApiError(400, tr("'pgn' is missing: give the text of a game record"));
    const long visits = int_field(b, "visits").value_or(kEvidenceVisits);
    if (visits < 0 || visits > kMaxEvidenceVisits)
      throw ApiError(400, tr("'visits' must be 0..{max}", {{"max", kMaxEvidenceVisits}}));
    const std::string game = str_field(b, "game", "");
    std::unique_ptr<Player> engine;
    if (players && visits > 0) {
      std::istringstream in(text);
      const std::vector<GameRecord> games = read_pgn(in, tr("the uploaded record"));
      if (!games.empty())
        engine =
            players(Task::kAnalysis, spec_of(game, games.front().tag("Variant")), Level::kHard);
    }
    return game_evidence_json(ratings.get(), engine.get(), int(visits), text, game,
                              str_field(b, "player", ""));
  });
  router.add("POST", "/api/games/rating", [ratings](const json& b) {
    return games_rating_json(ratings.get(), str_field(b, "game", ""),
                             b.contains("games") ? b["games"] : json::array());
  });
}

}  // namespace kz::cli::serve
