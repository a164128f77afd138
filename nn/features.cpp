#include "nn/features.h"

#include <algorithm>

namespace kz {

namespace {

// Both layouts from one encoder: `kCellsMajor` writes [L][kNumPlanes] instead of
// [kNumPlanes][L].
template <bool kCellsMajor>
void encode(const Position& pos, std::span<float> out) {
  const int m = pos.npits;
  const int L = 2 * m;
  std::fill(out.begin(), out.begin() + kNumPlanes * L, 0.f);
  auto at = [&](int plane, int cell) -> float& {
    return kCellsMajor ? out[size_t(cell) * kNumPlanes + plane] : out[size_t(plane) * L + cell];
  };
  const int me = pos.to_move, them = me ^ 1;
  const int total = pos.total_stones();
  const float per_pit = float(total) / float(2 * m);  // initial stones per pit
  const float half = float(total) / 2.f;
  auto cell_of = [&](int player, int index) { return (player == me ? 0 : m) + index; };

  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < m; ++i) {
      const int c = cell_of(p, i);
      const int n = pos.pit(p, i);
      at(kPlaneCount, c) = float(n) / per_pit;
      at(kPlaneEmpty, c) = n == 0;
      at(kPlaneOne, c) = n == 1;
      at(kPlaneTwo, c) = n == 2;
      at(kPlaneThree, c) = n == 3;
      at(kPlaneOdd, c) = n & 1;
      at(kPlaneLaps, c) = float(n) / float(L);
      at(kPlaneMine, c) = p == me;
      at(kPlaneHoleIndex, c) = m > 1 ? float(i) / float(m - 1) : 0.f;
      at(kPlaneLastHole, c) = i == m - 1;
    }
  }
  if (pos.is_togyz()) {
    if (pos.tuzdyk[me] != kNoTuzdyk) at(kPlaneMyTuzdyk, cell_of(them, pos.tuzdyk[me])) = 1;
    if (pos.tuzdyk[them] != kNoTuzdyk) at(kPlaneTheirTuzdyk, cell_of(me, pos.tuzdyk[them])) = 1;
  }

  // One-ply lookahead for both sides.
  auto lookahead = [&](const Position& from, int capture_plane, int tuzdyk_plane, int extra_plane,
                       int landing_plane, int legal_plane) {
    const int mover = from.to_move;
    for (uint32_t mask = from.legal_mask(); mask; mask &= mask - 1) {
      const int move = __builtin_ctz(mask);
      Position next = from;
      const auto info = next.play(move);
      const int c = cell_of(mover, move);
      if (legal_plane >= 0) at(legal_plane, c) = 1;
      at(capture_plane, c) = float(info.captured) / per_pit;
      at(tuzdyk_plane, c) = info.made_tuzdyk;
      at(extra_plane, c) = info.extra_turn;
      if (info.landing_player >= 0)
        at(landing_plane, cell_of(info.landing_player, info.landing_index)) += 1;
    }
  };
  if (!pos.is_over()) {
    lookahead(pos, kPlaneMyCapture, kPlaneMyTuzdykMove, kPlaneMyExtraTurn, kPlaneMyLandings,
              kPlaneMyLegal);
    Position theirs = pos;
    theirs.to_move = uint8_t(them);
    lookahead(theirs, kPlaneTheirCapture, kPlaneTheirTuzdykMove, kPlaneTheirExtraTurn,
              kPlaneTheirLandings, -1);
  }

  const float globals[] = {
      float(pos.store[me]) / half,
      float(pos.store[them]) / half,
      float(pos.is_togyz() && pos.tuzdyk[me] != kNoTuzdyk),
      float(pos.is_togyz() && pos.tuzdyk[them] != kNoTuzdyk),
      float(total - pos.store[0] - pos.store[1]) / float(total),
      float(pos.is_togyz()),
      float(pos.variant == Variant::kKalahEmpty),
  };
  for (int g = 0; g < 7; ++g)
    for (int c = 0; c < L; ++c) at(kPlaneMyStore + g, c) = globals[g];
}

}  // namespace

void encode_features(const Position& pos, std::span<float> out) {
  encode<false>(pos, out);
}

void encode_features_cells_major(const Position& pos, std::span<float> out) {
  encode<true>(pos, out);
}

}  // namespace kz
