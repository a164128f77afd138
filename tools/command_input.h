// The stream the interactive commands (engine, play, puzzle) read a person's or a
// program's commands from: std::cin natively. In the WebAssembly build the host pushes
// the input instead (tools/wasm/command_input.cpp): under Node and in a Web Worker the
// JavaScript thread must stay free to carry the search threads' output, so nothing may
// block it reading stdin.
#pragma once

#include <iostream>

namespace kz::cli {

#ifdef __EMSCRIPTEN__
std::istream& command_input();
#else
inline std::istream& command_input() {
  return std::cin;
}
#endif

}  // namespace kz::cli
