// What `kumalak solve`, `egtb` and `perfect-check` do around the solving, without the
// binary (tools/solver_tables.h): the position asked about, the command's table, an
// endgame database file built and read back, the peak memory.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/notation.h"
#include "tools/solver_tables.h"

namespace kz::cli {
namespace {

namespace fs = std::filesystem;

// A folder of its own under the system's temporary folder, removed afterwards.
struct TempFolder {
  fs::path path =
      fs::temp_directory_path() /
      ("kz_solver_tables_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempFolder() { fs::remove_all(path); }
  ~TempFolder() { fs::remove_all(path); }
};

TEST(SolverTables, ThePositionAskedAbout) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  EXPECT_EQ(position_to_solve(spec, "", "").to_string(), Position::start(spec).to_string());
  Position after = Position::start(spec);
  after.play(0);
  EXPECT_EQ(position_to_solve(spec, "1", "").to_string(), after.to_string());
  EXPECT_EQ(position_to_solve(spec, "", after.to_string()).to_string(), after.to_string());
  EXPECT_THROW(position_to_solve(spec, "1", after.to_string()), ParseError);
  EXPECT_THROW(position_to_solve(spec, "9", ""), ParseError);
}

TEST(SolverTables, NoTableWhenNoneIsAskedFor) {
  TempFolder dir;
  const CommandEgtb none = command_egtb(GameSpec::kalah(4, 3), 0, dir.path.string(), nullptr);
  EXPECT_EQ(none.db, nullptr);
  EXPECT_GE(none.seconds, 0);
  EXPECT_FALSE(fs::exists(dir.path)) << "nothing is written for no table";
}

TEST(SolverTables, AFileBuiltIsReadBackAndServesTheCommands) {
  TempFolder dir;
  const GameSpec spec = GameSpec::kalah(4, 3);
  int levels = 0;
  const EgtbFile built =
      build_egtb_file(spec, 6, dir.path.string(), [&](int, double) { ++levels; });
  EXPECT_EQ(built.path, (dir.path / egtb_file_name(spec.variant, spec.pits, 6)).string());
  EXPECT_EQ(built.path, egtb_file_path(spec, 6, dir.path.string()));
  EXPECT_TRUE(fs::exists(built.path));
  EXPECT_EQ(built.db.max_seeds(), 6);
  EXPECT_GT(levels, 0);
  const EgtbFile read = read_egtb_file(spec, 6, dir.path.string());
  EXPECT_EQ(read.path, built.path);
  EXPECT_EQ(read.db.checksum(), built.db.checksum());
  EXPECT_EQ(read.db.size(), built.db.size());
  EXPECT_EQ(read.seconds, 0);
  const CommandEgtb asked = command_egtb(spec, 6, dir.path.string(), nullptr);
  ASSERT_NE(asked.db, nullptr);
  EXPECT_EQ(asked.db->checksum(), built.db.checksum());
  EXPECT_THROW(read_egtb_file(spec, 5, dir.path.string()), std::runtime_error)
      << "a table that is not there is said";
}

TEST(SolverTables, PeakMemoryIsMeasured) {
  EXPECT_GT(peak_rss_mib(), 1.0);
}

}  // namespace
}  // namespace kz::cli
