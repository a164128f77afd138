// How `kumalak human-eval` shows its measures, without the binary
// (tools/human_eval_report.h): the table's lines and the JSON object's fields for a bin
// measured by the engine's network alone.
#include <gtest/gtest.h>

#include "tools/human_eval_report.h"

namespace kz::cli {
namespace {

TEST(HumanEvalReport, ABinAsTableAndJson) {
  HumanData data;
  data.games = 3;
  data.skipped_games = 1;
  data.unrated.by_reason["no rating tag"] = 2;
  HumanEvalResult result;
  HumanEvalBin& bin = result.bins[1400];
  bin.positions = 8;
  bin.policy_top1 = 2;
  bin.policy_loglik = -12;
  bin.search_positions = 4;
  bin.search_top1 = 1;
  const std::string fold = "validation", model = "m.pt", human_path;
  const HumanEvalReport report{fold,      16,         2,       false, model,
                               "net 8x1", human_path, nullptr, data,  result};
  EXPECT_EQ(human_eval_table(report),
            "Model m.pt (net 8x1), fold validation: 3 games (1 skipped), 0 positions of rated "
            "players; unrated sides: 2 (no rating tag 2)\n"
            "rating      positions  policy top-1   policy loglik  search top-1 (16 visits, "
            "every 2)\n"
            "1400-1499           8        25.0 %          -1.500  25.0 % of 4\n");
  const nlohmann::ordered_json j = human_eval_json(report);
  EXPECT_EQ(j["bins"][0]["to"], 1499);
  EXPECT_EQ(j["bins"][0]["policy_top1"], 0.25);
  EXPECT_EQ(j["bins"][0]["search_top1"], 0.25);
  EXPECT_FALSE(j.contains("human_model")) << "no human model, no human columns";
  EXPECT_EQ(j["unrated_sides"]["no rating tag"], 2);
  EXPECT_EQ(j["skipped_games"], 1);
}

}  // namespace
}  // namespace kz::cli
