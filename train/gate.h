// The gatekeeper's decisions, as a library: when a candidate is promoted, what a gate
// record holds, how a run's gates replay into the chain of best models, which matches a
// ladder plays, and promotion itself. `kumalak-gate` (tools/gate_main.cpp) is only the
// command line around these, so each rule is unit-tested here (tests/train_gate_test.cpp)
// and any other gatekeeper (a continuous one, a script) decides exactly the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "train/config.h"
#include "train/elo.h"
#include "train/match.h"

namespace kz {

// The promotion rule. With an SPRT: accepting H1 (candidate better by elo1) passes,
// accepting H0 fails, and an undecided match falls back to the score rule. Without an
// SPRT: the candidate passes when its score reaches gate.promote_min_score.
struct GateDecision {
  bool sprt_pass = false;  // the SPRT accepted H1
  bool sprt_fail = false;  // the SPRT accepted H0
  bool pass = false;       // promote the candidate
};
GateDecision decide_gate(const MatchResult& result, const GateConfig& gate, bool use_sprt);

// One gate record (`gates/genNNNN.json` of a run; `kumalak-gate match --json`): the two
// player specs, the result and the decision. Written as one JSON object on one line.
struct GateRecord {
  std::string candidate, baseline;
  int64_t wins = 0, draws = 0, losses = 0;
  double score = 0, elo = 0, elo_lo = 0, elo_hi = 0, los = 0, llr = 0;
  std::string sprt;  // sprt_decision_string(); "continue" without an SPRT
  bool pass = false;
  double seconds = 0;
};
GateRecord make_gate_record(const std::string& candidate, const std::string& baseline,
                            const MatchResult& result, const GateDecision& decision);
nlohmann::ordered_json gate_record_json(const GateRecord& record);
// Reads what gate_record_json wrote; throws std::runtime_error naming `where` and the
// missing or mistyped field.
GateRecord parse_gate_record(const nlohmann::json& j, const std::string& where);
void write_gate_record(const std::string& path, const GateRecord& record);  // atomic
GateRecord read_gate_record(const std::string& path);

// A run's gating history: every `*.json` gate record of `gates_dir` in name order
// (genNNNN sorts by generation), each as a pair "candidate vs the best before it". The
// best starts as `first_best` (generation 0) and becomes each candidate that passed.
struct GateHistoryEntry {
  PairResult match;  // a = the candidate's name, b = the best it played
  bool promoted = false;
};
std::vector<GateHistoryEntry> read_gate_history(const std::string& gates_dir,
                                                const std::string& first_best = "gen0000");

// The matches a ladder plays for `models` (oldest first; models[0] is the anchor): each
// model against its next `reach` models, every model more than `reach` places after the
// anchor against the anchor too (the nearer ones meet it as a neighbour), and with
// `anchor_ab` > 0 every model against alpha-beta at that depth ("ab:D"). Pairs are
// (a, b) with a the later model, in the order they are played.
std::vector<std::pair<std::string, std::string>> ladder_schedule(
    const std::vector<std::string>& models, int reach, int anchor_ab);

// Ladder matches (one JSON object per line, as `kumalak-gate ladder` writes
// matches.jsonl). Blank lines are skipped; a malformed line is an error naming
// file:line. `raw_lines`, if given, receives the lines read (to be written back).
// A line may carry "settings", the fingerprint of what decided its games (see
// ladder_settings); a ladder does not replay a pair already played with its settings.
std::vector<PairResult> read_ladder_matches(const std::string& path,
                                            std::string* raw_lines = nullptr);
std::string ladder_match_line(const PairResult& match, double elo);
// The fingerprint of a ladder's matches: 16 hex digits of a hash of the resolved config
// (search, gate, seed, ...) and the games and visits asked for on the command line.
std::string ladder_settings(const RunConfig& config, int games, int visits);

// The short name of a player spec: a model file's stem ("gen0012"), other specs as given.
std::string player_display_name(const std::string& spec);

// Makes `from` the new `to` atomically: a reader of `to` (self-play workers loading
// best.pt) sees the old file or the new one, never a mix.
void promote_model(const std::string& from, const std::string& to);

}  // namespace kz
