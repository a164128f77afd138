#include "tools/analyze_games.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "core/i18n.h"
#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "nn/plain_model.h"
#include "tools/analysis_words.h"
#include "train/progress.h"

namespace kz::cli {

using i18n::tr;

bool GameRanges::contains(int number) const {
  if (ranges.empty()) return true;
  for (auto [first, last] : ranges)
    if (number >= first && number <= last) return true;
  return false;
}

GameRanges parse_game_ranges(const std::string& text) {
  GameRanges out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    int a = 0, b = 0;
    char dash = 0;
    std::istringstream ps(part);
    if (part.find('-') != std::string::npos) {
      if (!(ps >> a >> dash >> b) || dash != '-' || !ps.eof())
        throw ParseError(tr("--games: '{part}' is not a range like 1-3", {{"part", part}}));
    } else {
      if (!(ps >> a) || !ps.eof())
        throw ParseError(tr("--games: '{part}' is not a number", {{"part", part}}));
      b = a;
    }
    if (a < 1 || b < a)
      throw ParseError(tr("--games: '{part}' is not a valid range", {{"part", part}}));
    out.ranges.emplace_back(a, b);
  }
  if (out.ranges.empty()) throw ParseError(tr("--games: empty"));
  return out;
}

std::string analysis_human_path(const GameSpec& spec, const std::string& given) {
  return given.empty() ? shipped_human_model_path(spec) : given;
}

AnalysisHuman load_analysis_human(const GameSpec& spec, const std::string& path) {
  AnalysisHuman h;
  if (path.empty()) return h;
  h.head = std::make_unique<HumanHead>(load_plain_model(path, &spec));
  h.search = human_level_search(spec, *h.head, MixUse::kDescribe);
  return h;
}

namespace {

// One record replayed and judged, or nullopt (told to `on_error`) when it does not replay.
std::optional<AnalysedGame> analyse_record(const GameRecord& g, const std::string& file,
                                           const GameSpec& spec, Player& engine,
                                           const ThinkLimits& limits, const AnalysisHuman& human,
                                           const ErrorSink& on_error) {
  AnalysedGame a;
  try {
    a.start = record_start(g, spec);
    a.moves = replay_record(g, a.start).moves;
  } catch (const ParseError& e) {
    on_error(e.what());
    return std::nullopt;
  }
  a.file = file;
  a.index = g.index;
  a.result = g.result;
  a.names[0] = g.tag("White", tr("White"));
  a.names[1] = g.tag("Black", tr("Black"));
  a.analysis = analyze_game(engine, a.start, a.moves, limits);
  // Both sides' ratings at once: jointly where the human model has the pair prior.
  if (human.head) a.like = played_like_both(*human.head, a.start, a.moves, human.search.get());
  return a;
}

// The record of `a` with a comment after each move and the engine named as annotator.
std::string annotated_pgn(const GameRecord& g, const AnalysedGame& a, const Player& engine) {
  std::vector<std::string> comments;
  Position before = a.start;
  for (size_t i = 0; i < a.analysis.moves.size(); ++i) {
    comments.push_back(judgement_comment(a.analysis.moves[i], before));
    before.play(a.moves[i]);
  }
  GameRecord out = g;
  out.set_tag("Annotator", "KumalakZero " + engine.name());
  return write_pgn(out.tags, a.start, a.moves, comments) + "\n";
}

}  // namespace

GamesAnalysis analyze_game_files(const std::vector<std::string>& files, const GameSpec& spec,
                                 const GameRanges& selection, Player& engine,
                                 const ThinkLimits& limits, const AnalysisHuman& human,
                                 const ErrorSink& on_error) {
  GamesAnalysis out;
  auto error = [&](const std::string& message) {
    on_error(message);
    out.had_errors = true;
  };
  for (const std::string& file : files) {
    std::vector<GameRecord> games;
    try {
      games = read_pgn_file(file);
    } catch (const ParseError& e) {
      error(e.what());
      continue;
    }
    if (games.empty()) error(tr("'{file}' holds no game", {{"file", file}}));
    for (const GameRecord& g : games) {
      if (!selection.contains(g.index)) continue;
      std::optional<AnalysedGame> a = analyse_record(g, file, spec, engine, limits, human,
                                                     [&](const std::string& m) { error(m); });
      if (!a) continue;
      out.pgn += annotated_pgn(g, *a, engine);
      for (int p = 0; p < 2; ++p) {
        if (!out.by_player.count(a->names[p])) out.player_order.push_back(a->names[p]);
        out.by_player[a->names[p]].add(a->analysis.side[p]);
      }
      out.games.push_back(std::move(*a));
    }
  }
  return out;
}

HumanTools load_human_tools(const GameSpec& spec, const std::string& path) {
  HumanTools t;
  t.path = path;
  if (t.path.empty()) return t;
  t.head = std::make_unique<HumanHead>(load_plain_model(t.path, &spec));
  t.search_engine = human_level_engine(spec, *t.head);
  return t;
}

std::vector<PlayerGamesTools> games_workers(const GameSpec& spec, const HumanTools& human,
                                            int threads,
                                            const std::function<std::unique_ptr<Player>()>& engine,
                                            std::vector<std::unique_ptr<Player>>& engines) {
  std::vector<PlayerGamesTools> workers(size_t(std::max(threads, 1)));
  for (PlayerGamesTools& w : workers) {
    w.human = human.head.get();
    if (human.head && human.search_engine) {
      std::shared_ptr<HumanSearch> s =
          human_level_search(spec, *human.head, MixUse::kDescribe, human.search_engine);
      w.search = [s](const Position& pos) { return s->search(pos).best_move; };
    }
    if (engine) {
      engines.push_back(engine());
      w.engine = engines.back().get();
    }
  }
  return workers;
}

std::unique_ptr<Player> games_engine(const GameSpec& spec, Level level, const std::string& model,
                                     int depth) {
  LevelPlayerOptions lo;
  lo.force_alphabeta = depth > 0;  // a depth in plies is an alpha-beta budget
  lo.network = load_model_evaluator;
  return make_analysis_player(spec, level, model, 0, lo);  // every move scored
}

void load_analysis_workers(const GameSpec& spec, const std::string& human_path,
                           const WorkersEngine& engine, int threads, AnalysisWorkers& tools) {
  tools.human = load_human_tools(spec, human_path);
  std::function<std::unique_ptr<Player>()> make_engine;
  if (engine.visits > 0)
    make_engine = [&] {
      LevelPlayerOptions lo;
      lo.network = load_model_evaluator;
      return make_analysis_player(spec, engine.level, engine.model, 0, lo);
    };
  tools.workers = games_workers(spec, tools.human, threads, make_engine, tools.engines);
  for (PlayerGamesTools& w : tools.workers) {
    w.limits.nodes = engine.visits;
    if (engine.movetime > 0) w.limits = ThinkLimits{0, 0, engine.movetime, nullptr};
  }
}

std::vector<GameRecord> read_record_files(const std::vector<std::string>& files,
                                          const ErrorSink& on_error, bool& ok) {
  std::vector<GameRecord> records;
  for (const std::string& file : files) {
    try {
      std::vector<GameRecord> games = read_pgn_file(file);
      if (games.empty()) {
        on_error(tr("'{file}' holds no game", {{"file", file}}));
        ok = false;
      }
      for (auto& g : games) records.push_back(std::move(g));
    } catch (const ParseError& e) {
      on_error(e.what());
      ok = false;
    }
  }
  return records;
}

namespace {

// A progress line on standard error every 10 s, counting games.
Progress games_progress(const std::string& name) {
  Progress::Options po;
  po.unit = "games";
  po.line_interval_s = 10;
  return Progress(name, 0, po);
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

TimedPlayerReport timed_player_report(std::span<const GameRecord> records, const GameSpec& spec,
                                      const std::string& player,
                                      std::span<const PlayerGamesTools> workers) {
  const auto started = std::chrono::steady_clock::now();
  TimedPlayerReport out;
  {
    Progress progress = games_progress("analyze " + player);
    out.report = player_report(records, spec, player, workers, [&](int done, int total) {
      progress.set_total(total);
      progress.set_done(done);
    });
  }
  out.seconds = seconds_since(started);
  return out;
}

std::vector<PlayerRatingOptions> by_player_variants(const std::vector<double>& scales,
                                                    bool without_opponents) {
  std::vector<PlayerRatingOptions> variants;
  for (double scale : scales.empty() ? std::vector<double>{kPlayerLikelihoodScale} : scales)
    for (bool opponents : {true, false}) {
      if (!opponents && !without_opponents) continue;
      variants.push_back({scale, opponents});
    }
  return variants;
}

TimedByPlayer timed_by_player(std::vector<std::vector<GameRecord>> files, const FoldSelection& fold,
                              HeldOut held_out, const GameSpec& spec, int min_games,
                              std::span<const PlayerGamesTools> workers,
                              const std::vector<PlayerRatingOptions>& variants) {
  std::vector<GameRecord> records;
  for (auto& games : files)
    for (auto& g : games)
      if (fold_selected(fold, read_rated_game(g, held_out).fold)) records.push_back(std::move(g));
  const auto started = std::chrono::steady_clock::now();
  TimedByPlayer out;
  {
    Progress progress = games_progress("by-player");
    out.evaluation = evaluate_by_player(
        records, spec, min_games, workers, variants,
        [&](int done, int total) {
          progress.set_total(total);
          progress.set_done(done);
        },
        &out.skipped);
  }
  out.seconds = seconds_since(started);
  return out;
}

}  // namespace kz::cli
