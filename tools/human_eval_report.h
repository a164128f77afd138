// What `kumalak human-eval` shows of its measures (tools/human_eval.h): one JSON object,
// or a table per 100-point rating bin with the rating estimate's summary (docs/human.md
// has both). tools/cmd_human_eval.cpp prints them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/human_games.h"
#include "nn/human_head.h"
#include "tools/human_eval.h"

namespace kz::cli {

// What was measured and with what.
struct HumanEvalReport {
  const std::string& fold;        // --fold as given
  int64_t search_visits = 0;      // the searched column's visits (0: none)
  int64_t every = 1;              // every K-th sample searched
  bool as_played = false;         // the human columns as the levels play them
  const std::string& model_path;  // the engine's network
  std::string model_description;  // its evaluator's describe()
  const std::string& human_path;  // the human model ("" without)
  const HumanHead* human;         // null without
  const HumanData& data;          // the samples and what was skipped
  const HumanEvalResult& result;  // the measures
};

// The measures as one JSON object.
nlohmann::ordered_json human_eval_json(const HumanEvalReport& report);

// The measures as a table per bin and the rating estimate's summary, each line ending with
// its newline.
std::string human_eval_table(const HumanEvalReport& report);

}  // namespace kz::cli
