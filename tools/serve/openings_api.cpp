#include "tools/serve/openings_api.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "core/opening_explorer.h"
#include "tools/hint_json.h"
#include "tools/serve/player_openings.h"
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

// A move's answer over `selection` (its counts, number, notation, share of the position's
// `games` and where it leads, so that the page plays it by asking for that position);
// the caller adds its `by_source`.
json explorer_move_json(const Position& pos, const ExplorerMove& m, ExplorerBuckets selection,
                        uint64_t games) {
  const ExplorerCounts c = m.total(selection);
  json jm = counts_json(c);
  jm["move"] = m.move + 1;
  jm["notation"] = format_move(pos, m.move);
  jm["share"] = games ? double(c.games()) / double(games) : 0.0;
  Position after = pos;
  after.play(m.move);
  jm["after"] = after.to_string();
  return jm;
}

// The fields every explorer's answer has: the position, its board, whether the explorer
// knows it, its games over the selection, the moves, the games per source and the
// explorer's limits.
json explorer_answer_json(const OpeningExplorer& explorer, const Position& pos,
                          const ExplorerPosition* entry, uint64_t games, json moves,
                          json games_by_source, json selection) {
  return {{"game", explorer.game().name()},
          {"position", pos.to_string()},
          {"to_move", side_to_move_word(pos)},
          {"board", board_json(pos)},
          {"selection", std::move(selection)},
          {"known", entry != nullptr},
          {"games", games},
          {"moves", std::move(moves)},
          {"games_by_source", std::move(games_by_source)},
          {"max_plies", explorer.max_plies()},
          {"min_games", explorer.min_games()}};
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
    json jm = explorer_move_json(pos, *m, selection, games);
    json per = json::object();
    for (int b = 0; b < kExplorerBuckets; ++b) {
      const ExplorerCounts& bc = m->by_bucket[size_t(b)];
      if ((selection & (1u << b)) && bc.games() > 0)
        per[explorer_bucket_name(ExplorerBucket(b))] = counts_json(bc);
    }
    jm["by_source"] = per;
    list.push_back(jm);
  }
  json answer = explorer_answer_json(
      file.explorer, pos, entry, games, std::move(list), std::move(by_source),
      {{"source", source}, {"rating_band", band.empty() ? json() : json(band)}});
  answer["about"] = file.about;
  return answer;
}

// The engine's and the human model's view of explored positions, each position's kept:
// openings are few and asked again by every player, so a search is paid once. A request
// never thinks: what is not kept yet is queued for a thread of this table's own and the
// answer says `pending` until it is done (the page asks again). In the page's
// WebAssembly engine the call comes in on the runtime's main thread, which must not wait
// for a search that may start threads of its own (the network's front): a thread it
// waited for could not start while it waits.
class EngineColumns {
 public:
  explicit EngineColumns(OpeningsEngine engine) : engine_(std::move(engine)) {}
  ~EngineColumns() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  json answer(const GameSpec& spec, const Position& pos, int rating) {
    const std::string key = spec.name() + " " + pos.to_string();
    const std::string human_key = key + " " + std::to_string(rating);
    const bool with_human = range(spec).has_value();
    if (engine_.search_in_call) fill(Job{spec, pos, rating, with_human, key, human_key});
    json searched, human;
    bool pending = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto s = searches_.find(key);
      auto h = human_.find(human_key);
      if (s != searches_.end()) searched = s->second;
      if (h != human_.end()) human = h->second;
      if (searched.is_null() || (with_human && human.is_null())) {
        pending = true;
        queue(Job{spec, pos, rating, with_human, key, human_key});
      }
    }
    if (pending) wake_.notify_one();
    const json none = json::object();
    const json& moves_of = searched.is_null() ? none : searched["moves"];
    const json best = searched.is_null() ? json() : searched["best_move"];
    json moves = json::array();
    for (int m = 0; m < pos.npits; ++m) {
      if (!pos.is_legal(m)) continue;
      Position after = pos;
      after.play(m);
      const std::string pit = std::to_string(m + 1);
      moves.push_back({{"move", m + 1},
                       {"notation", format_move(pos, m)},
                       {"after", after.to_string()},
                       {"engine", moves_of.value(pit, json())},
                       {"best", best == m + 1},
                       {"human", human.is_null() ? json() : human.value(pit, json())}});
    }
    return {{"game", spec.name()},
            {"position", pos.to_string()},
            {"to_move", side_to_move_word(pos)},
            {"pending", pending},
            {"engine", searched.is_null() ? json() : searched["about"]},
            {"best_move", best},
            {"rating", rating},
            {"human_model", with_human},
            {"rating_range", rating_range_json(spec)},
            {"moves", moves}};
  }

  // {min, max} of the human model's ratings, null without one: the page's rating chooser.
  json rating_range_json(const GameSpec& spec) {
    const auto r = range(spec);
    return r ? json{{"min", r->min}, {"max", r->max}} : json();
  }

  std::optional<RatingRange> range(const GameSpec& spec) {
    return engine_.ratings ? engine_.ratings->range(spec) : std::nullopt;
  }

 private:
  static constexpr size_t kMaxKept = 4096;
  // Positions waiting: more are dropped (their pages ask again), so that a flood of
  // requests cannot queue hours of searches.
  static constexpr size_t kMaxQueued = 64;

  struct Job {
    GameSpec spec;
    Position pos;
    int rating = 0;
    bool with_human = false;  // the game has a human model
    std::string key, human_key;
  };

  // With the mutex held: queues `job` unless it is queued already, and starts the thread.
  void queue(Job job) {
    for (const Job& j : jobs_)
      if (j.human_key == job.human_key) return;
    if (jobs_.size() >= kMaxQueued) return;
    jobs_.push_back(std::move(job));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      const Job job = jobs_.front();
      lock.unlock();
      fill(job);
      lock.lock();
      jobs_.pop_front();
    }
  }

  // Computes the parts of `job` not kept yet, on the calling thread, and keeps them.
  void fill(const Job& job) {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool search = !searches_.count(job.key);
    const bool ask_human = job.with_human && !human_.count(job.human_key);
    lock.unlock();
    json searched, human;
    if (search) searched = search_json(job.spec, job.pos);
    if (ask_human) human = human_json(job.spec, job.pos, job.rating);
    lock.lock();
    // A bound, not an eviction policy: the table starts again when full.
    if (search) {
      if (searches_.size() >= kMaxKept) searches_.clear();
      searches_.emplace(job.key, searched);
    }
    if (ask_human) {
      if (human_.size() >= kMaxKept) human_.clear();
      human_.emplace(job.human_key, human);
    }
  }

  // {about: {nodes, seconds, win, draw, loss} | null, best_move: pit | null, moves: {pit:
  // {win, draw, loss, score, visits, proven}}}; a move the search did not reach has no
  // entry. A search that fails leaves the column empty rather than the view broken.
  json search_json(const GameSpec& spec, const Position& pos) {
    const json empty = {{"about", json()}, {"best_move", json()}, {"moves", json::object()}};
    if (!engine_.search) return empty;
    ThinkResult r;
    try {
      r = engine_.search(spec, pos);
    } catch (const std::exception&) {
      return empty;
    }
    json moves = json::object();
    for (const MoveEval& e : r.moves) {
      if (e.visits == 0 && !e.proven && e.win + e.draw + e.loss == 0) continue;
      moves[std::to_string(e.move + 1)] = {{"win", e.win},       {"draw", e.draw},
                                           {"loss", e.loss},     {"score", e.win + e.draw / 2},
                                           {"visits", e.visits}, {"proven", e.proven}};
    }
    return {{"about",
             {{"nodes", r.nodes},
              {"seconds", r.seconds},
              {"win", r.win},
              {"draw", r.draw},
              {"loss", r.loss}}},
            {"best_move", r.best_move >= 0 ? json(r.best_move + 1) : json()},
            {"moves", moves}};
  }

  // {pit: probability} at `rating`; empty when the model fails.
  json human_json(const GameSpec& spec, const Position& pos, int rating) {
    json out = json::object();
    try {
      for (const HumanMove& m : engine_.ratings->moves(spec, pos, rating))
        out[std::to_string(m.move + 1)] = m.probability;
    } catch (const std::exception&) {
    }
    return out;
  }

  OpeningsEngine engine_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::map<std::string, json> searches_;  // by game and position
  std::map<std::string, json> human_;     // by game, position and rating
  std::thread thread_;                    // started by the first job
};

// The explorer over the last file of a player's games, kept while the page walks it.
class PlayerLibrary {
 public:
  struct Kept {
    std::shared_ptr<const PlayerOpenings> openings;
    std::string key;  // names these games in later requests (games_key)
  };

  // The explorer of `player`'s games in `pgn`, built unless it is the one kept.
  Kept openings(const GameSpec& spec, const std::string& pgn, const std::string& player) {
    const std::string key = games_key(spec, pgn, player);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (last_.openings && key == last_.key) return last_;
    }
    std::istringstream in(pgn);
    const std::vector<GameRecord> records = read_pgn(in, "pgn");  // ParseError: 400
    if (records.empty()) throw ApiError(400, i18n::tr("the file has no games"));
    auto built =
        std::make_shared<const PlayerOpenings>(build_player_openings(records, spec, player));
    std::lock_guard<std::mutex> lock(mutex_);
    last_ = {built, key};
    last_game_ = spec.name();
    return last_;
  }

  // The explorer of `spec` kept under `key`. 409 when another file's (or none) is kept
  // now: the caller sends its games again.
  Kept kept(const GameSpec& spec, const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!last_.openings || key != last_.key || spec.name() != last_game_)
      throw ApiError(409, i18n::tr("those games are no longer kept here: send them again"));
    return last_;
  }

 private:
  static std::string games_key(const GameSpec& spec, const std::string& pgn,
                               const std::string& player) {
    uint64_t h = fnv1a64(spec.name());
    h = fnv1a64_value(player.size(), h);
    h = fnv1a64(player, h);
    h = fnv1a64(pgn, h);
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
  }

  std::mutex mutex_;
  Kept last_;
  std::string last_game_;
};

// The names of the player explorer's buckets in by_source and games_by_source.
const char* player_bucket_name(ExplorerBucket b) {
  if (b == kPlayerAsWhite) return "player-as-white";
  if (b == kPlayerAsBlack) return "player-as-black";
  if (b == kOpponentOfWhite) return "opponents-of-white";
  return "opponents-of-black";
}

json player_openings_json(const PlayerOpenings& p, const Position& pos, const std::string& colour,
                          ExplorerBuckets selection) {
  const ExplorerPosition* entry = p.explorer.find(pos);
  std::vector<const ExplorerMove*> moves;
  uint64_t games = 0;
  json by_source = json::object();
  const std::array<ExplorerBucket, 4> buckets{kPlayerAsWhite, kPlayerAsBlack, kOpponentOfWhite,
                                              kOpponentOfBlack};
  if (entry) {
    moves = entry->moves_by_games(selection);
    games = entry->games(selection);
    for (ExplorerBucket b : buckets) by_source[player_bucket_name(b)] = entry->games(1u << int(b));
  }
  json list = json::array();
  for (const ExplorerMove* m : moves) {
    json jm = explorer_move_json(pos, *m, selection, games);
    json per = json::object();
    bool mine = false, theirs = false;
    for (ExplorerBucket b : buckets) {
      const ExplorerCounts& bc = m->by_bucket[size_t(b)];
      if (!(selection & (1u << int(b))) || bc.games() == 0) continue;
      per[player_bucket_name(b)] = counts_json(bc);
      (player_bucket(b) ? mine : theirs) = true;
    }
    jm["by_source"] = per;
    // Who chose it here, and how the player fared after it.
    jm["by"] = mine && theirs ? "both" : mine ? "player" : "opponents";
    jm["player"] = counts_json(player_view(*m, selection));
    list.push_back(jm);
  }
  json answer =
      explorer_answer_json(p.explorer, pos, entry, games, std::move(list), std::move(by_source),
                           {{"source", "player"}, {"colour", colour}});
  answer["about"] = {{"player", p.player},     {"rating", p.rating ? json(*p.rating) : json()},
                     {"records", p.records},   {"as_white", p.as_white},
                     {"as_black", p.as_black}, {"without_player", p.without_player},
                     {"skipped", p.skipped}};
  return answer;
}

Position position_field(const json& b, const GameSpec& spec) {
  const std::string text = str_field(b, "position", "");
  return text.empty() ? Position::start(spec) : Position::parse(text, spec);
}

}  // namespace

void add_openings_routes(ApiRouter& router, OpeningsEngine engine) {
  auto library = std::make_shared<ExplorerLibrary>();
  router.add("GET", "/api/openings", [library](const json& b) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", "togyz"));
    const std::string source = str_field(b, "source", "all", 20);
    const std::string band = str_field(b, "band", "", 20);
    const ExplorerBuckets selection = selection_of(source, band);
    const Position pos = position_field(b, spec);
    return openings_json(library->file_for(spec), pos, source, band, selection);
  });
  auto columns = std::make_shared<EngineColumns>(std::move(engine));
  router.add("GET", "/api/openings/engine", [library, columns](const json& b) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", "togyz"));
    const Position pos = position_field(b, spec);
    if (pos.is_over()) throw ApiError(400, i18n::tr("the game in that position is already over"));
    const int rating = int(int_field(b, "rating").value_or(kOpeningsDefaultRating));
    if (const auto range = columns->range(spec); range && !range->contains(rating))
      throw ApiError(
          400,
          i18n::tr(
              "'{field}' {rating}: a rating level must lie in the human "
              "model's range {min}..{max}",
              {{"field", "rating"}, {"rating", rating}, {"min", range->min}, {"max", range->max}}));
    return columns->answer(spec, pos, rating);
  });
  auto players = std::make_shared<PlayerLibrary>();
  router.add("POST", "/api/openings/games", [players](const json& b) {
    const GameSpec spec = GameSpec::parse(str_field(b, "game", "togyz"));
    const std::string colour = str_field(b, "colour", "both", 20);
    const ExplorerBuckets selection = player_colour_selection(colour);
    const Position pos = position_field(b, spec);
    // The file once, then its key: walking the tree does not send a large file each step.
    const std::string key = str_field(b, "games_key", "", 16);
    const PlayerLibrary::Kept games =
        !key.empty() && !b.contains("pgn")
            ? players->kept(spec, key)
            : players->openings(spec, str_field(b, "pgn", "", kMaxBodyBytes),
                                str_field(b, "player", "", 200));
    json answer =
        player_openings_json(*games.openings, pos, colour.empty() ? "both" : colour, selection);
    answer["games_key"] = games.key;
    return answer;
  });
}

}  // namespace kz::cli::serve
