#include "tools/cli_options.h"

#include <iostream>

#include "core/i18n.h"
#include "core/numbers.h"
#include "core/position.h"
#include "mcts/alphabeta.h"
#include "mcts/levels.h"
#include "train/config_schema.h"

namespace kz::cli {

namespace {

std::string real_range_text(double lo, double hi, Ends ends) {
  std::string text = number_text(lo) + ".." + number_text(hi);
  if (ends == Ends::kNotLow) text += " (" + number_text(lo) + " excluded)";
  if (ends == Ends::kNotHigh) text += " (" + number_text(hi) + " excluded)";
  return text;
}

// A validator that runs `check` on the option's text: "" accepts it, anything else is
// the message (CLI11 puts the option's name in front). No description of its own: the
// option's help says what it takes.
CLI::Validator text_check(std::function<std::string(const std::string&)> check) {
  return CLI::Validator([check](std::string& text) { return check(text); }, "");
}

}  // namespace

CLI::Validator integer_range(int64_t lo, int64_t hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        try {
          parse_integer(text, lo, hi, "");
          return "";
        } catch (const ParseError&) {
          return "'" + text + "' is not a whole number in " + range;
        }
      },
      range);
}

CLI::Validator real_range(double lo, double hi, Ends ends) {
  const std::string range = real_range_text(lo, hi, ends);
  return CLI::Validator(
      [lo, hi, ends, range](std::string& text) -> std::string {
        try {
          const double value = parse_real(text, lo, hi, "");
          if ((ends == Ends::kNotLow && value == lo) || (ends == Ends::kNotHigh && value == hi))
            throw ParseError("an excluded end");
          return "";
        } catch (const ParseError&) {
          return "'" + text + "' is not a number in " + range;
        }
      },
      range);
}

CLI::Option* add_game_option(CLI::App* cmd, std::string& game) {
  return cmd->add_option("--game", game, kGameHelp)->check(text_check([](const std::string& text) {
    try {
      GameSpec::parse(text);
      return std::string();
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
  }));
}

CLI::Option* add_kalah_game_option(CLI::App* cmd, std::string& game) {
  return cmd->add_option("--game", game, kKalahGameHelp)
      ->check(text_check([](const std::string& text) {
        try {
          if (GameSpec::parse(text).is_togyz())
            return "'" + text + "': solving is for Kalah games (Togyz Kumalak is not solvable)";
          return std::string();
        } catch (const ParseError& e) {
          return std::string(e.what());
        }
      }));
}

CLI::Option* add_level_option(CLI::App* cmd, std::string& level, bool ratings) {
  return cmd
      ->add_option("--level", level,
                   ratings ? "engine strength: beginner, easy, medium, hard or expert (or 1..5), "
                             "perfect (Kalah), or a PlayOK rating such as 1200 (Togyz, with the "
                             "human model: plays like a player of that rating)"
                           : "engine strength: beginner, easy, medium, hard or expert (or 1..5), "
                             "or perfect (Kalah)")
      ->capture_default_str()
      ->check(text_check([ratings](const std::string& text) {
        if (ratings && parse_rating_level(text)) return std::string();
        try {
          parse_level(text);
          return std::string();
        } catch (const ParseError& e) {
          return std::string(e.what());
        }
      }));
}

CLI::Option* add_model_option(CLI::App* cmd, std::string& model) {
  return cmd->add_option(
      "--model", model,
      "network model for the MCTS engine (default: the shipped models/GAME.pt, for hard and "
      "expert)");
}

CLI::Option* add_movetime_option(CLI::App* cmd, double& seconds) {
  return cmd
      ->add_option("--movetime", seconds,
                   "seconds the engine thinks per move (0: the level's own budget)")
      ->check(in_range(0.0, kMaxMoveTimeSeconds));
}

CLI::Option* add_depth_option(CLI::App* cmd, int& plies) {
  return cmd
      ->add_option("--depth", plies,
                   "search with the alpha-beta engine to this depth in plies (0: the level's "
                   "engine)")
      ->check(in_range(0, kMaxSearchDepth));
}

CLI::Option* add_time_scale_option(CLI::App* cmd, double& scale) {
  return cmd->add_option("--time-scale", scale, "multiplies the levels' time and node budgets")
      ->check(in_range(0.0, 1000.0, Ends::kNotLow));
}

CLI::Option* add_seed_option(CLI::App* cmd, uint64_t& seed) {
  return cmd->add_option("--seed", seed,
                         "seed of the random openings and of the levels' randomness");
}

CLI::Option* add_config_option(CLI::App& app, std::string& path) {
  return app
      .add_option("--config", path,
                  "run config (configs/*.toml; with --follow only to start a "
                  "new run)")
      ->check(CLI::ExistingFile);
}

CLI::Option* add_torch_threads_option(CLI::App& app, int& threads) {
  return app
      .add_option("--threads", threads, "LibTorch threads (default: the config's train.threads)")
      ->check(in_range(1, kMaxThreads));
}

CLI::Option* add_search_threads_option(CLI::App& app, int& threads) {
  return app
      .add_option("--search-threads", threads,
                  "search threads, each playing its share of the games (default: the config's "
                  "search.threads, else half the cores)")
      ->check(in_range(1, kMaxThreads));
}

void add_help_config_flag(CLI::App& app) {
  app.add_flag_callback(
      "--help-config",
      [] {
        std::cout << config_help_text();
        throw CLI::Success();
      },
      "list every config key with its type, range, default and meaning, and exit");
}

CLI::Option* add_lang_option(CLI::App* cmd, std::string& lang) {
  return cmd->add_option("--lang", lang,
                         "language of the output: en, kk, ru or ky (default: from LANGUAGE, "
                         "LC_ALL, LC_MESSAGES, LANG)");
}

void apply_language(const std::string& lang) {
  i18n::set_language(i18n::choose_language(lang));
}

}  // namespace kz::cli
