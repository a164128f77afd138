// Replays every recorded game in ../shared/data/togyz/*.pgn and checks each move's
// landing hole, tuzdyk mark and (n) annotation against the rules core, ply by ply
// (independently of replay_record, which is checked to agree). Skips when the data is
// not there.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/notation.h"
#include "tests/test_util.h"

namespace kz {
namespace {

std::vector<std::string> pgn_files() {
  std::vector<std::string> files;
  const std::string dir = kz::test::shared_data_dir();
  if (dir.empty()) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/togyz"))
    if (e.path().extension() == ".pgn") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RecordedGames, AllReplayWithEveryAnnotationConfirmed) {
  const auto files = pgn_files();
  if (files.empty())
    GTEST_SKIP() << "no recorded games: " << test::configured_shared_data_dir()
                 << "/togyz/*.pgn is absent (set -DKZ_SHARED_DATA=... to run this test)";
  const Position start = Position::start(GameSpec::togyz());
  int games = 0, plies = 0, landings = 0, tuzdyk_marks = 0, kazan_notes = 0;
  int zero_games = 0, over_games = 0, decided_games = 0;
  std::vector<std::string> disagreements;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    ASSERT_TRUE(in) << file;
    const auto records = read_pgn(in, file);
    ASSERT_FALSE(records.empty()) << file;
    for (const auto& g : records) {
      ++games;
      SCOPED_TRACE(g.describe());
      ASSERT_TRUE(g.tag("FEN").empty()) << "games are expected to start from the start";
      // Ply by ply, with the core's MoveInfo.
      Position pos = start;
      for (size_t ply = 0; ply < g.moves.size(); ++ply) {
        const MoveToken t = parse_move_token(g.moves[ply], GameSpec::togyz());
        ASSERT_FALSE(pos.is_over()) << "ply " << ply + 1 << " after the end";
        ASSERT_TRUE(pos.is_legal(t.from - 1)) << "ply " << ply + 1 << " " << t.text;
        const int mover = pos.to_move;
        const auto info = pos.play(t.from - 1);
        ASSERT_TRUE(t.landing.has_value());
        ASSERT_EQ(*t.landing, info.landing_index + 1) << "ply " << ply + 1 << " " << t.text;
        ASSERT_EQ(t.tuzdyk_mark, info.made_tuzdyk) << "ply " << ply + 1 << " " << t.text;
        if (t.kazan) {
          // On a move that ends the game, rooms write the kazan before the end's sweep or
          // after it; core/notation.h accepts both.
          if (!(info.ended_game && *t.kazan == info.mover_store_before_sweep)) {
            ASSERT_EQ(*t.kazan, pos.store[mover]) << "ply " << ply + 1 << " " << t.text;
          }
          ++kazan_notes;
        }
        ++landings;
        tuzdyk_marks += t.tuzdyk_mark;
        ++plies;
      }
      // replay_record agrees.
      const ReplayResult r = replay_record(g, start);
      ASSERT_EQ(r.final_position, pos);
      ASSERT_EQ(r.plies, int(g.moves.size()));

      // The result token after the moves and the Result tag agree.
      EXPECT_EQ(g.tag("Result", g.result), g.result);
      const bool zero = std::find(g.comments.begin(), g.comments.end(), "zero") != g.comments.end();
      zero_games += zero;
      if (zero) {
        EXPECT_TRUE(pos.is_over()) << "{zero} but the game is not over: " << pos.to_string();
      }
      if (pos.is_over()) {
        ++over_games;
        if (g.result != outcome_string(pos.outcome()))
          disagreements.push_back(g.describe() + ": recorded " + g.result + ", rules give " +
                                  outcome_string(pos.outcome()) + " at " + pos.to_string());
      } else if (pos.is_decided()) {
        ++decided_games;
        if (g.result != outcome_string(pos.outcome()))
          disagreements.push_back(g.describe() + ": recorded " + g.result + ", decided " +
                                  outcome_string(pos.outcome()) + " at " + pos.to_string());
      }
    }
  }
  // No game that is over (or decided at 82) by the rules carries a different result.
  EXPECT_TRUE(disagreements.empty())
      << disagreements.size()
      << " disagree, first: " << (disagreements.empty() ? "" : disagreements.front());
  // The data really exercised the checks.
  EXPECT_GT(tuzdyk_marks, 100);
  EXPECT_GT(kazan_notes, 1000);
  EXPECT_GT(zero_games, 0);
  std::printf(
      "[ recorded ] %zu files, %d games, %d plies (%d landing holes, %d tuzdyk marks, %d (n) "
      "notes); %d over by the rules (%d with {zero}), %d more decided at 82\n",
      files.size(), games, plies, landings, tuzdyk_marks, kazan_notes, over_games, zero_games,
      decided_games);
}

}  // namespace
}  // namespace kz
