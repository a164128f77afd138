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

#include "core/atomic_file.h"
#include "core/run_lock.h"
#include "mcts/alphabeta.h"
#include "nn/allocator.h"
#include "tools/cli_options.h"
#include "tools/command_error.h"
#include "train/elo.h"
#include "train/follow.h"
#include "train/gate.h"
#include "train/ladder_run.h"
#include "train/match.h"
#include "train/plot.h"

namespace {

// `kumalak-gate match`'s options.
struct MatchArgs {
  std::string candidate, baseline;  // player specs: model file, init, rollout or ab:DEPTH
  bool use_sprt = false;            // stop early on an SPRT verdict
  std::string promote_to;           // where a passing candidate is copied ("" = nowhere)
  std::string json_out;             // the result as JSON ("" = not written)
};

// `kumalak-gate ladder`'s options.
struct LadderArgs {
  std::vector<std::string> models;           // model files, oldest first
  int anchor_ab = 0;                         // alpha-beta depth every model meets (0: none)
  int reach = 1;                             // each model meets the next `reach` models
  std::string out_dir = "ladder";            // ladder.csv, ladder.png, matches.jsonl
  std::string gates_dir;                     // a run's gates/ folder ("" = none)
  std::vector<std::string> earlier_matches;  // matches.jsonl of earlier ladders
  std::vector<std::string> shipped;          // players once shipped
  std::string anchor_name;                   // the player rated 0 ("" = ladder_anchor's)
};

// Everything the command line says.
struct GateCommandLine {
  std::string config_path;
  std::string follow;  // continuous mode (train/follow.h); --config then only starts a run
  kz::FollowBounds follow_bounds;
  // The command line's overrides (0 = the config's), one struct for --follow and the
  // subcommands alike.
  kz::FollowGateFlags flags;
  MatchArgs match;
  LadderArgs ladder;
  CLI::App* match_command = nullptr;   // given: `match` was asked for
  CLI::App* ladder_command = nullptr;  // given: `ladder` was asked for
};

// The options before the subcommand.
void add_common_options(CLI::App& app, GateCommandLine& cl) {
  app.add_option("--follow", cl.follow,
                 "continuous mode: gate each new candidate of run folder RUN, promote to its "
                 "best.pt");
  app.add_option("--max-gates", cl.follow_bounds.max_items, "with --follow: stop after N matches");
  app.add_option("--max-seconds", cl.follow_bounds.max_seconds,
                 "with --follow: start no match after this many seconds");
  kz::cli::add_config_option(app, cl.config_path);
  kz::cli::add_torch_threads_option(app, cl.flags.threads);
  app.add_option("--games", cl.flags.games, "games per match (default: gate.games)")
      ->check(kz::cli::in_range(2, 10000000));
  app.add_option("--visits", cl.flags.visits, "visits per move (default: gate.visits)")
      ->check(kz::cli::in_range(1, 10000000));
  app.add_option("--parallel", cl.flags.parallel, "games at once (default: gate.games_in_parallel)")
      ->check(kz::cli::in_range(1, 100000));
  kz::cli::add_search_threads_option(app, cl.flags.search_threads);
}

CLI::App* add_match_command(CLI::App& app, MatchArgs& m) {
  auto* match = app.add_subcommand("match", "Play candidate against baseline");
  match
      ->add_option("--candidate", m.candidate, "player spec: model file, init, rollout or ab:DEPTH")
      ->required();
  match->add_option("--baseline", m.baseline, "player spec: model file, init, rollout or ab:DEPTH")
      ->required();
  match->add_flag("--sprt", m.use_sprt,
                  "stop early on an SPRT verdict (gate.elo0/elo1/alpha/beta)");
  match->add_option("--promote", m.promote_to, "if the candidate passes, copy it here atomically");
  match->add_option("--json", m.json_out, "also write the result as JSON to this file");
  return match;
}

CLI::App* add_ladder_command(CLI::App& app, LadderArgs& l) {
  auto* ladder =
      app.add_subcommand("ladder", "Rate many models: neighbours, anchors, one Elo each");
  ladder->add_option("--anchor", l.anchor_name,
                     "the player rated 0 (default: the first of --models, else gen0000); a "
                     "ladder that continues an earlier one keeps its anchor this way");
  ladder->add_option("--shipped", l.shipped,
                     "players that were once the shipped model: marked in ladder.csv (shipped = "
                     "1) and ringed and named in ladder.png");
  ladder->add_option("--matches", l.earlier_matches,
                     "matches.jsonl of earlier ladders: their results join the fit (and the new "
                     "matches.jsonl) without being replayed, so a ladder grows run by run");
  ladder->add_option("--models", l.models, "model files, oldest (generation 0, the anchor) first");
  ladder->add_option("--gates", l.gates_dir,
                     "a run's gates/ folder: its gating matches (each generation against the best "
                     "before it) join the fit without being replayed");
  ladder
      ->add_option("--anchor-ab", l.anchor_ab,
                   "also play every model against alpha-beta at this depth (0: none)")
      ->check(kz::cli::in_range(0, kz::kMaxSearchDepth));
  ladder->add_option("--reach", l.reach, "play each model against the next REACH models")
      ->check(kz::cli::in_range(1, 100));
  ladder->add_option("--out", l.out_dir, "folder for ladder.csv, ladder.png and matches.jsonl");
  return ladder;
}

// The match between players `a` and `b` as the config and the command line set it.
kz::MatchOptions match_options(const kz::RunConfig& cfg, const kz::FollowGateFlags& flags,
                               const std::string& a, const std::string& b) {
  kz::MatchOptions o;
  o.config = cfg;
  o.a = a;
  o.b = b;
  o.games = flags.games;
  o.visits = flags.visits;
  o.parallel = flags.parallel;
  return o;
}

// `match`: candidate against baseline, the verdict, and the promotion when it passes.
void run_match(const kz::RunConfig& cfg, const kz::FollowGateFlags& flags, const MatchArgs& m) {
  // One gatekeeper per run: two would both judge against, and promote over, the same
  // best model (core/run_lock.h). A match that promotes nothing needs no lock.
  std::optional<kz::RunLock> lock;
  if (!m.promote_to.empty()) {
    const auto dir = std::filesystem::path(m.promote_to).parent_path();
    lock.emplace((dir.empty() ? std::filesystem::path(".") : dir) / ".gatekeeper.lock",
                 "gatekeeper promoting to '" + m.promote_to + "'");
  }
  kz::MatchOptions o = match_options(cfg, flags, m.candidate, m.baseline);
  o.use_sprt = m.use_sprt;
  const kz::MatchResult r = kz::play_match(o);
  const kz::GateDecision decision = kz::decide_gate(r, cfg.gate, m.use_sprt);
  std::cout << kz::player_display_name(m.candidate) << " vs " << kz::player_display_name(m.baseline)
            << ": " << kz::describe_match(r) << "\n";
  if (m.use_sprt)
    std::cout << "SPRT elo0=" << cfg.gate.elo0 << " elo1=" << cfg.gate.elo1 << ": LLR "
              << r.sprt.llr << " [" << r.sprt.lower << ", " << r.sprt.upper << "] -> "
              << kz::sprt_decision_string(r.sprt.decision) << "\n";
  std::cout << (decision.pass ? "PASS" : "FAIL") << "\n";
  if (!m.json_out.empty())
    kz::write_gate_record(m.json_out, kz::make_gate_record(m.candidate, m.baseline, r, decision));
  if (decision.pass && !m.promote_to.empty()) {
    kz::promote_model(m.candidate, m.promote_to);
    std::cout << "promoted " << m.candidate << " -> " << m.promote_to << "\n";
  }
}

// The ladder's results: the run's gating matches (if given), the earlier ladders', then
// each model against its next `reach` neighbours and the anchor, optionally everything
// against alpha-beta. `log_text` receives matches.jsonl's lines.
std::vector<kz::PairResult> play_ladder(const kz::RunConfig& cfg, const kz::FollowGateFlags& flags,
                                        const LadderArgs& l, std::string& log_text) {
  std::vector<kz::PairResult> results;
  if (!l.gates_dir.empty()) {
    for (const auto& entry : kz::read_gate_history(l.gates_dir)) {
      const auto& m = entry.match;
      results.push_back(m);
      std::cout << m.a << " vs " << m.b << " (gate): W " << m.wins << " D " << m.draws << " L "
                << m.losses << (entry.promoted ? "  promoted" : "") << "\n";
    }
  }
  const std::string settings = kz::ladder_settings(cfg, flags.games, flags.visits);
  kz::EarlierLadders earlier = kz::read_earlier_ladders(l.earlier_matches, settings);
  results.insert(results.end(), earlier.results.begin(), earlier.results.end());
  log_text = std::move(earlier.log_text);
  for (const auto& [a, b] : kz::ladder_schedule(l.models, l.reach, l.anchor_ab)) {
    const std::string name_a = kz::player_display_name(a), name_b = kz::player_display_name(b);
    if (earlier.played.count(std::minmax(name_a, name_b))) {
      std::cout << name_a << " vs " << name_b
                << ": played with these settings in --matches, not replayed\n";
      continue;
    }
    const kz::MatchResult r = kz::play_match(match_options(cfg, flags, a, b));
    const kz::PairResult pair{name_a, name_b, r.wdl.wins, r.wdl.draws, r.wdl.losses, settings};
    std::cout << pair.a << " vs " << pair.b << ": " << kz::describe_match(r) << std::endl;
    results.push_back(pair);
    log_text += kz::ladder_match_line(pair, r.elo.elo) + "\n";
  }
  return results;
}

// `ladder`: the matches, then one maximum-likelihood fit, its table and its files.
void run_ladder(const kz::RunConfig& cfg, const kz::FollowGateFlags& flags, const LadderArgs& l) {
  if (l.models.empty() && l.gates_dir.empty() && l.earlier_matches.empty())
    throw std::invalid_argument("ladder needs --models, --gates or --matches");
  std::filesystem::create_directories(l.out_dir);
  const std::string anchor = kz::ladder_anchor(l.anchor_name, l.models);
  std::string log_text;
  const std::vector<kz::PairResult> results = play_ladder(cfg, flags, l, log_text);
  kz::write_file_atomically(l.out_dir + "/matches.jsonl",
                            [&](std::ostream& out) { out << log_text; });
  kz::LadderOptions lo;
  lo.anchor = anchor;
  kz::LadderFit fit = kz::fit_ladder(results, lo);
  kz::mark_shipped(fit, l.shipped);
  std::cout << kz::ladder_table_text(fit);
  kz::write_ladder_csv(l.out_dir + "/ladder.csv", fit.ratings);
  kz::plot_ladder(fit.ratings, l.out_dir + "/ladder.png",
                  kz::PlotStyle{"Elo by generation", 1000, 600, false});
  std::cout << "wrote " << l.out_dir << "/ladder.csv, ladder.png, matches.jsonl\n";
}

// What the parsed command line asks for; the exit status.
int run_gate(const GateCommandLine& cl) {
  if (!cl.follow.empty())
    return kz::follow_gate_main(cl.follow, cl.config_path, cl.follow_bounds, cl.flags);
  if (cl.config_path.empty()) throw std::invalid_argument("--config is required");
  if (!*cl.match_command && !*cl.ladder_command)
    throw std::invalid_argument("a subcommand is required: match or ladder");
  kz::RunConfig cfg = kz::load_config(cl.config_path);
  if (cl.flags.search_threads > 0) cfg.search_threads = cl.flags.search_threads;
  torch::set_num_threads(cl.flags.threads > 0 ? cl.flags.threads : cfg.train.threads);
  if (*cl.match_command)
    run_match(cfg, cl.flags, cl.match);
  else
    run_ladder(cfg, cl.flags, cl.ladder);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
  CLI::App app{"KumalakZero gating: matches, SPRT, promotion and Elo ladders"};
  app.require_subcommand(0, 1);
  GateCommandLine cl;
  add_common_options(app, cl);
  cl.match_command = add_match_command(app, cl.match);
  cl.ladder_command = add_ladder_command(app, cl.ladder);
  kz::cli::add_help_config_flag(app);  // the run config's keys (train/config_schema.cpp)
  CLI11_PARSE(app, argc, argv);
  try {
    return run_gate(cl);
  } catch (const std::exception& e) {
    kz::cli::print_command_error("kumalak-gate", e);
    return 1;
  }
}
