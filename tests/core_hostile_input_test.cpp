// Hostile but fair input to the rules core: directories given as PGN files,
// the (n) annotation of a game-ending capture as online rooms write it, signed counts,
// and the shared number checks (core/numbers.h).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "core/atomic_file.h"
#include "core/notation.h"
#include "core/numbers.h"
#include "core/run_lock.h"
#include "tests/test_util.h"

namespace kz {
namespace {

TEST(HostileInput, PgnPathThatIsADirectoryIsRefusedByName) {
  const std::string dir = test::temp_dir("kz-pgn-dir") + "/games.pgn";
  std::filesystem::create_directories(dir);
  try {
    read_pgn_file(dir);
    FAIL() << "a directory was read as a PGN file";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(why_not_a_file(dir), "it is a directory, not a file");
  EXPECT_EQ(why_not_a_file(dir + "/missing"), "no such file");
}

// A Togyz game played at random until a move that captures also ends the game while
// the mover still has stones in their row: the end-of-game sweep then adds them to
// the mover's kazan after the capture.
struct EndingCapture {
  std::vector<int> moves;
  int kazan_before_sweep = 0, kazan_after_sweep = 0;
};
EndingCapture find_ending_capture() {
  std::mt19937_64 rng(14);
  for (int attempt = 0; attempt < 200000; ++attempt) {
    Position pos = Position::start(GameSpec::togyz());
    EndingCapture g;
    while (!pos.is_over()) {
      const int m = random_legal_move(pos, rng);
      const int mover = pos.to_move;
      const auto info = pos.play(m);
      g.moves.push_back(m);
      if (info.ended_game && info.captured > 0 && !info.made_tuzdyk &&
          pos.store[mover] != info.mover_store_before_sweep) {
        g.kazan_before_sweep = info.mover_store_before_sweep;
        g.kazan_after_sweep = pos.store[mover];
        return g;
      }
    }
  }
  return {};
}

TEST(HostileInput, GameEndingCaptureAnnotatedWithTheKazanBeforeTheSweep) {
  const EndingCapture g = find_ending_capture();
  ASSERT_FALSE(g.moves.empty()) << "no random game ended with a capture";
  ASSERT_GT(g.kazan_after_sweep, g.kazan_before_sweep);
  // The record as an online room writes it: the last move's (n) is the kazan before the
  // sweep ("91(70)" where the rules' final kazan is 85).
  GameRecord record;
  Position pos = Position::start(GameSpec::togyz());
  for (size_t i = 0; i < g.moves.size(); ++i) {
    std::string token = format_move(pos, g.moves[i]);
    pos.play(g.moves[i]);
    if (i + 1 == g.moves.size()) token += "(" + std::to_string(g.kazan_before_sweep) + ")";
    record.moves.push_back(token);
  }
  EXPECT_NO_THROW(replay_record(record, Position::start(GameSpec::togyz())));
  // The kazan after the sweep is accepted as well; any other number is not.
  const std::string last = record.moves.back();
  const std::string bare = last.substr(0, last.find('('));
  record.moves.back() = bare + "(" + std::to_string(g.kazan_after_sweep) + ")";
  EXPECT_NO_THROW(replay_record(record, Position::start(GameSpec::togyz())));
  record.moves.back() = bare + "(" + std::to_string(g.kazan_after_sweep + 1) + ")";
  try {
    replay_record(record, Position::start(GameSpec::togyz()));
    FAIL() << "a wrong kazan was accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("before the end-of-game sweep"), std::string::npos)
        << e.what();
  }
  // And the writer uses the room's convention for such a move.
  Position before_last = Position::start(GameSpec::togyz());
  for (size_t i = 0; i + 1 < g.moves.size(); ++i) before_last.play(g.moves[i]);
  EXPECT_EQ(format_move(before_last, g.moves.back(), true),
            bare + "(" + std::to_string(g.kazan_before_sweep) + ")");
}

TEST(HostileInput, SignedCountsAreRefusedBothWays) {
  const GameSpec kalah = GameSpec::kalah(2, 1);
  EXPECT_NO_THROW(Position::parse("0,2/1,1 0 0 s", kalah));
  EXPECT_THROW(Position::parse("-0,2/1,1 0 0 s", kalah), ParseError);
  EXPECT_THROW(Position::parse("+0,2/1,1 0 0 s", kalah), ParseError);
  EXPECT_THROW(Position::parse("1,1/1,1 -0 0 s", kalah), ParseError);
  EXPECT_THROW(GameSpec::parse("kalah:-0,4"), ParseError);
  EXPECT_THROW(GameSpec::parse("kalah:+6,4"), ParseError);
}

// The first input fuzzing stopped at (tests/fuzz/regressions/fuzz_position): Kalah(1,1)
// where North's only seed ends in its store, an extra turn with nothing left to move.
TEST(HostileInput, FuzzRegressionKalah11ExtraTurnEndsTheGame) {
  const GameSpec spec = GameSpec::kalah(1, 1);
  const Position pos = Position::parse("1/1 0 0 n", spec);
  EXPECT_EQ(Position::parse(pos.to_string(), spec), pos);
  Position next = pos;
  const auto info = next.play(0);
  EXPECT_TRUE(info.extra_turn);
  EXPECT_TRUE(next.is_over());
  EXPECT_EQ(next.total_stones(), pos.total_stones());
  EXPECT_EQ(next.to_string(), "0/0 1 1 n");
}

TEST(Numbers, OnlyFiniteNumbersInRangeWrittenCompletely) {
  EXPECT_EQ(parse_integer("42", 0, 100, "x"), 42);
  EXPECT_EQ(parse_integer("-5", -10, 10, "x"), -5);
  for (const char* bad :
       {"", "-0", "+0", "+1", " 1", "1 ", "1x", "101", "0x10", "1e2", "99999999999999999999"})
    EXPECT_THROW(parse_integer(bad, 0, 100, "x"), ParseError) << bad;
  EXPECT_DOUBLE_EQ(parse_real("1.5", 0, 10, "x"), 1.5);
  EXPECT_DOUBLE_EQ(parse_real("1e-3", 0, 10, "x"), 0.001);
  for (const char* bad :
       {"nan", "NaN", "inf", "-inf", "infinity", "1e300", "-1", "-0", "", "1.5s", "0x1p3"})
    EXPECT_THROW(parse_real(bad, 0, 10, "x"), ParseError) << bad;
  EXPECT_NO_THROW(require_in_range(3, 0, 10, "x"));
  EXPECT_THROW(require_in_range(std::nan(""), 0, 10, "x"), ParseError);
  EXPECT_THROW(require_in_range(std::numeric_limits<double>::infinity(), 0, 10, "x"), ParseError);
  EXPECT_THROW(require_in_range(-1, 0, 10, "x"), ParseError);
  try {
    require_in_range(std::nan(""), 0, 1, "[selfplay] full_search_fraction");
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(),
                 "[selfplay] full_search_fraction = nan is not a finite number (expected 0..1)");
  }
}

TEST(RunLockTest, ASecondHolderIsRefusedAndADeadOnesLockIsTakenOver) {
  const std::string path = test::temp_dir("kz-lock") + "/.worker-s1-g0.lock";
  {
    RunLock first(path, "self-play worker 's1-g0'");
    try {
      RunLock second(path, "self-play worker 's1-g0'");
      FAIL() << "two holders of one lock";
    } catch (const LockError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("another self-play worker 's1-g0' is already running"), std::string::npos)
          << what;
      EXPECT_NE(what.find("pid " + std::to_string(getpid())), std::string::npos) << what;
    }
  }
  EXPECT_NO_THROW(RunLock(path, "again"));  // released with its holder
  // A holder killed with SIGKILL leaves the file, not the lock.
  const pid_t child = fork();
  if (child == 0) {
    RunLock held(path, "child");
    raise(SIGKILL);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_NO_THROW(RunLock(path, "next"));
}

TEST(AtomicFile, TemporariesOfDeadProcessesAreRemoved) {
  const std::string dir = test::temp_dir("kz-stale");
  char host[64] = "host";
  gethostname(host, sizeof(host) - 1);
  // A pid that is not running: a child that has exited and been reaped.
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const std::string stale = dir + "/a.kzshard.tmp-" + host + "-" + std::to_string(dead) + "-0";
  const std::string live = dir + "/b.kzshard.tmp-" + host + "-" + std::to_string(getppid()) + "-0";
  const std::string other = dir + "/c.kzshard.tmp-otherhost-" + std::to_string(dead) + "-0";
  for (const auto& f : {stale, live, other}) std::ofstream(f) << "x";
  EXPECT_EQ(remove_stale_temp_files(dir), 1);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(other));
}

}  // namespace
}  // namespace kz
