// What `kumalak analyze` computes, apart from its options and printing
// (tools/cmd_analyze.cpp): the recorded games replayed and judged move by move by the
// engine (mcts/analysis.h) with both sides' ratings estimated by the human model, and the
// setting up and timing of the per-player report and of the by-player measurement
// (nn/player_games.h). tools/analyze_report.h words and writes the results.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/notation.h"
#include "core/position.h"
#include "core/rated_games.h"
#include "mcts/analysis.h"
#include "mcts/evaluator.h"
#include "mcts/human_search.h"
#include "mcts/levels.h"
#include "mcts/player.h"
#include "nn/human_head.h"
#include "nn/player_games.h"
#include "tools/human_level.h"

namespace kz::cli {

// The report's default budget per position: 100 visits of the engine network, about
// 4 ms a position on the build VM, enough to tell a blunder from a good move.
constexpr int64_t kReportVisits = 100;

// What `kumalak analyze` was asked for, as its options give it (unchecked text).
struct AnalyzeOptions {
  std::string game = "togyz";      // --game: togyz or kalah(m,n)
  std::vector<std::string> files;  // the PGN files
  std::string level = "hard";      // --level: the engine's level
  std::string model;               // --model: the engine's network ("" = shipped)
  std::string human_model;         // --human-model: the human policy for the rating estimate
  double movetime = 0;             // --movetime: seconds per position (0: the level's)
  int depth = 0;                   // --depth: the search depth (0: the level's)
  std::string output;              // --output: the annotated PGN's file ("" = standard output)
  std::string games;               // "1-3", "2", "1,4,7-9"; empty = all
  std::string lang;                // --lang: the language of the summary and of the PGN comments
  // --player-report / --player NAME: one player's games, a line each, and the rating
  // estimate over all of them (NAME empty: the name playing most games in the files).
  bool player_report = false;
  std::string player;
  // --visits: the engine's visits per position for the report's accuracy (0: no
  // accuracy), instead of the level's budget: a file of 1,000 games must not take hours.
  int64_t visits = kReportVisits;
  bool json = false;  // --json: the report (or the evaluation) as one JSON object
  // --by-player: measure the estimate over many games on the rated games of `fold`,
  // players with `min_games` or more (docs/human.md); no engine analysis.
  bool by_player = false;
  std::string fold = "validation";
  // --held-out J/K: which slice of the games is the validation fold (core/rated_games.h,
  // HeldOut); the default is the shipped models' split.
  std::string held_out = "0/10";
  int min_games = 5;
  // --pool-by-player: the files are --by-player JSON of the K folds of a cross-validation
  // (one each, --held-out 0/K .. K-1/K); their players are pooled into one table.
  bool pool_by_player = false;
  // --likelihood-scales: the tempered likelihoods --by-player compares (the first one's
  // estimates are listed per player); empty: the default (kPlayerLikelihoodScale).
  std::vector<double> likelihood_scales;
  bool without_opponents = false;  // --without-opponents: each row again, opponents left out
  int threads = 1;  // --threads: games analysed at once (--player-report, --by-player)
};

// Receives one message about a file or a game that could not be read or replayed (the
// command prints it as its error and goes on).
using ErrorSink = std::function<void(const std::string& message)>;

// Which games of each file: 1-based numbers and ranges ("1-3", "2", "1,4,7-9").
struct GameRanges {
  std::vector<std::pair<int, int>> ranges;  // first..last, inclusive; empty: every game
  // Whether game `number` (1-based) is selected.
  bool contains(int number) const;
};

// Reads `text` ("1-3,5"); throws ParseError (in the player's language, naming --games)
// for a part that is not a number or a range, or for an empty text.
GameRanges parse_game_ranges(const std::string& text);

// The human model of the rating estimates and its search mixture (null: none).
struct AnalysisHuman {
  std::unique_ptr<HumanHead> head;  // null: no estimates
  std::shared_ptr<HumanSearch> search;
};

// The human model file for `spec`: `given`, else the game's shipped one ("" = none).
std::string analysis_human_path(const GameSpec& spec, const std::string& given);

// Loads the human model at `path` for `spec` with its search mixture (an empty path:
// none). Throws what loading throws.
AnalysisHuman load_analysis_human(const GameSpec& spec, const std::string& path);

// One game judged by the engine.
struct AnalysedGame {
  std::string file;        // the file it came from
  int index = 0;           // its 1-based number there
  std::string names[2];    // White's and Black's names (the words White, Black when untagged)
  std::string result;      // as recorded
  Position start;          // where it started
  std::vector<int> moves;  // its moves
  GameAnalysis analysis;   // every move judged (mcts/analysis.h)
  // Each side's rating estimated from its moves (nullopt: no human model, or no moves).
  std::array<std::optional<PlayedLike>, 2> like;
};

// The games of some files judged, and what the summary needs over all of them.
struct GamesAnalysis {
  std::vector<AnalysedGame> games;  // in file order
  std::string pgn;                  // the annotated records, one after another
  bool had_errors = false;          // a file or a game could not be read or replayed
  // Each player's moves over every game, by name, and the names in order of appearance.
  std::map<std::string, AnalysisStats> by_player;
  std::vector<std::string> player_order;
};

// Replays and judges the games `selection` names in each of `files` with `engine` under
// `limits`, annotating each record (Annotator "KumalakZero " + the engine's name), and
// estimates both sides' ratings with `human` (its head null: none). Files and games that
// do not read or replay are told to `on_error` and left out.
GamesAnalysis analyze_game_files(const std::vector<std::string>& files, const GameSpec& spec,
                                 const GameRanges& selection, Player& engine,
                                 const ThinkLimits& limits, const AnalysisHuman& human,
                                 const ErrorSink& on_error);

// The human model of the per-player report and of the by-player measurement, and the
// engine network of its search mixture (null: none), shared by every thread.
struct HumanTools {
  std::unique_ptr<HumanHead> head;  // null: no model for this game
  std::shared_ptr<Evaluator> search_engine;
  std::string path;  // the file it came from ("" = none)
};

// Loads the human model at `path` (analysis_human_path; "" = none). Throws what loading
// throws.
HumanTools load_human_tools(const GameSpec& spec, const std::string& path);

// One worker per thread (at least one): its own search of the mixture (a search is not
// thread-safe) and, where `engine` is given, its own analysing engine, kept alive in
// `engines`.
std::vector<PlayerGamesTools> games_workers(const GameSpec& spec, const HumanTools& human,
                                            int threads,
                                            const std::function<std::unique_ptr<Player>()>& engine,
                                            std::vector<std::unique_ptr<Player>>& engines);

// The engine that judges analyze's games: the analysis player of `level` with `model` ("" =
// shipped), every move scored; `depth` plies above 0 ask for alpha-beta at that depth.
// Throws what making the player throws.
std::unique_ptr<Player> games_engine(const GameSpec& spec, Level level, const std::string& model,
                                     int depth);

// What --player-report and --by-player analyse with: the human model, one worker per
// thread, and the workers' engines (kept alive here; none for --by-player).
struct AnalysisWorkers {
  HumanTools human;
  std::vector<std::unique_ptr<Player>> engines;
  std::vector<PlayerGamesTools> workers;
};

// How the workers' engine judges the moves for --player-report's accuracy.
struct WorkersEngine {
  Level level = Level::kHard;
  std::string model;    // the network ("" = shipped)
  int64_t visits = 0;   // visits a position (0: no engine, no accuracy)
  double movetime = 0;  // seconds a position instead of the visits (0: the visits)
};

// Loads into `tools` the human model at `human_path` (analysis_human_path) and makes
// `threads` workers (at least one), each with its own analysis player as `engine` says.
// Throws what loading or making a player throws; what was loaded by then stays in
// `tools` (its human model's path names the file in the error).
void load_analysis_workers(const GameSpec& spec, const std::string& human_path,
                           const WorkersEngine& engine, int threads, AnalysisWorkers& tools);

// Every game of `files`, in order; a file that does not read, or holds no game, is told to
// `on_error` (`ok` then turns false).
std::vector<GameRecord> read_record_files(const std::vector<std::string>& files,
                                          const ErrorSink& on_error, bool& ok);

// The per-player report (nn/player_games.h's player_report) of `player` over `records`,
// with a progress line on standard error every 10 s and the time it took.
struct TimedPlayerReport {
  PlayerReport report;
  double seconds = 0;
};
TimedPlayerReport timed_player_report(std::span<const GameRecord> records, const GameSpec& spec,
                                      const std::string& player,
                                      std::span<const PlayerGamesTools> workers);

// The weighings the by-player measurement compares: each scale of `scales` (empty: the
// default kPlayerLikelihoodScale) with the opponents' moves, and without them as well when
// `without_opponents`.
std::vector<PlayerRatingOptions> by_player_variants(const std::vector<double>& scales,
                                                    bool without_opponents);

// The by-player measurement (evaluate_by_player) over the games of `fold` in `files` (the
// validation fold being the slice `held_out`), with
// a progress line on standard error every 10 s and the time it took.
struct TimedByPlayer {
  ByPlayerEvaluation evaluation;
  std::vector<SkippedGame> skipped;  // the games that did not replay
  double seconds = 0;
};
TimedByPlayer timed_by_player(std::vector<std::vector<GameRecord>> files, const FoldSelection& fold,
                              HeldOut held_out, const GameSpec& spec, int min_games,
                              std::span<const PlayerGamesTools> workers,
                              const std::vector<PlayerRatingOptions>& variants);

}  // namespace kz::cli
