// The one form of a command's error line (tools/command_error.h): "PROGRAM: MESSAGE",
// with the context before an exception's message where one is given.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "tools/command_error.h"

namespace kz::cli {
namespace {

// What print_command_error writes on stderr while `print` runs.
template <typename F>
std::string stderr_of(F print) {
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  print();
  std::cerr.rdbuf(saved);
  return captured.str();
}

TEST(CommandError, NamesTheProgramBeforeTheMessage) {
  EXPECT_EQ(stderr_of([] { print_command_error("kumalak hint", "the game is over"); }),
            "kumalak hint: the game is over\n");
  EXPECT_EQ(stderr_of([] { print_command_error("kumalak-gate", std::string("no model")); }),
            "kumalak-gate: no model\n");
}

TEST(CommandError, AnExceptionsMessageAfterItsContext) {
  const std::runtime_error error("'x' is not a fold");
  EXPECT_EQ(stderr_of([&] { print_command_error("kumalak puzzles build", error); }),
            "kumalak puzzles build: 'x' is not a fold\n");
  EXPECT_EQ(stderr_of([&] { print_command_error("kumalak puzzles build", error, "--fold"); }),
            "kumalak puzzles build: --fold: 'x' is not a fold\n");
}

}  // namespace
}  // namespace kz::cli
