// kumalak model-info FILE...: prints each model's metadata as one JSON line, after the
// same checks as loading it for play (a bad file gets a message and exit status 1).
#include <iostream>
#include <nlohmann/json.hpp>

#include "nn/model_file.h"
#include "nn/model_summary.h"
#include "tools/commands.h"

namespace kz::cli {

void register_model_info(CLI::App& app, int& exit_code) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* cmd =
      app.add_subcommand("model-info", "Check model files and print their metadata as JSON");
  cmd->add_option("files", *files, "model files")->required();
  cmd->callback([files, &exit_code] {
    for (const auto& f : *files) {
      try {
        Model m = load_model(f);
        nlohmann::ordered_json j = {{"file", f}};
        j.update(model_summary_json(m.meta, weights_checksum(m.net)));
        j["parameters"] = m.net->parameter_count();
        std::cout << j.dump() << "\n";
      } catch (const std::exception& e) {
        std::cerr << "kumalak model-info: " << e.what() << "\n";
        exit_code = 1;
      }
    }
  });
}

}  // namespace kz::cli
