// What the openings commands compute, without the binary (tools/opening_build.h,
// tools/opening_query.h): the inputs of a build and their labels, an explorer built from
// records with a broken shard left out, and a query's answer as text and JSON.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/game_session.h"
#include "tests/test_util.h"
#include "tools/opening_build.h"
#include "tools/opening_query.h"

namespace kz::cli {
namespace {

// A game of the given moves (1-based holes) with a result.
std::string record_of(const std::vector<int>& holes, const std::string& result) {
  GameSession game(GameSpec::togyz());
  for (int h : holes) game.play(h - 1);
  std::string text = game.record({.site = "test", .white = "A", .black = "B", .annotator = ""});
  // The result tag and the end of the moves.
  for (size_t star = text.find('*'); star != std::string::npos; star = text.find('*', star))
    text.replace(star, 1, result);
  return text;
}

TEST(Openings, InputsAndLabelsOfABuild) {
  const std::string dir = test::temp_dir("openings-inputs");
  std::filesystem::create_directories(dir + "/sub");
  test::write_bytes(dir + "/sub/b.pgn", "");
  test::write_bytes(dir + "/a.pgn", "");
  test::write_bytes(dir + "/c.kzshard", "");
  test::write_bytes(dir + "/notes.txt", "");
  std::vector<std::string> pgns, shards;
  list_explorer_inputs(dir, pgns, shards);
  list_explorer_inputs("given.pgn", pgns, shards);
  EXPECT_EQ(pgns, (std::vector<std::string>{dir + "/a.pgn", dir + "/sub/b.pgn", "given.pgn"}));
  EXPECT_EQ(shards, (std::vector<std::string>{dir + "/c.kzshard"}));
  const auto labels = parse_source_labels({"b.pgn=titled", "given.pgn=engine"}, pgns);
  EXPECT_EQ(labels.at("b.pgn"), ExplorerLabel::kTitled);
  EXPECT_EQ(labels.at("given.pgn"), ExplorerLabel::kEngine);
  EXPECT_THROW(parse_source_labels({"b.pgn"}, pgns), ParseError);
  EXPECT_THROW(parse_source_labels({"none.pgn=titled"}, pgns), ParseError);
  EXPECT_THROW(parse_source_labels({"b.pgn=grandmaster"}, pgns), ParseError);
  try {
    read_explorer_records({dir + "/missing.pgn"});
    FAIL() << "a file that does not read";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/missing.pgn"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(Openings, ABuildAndAQueryOfIt) {
  const std::string dir = test::temp_dir("openings-build");
  test::write_bytes(dir + "/games.pgn", record_of({7, 4}, "1-0") + "\n" + record_of({7, 5}, "0-1") +
                                            "\n" + record_of({3}, "1/2-1/2"));
  test::write_bytes(dir + "/broken.kzshard", "not a shard");
  ExplorerBuildInput input;
  input.min_games = 1;
  input.max_plies = 4;
  input.pgns = {dir + "/games.pgn"};
  input.records = read_explorer_records(input.pgns);
  input.shards = {dir + "/broken.kzshard"};
  int64_t total = -1, added = 0;
  const ExplorerBuild built = build_explorer(
      input, [&](int64_t t) { total = t; }, [&](int64_t games) { added += games; });
  EXPECT_EQ(total, 3);
  EXPECT_EQ(added, 3);
  EXPECT_EQ(built.unreadable_shards, 1);
  ASSERT_EQ(built.reports.size(), 2u);
  EXPECT_EQ(built.reports[0].used, 3);
  EXPECT_EQ(built.reports[1].skipped.size(), 1u);
  EXPECT_NE(built.explorer.metadata_json().find("\"left_out\":\"the shard does not read\""),
            std::string::npos);
  const auto [median_us, max_us] = time_explorer_queries(built.explorer);
  EXPECT_LE(median_us, max_us);

  const GameSpec spec = GameSpec::togyz();
  const Position start = opening_query_position(spec, false, "", "");
  const OpeningAnswer answer = explorer_answer(built.explorer, start, kAllExplorerBuckets);
  EXPECT_EQ(answer.games, 3u);
  ASSERT_EQ(answer.moves.size(), 2u);
  EXPECT_EQ(answer.moves[0].move, 6) << "hole 7, two games, first";
  const std::string text = opening_answer_text(answer, "all");
  EXPECT_EQ(text.rfind("Position " + start.to_string() +
                           " (white to move)\n"
                           "3 games go through this position (source: all).\n",
                       0),
            0u)
      << text;
  LoadedExplorer loaded;
  loaded.path = "x.kzo";
  loaded.explorer = built.explorer;
  loaded.meta = nlohmann::ordered_json::parse(built.explorer.metadata_json());
  const nlohmann::ordered_json j = opening_answer_json(answer, loaded, "all", "");
  EXPECT_EQ(j["to_move"], "white");
  EXPECT_EQ(j["games"], 3);
  EXPECT_EQ(j["moves"][0]["wins"], 1);
  EXPECT_EQ(j["moves"][0]["losses"], 1);
  EXPECT_TRUE(j["selection"]["rating_band"].is_null());
  EXPECT_EQ(j["explorer"]["sources"][0]["used"], 3);
  EXPECT_FALSE(j.contains("engine"));

  const Position after = opening_query_position(spec, true, "7 5", "");
  EXPECT_EQ(explorer_answer(built.explorer, after, kAllExplorerBuckets).games, 0u)
      << "no game plays on from there";
  EXPECT_THROW(opening_query_position(spec, true, "7", "x"), ParseError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz::cli
