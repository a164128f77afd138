// A game analysis's judgements (mcts/analysis.h) in a player's words, in the current
// language (core/i18n.h): the search judges the moves, this layer says it. Shared by
// `kumalak analyze` (the annotated PGN and its summary) and the server's analysis.
#pragma once

#include <string>

#include "mcts/analysis.h"

namespace kz {

// The comment on a judged move: White's expected score and margin after it ("W 62%
// +4.1"), its mark with the drop ("?? blunder (-35%)"), the stones it gives away against
// perfect play and the engine's move with its value, separated by "; ". `before` is the
// position it was played in.
std::string judgement_comment(const MoveJudgement& j, const Position& before);

// "54 moves: inaccuracies 3, mistakes 2, blunders 0, average loss  2.3%, engine's move
// 39%" (the summary line of `kumalak analyze`, one per player).
std::string analysis_stats_line(const AnalysisStats& stats);

// The threshold sentence printed under every summary.
std::string analysis_thresholds_text();

}  // namespace kz
