// What `kumalak analyze` shows of tools/analyze_games.h's results: the summary of the
// judged games, the per-player report and the by-player measurement, as text in the
// player's language (core/i18n.h; the by-player table is for developers and stays
// English) or as one JSON object. Every text ends with its newline.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/analyze_games.h"

namespace kz::cli {

// Each game's players, their moves' judgement, accuracy, mistakes offered as puzzles and
// rating estimates; then, over several games, each player's moves; then the thresholds
// of the marks (mcts/analysis.h).
//   analysis: analyze_game_files's answer (at least one game)
std::string analysis_summary_text(const GamesAnalysis& analysis);

// The annotated games as one PGN file with the summary after them in ';' comment lines
// (what analyze prints without --output).
//   analysis: analyze_game_files's answer
std::string pgn_with_summary(const GamesAnalysis& analysis);

// The per-player report as a table: a line a game, the rating over all and the mean
// accuracy.
//   player: the player's name
//   report: player_report's answer (at least one game)
std::string player_report_text(const std::string& player, const PlayerReport& report);

// The same as one JSON object, with how it was measured.
//   player: the player's name
//   timed: timed_player_report's answer
//   visits: the engine's visits per position (0: no accuracy)
//   threads: the workers
//   human_model: the human model's file ("" = none)
nlohmann::json player_report_json(const std::string& player, const TimedPlayerReport& timed,
                                  int64_t visits, int threads, const std::string& human_model);

// What a by-player measurement was run with, for its text and JSON.
struct ByPlayerSetup {
  std::string fold;           // --fold as given
  std::string held_out;       // --held-out as given: J/K
  int min_games = 0;          // the fewest rated games a player had to have
  std::string human_model;    // the human model's file
  int search_mix_visits = 0;  // the search mixture's visits (0: none)
  int threads = 1;
};

// What the by-player measurement was run with, for its table and JSON.
//   opt: the command's options (--fold, --min-games)
//   tools: the workers it ran on and their human model
ByPlayerSetup by_player_setup(const AnalyzeOptions& opt, const AnalysisWorkers& tools);

// The by-player measurement as a table, a row per weighing and number of games.
//   timed: timed_by_player's answer
//   setup: what it was run with
std::string by_player_text(const TimedByPlayer& timed, const ByPlayerSetup& setup);

// The same as one JSON object, with the player list.
nlohmann::json by_player_json(const TimedByPlayer& timed, const ByPlayerSetup& setup);

}  // namespace kz::cli
