// kumalak catalog: the page's words in a language as JSON, the same object as serve's
// GET /api/lang/{code} (tools/serve/lang_api.h): for programs that show the engine's
// words (a GUI, a web site), and for the static site, which carries them as files so
// that the page speaks the player's language even when its engine cannot start.
#include <iostream>

#include "core/i18n.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/json_text.h"
#include "tools/serve/lang_api.h"

namespace kz::cli {

void register_catalog(CLI::App& app, int& exit_code) {
  auto code = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("catalog", "Print a language's words for the page as JSON");
  cmd->add_option("language", *code, "language code (en, kk, ru, ky); none: the list of languages");
  cmd->callback([code, &exit_code] {
    try {
      const serve::json out = code->empty() ? serve::json{{"languages", i18n::languages()}}
                                            : serve::catalog_json(*code);
      std::cout << json_text(out) << std::endl;
    } catch (const std::exception& e) {
      print_command_error("kumalak catalog", e);
      exit_code = 2;
    }
  });
}

}  // namespace kz::cli
