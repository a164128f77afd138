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
#include <iostream>
#include <optional>
#include <set>

#include "core/atomic_file.h"
#include "core/run_lock.h"
#include "mcts/alphabeta.h"
#include "nn/allocator.h"
#include "tools/cli_options.h"
#include "tools/command_error.h"
#include "train/elo.h"
#include "train/follow.h"
#include "train/gate.h"
#include "train/match.h"
#include "train/plot.h"

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
  CLI::App app{"KumalakZero gating: matches, SPRT, promotion and Elo ladders"};
  app.require_subcommand(0, 1);
  std::string config_path;
  // Continuous mode (train/follow.h); --config then only starts a new run.
  std::string follow;
  kz::FollowBounds follow_bounds;
  app.add_option("--follow", follow,
                 "continuous mode: gate each new candidate of run folder RUN, promote to its "
                 "best.pt");
  app.add_option("--max-gates", follow_bounds.max_items, "with --follow: stop after N matches");
  app.add_option("--max-seconds", follow_bounds.max_seconds,
                 "with --follow: start no match after this many seconds");
  // The command line's overrides (0 = the config's), one struct for --follow and the
  // subcommands alike.
  kz::FollowGateFlags flags;
  kz::cli::add_config_option(app, config_path);
  kz::cli::add_torch_threads_option(app, flags.threads);
  app.add_option("--games", flags.games, "games per match (default: gate.games)")
      ->check(kz::cli::in_range(2, 10000000));
  app.add_option("--visits", flags.visits, "visits per move (default: gate.visits)")
      ->check(kz::cli::in_range(1, 10000000));
  app.add_option("--parallel", flags.parallel, "games at once (default: gate.games_in_parallel)")
      ->check(kz::cli::in_range(1, 100000));
  kz::cli::add_search_threads_option(app, flags.search_threads);

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
  std::vector<std::string> earlier_matches, shipped;
  std::string anchor_name;
  ladder->add_option("--anchor", anchor_name,
                     "the player rated 0 (default: the first of --models, else gen0000); a "
                     "ladder that continues an earlier one keeps its anchor this way");
  ladder->add_option("--shipped", shipped,
                     "players that were once the shipped model: marked in ladder.csv (shipped = "
                     "1) and ringed and named in ladder.png");
  ladder->add_option("--matches", earlier_matches,
                     "matches.jsonl of earlier ladders: their results join the fit (and the new "
                     "matches.jsonl) without being replayed, so a ladder grows run by run");
  ladder->add_option("--models", models, "model files, oldest (generation 0, the anchor) first");
  ladder->add_option("--gates", gates_dir,
                     "a run's gates/ folder: its gating matches (each generation against the best "
                     "before it) join the fit without being replayed");
  ladder
      ->add_option("--anchor-ab", anchor_ab,
                   "also play every model against alpha-beta at this depth (0: none)")
      ->check(kz::cli::in_range(0, kz::kMaxSearchDepth));
  ladder->add_option("--reach", reach, "play each model against the next REACH models")
      ->check(kz::cli::in_range(1, 100));
  ladder->add_option("--out", out_dir, "folder for ladder.csv, ladder.png and matches.jsonl");
  kz::cli::add_help_config_flag(app);  // the run config's keys (train/config_schema.cpp)
  CLI11_PARSE(app, argc, argv);

  try {
    if (!follow.empty()) return kz::follow_gate_main(follow, config_path, follow_bounds, flags);
    if (config_path.empty()) throw std::invalid_argument("--config is required");
    if (!*match && !*ladder)
      throw std::invalid_argument("a subcommand is required: match or ladder");
    kz::RunConfig cfg = kz::load_config(config_path);
    if (flags.search_threads > 0) cfg.search_threads = flags.search_threads;
    torch::set_num_threads(flags.threads > 0 ? flags.threads : cfg.train.threads);
    auto options = [&](const std::string& a, const std::string& b) {
      kz::MatchOptions o;
      o.config = cfg;
      o.a = a;
      o.b = b;
      o.games = flags.games;
      o.visits = flags.visits;
      o.parallel = flags.parallel;
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
      const kz::GateDecision decision = kz::decide_gate(r, cfg.gate, use_sprt);
      std::cout << kz::player_display_name(candidate) << " vs " << kz::player_display_name(baseline)
                << ": " << kz::describe_match(r) << "\n";
      if (use_sprt)
        std::cout << "SPRT elo0=" << cfg.gate.elo0 << " elo1=" << cfg.gate.elo1 << ": LLR "
                  << r.sprt.llr << " [" << r.sprt.lower << ", " << r.sprt.upper << "] -> "
                  << kz::sprt_decision_string(r.sprt.decision) << "\n";
      std::cout << (decision.pass ? "PASS" : "FAIL") << "\n";
      if (!json_out.empty())
        kz::write_gate_record(json_out, kz::make_gate_record(candidate, baseline, r, decision));
      if (decision.pass && !promote_to.empty()) {
        kz::promote_model(candidate, promote_to);
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
    const std::string anchor = !anchor_name.empty() ? anchor_name
                               : models.empty()     ? "gen0000"
                                                    : kz::player_display_name(models[0]);
    if (!gates_dir.empty()) {
      for (const auto& entry : kz::read_gate_history(gates_dir)) {
        const auto& m = entry.match;
        results.push_back(m);
        std::cout << m.a << " vs " << m.b << " (gate): W " << m.wins << " D " << m.draws << " L "
                  << m.losses << (entry.promoted ? "  promoted" : "") << "\n";
      }
    }
    std::string log_text;
    // A pair an earlier ladder played with these settings is not replayed: it would play
    // the same games, and counting them twice would narrow the fit's intervals for
    // nothing. (Lines from before settings were recorded never match.)
    const std::string settings = kz::ladder_settings(cfg, flags.games, flags.visits);
    std::set<std::pair<std::string, std::string>> played;
    for (const auto& file : earlier_matches) {
      const auto earlier = kz::read_ladder_matches(file, &log_text);
      results.insert(results.end(), earlier.begin(), earlier.end());
      for (const auto& m : earlier)
        if (m.settings == settings) played.insert(std::minmax(m.a, m.b));
    }
    for (const auto& [a, b] : kz::ladder_schedule(models, reach, anchor_ab)) {
      const std::string name_a = kz::player_display_name(a), name_b = kz::player_display_name(b);
      if (played.count(std::minmax(name_a, name_b))) {
        std::cout << name_a << " vs " << name_b
                  << ": played with these settings in --matches, not replayed\n";
        continue;
      }
      const kz::MatchResult r = kz::play_match(options(a, b));
      const kz::PairResult pair{name_a, name_b, r.wdl.wins, r.wdl.draws, r.wdl.losses, settings};
      std::cout << pair.a << " vs " << pair.b << ": " << kz::describe_match(r) << std::endl;
      results.push_back(pair);
      log_text += kz::ladder_match_line(pair, r.elo.elo) + "\n";
    }
    kz::write_file_atomically(out_dir + "/matches.jsonl",
                              [&](std::ostream& out) { out << log_text; });
    kz::LadderOptions lo;
    lo.anchor = anchor;
    kz::LadderFit fit = kz::fit_ladder(results, lo);
    for (const auto& name : shipped) {
      const std::string wanted = kz::player_display_name(name);
      auto it = std::find_if(fit.ratings.begin(), fit.ratings.end(),
                             [&](const auto& r) { return r.name == wanted; });
      if (it == fit.ratings.end())
        throw std::invalid_argument("--shipped " + name + ": no such player in the ladder");
      it->shipped = true;
    }
    std::cout << kz::ladder_table_text(fit);
    kz::write_ladder_csv(out_dir + "/ladder.csv", fit.ratings);
    kz::plot_ladder(fit.ratings, out_dir + "/ladder.png",
                    kz::PlotStyle{"Elo by generation", 1000, 600, false});
    std::cout << "wrote " << out_dir << "/ladder.csv, ladder.png, matches.jsonl\n";
  } catch (const std::exception& e) {
    kz::cli::print_command_error("kumalak-gate", e);
    return 1;
  }
  return 0;
}
