// What `kumalak openings` answers, apart from its options and printing
// (tools/cmd_openings.cpp): the position asked about, the moves the explorer's games
// played there in a selection of players, the engine's evaluation of each move and what
// the human model says players of a rating play, as one struct; and that answer as the
// table a person reads or the JSON object of docs/openings.md.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/opening_explorer.h"
#include "core/position.h"
#include "mcts/player.h"

namespace kz::cli {

// The position of a query: after `moves` from the start when `moves_given`, else
// `position` ("" = the start). Throws ParseError (in the player's language) when both are
// given or either does not read.
Position opening_query_position(const GameSpec& spec, bool moves_given, const std::string& moves,
                                const std::string& position);

// An explorer file read with its metadata.
struct LoadedExplorer {
  std::string path;
  OpeningExplorer explorer;
  nlohmann::ordered_json meta;  // the file's metadata object
};

// Reads the explorer at `path`. Throws what reading throws, and nlohmann::json::exception
// when its metadata is not JSON.
LoadedExplorer load_explorer(const std::string& path);

// What the explorer and the engines say about a position.
struct OpeningAnswer {
  Position position;
  ExplorerBuckets selection = kAllExplorerBuckets;
  uint64_t games = 0;               // games through the position in the selection
  std::vector<ExplorerMove> moves;  // the moves with games in the selection, most played first
  std::string engine_name;          // "" = no engine evaluation
  std::map<int, MoveEval> engine;   // by move: the engine's evaluation
  int rating = 0;                   // the human model's rating (0: none)
  std::map<int, float> human;       // by move: how often players at `rating` play it
};

// The explorer's moves of `pos` in `selection`.
OpeningAnswer explorer_answer(const OpeningExplorer& explorer, const Position& pos,
                              ExplorerBuckets selection);

// The engine's evaluation of every legal move of the answer's position (none once the
// game is over), by the analysis player of `level` (a level name) with `model` ("" =
// shipped) for `movetime` seconds a search (0: the level's own). Throws what making the
// player throws.
void add_engine_evaluations(OpeningAnswer& answer, const GameSpec& spec, const std::string& level,
                            const std::string& model, double movetime);

// How often players rated `rating` play each move (tools/human_level.h; none once the
// game is over), with `human_model` ("" = shipped). Throws what loading throws.
void add_human_probabilities(OpeningAnswer& answer, const GameSpec& spec, int rating,
                             const std::string& human_model);

// The answer as a table, in the player's language.
//   answer: what the query found
//   selection_words: the selection as the options said it ("all", "rated 1500-1799")
std::string opening_answer_text(const OpeningAnswer& answer, const std::string& selection_words);

// The answer as docs/openings.md's JSON object.
//   answer: what the query found
//   loaded: the explorer it came from
//   source, band: the selection as given (band "" = every band)
nlohmann::ordered_json opening_answer_json(const OpeningAnswer& answer,
                                           const LoadedExplorer& loaded, const std::string& source,
                                           const std::string& band);

}  // namespace kz::cli
