// `serve` in the WebAssembly build: a server needs sockets, which neither Node's nor the
// browser's WebAssembly has; the page runs this build itself instead (docs/browser.md).
#include <iostream>

#include "tools/commands.h"

namespace kz::cli {

void register_serve(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("serve", "Serve the page and the JSON API (the native build only)");
  cmd->allow_extras();
  cmd->callback([&exit_code] {
    std::cerr << "kumalak serve: this is the WebAssembly build, which cannot open sockets; "
                 "serve the page with the native build (docs/serve.md)\n";
    exit_code = 2;
  });
}

}  // namespace kz::cli
