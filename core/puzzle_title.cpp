#include "core/puzzle_title.h"

#include <initializer_list>
#include <regex>

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

}  // namespace kz
