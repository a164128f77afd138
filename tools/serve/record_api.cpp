#include "tools/serve/record_api.h"

#include <sstream>

#include "core/i18n.h"
#include "core/notation.h"
#include "tools/serve/request.h"

namespace kz::cli::serve {

json record_games_json(const std::string& text, const std::string& game) {
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
      const ReplayResult replayed = replay_record(g, record_start(g, spec));
      entry["plies"] = replayed.moves.size();
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
    return record_games_json(text, str_field(b, "game", ""));
  });
}

}  // namespace kz::cli::serve
