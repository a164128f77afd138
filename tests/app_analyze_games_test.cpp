// What `kumalak analyze` computes, without the binary (tools/analyze_games.h) and how it
// shows it (tools/analyze_report.h): the game selection, the judged games of files with
// their errors told, the summary, and the per-player report's lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/game_session.h"
#include "mcts/levels.h"
#include "tests/test_util.h"
#include "tools/analyze_games.h"
#include "tools/analyze_report.h"
#include "tools/by_player_pool.h"

namespace kz::cli {
namespace {

// A record of `plies` moves, each the first legal one, between `white` and `black`.
std::string record_of(int plies, const std::string& white, const std::string& black) {
  GameSession game(GameSpec::togyz());
  for (int i = 0; i < plies; ++i) game.play(__builtin_ctz(game.position().legal_mask()));
  return game.record({.site = "test", .white = white, .black = black, .annotator = ""});
}

TEST(AnalyzeGames, GameRangesSelectAndRefuse) {
  const GameRanges r = parse_game_ranges("1-3,5");
  EXPECT_TRUE(r.contains(2));
  EXPECT_TRUE(r.contains(5));
  EXPECT_FALSE(r.contains(4));
  EXPECT_TRUE(GameRanges{}.contains(99)) << "no selection: every game";
  EXPECT_THROW(parse_game_ranges("3-1"), ParseError);
  EXPECT_THROW(parse_game_ranges("x"), ParseError);
  EXPECT_THROW(parse_game_ranges(""), ParseError);
}

TEST(AnalyzeGames, FilesAreJudgedAndTheirErrorsTold) {
  const std::string dir = test::temp_dir("analyze-games");
  const std::string good = dir + "/good.pgn", bad = dir + "/bad.pgn", empty = dir + "/empty.pgn";
  std::ofstream(good) << record_of(6, "Ann", "Bob") << "\n"
                      << record_of(4, "Bob", "Cat") << "\n"
                      << record_of(2, "Dan", "Eve");
  std::ofstream(bad) << "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. 76 99 *\n";
  std::ofstream(empty) << "";
  const GameSpec spec = GameSpec::togyz();
  LevelPlayerOptions lo;
  lo.force_alphabeta = true;
  std::unique_ptr<Player> engine = make_analysis_player(spec, Level::kHard, "", 0, lo);
  ThinkLimits limits;
  limits.depth = 2;
  std::vector<std::string> errors;
  const GamesAnalysis a =
      analyze_game_files({good, bad, empty}, spec, parse_game_ranges("1-2"), *engine, limits,
                         AnalysisHuman{}, [&](const std::string& m) { errors.push_back(m); });
  ASSERT_EQ(a.games.size(), 2u) << "game 3 is not selected, the bad file's game does not replay";
  EXPECT_TRUE(a.had_errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[1].find("holds no game"), std::string::npos) << errors[1];
  EXPECT_EQ(a.games[0].names[0], "Ann");
  EXPECT_EQ(a.games[0].moves.size(), 6u);
  EXPECT_EQ(a.games[0].analysis.moves.size(), 6u);
  EXPECT_FALSE(a.games[0].like[0]) << "no human model, no estimate";
  EXPECT_EQ(a.player_order, (std::vector<std::string>{"Ann", "Bob", "Cat"}));
  EXPECT_EQ(a.by_player.size(), 3u);
  EXPECT_NE(a.pgn.find("[Annotator \"KumalakZero " + engine->name() + "\"]"), std::string::npos);
  const std::string summary = analysis_summary_text(a);
  EXPECT_EQ(summary.rfind("Game 1 (" + good + "): Ann vs Bob, *, 6 plies\n", 0), 0u) << summary;
  EXPECT_NE(summary.find("All games, per player:\n  Ann: "), std::string::npos) << summary;
  // Without --output: one PGN file, the summary after the games in comment lines.
  const std::string printed = pgn_with_summary(a);
  EXPECT_EQ(printed.rfind(a.pgn, 0), 0u);
  EXPECT_EQ(printed.substr(a.pgn.size(), 9), "; Game 1 ");
  EXPECT_NE(printed.find("\n; All games, per player:\n;   Ann: "), std::string::npos) << printed;
  EXPECT_EQ(printed.back(), '\n');
  bool read_all = true;
  const std::vector<GameRecord> records = read_record_files(
      {good, empty}, [](const std::string&) {}, read_all);
  EXPECT_EQ(records.size(), 3u);
  EXPECT_FALSE(read_all);
  std::filesystem::remove_all(dir);
}

TEST(AnalyzeGames, ReportLinesAndByPlayerVariants) {
  PlayerReport report;
  PlayerGame g;
  g.date = "2025.01.02";
  g.opponent = "Bob";
  g.colour = 1;
  g.result = "0-1";
  g.score = 1.0;
  g.accuracy = 87.25;
  report.games.push_back(g);
  report.mean_accuracy = 87.25;
  EXPECT_EQ(player_report_text("Ann", report),
            "Ann: 1 game\n"
            "Date        Opponent          Colour  Result          Accuracy  Played like\n"
            "2025.01.02  Bob               Black   won 0-1         87.2%     -\n"
            "Mean accuracy: 87.2%.\n");
  const nlohmann::json j = player_report_json("Ann", {report, 1.26}, 16, 2, "");
  EXPECT_EQ(j["games"][0]["colour"], "black");
  EXPECT_EQ(j["games"][0]["accuracy"], 87.3);
  EXPECT_EQ(j["seconds"], 1.3);
  EXPECT_TRUE(j["rating"].is_null());
  EXPECT_EQ(by_player_variants({}, false).size(), 1u);
  const std::vector<PlayerRatingOptions> v = by_player_variants({1, 0.5}, true);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_FALSE(v[1].opponents);
  EXPECT_EQ(v[2].likelihood_scale, 0.5);
}

// The engines analyze judges with, and the workers of --player-report and --by-player.
TEST(AnalyzeGames, EnginesAndWorkers) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  EXPECT_EQ(games_engine(spec, Level::kHard, "", 3)->name(), "alphabeta-hard")
      << "a depth asks for alpha-beta";
  AnalysisWorkers judged;
  load_analysis_workers(spec, "", {Level::kEasy, "", 40, 0}, 3, judged);
  EXPECT_EQ(judged.human.head, nullptr) << "no human model given";
  ASSERT_EQ(judged.workers.size(), 3u);
  ASSERT_EQ(judged.engines.size(), 3u) << "an engine each: a search is not thread-safe";
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(judged.workers[i].engine, judged.engines[i].get());
    EXPECT_EQ(judged.workers[i].limits.nodes, 40);
  }
  AnalysisWorkers timed;
  load_analysis_workers(spec, "", {Level::kEasy, "", 40, 0.5}, 0, timed);
  ASSERT_EQ(timed.workers.size(), 1u) << "at least one";
  EXPECT_EQ(timed.workers[0].limits.movetime_s, 0.5);
  EXPECT_EQ(timed.workers[0].limits.nodes, 0) << "a time instead of the visits";
  AnalysisWorkers unjudged;
  load_analysis_workers(spec, "", {}, 2, unjudged);
  EXPECT_TRUE(unjudged.engines.empty());
  EXPECT_EQ(unjudged.workers[1].engine, nullptr);
  AnalysisWorkers missing;
  EXPECT_ANY_THROW(load_analysis_workers(spec, "/nonexistent/human.pt", {}, 1, missing));
}

// A row's figures come from its scored players, and the rows of several folds pool into
// the row of all their players together.
TEST(AnalyzeGames, ByPlayerRowsPoolAcrossFolds) {
  auto player = [](const std::string& name, double recorded, double estimate) {
    return ScoredPlayer{name,          recorded,      {estimate, estimate - 100, estimate + 100, 0},
                        recorded + 50, recorded - 50, 5};
  };
  ByPlayerRow a, b, c;
  a.games = b.games = c.games = "all";
  a.scored = {player("p", 1000, 1100), player("q", 1400, 1300)};
  b.scored = {player("r", 1200, 1250), player("p", 1100, 1500)};
  score_row(a);
  EXPECT_EQ(a.players, 2);
  EXPECT_DOUBLE_EQ(a.mae, 100);
  EXPECT_DOUBLE_EQ(a.mean_mae, 200);
  EXPECT_DOUBLE_EQ(a.coverage, 1.0);
  EXPECT_DOUBLE_EQ(a.width, 200);
  EXPECT_DOUBLE_EQ(a.spearman, 1.0);
  const std::vector<ByPlayerRow> folds = {a, b};
  const ByPlayerRow pooled = pooled_row(folds);
  ASSERT_EQ(pooled.players, 4);
  c.scored = {a.scored[0], a.scored[1], b.scored[0], b.scored[1]};
  score_row(c);
  EXPECT_DOUBLE_EQ(pooled.spearman, c.spearman);
  EXPECT_DOUBLE_EQ(pooled.mae, (100 + 100 + 50 + 400) / 4.0);
  EXPECT_DOUBLE_EQ(pooled.mean_mae, c.mean_mae);
  EXPECT_DOUBLE_EQ(pooled.coverage, 0.75);  // p's second fold: 1,100 outside [1,400, 1,600]
  EXPECT_DOUBLE_EQ(pooled.average_mae, 50);
  b.games = "5";
  const std::vector<ByPlayerRow> mixed = {a, b};
  EXPECT_THROW(pooled_row(mixed), std::invalid_argument);
}

// The pooled rows' intervals resample players (names), not entries, from a fixed seed.
TEST(AnalyzeGames, PooledRowIntervalsResamplePlayers) {
  ByPlayerRow exact;
  for (int i = 0; i < 30; ++i) {
    const double r = 1000 + 20 * i;
    std::string name = "p";
    name += std::to_string(i);
    exact.scored.push_back({name, r, {r, r - 50, r + 50, 0}, r, r, 5});
  }
  const auto perfect = bootstrap_row(exact, 500);
  ASSERT_TRUE(perfect.has_value());
  EXPECT_EQ(perfect->names, 30);
  EXPECT_DOUBLE_EQ(perfect->spearman_low, 1.0);
  EXPECT_DOUBLE_EQ(perfect->spearman_high, 1.0);
  EXPECT_DOUBLE_EQ(perfect->mae_ratio_high, 0.0);

  ByPlayerRow noisy = exact;
  for (size_t i = 0; i < noisy.scored.size(); ++i)
    noisy.scored[i].estimate.rating += (i % 3 == 0 ? 250.0 : -120.0);
  const auto a = bootstrap_row(noisy, 500), b = bootstrap_row(noisy, 500);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->spearman_low, b->spearman_low);  // the same seed, the same draw
  EXPECT_LT(a->spearman_low, a->spearman_high);
  EXPECT_LT(a->mae_ratio_low, a->mae_ratio_high);
  score_row(noisy);
  EXPECT_LE(a->spearman_low, noisy.spearman);
  EXPECT_GE(a->spearman_high, noisy.spearman);

  // One player in several folds is one name: two names are the least to draw from.
  ByPlayerRow one;
  one.scored = {exact.scored[0], exact.scored[0]};
  one.scored[1].recorded = 1500;
  EXPECT_FALSE(bootstrap_row(one, 100).has_value());
}

// --pool-by-player reads the folds' JSON: their players pooled row by row; folds that do
// not make one cross-validation, or files that are not such answers, are refused by name.
TEST(AnalyzeGames, PoolByPlayerFilesChecksTheFolds) {
  const std::string dir = test::temp_dir("pool_by_player");
  auto fold_json = [](const std::string& held_out, double recorded, double estimate) {
    nlohmann::json scored = nlohmann::json::array();
    scored.push_back({{"name", "p" + held_out},
                      {"recorded", recorded},
                      {"estimate", estimate},
                      {"low", estimate - 200},
                      {"high", estimate + 200},
                      {"average", estimate},
                      {"weighted", estimate},
                      {"games_used", 6}});
    scored.push_back({{"name", "same"},
                      {"recorded", 1500.0},
                      {"estimate", 1450.0},
                      {"low", 1300.0},
                      {"high", 1600.0},
                      {"average", 1450.0},
                      {"weighted", 1450.0},
                      {"games_used", 5}});
    return nlohmann::json{{"human_model", "m" + held_out.substr(0, 1) + ".pt"},
                          {"fold", "validation"},
                          {"held_out", held_out},
                          {"min_games", 5},
                          {"games", 11},
                          {"skipped_games", 0},
                          {"players", 2},
                          {"search_mix_visits", 1024},
                          {"threads", 1},
                          {"seconds", 2.5},
                          {"rows",
                           {{{"likelihood_scale", 0.25},
                             {"opponents", true},
                             {"games", "all"},
                             {"scored", scored}}}}};
  };
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  const std::string f0 = write("f0.json", fold_json("0/3", 1000, 1100).dump());
  const std::string f1 = write("f1.json", fold_json("1/3", 1200, 1150).dump());
  const std::string f2 = write("f2.json", fold_json("2/3", 1900, 1700).dump());
  const PooledByPlayer pooled = pool_by_player_files({f2, f0, f1});
  ASSERT_EQ(pooled.folds.size(), 3u);
  EXPECT_EQ(pooled.folds[0].held_out, "0/3");  // in the order of the folds
  EXPECT_EQ(pooled.evaluation.games, 33);
  EXPECT_EQ(pooled.evaluation.players, 6);
  EXPECT_EQ(pooled.distinct_players, 4);  // "same" in every fold
  ASSERT_EQ(pooled.evaluation.rows.size(), 1u);
  const ByPlayerRow& all = pooled.evaluation.rows[0];
  EXPECT_EQ(all.players, 6);
  EXPECT_DOUBLE_EQ(all.mae, (100 + 50 + 50 + 200 + 50 + 50) / 6.0);
  EXPECT_DOUBLE_EQ(all.games_per_player, 5.5);
  const nlohmann::json j = pooled_by_player_json(pooled);
  EXPECT_EQ(j["held_out"], "3 folds");
  EXPECT_EQ(j["distinct_players"], 4);
  EXPECT_EQ(j["folds"][2]["human_model"], "m2.pt");
  EXPECT_EQ(j["rows"][0]["scored"].size(), 6u);
  EXPECT_NE(pooled_by_player_text(pooled).find("3 folds pooled (4 distinct players)"),
            std::string::npos);

  ASSERT_EQ(pooled.intervals.size(), 1u);
  ASSERT_TRUE(pooled.intervals[0].has_value());
  EXPECT_EQ(pooled.intervals[0]->names, 4);
  EXPECT_EQ(j["rows"][0]["interval"]["names"], 4);

  auto refused = [&](const std::vector<std::string>& files, const std::string& says) {
    try {
      pool_by_player_files(files);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused({f0, f1}, "fold 2/3 missing");
  refused({f0, f1, f1}, "is also");
  refused({f0, f1, write("f5.json", fold_json("2/5", 1, 1).dump())}, "another cross-validation");
  refused({f0}, "K >= 2");
  refused({f0, f1, write("bad.json", "{\"rows\": [")}, "bad.json: not JSON");
  refused({f0, f1, write("cut.json", "{\"held_out\": \"2/3\"}")}, "cut.json: not a");
  refused({f0, f1, dir + "/none.json"}, "none.json: cannot be read");
  nlohmann::json other = fold_json("2/3", 1, 1);
  other["min_games"] = 3;
  refused({f0, f1, write("min.json", other.dump())}, "--min-games 3");
  other = fold_json("2/3", 1, 1);
  other["rows"][0]["games"] = "5";
  refused({f0, f1, write("rows.json", other.dump())}, "other rows");
  other = fold_json("2/3", 1, 1);
  other["fold"] = "train";
  refused({f0, f1, write("train.json", other.dump())}, "train fold");
  other = fold_json("2/3", 1, 1);
  other["held_out"] = "3/3";
  refused({f0, f1, write("range.json", other.dump())}, "range.json: held-out fold '3/3'");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz::cli
