// The command-line options that several executables share (`kumalak`'s subcommands and
// kumalak-train/-gate/-selfplay), each declared here once with its help text, its check
// and its error message, and the one way every tool checks a number's range.
#pragma once

#include <CLI/CLI.hpp>
#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kz::cli {

// ---- Ranges -------------------------------------------------------------------------
//
// Every numeric option of every tool checks its range with `->check(in_range(lo, hi))`.
// A CLI11 validator, so that the check runs while the command line is read (before any
// work, whichever order a command's own code runs in), `--help` shows the range beside
// the option, and the message names the option (CLI11 puts "--name: " in front). Not
// CLI::Range, because CLI::Range lets NaN through (every comparison with NaN is false)
// and prints its own wording: these accept exactly what core/numbers.h's parse_integer
// and parse_real accept (the whole text, a finite number, a sign only where negatives
// are allowed) and say so in their words, e.g. "--movetime: 'nan' is not a number in
// 0..1000000", as the engine protocol and the config files do.

// Which ends a range includes: both, or all but one end (a time scale must be above 0, a
// resignation threshold below one half).
enum class Ends { kBoth, kNotLow, kNotHigh };

CLI::Validator integer_range(int64_t lo, int64_t hi);
// For 64-bit unsigned options (a seed: 0..2^64-1), whose top does not fit in int64_t.
CLI::Validator unsigned_range(uint64_t lo, uint64_t hi);
CLI::Validator real_range(double lo, double hi, Ends ends = Ends::kBoth);

// in_range(1, 256) for whole-number options, in_range(0.0, 1e6) for real ones.
template <std::integral T>
CLI::Validator in_range(T lo, T hi) {
  if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t))
    return unsigned_range(uint64_t(lo), uint64_t(hi));
  else
    return integer_range(int64_t(lo), int64_t(hi));
}
inline CLI::Validator in_range(double lo, double hi, Ends ends = Ends::kBoth) {
  return real_range(lo, hi, ends);
}

// ---- Options of `kumalak`'s subcommands ---------------------------------------------

// Marks a command's or an option's description for the catalogs (tools/po/extract.sh
// reads tr_noop): declared in English, said in the player's language when the --help
// of a command with --lang is printed.
constexpr const char* tr_noop(const char* msgid) {
  return msgid;
}

// --game: togyz, kalah, bantumi, kalah:M,N or kalah:M,N,empty (GameSpec::parse); a name
// it refuses is refused while parsing, with GameSpec::parse's message.
CLI::Option* add_game_option(CLI::App* cmd, std::string& game);
// --game of the Kalah-only commands (solve, egtb, perfect-check): the same, and Togyz
// Kumalak is refused (it cannot be solved).
CLI::Option* add_kalah_game_option(CLI::App* cmd, std::string& game);
// The help texts of the two, for the test that every command shows the same one.
inline constexpr const char* kGameHelp =
    tr_noop("togyz, kalah, bantumi, kalah:M,N or kalah:M,N,empty");
inline constexpr const char* kKalahGameHelp = "kalah, bantumi, kalah:M,N or kalah:M,N,empty";

// --level: the engine's strength (mcts/levels.h parse_level); `level` holds the
// command's default, which --help shows. `ratings`: a PlayOK rating (mcts/levels.h
// parse_rating_level) is accepted too, for the commands that play or hint at a human
// level (tools/human_level.h); its range is checked once the human model is read.
CLI::Option* add_level_option(CLI::App* cmd, std::string& level, bool ratings = false);

// --model: the network of the MCTS levels (hard, expert); "" = the shipped one.
CLI::Option* add_model_option(CLI::App* cmd, std::string& model);
// --human-model: the human policy model of the rating levels (--level 1200); "" = the
// shipped models/GAME-human.pt.
CLI::Option* add_human_model_option(CLI::App* cmd, std::string& model);

// The thinking budgets: --movetime in seconds (0..kMaxMoveTimeSeconds, 0 = the level's
// own budget) and --depth in plies (0..kMaxSearchDepth, 0 = the level's engine; more
// asks the alpha-beta engine for exactly that depth).
CLI::Option* add_movetime_option(CLI::App* cmd, double& seconds);
CLI::Option* add_depth_option(CLI::App* cmd, int& plies);

// --time-scale: multiplies the levels' time and node budgets (above 0, at most 1000).
CLI::Option* add_time_scale_option(CLI::App* cmd, double& scale);

// --seed: the seed of the random openings and of the low levels' randomness.
CLI::Option* add_seed_option(CLI::App* cmd, uint64_t& seed);

// --lang: the language a player reads (en, kk, ru, ky; core/i18n.h); unset, the
// environment's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG). Any text is accepted: an unknown
// language means English with a note on stderr, never a refusal.
CLI::Option* add_lang_option(CLI::App* cmd, std::string& lang);
// Sets the process's language from a --lang value ("" = the environment's).
void apply_language(const std::string& lang);
// Before CLI11 reads the command line: when its subcommand takes --lang, sets the
// language from the --lang value in argv (else the environment's), so that what CLI11
// says while parsing (an option's check refusing a value, an unknown option) is in the
// player's language too, and its --help is printed in that language (the descriptions
// marked with tr_noop, the labels and the type names). Commands without --lang stay
// English.
void choose_language_before_parsing(CLI::App& app, int argc, const char* const* argv);
// CLI11's failure message (set with App::failure_message): its own simple message in
// English; in another language, the errors a player meets (a value an option refuses, an
// unknown or extra argument, a value left out or not of the option's type, a required
// one missing) and the "Run with --help" line in that language.
std::string failure_message(const CLI::App* app, const CLI::Error& e);

// ---- Options of kumalak-train, kumalak-gate and kumalak-selfplay --------------------

// --config: the run config (configs/*.toml); it must exist.
CLI::Option* add_config_option(CLI::App& app, std::string& path);

// --threads: LibTorch threads, 1..kMaxThreads (unset: the config's train.threads).
CLI::Option* add_torch_threads_option(CLI::App& app, int& threads);

// --search-threads: threads of the search, each playing its share of the games,
// 1..kMaxThreads (unset: the config's search.threads, else half the cores).
CLI::Option* add_search_threads_option(CLI::App& app, int& threads);

// The most threads of either kind an option accepts.
inline constexpr int kMaxThreads = 256;

// --help-config: lists every config key (train/config_schema.cpp, the one schema) with
// its type, range, default and meaning, and exits.
void add_help_config_flag(CLI::App& app);

}  // namespace kz::cli
