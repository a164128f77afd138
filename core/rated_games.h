// Rated game records (PlayOK and the like) as data for models of human play: each side's
// rating and the game's time control read from the PGN tags, and a held-out split of
// the games into a training and a validation fold.
//
// The split is by game, never by position: every position of a game lands in the game's
// fold, so a model never validates on a position whose game it trained on (positions of
// one game are strongly correlated). A game's fold depends only on the game itself (its
// file's name, identifying tags and moves), not on where it stands in its file, on the
// order the files are read in or on the folder they lie in, so the trainer and
// `kumalak human-eval` always agree on which games are held out. docs/human.md describes
// the data and the split.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/notation.h"

namespace kz {

// Ratings outside this range are taken for a broken header rather than a player: PlayOK
// ratings lie between about 800 and 2,200, and no rating system in use goes beyond it.
inline constexpr int kMinPlausibleRating = 100;
inline constexpr int kMaxPlausibleRating = 3500;

// Why a side is unrated, or that it is rated.
enum class RatingStatus {
  kRated,
  kMissing,     // no WhiteElo / BlackElo tag
  kUnknown,     // the tag says it is unknown: "", "?" or "-" (the PGN conventions)
  kNotANumber,  // anything but a whole number in decimal digits
  kOutOfRange,  // a whole number outside kMinPlausibleRating..kMaxPlausibleRating
};
// "rated", "missing", "unknown", "not_a_number", "out_of_range" (the JSON keys of
// `kumalak human-eval`'s unrated_sides).
const char* rating_status_name(RatingStatus status);

struct SideRating {
  RatingStatus status = RatingStatus::kMissing;
  int rating = 0;  // meaningful only when status is kRated
  bool rated() const { return status == RatingStatus::kRated; }
};

// A rating tag's value as written (nullopt: no such tag).
SideRating parse_rating(std::optional<std::string_view> tag_value);
// The rating of `side` (0 = White, the first mover: WhiteElo; 1 = Black: BlackElo).
SideRating side_rating(const GameRecord& record, int side);

// A PGN TimeControl: "600" (seconds for the game) or "300+5" (and 5 s added per move).
struct TimeControl {
  int base_s = 0;
  int increment_s = 0;
};
// nullopt for anything else: "", "?", "-", moves-per-period forms like "40/7200", a
// sandglass "*60", numbers above a day.
std::optional<TimeControl> parse_time_control(std::string_view text);

enum class Fold { kTrain, kValidation };
const char* fold_name(Fold fold);  // "train", "validation"

// Which games a command looks at: one fold or all of them.
enum class FoldSelection { kTrain, kValidation, kAll };
// "train" | "validation" | "all"; throws ParseError naming the accepted words.
FoldSelection parse_fold_selection(std::string_view text);
bool fold_selected(FoldSelection selection, Fold fold);

// The share of games held out for validation. A tenth leaves about 300 of the ~3,000
// PlayOK games (30,000+ rated positions) to measure on, enough for a per-100-points
// top-1 figure to within a few percent in the well-filled bins, and 90 % to train on.
inline constexpr double kValidationFraction = 0.10;

// Which games are held out, as one of `count` equal slices of the fraction game_fold
// reads: the games whose fraction lies in [index / count, (index + 1) / count). The
// default, slice 0 of 10, is exactly the validation fold above (fraction below
// kValidationFraction), the one every shipped model was validated on. Slices j of K
// (j = 0..K-1) are the folds of a K-fold cross-validation by game: a model trained
// without slice j is measured on it (`kumalak human-train --held-out j/K`, `kumalak
// analyze --by-player --held-out j/K`), so every game is measured once, by a model that
// never saw it.
struct HeldOut {
  int index = 0;
  int count = 10;
  bool operator==(const HeldOut&) const = default;
};
static_assert(kValidationFraction == 1.0 / 10, "HeldOut{} must be the validation fold");
// "J/K" with 2 <= K <= 100 and 0 <= J < K; throws ParseError saying what is accepted.
HeldOut parse_held_out(std::string_view text);
std::string held_out_text(HeldOut held_out);  // "J/K"

// FNV-1a 64 (core/checksum.h) over the game's identity: its file's name without the
// folder (GameRecord::source), the Event, Date, Round, White, Black and Time tags, and
// the move tokens as written; each field is preceded by its length so that no two
// different games give the same byte stream. Not its index or line in the file.
uint64_t game_identity(const GameRecord& record);
// The fold of a game with this identity: validation when mix64(identity)'s top 53 bits,
// read as a fraction in [0, 1), are below `validation_fraction` (in 0..1), else train.
Fold game_fold(uint64_t identity, double validation_fraction = kValidationFraction);
// The fold of a game when `held_out` is the slice held out for validation.
Fold game_fold(uint64_t identity, HeldOut held_out);

// Everything the human-play data needs from one record's tags.
struct RatedGame {
  std::array<SideRating, 2> sides;  // [0] White, [1] Black
  std::optional<TimeControl> time_control;
  uint64_t identity = 0;
  Fold fold = Fold::kTrain;
};
RatedGame read_rated_game(const GameRecord& record, HeldOut held_out = {});

// Every game of each PGN file of a data set, file by file. Throws ParseError naming the
// file that cannot be read or holds no game: a figure over part of the data because one
// file was missing would look like a figure over all of it.
std::vector<std::vector<GameRecord>> read_game_files(const std::vector<std::string>& paths);

// Unrated sides counted by reason (rating_status_name of each side's status).
struct UnratedSides {
  std::map<std::string, int64_t> by_reason;
  void add(const SideRating& side);  // rated sides are not counted
  int64_t total() const;
};

// Ratings are measured in bins of this many points: [from, from + width - 1].
inline constexpr int kRatingBinWidth = 100;
inline int rating_bin_from(int rating) {
  return rating / kRatingBinWidth * kRatingBinWidth;
}

}  // namespace kz
