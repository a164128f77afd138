// kumalak perft: counts move sequences to each depth and reports the speed. Single-
// threaded on purpose: the figure is the rules core's speed on one core.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "core/position.h"
#include "tools/command_error.h"
#include "tools/commands.h"

namespace kz::cli {

namespace {
struct PerftOptions {
  std::string game = "togyz";
  std::string position;
  int depth = 6;
};
}  // namespace

void register_perft(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<PerftOptions>();
  auto* cmd = app.add_subcommand("perft", "Count legal move sequences to each depth 1..D");
  add_game_option(cmd, opt->game);
  cmd->add_option("--depth,-d", opt->depth, "deepest depth")->check(in_range(0, 30));
  cmd->add_option("--position", opt->position, "position string (default: the start)");
  cmd->callback([opt, &exit_code] {
    Position pos;
    try {
      const GameSpec spec = GameSpec::parse(opt->game);
      pos = opt->position.empty() ? Position::start(spec) : Position::parse(opt->position, spec);
    } catch (const ParseError& e) {
      print_command_error("kumalak perft", e);
      exit_code = 2;
      return;
    }
    for (int d = 1; d <= opt->depth; ++d) {
      const auto t0 = std::chrono::steady_clock::now();
      const uint64_t nodes = perft(pos, d);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("depth %d nodes %llu time_ms %.0f nps %.0f\n", d, (unsigned long long)nodes,
                  s * 1000, s > 0 ? nodes / s : 0.0);
      std::fflush(stdout);
    }
  });
}

}  // namespace kz::cli
