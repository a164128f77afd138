// What `kumalak openings build` computes, apart from its options and printing
// (tools/cmd_openings.cpp): the record files and self-play shards its inputs name, the
// files' labels, the explorer built from them (core/opening_explorer.h's builder) with
// its metadata, and how fast the file written answers a lookup.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/notation.h"
#include "core/opening_explorer.h"

namespace kz::cli {

// The record files and shards `input` names, added to `pgns` and `shards`: itself, or for
// a folder every *.pgn and *.kzshard under it, in name order. Throws ParseError when the
// folder does not read.
void list_explorer_inputs(const std::string& input, std::vector<std::string>& pgns,
                          std::vector<std::string>& shards);

// The labels of --source-label NAME=LABEL, by NAME. Throws ParseError for one that is not
// NAME=LABEL, an unknown label, or a NAME that is none of `pgns` (as given, or its file
// name).
std::map<std::string, ExplorerLabel> parse_source_labels(const std::vector<std::string>& labels,
                                                         const std::vector<std::string>& pgns);

// Every record file of `pgns`, read whole before the build so that its progress knows the
// number of games. Throws ParseError naming the file for one that does not read.
std::vector<std::vector<GameRecord>> read_explorer_records(const std::vector<std::string>& pgns);

// What a build reads and how it keeps positions.
struct ExplorerBuildInput {
  GameSpec spec = GameSpec::togyz();
  int min_games = 3;              // keep a position that at least this many games went through
  int max_plies = 30;             // the positions of the first N plies
  std::vector<std::string> pgns;  // the record files, as given
  std::vector<std::vector<GameRecord>> records;  // their games (read_explorer_records)
  std::vector<std::string> shards;               // the self-play shards
  std::map<std::string, ExplorerLabel> labels;   // parse_source_labels
};

// A built explorer and what each input gave.
struct ExplorerBuild {
  OpeningExplorer explorer;                   // its metadata JSON set (docs/openings.md)
  std::vector<ExplorerSourceReport> reports;  // the record files', then the shards'
  int64_t total_games = 0;                    // games in every input
  int64_t skipped = 0;                        // games left out
  int64_t unreadable_shards = 0;              // shards left out whole
};

// Builds the explorer of `input`: every game of the record files (by their labels) and
// every move of the shards (the engine's games; a shard that does not read, or holds a
// move that is not legal, is left out whole with its reason). `progress(games)` is called
// as games are added (may be null); `total(games)` first, with the number of games in all
// inputs (may be null).
ExplorerBuild build_explorer(const ExplorerBuildInput& input,
                             const std::function<void(int64_t total)>& total,
                             const std::function<void(int64_t games)>& progress);

// How long a lookup of each position of `explorer` takes (find and the selection's
// totals, what a query does before printing), in microseconds: median and max.
std::pair<double, double> time_explorer_queries(const OpeningExplorer& explorer);

}  // namespace kz::cli
