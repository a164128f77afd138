// kumalak model-info FILE...: prints each model's metadata as one JSON line, after the
// same checks as loading it for play (a bad file gets a message and exit status 1).
// --convert rewrites each file with its weights as safetensors (nn/model_file.h), for
// files written before that format.
#include <iostream>
#include <nlohmann/json.hpp>

#include "nn/model_summary.h"
#include "nn/network_layout.h"
#include "nn/plain_model.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/json_text.h"

namespace kz::cli {

void register_model_info(CLI::App& app, int& exit_code) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto convert = std::make_shared<bool>(false);
  auto* cmd =
      app.add_subcommand("model-info", "Check model files and print their metadata as JSON");
  cmd->add_option("files", *files, "model files")->required();
  cmd->add_flag("--convert", *convert,
                "rewrite each file with its weights as safetensors (the same weights and "
                "checksum; files written before that format carry a LibTorch archive)");
  cmd->callback([files, convert, &exit_code] {
    for (const auto& f : *files) {
      try {
        PlainModel m = load_plain_model(f);
        const WeightsFormat read_as = m.weights_format;
        if (*convert && m.weights_format != WeightsFormat::kSafetensors) {
          save_plain_model(f, m.meta, m.tensors);
          m = load_plain_model(f);  // what was written, checked as any load checks it
        }
        nlohmann::ordered_json j = {{"file", f}};
        j.update(model_summary_json(m.meta, plain_weights_checksum(m.tensors)));
        j["parameters"] = expected_parameter_count(m.meta.network);
        j["weights_format"] = to_string(m.weights_format);
        if (*convert) j["converted_from"] = to_string(read_as);
        std::cout << json_text(j) << "\n";
      } catch (const std::exception& e) {
        print_command_error("kumalak model-info", e);
        exit_code = 1;
      }
    }
  });
}

}  // namespace kz::cli
