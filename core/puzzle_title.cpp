#include "core/puzzle_title.h"

#include <initializer_list>
#include <regex>
#include <string>

#include "core/i18n.h"

namespace kz {

std::string puzzle_source_text(const std::string& source) {
  using i18n::tr;
  static const std::regex self_play(R"(^self-play seed (\d+) game (\d+) ply (\d+)$)");
  static const std::regex recorded(R"(^(.+) game (\d+) \((.*)\) ply (\d+)$)");
  std::smatch m;
  if (std::regex_match(source, m, self_play))
    return tr("self-play seed {seed} game {game} ply {ply}",
              {{"seed", m[1].str()}, {"game", m[2].str()}, {"ply", m[3].str()}});
  if (std::regex_match(source, m, recorded))
    return tr(
        "{file} game {game} ({date}) ply {ply}",
        {{"file", m[1].str()}, {"game", m[2].str()}, {"date", m[3].str()}, {"ply", m[4].str()}});
  return source;
}

// The theme is named as in the puzzle file, so that the English title reads as the file.
std::string puzzle_title(const Puzzle& z) {
  using i18n::tr;
  const std::initializer_list<i18n::Arg> args = {
      {"id", z.id}, {"rating", z.rating}, {"source", puzzle_source_text(z.source)}};
  switch (z.theme) {
    case PuzzleTheme::kWinningLine:
      return tr("Puzzle {id}: winning-line, rated {rating} (from {source}).", args);
    case PuzzleTheme::kTuzdyk:
      return tr("Puzzle {id}: tuzdyk, rated {rating} (from {source}).", args);
    case PuzzleTheme::kCapture:
      return tr("Puzzle {id}: capture, rated {rating} (from {source}).", args);
    case PuzzleTheme::kOnlyMove:
      break;
  }
  return tr("Puzzle {id}: only-move, rated {rating} (from {source}).", args);
}

std::string puzzle_heading(size_t index, size_t count, const std::string& date) {
  using i18n::tr;
  if (date.empty())
    return tr("Puzzle {number} of {count}",
              {{"number", std::to_string(index + 1)}, {"count", std::to_string(count)}});
  days_from_date(date);  // a calendar date, or a ParseError
  const int month = std::stoi(date.substr(5, 2));
  const std::initializer_list<i18n::Arg> day = {
      {"day", std::to_string(std::stoi(date.substr(8, 2)))}};
  // One whole sentence a month: the month's name takes its own case around the day.
  switch (month) {
    case 1:
      return tr("Puzzle of the day, {day} January", day);
    case 2:
      return tr("Puzzle of the day, {day} February", day);
    case 3:
      return tr("Puzzle of the day, {day} March", day);
    case 4:
      return tr("Puzzle of the day, {day} April", day);
    case 5:
      return tr("Puzzle of the day, {day} May", day);
    case 6:
      return tr("Puzzle of the day, {day} June", day);
    case 7:
      return tr("Puzzle of the day, {day} July", day);
    case 8:
      return tr("Puzzle of the day, {day} August", day);
    case 9:
      return tr("Puzzle of the day, {day} September", day);
    case 10:
      return tr("Puzzle of the day, {day} October", day);
    case 11:
      return tr("Puzzle of the day, {day} November", day);
  }
  return tr("Puzzle of the day, {day} December", day);
}

}  // namespace kz
