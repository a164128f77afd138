// kumalak-gate: matches between models (or a model and the alpha-beta baseline), with
// Elo, LOS and an SPRT; `--promote` makes a passing candidate the new best; `ladder`
// rates many generations at once.
//
//   kumalak-gate match --config C --candidate gen3.pt --baseline best.pt --sprt --promote best.pt
//   kumalak-gate ladder --config C --models gen0.pt gen1.pt ... --anchor-ab 4 --out DIR
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/atomic_file.h"
#include "core/run_lock.h"
#include "nn/allocator.h"
#include "train/elo.h"
#include "train/match.h"
#include "train/plot.h"

namespace {

std::string display_name(const std::string& spec) {
  if (spec.rfind("ab:", 0) == 0 || spec == "init" || spec == "rollout") return spec;
  return std::filesystem::path(spec).stem().string();
}

// Copies `from` over `to` atomically (temporary copy + rename).
void promote(const std::string& from, const std::string& to) {
  const std::string temp = kz::temp_name_for(to);
  std::filesystem::copy_file(from, temp, std::filesystem::copy_options::overwrite_existing);
  kz::commit_temp_file(temp, to);
}

}  // namespace

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
  CLI::App app{"KumalakZero gating: matches, SPRT, promotion and Elo ladders"};
  app.require_subcommand(1);
  std::string config_path;
  int threads = 0, games = 0, visits = 0, parallel = 0;
  app.add_option("--config", config_path, "run config (configs/*.toml)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--threads", threads, "LibTorch threads (default: train.threads)");
  app.add_option("--games", games, "games per match (default: gate.games)")
      ->check(CLI::Range(2, 10000000));
  app.add_option("--visits", visits, "visits per move (default: gate.visits)")
      ->check(CLI::Range(1, 10000000));
  app.add_option("--parallel", parallel, "games at once (default: gate.games_in_parallel)");

  auto* match = app.add_subcommand("match", "Play candidate against baseline");
  std::string candidate, baseline, promote_to, json_out;
  bool use_sprt = false;
  match->add_option("--candidate", candidate, "player spec: model file, init, rollout or ab:DEPTH")
      ->required();
  match->add_option("--baseline", baseline, "player spec: model file, init, rollout or ab:DEPTH")
      ->required();
  match->add_flag("--sprt", use_sprt, "stop early on an SPRT verdict (gate.elo0/elo1/alpha/beta)");
  match->add_option("--promote", promote_to, "if the candidate passes, copy it here atomically");
  match->add_option("--json", json_out, "also write the result as JSON to this file");

  auto* ladder =
      app.add_subcommand("ladder", "Rate many models: neighbours, anchors, one Elo each");
  std::vector<std::string> models;
  int anchor_ab = 0, reach = 1;
  std::string out_dir = "ladder";
  std::string gates_dir;
  std::vector<std::string> earlier_matches;
  ladder->add_option("--matches", earlier_matches,
                     "matches.jsonl of earlier ladders: their results join the fit (and the new "
                     "matches.jsonl) without being replayed, so a ladder grows run by run");
  ladder->add_option("--models", models, "model files, oldest (generation 0, the anchor) first");
  ladder->add_option("--gates", gates_dir,
                     "a run's gates/ folder: its gating matches (each generation against the best "
                     "before it) join the fit without being replayed");
  ladder->add_option("--anchor-ab", anchor_ab,
                     "also play every model against alpha-beta at this depth");
  ladder->add_option("--reach", reach, "play each model against the next REACH models")
      ->check(CLI::Range(1, 100));
  ladder->add_option("--out", out_dir, "folder for ladder.csv, ladder.png and matches.jsonl");
  CLI11_PARSE(app, argc, argv);

  try {
    kz::RunConfig cfg = kz::load_config(config_path);
    torch::set_num_threads(threads > 0 ? threads : cfg.train.threads);
    auto options = [&](const std::string& a, const std::string& b) {
      kz::MatchOptions o;
      o.config = cfg;
      o.a = a;
      o.b = b;
      o.games = games;
      o.visits = visits;
      o.parallel = parallel;
      return o;
    };

    if (*match) {
      // One gatekeeper per run: two would both judge against, and promote over, the same
      // best model (core/run_lock.h). A match that promotes nothing needs no lock.
      std::optional<kz::RunLock> lock;
      if (!promote_to.empty()) {
        const auto dir = std::filesystem::path(promote_to).parent_path();
        lock.emplace((dir.empty() ? std::filesystem::path(".") : dir) / ".gatekeeper.lock",
                     "gatekeeper promoting to '" + promote_to + "'");
      }
      kz::MatchOptions o = options(candidate, baseline);
      o.use_sprt = use_sprt;
      const kz::MatchResult r = kz::play_match(o);
      const bool sprt_pass = use_sprt && r.sprt.decision == kz::SprtDecision::kAcceptH1;
      const bool sprt_fail = use_sprt && r.sprt.decision == kz::SprtDecision::kAcceptH0;
      const bool pass = sprt_pass || (!sprt_fail && r.elo.score >= cfg.gate.promote_min_score);
      std::cout << display_name(candidate) << " vs " << display_name(baseline) << ": "
                << kz::describe_match(r) << "\n";
      if (use_sprt)
        std::cout << "SPRT elo0=" << cfg.gate.elo0 << " elo1=" << cfg.gate.elo1 << ": LLR "
                  << r.sprt.llr << " [" << r.sprt.lower << ", " << r.sprt.upper << "] -> "
                  << kz::sprt_decision_string(r.sprt.decision) << "\n";
      std::cout << (pass ? "PASS" : "FAIL") << "\n";
      if (!json_out.empty()) {
        nlohmann::ordered_json j = {
            {"candidate", candidate}, {"baseline", baseline},
            {"wins", r.wdl.wins},     {"draws", r.wdl.draws},
            {"losses", r.wdl.losses}, {"score", r.elo.score},
            {"elo", r.elo.elo},       {"elo_lo", r.elo.elo_lo},
            {"elo_hi", r.elo.elo_hi}, {"los", r.elo.los},
            {"llr", r.sprt.llr},      {"sprt", kz::sprt_decision_string(r.sprt.decision)},
            {"pass", pass},           {"seconds", r.seconds}};
        kz::write_file_atomically(json_out, [&](std::ostream& out) { out << j.dump() << "\n"; });
      }
      if (pass && !promote_to.empty()) {
        promote(candidate, promote_to);
        std::cout << "promoted " << candidate << " -> " << promote_to << "\n";
      }
      return 0;
    }

    // Ladder: the gating matches of a run (if given), then each model against its next
    // `reach` neighbours and the anchor (generation 0), optionally everything against
    // alpha-beta; then one maximum-likelihood fit.
    if (models.empty() && gates_dir.empty() && earlier_matches.empty())
      throw std::invalid_argument("ladder needs --models, --gates or --matches");
    std::filesystem::create_directories(out_dir);
    std::vector<kz::PairResult> results;
    std::string anchor = models.empty() ? "gen0000" : display_name(models[0]);
    if (!gates_dir.empty()) {
      // Replaying the promotions tells which generation each gate's "best" was.
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(gates_dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      std::string best = "gen0000";
      for (const auto& f : files) {
        std::ifstream in(f);
        nlohmann::json j;
        try {
          j = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
          throw std::runtime_error(f.string() + ": not a gate result: " + e.what());
        }
        const std::string candidate = f.stem().string();
        results.push_back({candidate, best, j.at("wins").get<int64_t>(),
                           j.at("draws").get<int64_t>(), j.at("losses").get<int64_t>()});
        std::cout << candidate << " vs " << best << " (gate): W " << j.at("wins") << " D "
                  << j.at("draws") << " L " << j.at("losses")
                  << (j.at("pass").get<bool>() ? "  promoted" : "") << "\n";
        if (j.at("pass").get<bool>()) best = candidate;
      }
    }
    std::string log_text;
    for (const auto& file : earlier_matches) {
      std::ifstream in(file);
      if (!in) throw std::runtime_error(file + ": cannot open");
      std::string line;
      for (int line_no = 1; std::getline(in, line); ++line_no) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
          const nlohmann::json j = nlohmann::json::parse(line);
          results.push_back({j.at("a").get<std::string>(), j.at("b").get<std::string>(),
                             j.at("wins").get<int64_t>(), j.at("draws").get<int64_t>(),
                             j.at("losses").get<int64_t>()});
        } catch (const std::exception& e) {
          throw std::runtime_error(file + ":" + std::to_string(line_no) +
                                   ": not a ladder match: " + e.what());
        }
        log_text += line + "\n";
      }
    }
    std::vector<std::pair<std::string, std::string>> schedule;
    for (size_t i = 0; i < models.size(); ++i) {
      for (int k = 1; k <= reach && i + k < models.size(); ++k)
        schedule.emplace_back(models[i + k], models[i]);
      if (i >= size_t(reach) + 1) schedule.emplace_back(models[i], models[0]);
      if (anchor_ab > 0) schedule.emplace_back(models[i], "ab:" + std::to_string(anchor_ab));
    }
    for (const auto& [a, b] : schedule) {
      const kz::MatchResult r = kz::play_match(options(a, b));
      const std::string line =
          display_name(a) + " vs " + display_name(b) + ": " + kz::describe_match(r);
      std::cout << line << std::endl;
      results.push_back({display_name(a), display_name(b), r.wdl.wins, r.wdl.draws, r.wdl.losses});
      nlohmann::ordered_json j = {{"a", display_name(a)},   {"b", display_name(b)},
                                  {"wins", r.wdl.wins},     {"draws", r.wdl.draws},
                                  {"losses", r.wdl.losses}, {"elo", r.elo.elo}};
      log_text += j.dump() + "\n";
    }
    kz::write_file_atomically(out_dir + "/matches.jsonl",
                              [&](std::ostream& out) { out << log_text; });
    kz::LadderOptions lo;
    lo.anchor = anchor;
    const kz::LadderFit fit = kz::fit_ladder(results, lo);
    std::cout << kz::ladder_table_text(fit);
    kz::write_ladder_csv(out_dir + "/ladder.csv", fit.ratings);
    kz::plot_ladder(fit.ratings, out_dir + "/ladder.png",
                    kz::PlotStyle{"Elo by generation", 1000, 600, false});
    std::cout << "wrote " << out_dir << "/ladder.csv, ladder.png, matches.jsonl\n";
  } catch (const std::exception& e) {
    std::cerr << "kumalak-gate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
