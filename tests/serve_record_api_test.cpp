// The list of an uploaded record's games (tools/serve/record_api.h) that the page's
// chooser shows for a file of many games.
#include <gtest/gtest.h>

#include "core/position.h"
#include "tools/serve/api_router.h"
#include "tools/serve/record_api.h"

namespace kz::cli::serve {
namespace {

const char* kThreeGames =
    "[White \"Ann\"]\n[Black \"Bob\"]\n[WhiteElo \"1530\"]\n[Date \"2025.03.01\"]\n"
    "[Result \"1-0\"]\n\n1. 98(10) 98(10) 2. 11 12 1-0\n\n"
    "[White \"Cem\"]\n[Black \"Dana\"]\n\n1. 76 *\n\n"
    "[White \"Eve\"]\n[Black \"Fay\"]\n\n1. 98(10) 98(10) 2. 99 *\n";

TEST(RecordGames, ListsEveryGameWithWhoPlayedAndHowLong) {
  const json list = record_games_json(kThreeGames, "togyz")["games"];
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0]["index"], 1);
  EXPECT_EQ(list[0]["white"], "Ann");
  EXPECT_EQ(list[0]["black"], "Bob");
  EXPECT_EQ(list[0]["white_elo"], "1530");
  EXPECT_EQ(list[0]["result"], "1-0");
  EXPECT_EQ(list[0]["date"], "2025.03.01");
  EXPECT_EQ(list[0]["plies"], 4);
  EXPECT_FALSE(list[0].contains("error"));
  EXPECT_EQ(list[1]["white"], "Cem");
  EXPECT_EQ(list[1]["plies"], 1);
  EXPECT_EQ(list[1]["result"], "*");
}

TEST(RecordGames, AGameThatDoesNotReplaySaysWhereAndStaysListed) {
  const json list = record_games_json(kThreeGames, "togyz")["games"];
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[2]["index"], 3);
  EXPECT_EQ(list[2]["plies"], 0);
  ASSERT_TRUE(list[2].contains("error"));
  EXPECT_NE(list[2]["error"].get<std::string>().find("99"), std::string::npos) << list[2]["error"];
}

TEST(RecordGames, TextThatIsNoRecordIsRefusedAndAnEmptyFileToo) {
  EXPECT_THROW(record_games_json("[White \"unclosed\n1. 76", "togyz"), ParseError);
  ApiRouter router;
  add_record_routes(router);
  ApiRequest request{"POST", "/api/record/games", "", json::object(), R"({"pgn": ""})", ""};
  EXPECT_EQ(router.answer(request).status, 400);
  request.body = json{{"pgn", kThreeGames}}.dump();
  const ApiResponse answer = router.answer(request);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(json::parse(answer.body)["games"].size(), 3u);
}

}  // namespace
}  // namespace kz::cli::serve
