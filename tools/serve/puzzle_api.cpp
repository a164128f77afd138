#include "tools/serve/puzzle_api.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/puzzle_title.h"
#include "mcts/advice.h"
#include "tools/move_words.h"
#include "tools/serve/request.h"
#include "tools/serve/views.h"

namespace kz::cli::serve {

namespace {

// The puzzle files, each read on first use and kept: a puzzle is then answered from
// memory (the page wants one in well under 200 ms).
class PuzzleLibrary {
 public:
  const PuzzleSet& set_for(const GameSpec& spec) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string key = spec.name();
    auto it = sets_.find(key);
    if (it == sets_.end()) {
      const std::string path = shipped_puzzle_path(spec);
      if (!why_not_a_file(path).empty())
        throw ApiError(404, i18n::tr("there are no puzzles for {game}", {{"game", key}}));
      PuzzleSet set;
      try {
        set = read_puzzle_file(path);
      } catch (const ParseError& e) {
        throw ApiError(500, i18n::tr("the puzzle file is damaged: {error}", {{"error", e.what()}}));
      }
      if (set.puzzles.empty())
        throw ApiError(404, i18n::tr("there are no puzzles for {game}", {{"game", key}}));
      it = sets_.emplace(key, std::move(set)).first;
    }
    return it->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, PuzzleSet> sets_;  // never erased: references stay valid
};

const Puzzle& find_puzzle(const PuzzleSet& set, const std::string& id) {
  for (const Puzzle& z : set.puzzles)
    if (z.id == id) return z;
  throw ApiError(404, i18n::tr("no puzzle '{id}'", {{"id", id}}));
}

json rating_json(const Glicko2Rating& r) {
  return {{"rating", r.rating}, {"deviation", r.deviation}, {"volatility", r.volatility}};
}

// `date`: the day whose puzzle it is, empty when it was asked by id or at random.
json puzzle_json(const PuzzleSet& set, const Puzzle& z, size_t index, const std::string& date) {
  return {{"id", z.id},
          {"game", set.spec.name()},
          {"position", z.position.to_string()},
          {"togyz", z.position.is_togyz()},
          {"npits", int(z.position.npits)},
          {"board", board_json(z.position)},
          {"theme", puzzle_theme_name(z.theme)},
          {"rating", z.rating},
          {"source", z.source},
          // In the language of the request (the page's menu) and a player's words: which
          // puzzle of the day or of the set, never its id or the file it came from.
          {"title", puzzle_heading(index, set.puzzles.size(), date)},
          {"index", index},
          {"count", set.puzzles.size()},
          // Where a player without a rating of this game starts (core/puzzle_rating.h):
          // the page shows it before the first attempt and sends it with it.
          {"new_player", rating_json(new_puzzle_player(set))}};
}

// The request's `player`: the puzzle rating the page keeps for its player, an object of
// three numbers {rating, deviation, volatility}; nothing when absent or null.
std::optional<Glicko2Rating> player_field(const json& b) {
  if (!b.contains("player") || b["player"].is_null()) return std::nullopt;
  const json& p = b["player"];
  const auto number = [&p](const char* name) {
    return p.is_object() && p.contains(name) && p[name].is_number() ? p[name].get<double>()
                                                                    : std::nan("");
  };
  const Glicko2Rating r{number("rating"), number("deviation"), number("volatility")};
  if (!is_sensible_puzzle_rating(r))
    throw ApiError(400,
                   i18n::tr("player: expected a puzzle rating: rating, deviation (0 to 350) and "
                            "volatility (0 to 1), as numbers"));
  return r;
}

}  // namespace

void add_puzzle_routes(ApiRouter& router) {
  auto library = std::make_shared<PuzzleLibrary>();
  router.add("GET", "/api/puzzle", [library](const json& b) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", "togyz"));
    const std::string id = str_field(b, "id", "", 32);
    const std::string date = str_field(b, "date", "", 10);
    const std::string random = str_field(b, "random", "", 20);
    if (int(!id.empty()) + int(!date.empty()) + int(!random.empty()) > 1)
      throw ApiError(400, i18n::tr("give id, date or random, one of them"));
    const PuzzleSet& set = library->set_for(spec);
    size_t index = 0;
    std::string day;
    if (!id.empty()) {
      index = size_t(&find_puzzle(set, id) - set.puzzles.data());
    } else if (!random.empty()) {
      const auto seed = int_field(b, "random");
      if (!seed || *seed < 0) throw ApiError(400, i18n::tr("random: expected a whole number seed"));
      index = size_t(std::mt19937_64(uint64_t(*seed))() % set.puzzles.size());
    } else {
      day = date.empty() ? utc_date_today() : date;
      index = daily_puzzle_index(day, set.puzzles.size());  // ParseError: 400
    }
    json j = puzzle_json(set, set.puzzles[index], index, day);
    if (!day.empty()) j["date"] = day;
    return j;
  });
  router.add("POST", "/api/puzzle/check", [library](const json& b) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", "togyz"));
    const std::string id = str_field(b, "id", "", 32);
    if (id.empty()) throw ApiError(400, i18n::tr("id: missing"));
    const PuzzleSet& set = library->set_for(spec);
    const Puzzle& z = find_puzzle(set, id);
    const int played = move_field(b, spec, z.position);
    const std::optional<Glicko2Rating> player = player_field(b);
    const int key = z.key_move();
    json line = json::array();
    for (int m : z.solution) line.push_back(m + 1);
    Position end = z.position;
    for (int m : z.solution) end.play(m);
    json answer{{"id", z.id},
                {"correct", played == key},
                {"played", played + 1},
                {"played_notation", format_move(z.position, played)},
                {"played_reason", explain_move(z.position, played)},
                {"solution", key + 1},
                {"solution_notation", format_move(z.position, key)},
                {"reason", explain_move(z.position, key)},
                {"line", line},
                {"line_text", line_notation(z.position, z.solution)},
                {"rating", z.rating},
                {"board_after", board_json(end)}};
    // The player's rating after this attempt: a game against an opponent of the
    // puzzle's rating, won when the key move was found.
    if (player)
      answer["player_after"] = rating_json(rate_puzzle_attempt(*player, z.rating, played == key));
    return answer;
  });
  // A mistake of the player's own game as a puzzle: the position before it and the
  // engine's move from the analysis; the answer is right when it is the engine's move.
  router.add("POST", "/api/puzzle/try", [](const json& b) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", "togyz"));
    const std::string text = str_field(b, "position", "");
    if (text.empty()) throw ApiError(400, i18n::tr("position: missing"));
    const Position pos = Position::parse(text, spec);
    if (pos.is_over()) throw ApiError(400, i18n::tr("position: the game is over"));
    json best_field = {{"move", b.contains("best") ? b["best"] : json()}};
    if (best_field["move"].is_null()) throw ApiError(400, i18n::tr("best: missing"));
    const int best = move_field(best_field, spec, pos);
    const int played = move_field(b, spec, pos);
    return json{{"correct", played == best},
                {"played", played + 1},
                {"played_notation", format_move(pos, played)},
                {"played_reason", explain_move(pos, played)},
                {"solution", best + 1},
                {"solution_notation", format_move(pos, best)},
                {"reason", explain_move(pos, best)}};
  });
}

}  // namespace kz::cli::serve
