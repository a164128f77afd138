#include "tools/cli_options.h"

#include <charconv>
#include <iostream>
#include <optional>
#include <string_view>

#include "core/i18n.h"
#include "core/numbers.h"
#include "core/position.h"
#include "mcts/alphabeta.h"
#include "mcts/levels.h"
#include "train/config_schema.h"

namespace kz::cli {

namespace {

// The range as --help shows it (English, like the rest of --help) or as an error says it
// (`translate`: in the player's language, known only once the command line is read).
std::string real_range_text(double lo, double hi, Ends ends, bool translate = false) {
  const std::string range = number_text(lo) + ".." + number_text(hi);
  if (ends == Ends::kBoth) return range;
  const std::string excluded = number_text(ends == Ends::kNotLow ? lo : hi);
  if (translate) return i18n::tr("{range} ({end} excluded)", {{"range", range}, {"end", excluded}});
  return range + " (" + excluded + " excluded)";
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
          return i18n::tr("'{value}' is not a whole number in {range}",
                          {{"value", text}, {"range", range}});
        }
      },
      range);
}

CLI::Validator unsigned_range(uint64_t lo, uint64_t hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        // As parse_integer: the whole text, digits only (no sign, no spaces).
        uint64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (!text.empty() && text[0] != '-' && ec == std::errc() &&
            end == text.data() + text.size() && value >= lo && value <= hi)
          return "";
        return i18n::tr("'{value}' is not a whole number in {range}",
                        {{"value", text}, {"range", range}});
      },
      range);
}

CLI::Validator real_range(double lo, double hi, Ends ends) {
  const std::string range = real_range_text(lo, hi, ends);
  return CLI::Validator(
      [lo, hi, ends](std::string& text) -> std::string {
        try {
          const double value = parse_real(text, lo, hi, "");
          if ((ends == Ends::kNotLow && value == lo) || (ends == Ends::kNotHigh && value == hi))
            throw ParseError("an excluded end");
          return "";
        } catch (const ParseError&) {
          return i18n::tr("'{value}' is not a number in {range}",
                          {{"value", text}, {"range", real_range_text(lo, hi, ends, true)}});
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
      ->add_option(
          "--level", level,
          ratings ? tr_noop("engine strength: beginner, easy, medium, hard or expert (or 1..5), "
                            "perfect (Kalah), or a PlayOK rating such as 1200 (Togyz, with the "
                            "human model: plays like a player of that rating)")
                  : tr_noop("engine strength: beginner, easy, medium, hard or expert (or 1..5), "
                            "or perfect (Kalah)"))
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
      tr_noop(
          "network model for the MCTS engine (default: the shipped models/GAME.pt, for hard and "
          "expert)"));
}

CLI::Option* add_human_model_option(CLI::App* cmd, std::string& model) {
  return cmd->add_option("--human-model", model,
                         tr_noop("human policy model of a rating level (default: the shipped "
                                 "models/GAME-human.pt)"));
}

CLI::Option* add_movetime_option(CLI::App* cmd, double& seconds) {
  return cmd
      ->add_option("--movetime", seconds,
                   tr_noop("seconds the engine thinks per move (0: the level's own budget)"))
      ->check(in_range(0.0, kMaxMoveTimeSeconds));
}

CLI::Option* add_depth_option(CLI::App* cmd, int& plies) {
  return cmd
      ->add_option(
          "--depth", plies,
          tr_noop("search with the alpha-beta engine to this depth in plies (0: the level's "
                  "engine)"))
      ->check(in_range(0, kMaxSearchDepth));
}

CLI::Option* add_time_scale_option(CLI::App* cmd, double& scale) {
  return cmd->add_option("--time-scale", scale, "multiplies the levels' time and node budgets")
      ->check(in_range(0.0, 1000.0, Ends::kNotLow));
}

CLI::Option* add_seed_option(CLI::App* cmd, uint64_t& seed) {
  return cmd->add_option("--seed", seed,
                         tr_noop("seed of the random openings and of the levels' randomness"));
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
  return cmd->add_option(
      "--lang", lang,
      tr_noop("language of the output: en, kk, ru or ky (default: from LANGUAGE, "
              "LC_ALL, LC_MESSAGES, LANG)"));
}

void apply_language(const std::string& lang) {
  // choose_language notes an unknown language on stderr: once, though both
  // choose_language_before_parsing and the command apply the same --lang.
  static std::optional<std::string> applied;
  if (applied == lang) return;
  applied = lang;
  i18n::set_language(i18n::choose_language(lang));
}

namespace {

// Code points in UTF-8 `text`: the columns it takes in a terminal (Cyrillic letters are
// two bytes each, one column).
size_t columns(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// CLI11's help in the language chosen (CLI11 2.x's Formatter, whose labels, group names
// and type names are English words): each description marked with tr_noop is looked up
// as a message id; what has no translation (a description of a developer's option)
// stays as written. Columns are counted in characters, not bytes.
class TranslatedHelp : public CLI::Formatter {
 public:
  TranslatedHelp() {
    using i18n::tr;
    for (const char* key :
         {tr_noop("Usage"), tr_noop("OPTIONS"), tr_noop("Positionals"), tr_noop("REQUIRED")})
      label(key, tr(key));
  }

  std::string make_description(const CLI::App* app) const override {
    const std::string text = i18n::tr(app->get_description());
    return text.empty() ? text : text + "\n";
  }

  std::string make_group(std::string group, bool is_positional,
                         std::vector<const CLI::Option*> opts) const override {
    // "Options" is CLI11's default group; "Positionals" comes through get_label.
    if (group == "Options") group = i18n::tr(tr_noop("Options"));
    return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }

  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    // A positional's name (analyze's `files`) is a word, not something typed.
    return is_positional ? i18n::tr(opt->get_name())
                         : CLI::Formatter::make_option_name(opt, is_positional);
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    // The type name, possibly with its check's range ("INT:0..64"), leads: its word is
    // translated, the range kept.
    std::string text = CLI::Formatter::make_option_opts(opt);
    for (const char* type : {tr_noop("TEXT"), tr_noop("INT"), tr_noop("UINT"), tr_noop("FLOAT")}) {
      const std::string word = std::string(" ") + type;
      if (text.starts_with(word) && (text.size() == word.size() || text[word.size()] == ':' ||
                                     text[word.size()] == '=' || text[word.size()] == ' ')) {
        text = " " + i18n::tr(type) + text.substr(word.size());
        break;
      }
    }
    return text;
  }

  std::string make_option_desc(const CLI::Option* opt) const override {
    static constexpr const char* kHelpFlag = tr_noop("Print this help message and exit");
    (void)kHelpFlag;  // CLI11's own description of -h,--help: here for the catalogs
    return i18n::tr(opt->get_description());
  }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    const std::string name = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::string desc = make_option_desc(opt);
    const size_t width = get_column_width(), used = columns(name);
    std::string out = name;
    if (!desc.empty()) {
      out += used >= width ? "\n" + std::string(width, ' ') : std::string(width - used, ' ');
      for (const char c : desc) {
        out += c;
        if (c == '\n') out += std::string(width, ' ');
      }
    }
    return out + "\n";
  }
};

}  // namespace

void choose_language_before_parsing(CLI::App& app, int argc, const char* const* argv) {
  // The subcommand is the first word that is not an option (`kumalak` itself takes none
  // but --help).
  int i = 1;
  while (i < argc && argv[i][0] == '-') ++i;
  if (i >= argc) return;
  CLI::App* command = nullptr;
  try {
    command = app.get_subcommand(argv[i]);
  } catch (const CLI::OptionNotFound&) {
    return;
  }
  if (command->get_option_no_throw("--lang") == nullptr) return;
  // As CLI11 reads it: `--lang X` or `--lang=X`, the last one winning; nothing after
  // `--` is an option. A misreading here is put right by the command's own
  // apply_language once the command line is parsed.
  std::string lang;
  for (++i; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--lang" && i + 1 < argc)
      lang = argv[++i];
    else if (arg.starts_with("--lang="))
      lang = std::string(arg.substr(7));
  }
  apply_language(lang);
  command->formatter(std::make_shared<TranslatedHelp>());
}

namespace {

// `text` with `prefix` in front and `suffix` behind, without them (nullopt otherwise).
std::optional<std::string> between(const std::string& text, std::string_view prefix,
                                   std::string_view suffix = {}) {
  if (text.size() < prefix.size() + suffix.size() || !text.starts_with(prefix) ||
      !text.ends_with(suffix))
    return std::nullopt;
  return text.substr(prefix.size(), text.size() - prefix.size() - suffix.size());
}

// Whether `e` is a `Type` (by its class: get_name() is the command's name for some, such
// as ExtrasError).
template <class Type>
bool is(const CLI::Error& e) {
  return dynamic_cast<const Type*>(&e) != nullptr;
}

// The sentence of a CLI11 error in the player's language, or "" when it is none that
// a player of play, hint, analyze or puzzle plausibly meets. CLI11 (2.x) gives its errors
// only as English text, so the known ones are read back by their wording
// (CLI/Error.hpp); an unknown one stays English.
std::string translated_parse_error(const CLI::Error& e) {
  using i18n::tr;
  const std::string what = e.what();
  if (is<CLI::ValidationError>(e)) return what;  // "--option: " + the check's own tr sentence
  if (is<CLI::ExtrasError>(e)) {
    if (auto args = between(what, "The following argument was not expected: "))
      return tr("The following argument was not expected: {args}", {{"args", *args}});
    if (auto args = between(what, "The following arguments were not expected: "))
      return tr("The following arguments were not expected: {args}", {{"args", *args}});
  }
  if (is<CLI::ArgumentMismatch>(e)) {
    // "--level: 1 required TEXT missing": an option at the end without its value.
    const size_t colon = what.find(": ");
    if (colon != std::string::npos && what.ends_with(" missing") &&
        what.find(" required ", colon) != std::string::npos)
      return tr("{option} needs a value", {{"option", what.substr(0, colon)}});
  }
  if (is<CLI::ConversionError>(e)) {
    if (auto rest = between(what, "Could not convert: ")) {
      const size_t eq = rest->find(" = ");
      if (eq != std::string::npos)
        return tr("{option}: '{value}' is not a value this option takes",
                  {{"option", rest->substr(0, eq)}, {"value", rest->substr(eq + 3)}});
    }
    if (auto option = between(what, "", ": too many inputs for a flag"))
      return tr("{option} is a switch: it takes no value", {{"option", *option}});
    if (auto option = between(what, "", ": Should be true/false or a number"))
      return tr("{option} is a switch: it takes no value", {{"option", *option}});
  }
  if (is<CLI::RequiredError>(e)) {
    // analyze's record files are its one required argument a player can leave out.
    if (what == "files is required") return tr("No record file given: name the games' PGN files.");
    if (auto option = between(what, "", " is required"); option && option->starts_with("--"))
      return tr("{option} is required", {{"option", *option}});
  }
  return "";
}

}  // namespace

std::string failure_message(const CLI::App* app, const CLI::Error& e) {
  if (i18n::current_language() == "en") return CLI::FailureMessage::simple(app, e);
  std::string text = translated_parse_error(e);
  if (text.empty()) return CLI::FailureMessage::simple(app, e);
  text += "\n";
  if (app->get_help_ptr() != nullptr)
    text += i18n::tr("Run with {help} for more information.",
                     {{"help", app->get_help_ptr()->get_name()}}) +
            "\n";
  return text;
}

}  // namespace kz::cli
