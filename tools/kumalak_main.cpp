// `kumalak`: the engine a person runs. See README.md for each subcommand.
#include <iostream>

#include "nn/allocator.h"
#ifdef KZ_HAVE_TORCH
#include "nn/model_file.h"
#endif
#include "tools/cli_options.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
#ifdef KZ_HAVE_TORCH
  // Model files from before the safetensors weights, and KUMALAK_BACKEND=libtorch.
  kz::install_libtorch_model_support();
#endif
  CLI::App app{"KumalakZero: a Togyz Kumalak and Kalah engine"};
  app.require_subcommand(1);
  int exit_code = 0;
  kz::cli::register_replay(app, exit_code);
  kz::cli::register_perft(app, exit_code);
  kz::cli::register_bench(app, exit_code);
  kz::cli::register_model_info(app, exit_code);
  kz::cli::register_levels_match(app, exit_code);
  kz::cli::register_play(app, exit_code);
  kz::cli::register_hint(app, exit_code);
  kz::cli::register_analyze(app, exit_code);
  kz::cli::register_engine(app, exit_code);
  kz::cli::register_serve(app, exit_code);
  kz::cli::register_solve(app, exit_code);
  kz::cli::register_human_eval(app, exit_code);
  kz::cli::register_puzzles(app, exit_code);
  kz::cli::register_human_train(app, exit_code);
  kz::cli::register_openings(app, exit_code);
  kz::cli::register_catalog(app, exit_code);
  // The player's commands (those with --lang) speak the player's language from the first
  // message on, the command line's own errors included.
  kz::cli::choose_language_before_parsing(app, argc, argv);
  app.failure_message(kz::cli::failure_message);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    // Whatever CLI11 refuses (a value an option's check refuses, an unknown option, a
    // missing value, two options that exclude each other, no command) is a bad command
    // line like those the commands refuse themselves, and every one exits with 2
    // (docs/rules-core.md), not with CLI11's own code for its kind; --help stays 0.
    return status == 0 ? 0 : 2;
  }
  return exit_code;
}
