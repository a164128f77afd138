// The sessions' idle rule (SessionTable::close_idle): a game stays 30 minutes without a
// look; a game's rating evidence that nobody asks about goes much sooner, so that pages
// reloaded during the rating pass do not hold the engine's sessions for half an hour.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "tools/serve/game_evidence.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

TEST(ServeSessionIdle, EvidenceNobodyAsksAboutGoesBeforeAnIdleGame) {
  SessionTable table(16);
  std::lock_guard<std::mutex> lock(table.mutex());
  const Clock::time_point start = Clock::now();
  Session& game = table.open();
  game.last_seen = start;
  const std::string game_id = game.id;
  Session& asked = table.open();
  asked.evidence = std::make_shared<EvidenceWork>();
  asked.last_seen = start;
  const std::string asked_id = asked.id;
  Session& forgotten = table.open();
  forgotten.evidence = std::make_shared<EvidenceWork>();
  forgotten.last_seen = start;
  const std::string forgotten_id = forgotten.id;

  // At 100 s both evidence sessions are still inside their 120 s.
  table.close_idle(start + seconds(100), minutes(30), seconds(120));
  EXPECT_EQ(table.size(), 3u);
  // The page still asks about one of them (get() marks it seen).
  table.get(asked_id).last_seen = start + seconds(100);
  table.close_idle(start + seconds(150), minutes(30), seconds(120));
  EXPECT_TRUE(table.find(game_id));
  EXPECT_TRUE(table.find(asked_id));
  EXPECT_FALSE(table.find(forgotten_id)) << "evidence unasked-for for 150 s is kept";
  EXPECT_EQ(table.size(), 2u);
  // An idle game goes at 30 minutes, not before; the evidence rule never keeps a session
  // longer than the games' rule.
  table.close_idle(start + minutes(29), minutes(30), seconds(120));
  EXPECT_TRUE(table.find(game_id));
  EXPECT_FALSE(table.find(asked_id));
  table.close_idle(start + minutes(31), minutes(30), seconds(120));
  EXPECT_EQ(table.size(), 0u);
  Session& short_rule = table.open();
  short_rule.evidence = std::make_shared<EvidenceWork>();
  short_rule.last_seen = start;
  table.close_idle(start + seconds(61), minutes(1), seconds(120));
  EXPECT_EQ(table.size(), 0u);
}

}  // namespace
}  // namespace kz::cli::serve
