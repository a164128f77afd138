#include "tools/serve/openings_api.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "core/opening_explorer.h"
#include "tools/hint_json.h"
#include "tools/serve/request.h"
#include "tools/serve/views.h"

namespace kz::cli::serve {

namespace {

// What the metadata says of the games behind the file, by who played them: the page
// names its sources with these counts.
struct ExplorerFile {
  OpeningExplorer explorer;
  json about;  // {online, titled, engine: games used; created_utc}
};

// The explorer files, each read on first use and kept: a query is then a binary search
// in memory (docs/openings.md: a lookup takes well under a millisecond).
class ExplorerLibrary {
 public:
  const ExplorerFile& file_for(const GameSpec& spec) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string key = spec.name();
    auto it = files_.find(key);
    if (it == files_.end()) {
      const std::string path = shipped_explorer_path(spec);
      if (!why_not_a_file(path).empty())
        throw ApiError(404, i18n::tr("Opening statistics exist for Togyz Kumalak only."));
      ExplorerFile file;
      try {
        file.explorer = OpeningExplorer::read(path);
        file.about = about_json(json::parse(file.explorer.metadata_json()));
      } catch (const std::exception& e) {
        throw ApiError(500, i18n::tr("the opening statistics file is damaged: {error}",
                                     {{"error", e.what()}}));
      }
      if (!(file.explorer.game() == spec))
        throw ApiError(404, i18n::tr("Opening statistics exist for Togyz Kumalak only."));
      it = files_.emplace(key, std::move(file)).first;
    }
    return it->second;
  }

 private:
  static json about_json(const json& meta) {
    int64_t online = 0, titled = 0, engine = 0;
    for (const json& s : meta.value("sources", json::array())) {
      const int64_t used = s.value("used", int64_t(0));
      const std::string label = s.value("label", "");
      (label == "titled" ? titled : label == "engine" ? engine : online) += used;
    }
    return {{"online", online},
            {"titled", titled},
            {"engine", engine},
            {"created_utc", meta.value("created_utc", "")}};
  }

  std::mutex mutex_;
  std::map<std::string, ExplorerFile> files_;  // never erased: references stay valid
};

// The buckets a query selects: the core's words (explorer_selection), and "players":
// every person, the engine's own games left out.
ExplorerBuckets selection_of(const std::string& source, const std::string& band) {
  if (source == "players") {
    if (!band.empty()) throw ApiError(400, i18n::tr("band: give it with source rated or all"));
    return kAllExplorerBuckets & ~(1u << int(ExplorerBucket::kEngine));
  }
  return explorer_selection(source, band);  // ParseError: 400 naming the accepted words
}

json counts_json(const ExplorerCounts& c) {
  const bool decided = c.wins + c.draws + c.losses > 0;
  return {{"games", c.games()},
          {"wins", c.wins},
          {"draws", c.draws},
          {"losses", c.losses},
          {"no_result", c.no_result},
          {"score", decided ? json(c.score()) : json()},
          {"mean_rating", c.rated ? json(std::lround(c.mean_rating())) : json()},
          {"rated_games", c.rated}};
}

json openings_json(const ExplorerFile& file, const Position& pos, const std::string& source,
                   const std::string& band, ExplorerBuckets selection) {
  const ExplorerPosition* entry = file.explorer.find(pos);
  std::vector<const ExplorerMove*> moves;
  uint64_t games = 0;
  // Games through the position per bucket, whatever the selection: the page's source
  // chooser shows how many each source has here.
  json by_source = json::object();
  if (entry) {
    moves = entry->moves_by_games(selection);
    games = entry->games(selection);
    for (int b = 0; b < kExplorerBuckets; ++b)
      by_source[explorer_bucket_name(ExplorerBucket(b))] = entry->games(1u << b);
  }
  json list = json::array();
  for (const ExplorerMove* m : moves) {
    const ExplorerCounts c = m->total(selection);
    json jm = counts_json(c);
    jm["move"] = m->move + 1;
    jm["notation"] = format_move(pos, m->move);
    jm["share"] = games ? double(c.games()) / double(games) : 0.0;
    json per = json::object();
    for (int b = 0; b < kExplorerBuckets; ++b) {
      const ExplorerCounts& bc = m->by_bucket[size_t(b)];
      if ((selection & (1u << b)) && bc.games() > 0)
        per[explorer_bucket_name(ExplorerBucket(b))] = counts_json(bc);
    }
    jm["by_source"] = per;
    // Where the move leads, so that the page plays it by asking for that position.
    Position after = pos;
    after.play(m->move);
    jm["after"] = after.to_string();
    list.push_back(jm);
  }
  return {{"game", file.explorer.game().name()},
          {"position", pos.to_string()},
          {"to_move", side_to_move_word(pos)},
          {"board", board_json(pos)},
          {"selection", {{"source", source}, {"rating_band", band.empty() ? json() : json(band)}}},
          {"known", entry != nullptr},
          {"games", games},
          {"moves", list},
          {"games_by_source", by_source},
          {"max_plies", file.explorer.max_plies()},
          {"min_games", file.explorer.min_games()},
          {"about", file.about}};
}

}  // namespace

void add_openings_routes(ApiRouter& router) {
  auto library = std::make_shared<ExplorerLibrary>();
  router.add("GET", "/api/openings", [library](const json& b) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", "togyz"));
    const std::string source = str_field(b, "source", "all", 20);
    const std::string band = str_field(b, "band", "", 20);
    const ExplorerBuckets selection = selection_of(source, band);
    const std::string text = str_field(b, "position", "");
    const Position pos = text.empty() ? Position::start(spec) : Position::parse(text, spec);
    return openings_json(library->file_for(spec), pos, source, band, selection);
  });
}

}  // namespace kz::cli::serve
