// "My openings" (POST /api/openings/games, tools/serve/player_openings.h): a player's
// own games as an explorer, over a hand-made file whose every count is known.
#include <gtest/gtest.h>

#include "core/position.h"
#include "tests/serve_api_call.h"
#include "tools/serve/api_router.h"
#include "tools/serve/openings_api.h"

namespace kz::cli::serve {
namespace {

// Alice plays games 1-4: White against Bob (1. 76 87 2. 11, she wins), Black against
// Carol (1. 76 11, she wins), White against Dan (1. 76 98, drawn), White against Eve
// (a broken record: 99 lands on hole 8). Game 5 is Bob against Carol, without her.
const char* kFile = R"([White "Alice"]
[Black "Bob"]
[WhiteElo "1500"]
[BlackElo "1400"]
[Result "1-0"]

1. 76 87 2. 11 1-0

[White "Carol"]
[Black "alice"]
[WhiteElo "1450"]
[BlackElo "1520"]
[Result "0-1"]

1. 76 11 0-1

[White "Alice"]
[Black "Dan"]
[WhiteElo "1540"]
[Result "1/2-1/2"]

1. 76 98 1/2-1/2

[White "Alice"]
[Black "Eve"]
[Result "1-0"]

1. 76 99 1-0

[White "Bob"]
[Black "Carol"]
[Result "1-0"]

1. 21 21 1-0
)";

class PlayerOpeningsApi {
 public:
  PlayerOpeningsApi() { add_openings_routes(router_); }
  // `body` with the file of games added unless it names them some other way.
  std::pair<int, json> post(json body, const std::string& lang = "") {
    if (!body.contains("pgn") && !body.contains("games_key")) body["pgn"] = kFile;
    return answer_json(router_, "POST", "/api/openings/games", body, lang);
  }

 private:
  ApiRouter router_;
};

const json* move_of(const json& answer, int pit) {
  for (const json& m : answer["moves"])
    if (m["move"] == pit) return &m;
  return nullptr;
}

std::string after_76() {
  Position p = Position::start(GameSpec::togyz());
  p.play(6);
  return p.to_string();
}

TEST(ServePlayerOpenings, TheMostFrequentPlayersGamesCountedFromTheirSide) {
  PlayerOpeningsApi api;
  auto [status, j] = api.post({{"game", "togyz"}});
  ASSERT_EQ(status, 200) << j.dump();
  EXPECT_EQ(j["about"]["player"], "Alice");  // spelled as her first game has it
  EXPECT_EQ(j["about"]["records"], 5);
  EXPECT_EQ(j["about"]["as_white"], 2);
  EXPECT_EQ(j["about"]["as_black"], 1);
  EXPECT_EQ(j["about"]["without_player"], 1);
  EXPECT_EQ(j["about"]["rating"], 1520);  // (1500 + 1520 + 1540) / 3
  ASSERT_EQ(j["about"]["skipped"].size(), 1u);
  const std::string why = j["about"]["skipped"][0];
  EXPECT_NE(why.find("game 4"), std::string::npos) << why;
  EXPECT_NE(why.find("line"), std::string::npos) << why;
  // From the start: 76 in all three of her games, twice by her and once by Carol.
  EXPECT_EQ(j["games"], 3);
  ASSERT_EQ(j["moves"].size(), 1u);
  const json& m = j["moves"][0];
  EXPECT_EQ(m["notation"], "76");
  EXPECT_EQ(m["games"], 3);
  EXPECT_EQ(m["by"], "both");
  // The mover's view: Alice won as White, Carol lost, Alice drew.
  EXPECT_EQ(m["wins"], 1);
  EXPECT_EQ(m["draws"], 1);
  EXPECT_EQ(m["losses"], 1);
  // Alice's view: she won twice and drew once.
  EXPECT_EQ(m["player"]["wins"], 2);
  EXPECT_EQ(m["player"]["draws"], 1);
  EXPECT_EQ(m["player"]["losses"], 0);
  EXPECT_NEAR(double(m["player"]["score"]), 2.5 / 3, 1e-9);
  EXPECT_EQ(m["player"]["mean_rating"], 1520);  // her own ratings, not Carol's
  EXPECT_EQ(m["by_source"]["player-as-white"]["games"], 2);
  EXPECT_EQ(m["by_source"]["opponents-of-black"]["games"], 1);
  EXPECT_EQ(m["after"], after_76());
}

TEST(ServePlayerOpenings, AColourKeepsItsOwnMovesAndTheRepliesTheyMet) {
  PlayerOpeningsApi api;
  // After 76: her own reply as Black (11), the replies her White games met (87, 98).
  auto [s1, both] = api.post({{"position", after_76()}});
  ASSERT_EQ(s1, 200) << both.dump();
  EXPECT_EQ(both["to_move"], "black");
  EXPECT_EQ(both["games"], 3);
  ASSERT_NE(move_of(both, 1), nullptr);
  EXPECT_EQ((*move_of(both, 1))["by"], "player");
  EXPECT_EQ((*move_of(both, 1))["player"]["wins"], 1);
  ASSERT_NE(move_of(both, 8), nullptr);
  EXPECT_EQ((*move_of(both, 8))["by"], "opponents");
  EXPECT_EQ((*move_of(both, 8))["losses"], 1);          // Bob lost...
  EXPECT_EQ((*move_of(both, 8))["player"]["wins"], 1);  // ...so Alice won
  EXPECT_EQ((*move_of(both, 9))["player"]["draws"], 1);
  auto [s2, white] = api.post({{"position", after_76()}, {"colour", "white"}});
  ASSERT_EQ(s2, 200);
  EXPECT_EQ(white["games"], 2);
  EXPECT_EQ(move_of(white, 1), nullptr);
  EXPECT_EQ(white["selection"]["colour"], "white");
  auto [s3, black] = api.post({{"colour", "black"}});
  ASSERT_EQ(s3, 200);
  EXPECT_EQ(black["games"], 1);
  EXPECT_EQ(black["moves"][0]["by"], "opponents");
  EXPECT_EQ(black["moves"][0]["player"]["score"], 1.0);
}

TEST(ServePlayerOpenings, ANamedPlayerLetterCaseIgnored) {
  PlayerOpeningsApi api;
  auto [status, j] = api.post({{"player", "CAROL"}});
  ASSERT_EQ(status, 200) << j.dump();
  EXPECT_EQ(j["about"]["player"], "Carol");
  EXPECT_EQ(j["about"]["as_white"], 1);
  EXPECT_EQ(j["about"]["as_black"], 1);
  EXPECT_EQ(j["about"]["without_player"], 3);
  EXPECT_EQ(j["games"], 2);  // her 76 as White, and the 21 she met as Black
  ASSERT_NE(move_of(j, 2), nullptr);
  EXPECT_EQ((*move_of(j, 2))["by"], "opponents");
  auto [s2, j2] = api.post({{"player", "Carol"}, {"colour", "black"}});
  ASSERT_EQ(s2, 200);
  ASSERT_EQ(j2["moves"].size(), 1u);
  EXPECT_EQ(j2["moves"][0]["notation"], "21");
  EXPECT_EQ(j2["moves"][0]["player"]["losses"], 1);
}

TEST(ServePlayerOpenings, TheFileIsSentOnceAndThenNamedByItsKey) {
  PlayerOpeningsApi api;
  auto [s1, first] = api.post({{"game", "togyz"}});
  ASSERT_EQ(s1, 200) << first.dump();
  const std::string key = first["games_key"];
  EXPECT_EQ(key.size(), 16u);
  // The next step names the games by the key alone: the same tree, one move further.
  auto [s2, step] = api.post({{"games_key", key}, {"position", after_76()}});
  ASSERT_EQ(s2, 200) << step.dump();
  EXPECT_EQ(step["games_key"], key);
  EXPECT_EQ(step["about"], first["about"]);
  auto [s3, full] = api.post({{"position", after_76()}});
  ASSERT_EQ(s3, 200);
  EXPECT_EQ(step["moves"], full["moves"]);
  // Another player's tree is another key, and replaces the one kept.
  auto [s4, carol] = api.post({{"player", "Carol"}});
  ASSERT_EQ(s4, 200);
  EXPECT_NE(carol["games_key"], key);
  auto [s5, gone] = api.post({{"games_key", key}});
  EXPECT_EQ(s5, 409) << gone.dump();
  EXPECT_FALSE(gone["error"].get<std::string>().empty());
  // A key of another game, or of nothing kept, is the same refusal.
  auto [s6, kalah] = api.post({{"games_key", carol["games_key"]}, {"game", "kalah"}});
  EXPECT_EQ(s6, 409) << kalah.dump();
  PlayerOpeningsApi fresh;
  EXPECT_EQ(fresh.post({{"games_key", key}}).first, 409);
}

TEST(ServePlayerOpenings, FilesWithoutThePlayersGamesAreRefusedSayingWhy) {
  PlayerOpeningsApi api;
  auto [s1, j1] = api.post({{"player", "Zed"}});
  EXPECT_EQ(s1, 400);
  EXPECT_NE(j1["error"].get<std::string>().find("Zed"), std::string::npos) << j1.dump();
  auto [s2, j2] = api.post({{"pgn", ""}});
  EXPECT_EQ(s2, 400);
  auto [s3, j3] = api.post({{"pgn", "[White \"x\""}});
  EXPECT_EQ(s3, 400);
  EXPECT_NE(j3["error"].get<std::string>().find("1"), std::string::npos) << j3.dump();
  // Her only game broken: refused, naming the game.
  auto [s4, j4] =
      api.post({{"pgn", "[White \"Eve\"]\n[Black \"Zed\"]\n\n1. 76 99 1-0\n"}, {"player", "Zed"}});
  EXPECT_EQ(s4, 400);
  EXPECT_NE(j4["error"].get<std::string>().find("game 1"), std::string::npos) << j4.dump();
  auto [s5, j5] = api.post({{"colour", "red"}});
  EXPECT_EQ(s5, 400);
  auto [s6, j6] = api.post({{"position", "1,2,3"}});
  EXPECT_EQ(s6, 400);
}

}  // namespace
}  // namespace kz::cli::serve
