// The commands of the full build that need LibTorch, in the player's build
// (-DKZ_TORCH=OFF): each says what it needs instead of running. `bench` times LibTorch's
// forwards beside ours and `human-train` fits the human head with LibTorch's autograd;
// the training executables (kumalak-selfplay, -train, -gate) are not built at all.
#include <iostream>

#include "tools/command_error.h"
#include "tools/commands.h"

namespace kz::cli {

namespace {
void register_full_build_only(CLI::App& app, int& exit_code, const std::string& name,
                              const std::string& what) {
  auto* cmd = app.add_subcommand(name, what + " (the full build only)");
  cmd->allow_extras();
  cmd->callback([name, &exit_code] {
    print_command_error("kumalak " + name,
                        "this is the player's build, without LibTorch (-DKZ_TORCH=OFF); this "
                        "command needs the full build (tools/test.sh builds it, docs/build.md)");
    exit_code = 2;
  });
}
}  // namespace

void register_bench(CLI::App& app, int& exit_code) {
  register_full_build_only(app, exit_code, "bench", "Measure search and network speed");
}

void register_human_train(CLI::App& app, int& exit_code) {
  register_full_build_only(app, exit_code, "human-train",
                           "Train the human policy head on rated games");
}

}  // namespace kz::cli
