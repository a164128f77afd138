// The moves of rated (and, where asked, titled) players in recorded games as samples:
// the data the human head is trained on (nn/human_training.h), `kumalak human-eval`
// measures and the rating estimate is checked against, read one way for all of them so
// that they count the same games, sides and positions. The fold is the held-out split of
// core/rated_games.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/notation.h"
#include "core/rated_games.h"

namespace kz {

// One move of a human player.
struct HumanSample {
  Position position;  // before the move
  int move = 0;       // 0-based pit
  int rating = 0;     // the mover's rating (meaningless when titled)
  bool titled = false;
  int side = 0;  // index into HumanData::sides
};

// One side of one game that has samples.
struct HumanSide {
  int rating = 0;
  bool titled = false;
  int moves = 0;
  float score = -1;   // the side's result: 1 won, 0.5 drawn, 0 lost; -1 unknown
  int64_t game = -1;  // which game of the fold it played (counting the games read), and
  int color = 0;      // as White (0) or Black (1): the pair prior pairs the two sides
};

struct HumanData {
  std::vector<HumanSample> samples;  // in file and game order
  std::vector<HumanSide> sides;
  int64_t games = 0, skipped_games = 0;
  UnratedSides unrated;              // sides neither rated nor titled are counted here
  std::vector<std::string> skipped;  // why each skipped game did not replay
};

// A side is a titled over-the-board player when its rating tag is missing in a game
// without a TimeControl tag (tournament records: no online clock and no rating).
bool titled_side(const GameRecord& record, const RatedGame& rated, int side);

// The samples of every game of `fold` in `files` that replays (a game that does not is
// counted and its reason kept). `titled`: also the moves of titled players. `held_out`:
// which slice of the games is the validation fold (the default: the shipped split).
HumanData read_human_data(const std::vector<std::vector<GameRecord>>& files, const GameSpec& spec,
                          FoldSelection fold, bool titled, HeldOut held_out = {});

// The mean rating of the rated samples, rounded (0 when there are none).
int mean_rating(const std::vector<HumanSample>& samples);

}  // namespace kz
