// `serve` in the WebAssembly build: a server needs sockets, which neither Node's nor the
// browser's WebAssembly has; the page runs this build itself instead (docs/browser.md).
#include "tools/command_error.h"
#include "tools/commands.h"

namespace kz::cli {

void register_serve(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("serve", "Serve the page and the JSON API (the native build only)");
  cmd->allow_extras();
  cmd->callback([&exit_code] {
    print_command_error("kumalak serve",
                        "this is the WebAssembly build, which cannot open sockets; serve the "
                        "page with the native build (docs/serve.md)");
    exit_code = 2;
  });
}

}  // namespace kz::cli
