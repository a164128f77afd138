#include "tools/serve/record_api.h"

#include <sstream>

#include "core/i18n.h"
#include "core/notation.h"
#include "core/rated_games.h"
#include "tools/serve/request.h"

namespace kz::cli::serve {

namespace {

json rating_or_null(const GameRecord& g, int side) {
  const SideRating r = side_rating(g, side);
  return r.rated() ? json(r.rating) : json();
}

}  // namespace

json record_games_json(const std::string& text, const std::string& game, bool with_texts) {
  std::istringstream in(text);
  const std::vector<GameRecord> games = read_pgn(in, i18n::tr("the uploaded record"));
  json list = json::array();
  for (const GameRecord& g : games) {
    json entry = {{"index", g.index},
                  {"white", g.tag("White")},
                  {"black", g.tag("Black")},
                  {"white_elo", g.tag("WhiteElo")},
                  {"black_elo", g.tag("BlackElo")},
                  {"result", g.tag("Result", g.result)},
                  {"date", g.tag("Date")},
                  {"event", g.tag("Event")}};
    try {
      const std::string variant = g.tag("Variant");
      const GameSpec spec = GameSpec::parse(!variant.empty() ? variant
                                            : !game.empty()  ? game
                                                             : "togyz");
      const Position start = record_start(g, spec);
      const ReplayResult replayed = replay_record(g, start);
      entry["plies"] = replayed.moves.size();
      if (with_texts) {
        entry["white_rating"] = rating_or_null(g, 0);
        entry["black_rating"] = rating_or_null(g, 1);
        entry["time"] = g.tag("Time");
        entry["time_control"] = g.tag("TimeControl");
        if (g.result == "*" && g.tag("Result", "*") == "*")
          throw ParseError(i18n::tr("{game}: the record has no result", {{"game", g.describe()}}));
        entry["text"] = write_pgn(g.tags, start, replayed.moves);
        std::string opening;
        Position pos = start;
        for (size_t i = 0; i < replayed.moves.size() && i < size_t(kOpeningPlies); ++i) {
          if (!opening.empty()) opening += ' ';
          opening += format_move(pos, replayed.moves[i]);
          pos.play(replayed.moves[i]);
        }
        entry["opening"] = opening;
      }
    } catch (const std::exception& e) {
      entry["plies"] = 0;
      entry["error"] = e.what();
    }
    list.push_back(entry);
  }
  return {{"games", list}};
}

void add_record_routes(ApiRouter& router) {
  router.add("POST", "/api/record/games", [](const json& b) {
    const std::string text = str_field(b, "pgn", "", kMaxBodyBytes);
    if (text.empty()) throw ApiError(400, i18n::tr("the file is empty"));
    const bool with_texts =
        b.contains("texts") && b["texts"].is_boolean() && b["texts"].get<bool>();
    return record_games_json(text, str_field(b, "game", ""), with_texts);
  });
}

}  // namespace kz::cli::serve
