#include "core/rated_games.h"

#include <charconv>
#include <filesystem>

#include "core/checksum.h"

namespace kz {

const char* rating_status_name(RatingStatus status) {
  switch (status) {
    case RatingStatus::kRated:
      return "rated";
    case RatingStatus::kMissing:
      return "missing";
    case RatingStatus::kUnknown:
      return "unknown";
    case RatingStatus::kNotANumber:
      return "not_a_number";
    case RatingStatus::kOutOfRange:
      return "out_of_range";
  }
  return "?";
}

namespace {

// The whole of `text` as digits with an optional leading '-' (from_chars' syntax);
// nullopt for anything else, and for numbers beyond int64.
std::optional<int64_t> whole_number(std::string_view text, bool* too_large = nullptr) {
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (end != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range && too_large) *too_large = true;
  if (ec != std::errc()) return std::nullopt;
  return v;
}

std::optional<std::string_view> find_tag(const GameRecord& record, std::string_view name) {
  for (const auto& [k, v] : record.tags)
    if (k == name) return std::string_view(v);
  return std::nullopt;
}

}  // namespace

SideRating parse_rating(std::optional<std::string_view> tag_value) {
  SideRating r;
  if (!tag_value) return r;  // kMissing
  const std::string_view text = *tag_value;
  if (text.empty() || text == "?" || text == "-") {
    r.status = RatingStatus::kUnknown;
    return r;
  }
  bool too_large = false;
  const auto v = whole_number(text, &too_large);
  if (!v) {
    r.status = too_large ? RatingStatus::kOutOfRange : RatingStatus::kNotANumber;
    return r;
  }
  if (*v < kMinPlausibleRating || *v > kMaxPlausibleRating) {
    r.status = RatingStatus::kOutOfRange;
    return r;
  }
  r.status = RatingStatus::kRated;
  r.rating = int(*v);
  return r;
}

SideRating side_rating(const GameRecord& record, int side) {
  return parse_rating(find_tag(record, side == 0 ? "WhiteElo" : "BlackElo"));
}

std::optional<TimeControl> parse_time_control(std::string_view text) {
  constexpr int64_t kDay = 24 * 3600;
  const size_t plus = text.find('+');
  const std::string_view base = text.substr(0, plus);
  const auto b = whole_number(base);
  if (!b || base[0] == '-' || *b <= 0 || *b > kDay) return std::nullopt;
  TimeControl tc;
  tc.base_s = int(*b);
  if (plus != std::string_view::npos) {
    const std::string_view inc = text.substr(plus + 1);
    const auto i = whole_number(inc);
    if (!i || inc[0] == '-' || *i > kDay) return std::nullopt;
    tc.increment_s = int(*i);
  }
  return tc;
}

const char* fold_name(Fold fold) {
  return fold == Fold::kValidation ? "validation" : "train";
}

FoldSelection parse_fold_selection(std::string_view text) {
  if (text == "train") return FoldSelection::kTrain;
  if (text == "validation") return FoldSelection::kValidation;
  if (text == "all") return FoldSelection::kAll;
  throw ParseError("fold '" + std::string(text) + "': expected validation, train or all");
}

bool fold_selected(FoldSelection selection, Fold fold) {
  switch (selection) {
    case FoldSelection::kTrain:
      return fold == Fold::kTrain;
    case FoldSelection::kValidation:
      return fold == Fold::kValidation;
    case FoldSelection::kAll:
      return true;
  }
  return false;
}

uint64_t game_identity(const GameRecord& record) {
  uint64_t h = kFnv1a64Start;
  auto field = [&h](std::string_view text) {
    h = fnv1a64_value(uint64_t(text.size()), h);
    h = fnv1a64(text, h);
  };
  field(std::filesystem::path(record.source).filename().string());
  for (const char* name : {"Event", "Date", "Round", "White", "Black", "Time"})
    field(find_tag(record, name).value_or(""));
  h = fnv1a64_value(uint64_t(record.moves.size()), h);
  for (const auto& move : record.moves) field(move);
  return h;
}

namespace {
double fold_fraction(uint64_t identity) {
  return double(mix64(identity) >> 11) * 0x1.0p-53;  // uniform in [0, 1)
}
}  // namespace

Fold game_fold(uint64_t identity, double validation_fraction) {
  return fold_fraction(identity) < validation_fraction ? Fold::kValidation : Fold::kTrain;
}

Fold game_fold(uint64_t identity, HeldOut held_out) {
  const double u = fold_fraction(identity);
  const double from = double(held_out.index) / double(held_out.count);
  const double to = double(held_out.index + 1) / double(held_out.count);
  return u >= from && u < to ? Fold::kValidation : Fold::kTrain;
}

HeldOut parse_held_out(std::string_view text) {
  const auto fail = [&]() -> HeldOut {
    throw ParseError("held-out fold '" + std::string(text) +
                     "': expected J/K, the J-th of K folds (2 <= K <= 100, 0 <= J < K)");
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return fail();
  const auto number = [&](std::string_view digits) -> int {
    if (digits.empty() || digits.size() > 3) fail();
    int n = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') fail();
      n = n * 10 + (c - '0');
    }
    return n;
  };
  const HeldOut h{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (h.count < 2 || h.count > 100 || h.index >= h.count) return fail();
  return h;
}

std::string held_out_text(HeldOut held_out) {
  return std::to_string(held_out.index) + "/" + std::to_string(held_out.count);
}

RatedGame read_rated_game(const GameRecord& record, HeldOut held_out) {
  RatedGame g;
  for (int side = 0; side < 2; ++side) g.sides[size_t(side)] = side_rating(record, side);
  if (const auto tc = find_tag(record, "TimeControl")) g.time_control = parse_time_control(*tc);
  g.identity = game_identity(record);
  g.fold = game_fold(g.identity, held_out);
  return g;
}

void UnratedSides::add(const SideRating& side) {
  if (!side.rated()) ++by_reason[rating_status_name(side.status)];
}

int64_t UnratedSides::total() const {
  int64_t n = 0;
  for (const auto& [reason, count] : by_reason) n += count;
  return n;
}

std::vector<std::vector<GameRecord>> read_game_files(const std::vector<std::string>& paths) {
  std::vector<std::vector<GameRecord>> files;
  for (const std::string& path : paths) {
    files.push_back(read_pgn_file(path));
    if (files.back().empty()) throw ParseError("'" + path + "' holds no game");
  }
  return files;
}

}  // namespace kz
