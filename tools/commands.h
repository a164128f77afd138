// The `kumalak` executable is one CLI11 app with a subcommand per job. Each job lives
// in its own cmd_*.cpp and registers itself here, so adding a command touches one file
// and this list.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "mcts/levels.h"
#include "tools/cli_options.h"  // the options several commands share

namespace kz::cli {

// Each register_* adds a subcommand to `app` whose callback runs the job. A job that
// fails sets `exit_code` (the process's exit status) instead of throwing.
void register_replay(CLI::App& app, int& exit_code);
void register_perft(CLI::App& app, int& exit_code);
void register_bench(CLI::App& app, int& exit_code);
void register_model_info(CLI::App& app, int& exit_code);
void register_levels_match(CLI::App& app, int& exit_code);
void register_play(CLI::App& app, int& exit_code);
void register_hint(CLI::App& app, int& exit_code);
void register_analyze(CLI::App& app, int& exit_code);
void register_engine(CLI::App& app, int& exit_code);
void register_serve(CLI::App& app, int& exit_code);
void register_solve(CLI::App& app, int& exit_code);  // solve, egtb, then perfect-check
// perfect-check (tools/cmd_perfect_check.cpp), registered by register_solve after egtb.
void register_perfect_check(CLI::App& app, int& exit_code);
void register_human_eval(CLI::App& app, int& exit_code);
void register_puzzles(CLI::App& app, int& exit_code);  // puzzles build, then puzzle
// puzzle (tools/cmd_puzzle.cpp), registered by register_puzzles after `puzzles`.
void register_puzzle(CLI::App& app, int& exit_code);
// puzzles rate, puzzles calibrate, under register_puzzles's `puzzles`.
void register_puzzles_rating(CLI::App* puzzles, int& exit_code);
void register_human_train(CLI::App& app, int& exit_code);
// openings (the explorer's query) and openings build.
void register_openings(CLI::App& app, int& exit_code);
// catalog: the page's words in a language as JSON (serve's /api/lang/{code}).
void register_catalog(CLI::App& app, int& exit_code);

// `kumalak engine` on any stream of commands (register_engine passes std::cin and the
// network, nn/model_evaluator.h; the fuzz target tests/fuzz/fuzz_protocol.cpp passes its
// input and no network). Answers go to std::cout.
int run_engine_protocol(std::istream& in, const std::string& game, const std::string& level,
                        const EvaluatorFactory& network = nullptr);

}  // namespace kz::cli
