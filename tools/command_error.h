// How the commands say what went wrong: one line on stderr, "PROGRAM: MESSAGE", where
// PROGRAM is the command as it was typed ("kumalak puzzles build") or the executable
// ("kumalak-gate"), so that a script that runs several can tell whose error it reads.
// Header-only: the tools directory builds only cmd_*.cpp into the executable.
#pragma once

#include <exception>
#include <iostream>
#include <string_view>

namespace kz::cli {

// Prints "PROGRAM: MESSAGE" and a newline on stderr.
//   program: the command ("kumalak hint") or executable ("kumalak-train") that failed
//   message: what went wrong, already in the user's language where it is translated
inline void print_command_error(std::string_view program, std::string_view message) {
  std::cerr << program << ": " << message << "\n";
}

// Prints the message of `error`, after `context` and ": " where one is given:
// "PROGRAM: CONTEXT: WHAT".
//   program: as above
//   error: the failure; its what() is the message
//   context: what was being done or which option was read ("--fold"); empty: none
inline void print_command_error(std::string_view program, const std::exception& error,
                                std::string_view context = {}) {
  if (context.empty())
    print_command_error(program, error.what());
  else
    std::cerr << program << ": " << context << ": " << error.what() << "\n";
}

}  // namespace kz::cli
