// The network's input: planes over the ring of pits, from the side to move's view.
//
// Layout: the board is a ring of L = 2m cells in sowing order, so convolutions along
// it see exactly the neighbourhoods that sowing connects:
//   cell 0 .. m-1   = the mover's pits 1..m
//   cell m .. 2m-1  = the opponent's pits 1..m
// (and cell 2m-1 wraps to cell 0). Togyz: L = 18; Kalah(m, n): L = 2m.
// Tensor shape: [batch, kNumPlanes, L], float32.
//
// Why these planes: mancala is arithmetic. A plain count makes the net learn parity,
// "exactly 3" and where a sowing ends on its own, which costs many games; handing it
// the results of one-ply lookahead (where every move lands, what it captures) makes
// tactics visible at once, and leaves the network to learn strategy.
//
// Bump kFeatureVersion whenever a plane's meaning changes: model files record it and
// loading a model made for other features fails with a clear message.
#pragma once

#include <span>

#include "core/position.h"

namespace kz {

inline constexpr int kFeatureVersion = 1;

enum Plane : int {
  // --- per-cell counts ---
  kPlaneCount = 0,  // stones / (initial stones per pit), e.g. 9 -> 1.0
  kPlaneEmpty,      // count == 0
  kPlaneOne,        // count == 1 (Kalah: a pit that can capture on arrival)
  kPlaneTwo,        // count == 2: a last stone arriving makes 3 (a tuzdyk chance)
  kPlaneThree,      // count == 3
  kPlaneOdd,        // count is odd: one more stone makes an even capture
  kPlaneLaps,       // count / L: how many full laps a sowing from here makes
  // --- geometry ---
  kPlaneMine,       // cell is in the mover's row
  kPlaneHoleIndex,  // (pit number - 1) / (m - 1): position along the row
  kPlaneLastHole,   // pit m (Togyz hole 9: never a tuzdyk)
  // --- tuzdyks (always zero in Kalah) ---
  kPlaneMyTuzdyk,     // the mover owns a tuzdyk here (in the opponent's row)
  kPlaneTheirTuzdyk,  // the opponent owns a tuzdyk here (in the mover's row)
  // --- one-ply lookahead for the mover: marked at the cell a move starts from ---
  kPlaneMyLegal,       // a legal move starts here
  kPlaneMyCapture,     // stones this move captures / initial stones per pit
  kPlaneMyTuzdykMove,  // this move makes a tuzdyk
  kPlaneMyExtraTurn,   // Kalah: this move earns another turn
  kPlaneMyLandings,    // at the landing cell: how many of the mover's moves end here
  // --- the same for the opponent, as if it were to move now (threats) ---
  kPlaneTheirCapture,  // at the start cell of the opponent's move
  kPlaneTheirTuzdykMove,
  kPlaneTheirExtraTurn,
  kPlaneTheirLandings,  // at the landing cell
  // --- global, the same value in every cell ---
  kPlaneMyStore,     // mover's store / half of all stones
  kPlaneTheirStore,  // opponent's store / half of all stones
  kPlaneIHaveTuzdyk,
  kPlaneTheyHaveTuzdyk,
  kPlaneStonesInPlay,  // stones still in pits / all stones
  kPlaneIsTogyz,       // the game (one net per game, but the flag costs nothing)
  kPlaneEmptyCapture,  // Kalah's empty-capture rule
  kNumPlanes
};

// Cells in the ring for this position's game.
inline int ring_length(const Position& pos) {
  return 2 * pos.npits;
}

// Writes kNumPlanes * ring_length(pos) floats (plane-major) into `out`.
void encode_features(const Position& pos, std::span<float> out);

// The same planes cell-major, [ring_length(pos)][kNumPlanes]: the channels-last layout
// the oneDNN forward's first convolution reads (OnednnNetwork::forward with
// FeatureLayout::kCellsMajor), so that no transpose runs between the two.
void encode_features_cells_major(const Position& pos, std::span<float> out);

}  // namespace kz
