// What `kumalak-gate ladder` (tools/gate_main.cpp) does around its matches, apart from
// the command line so that tests/train_ladder_run_test.cpp reaches it: the anchor it
// rates from, what earlier ladders already played, and the models marked as shipped.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "train/elo.h"

namespace kz {

// The player rated 0: --anchor when given, else the first model's display name, else
// "gen0000" (a ladder of a run's gates alone).
//   anchor: --anchor ("" = not given)
//   models: --models, oldest first
std::string ladder_anchor(const std::string& anchor, const std::vector<std::string>& models);

// The matches of earlier ladders (--matches), which join the fit without being replayed.
struct EarlierLadders {
  std::vector<PairResult> results;  // every match read, in file order
  std::string log_text;             // their lines, written back into the new matches.jsonl
  // The pairs (names in std::minmax order) played with this ladder's settings: not
  // replayed, since they would play the same games and narrow the fit's intervals for
  // nothing. Lines from before settings were recorded never match.
  std::set<std::pair<std::string, std::string>> played;
};

// Reads `files` (matches.jsonl of earlier ladders, read_ladder_matches) in order. Throws
// what read_ladder_matches throws (the file and line of a malformed line).
//   files: the matches.jsonl files
//   settings: this ladder's ladder_settings
EarlierLadders read_earlier_ladders(const std::vector<std::string>& files,
                                    const std::string& settings);

// Marks the players of `shipped` (player specs, compared by display name) as once shipped
// in `fit`. Throws std::invalid_argument naming a player that is not in the ladder.
//   fit: fit_ladder's answer
//   shipped: --shipped
void mark_shipped(LadderFit& fit, const std::vector<std::string>& shipped);

}  // namespace kz
