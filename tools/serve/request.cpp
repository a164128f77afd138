#include "tools/serve/request.h"

#include <algorithm>
#include <cctype>

#include "core/i18n.h"
#include "core/notation.h"
#include "tools/board_view.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {

// The messages a player reads in the page's toasts, in the language of the request.
using i18n::tr;

std::string str_field(const json& b, const char* name, const std::string& fallback,
                      size_t max_len) {
  if (!b.contains(name) || b[name].is_null()) return fallback;
  if (!b[name].is_string())
    throw ApiError(400, tr("'{field}' must be a string", {{"field", name}}));
  const std::string v = b[name].get<std::string>();
  if (v.size() > max_len)
    throw ApiError(400, tr("'{field}' is too long (at most {max} characters)",
                           {{"field", name}, {"max", max_len}}));
  return v;
}

std::string session_field(const json& b) {
  return str_field(b, "session", "", 64);
}

std::optional<long> int_field(const json& b, const char* name) {
  if (!b.contains(name) || b[name].is_null()) return std::nullopt;
  const json& v = b[name];
  if (v.is_number_integer()) return v.get<long>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (!s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), ::isdigit))
      return std::stol(s);
  }
  throw ApiError(400, tr("'{field}' must be a whole number", {{"field", name}}));
}

Level level_field(const json& b, const char* name, Level fallback) {
  const std::string v = str_field(b, name, "");
  return v.empty() ? fallback : parse_level(v);
}

LevelChoice rated_level_field(const json& b, const char* name, LevelChoice fallback,
                              const GameSpec& spec, RatingLevels* ratings) {
  if (!b.contains(name) || b[name].is_null()) return fallback;
  std::optional<int> rating;
  if (b[name].is_number_integer()) {
    // As the command line reads --level: 1..5 are the named levels.
    const long v = b[name].get<long>();
    if (v < 0)
      throw ApiError(400, tr("'{field}' must be a level name or a rating", {{"field", name}}));
    const std::string text = std::to_string(std::min(v, 999999L));
    rating = parse_rating_level(text);
    if (!rating) return {parse_level(text), 0};
  } else {
    rating = parse_rating_level(str_field(b, name, ""));
  }
  if (!rating) return {level_field(b, name, fallback.level), 0};
  const std::optional<RatingRange> range = ratings ? ratings->range(spec) : std::nullopt;
  if (!range)
    throw ApiError(400, tr("'{field}' {rating}: a rating level needs a human model for {game}, "
                           "and there is none",
                           {{"field", name}, {"rating", *rating}, {"game", spec.name()}}));
  if (!range->contains(*rating))
    throw ApiError(
        400, tr("'{field}' {rating}: a rating level must lie in the human model's "
                "range {min}..{max}",
                {{"field", name}, {"rating", *rating}, {"min", range->min}, {"max", range->max}}));
  return {fallback.level, *rating};
}

int side_field(const json& b, const GameSpec& spec, int fallback) {
  const std::string v = str_field(b, "human", "");
  if (v.empty()) return fallback;
  if (v == "white" || v == "south") return 0;
  if (v == "black" || v == "north") return 1;
  if (v == "both") return kHumanBoth;
  throw ApiError(400,
                 tr("'human' is {first}, {second} or both, not '{value}'",
                    {{"first", side_word(spec, 0)}, {"second", side_word(spec, 1)}, {"value", v}}));
}

int move_field(const json& b, const GameSpec& spec, const Position& pos) {
  if (!b.contains("move")) throw ApiError(400, tr("'move' is missing"));
  int move = -1;
  const json& m = b["move"];
  const int n = pos.npits;
  if (m.is_number_integer()) {
    const long v = m.get<long>();
    if (v < 1 || v > n)
      throw ApiError(400, pos.is_togyz() ? tr("there is no hole {pit}: they are numbered 1-{count}",
                                              {{"pit", v}, {"count", n}})
                                         : tr("there is no pit {pit}: they are numbered 1-{count}",
                                              {{"pit", v}, {"count", n}}));
    move = int(v) - 1;
  } else if (m.is_string()) {
    const std::string t = str_field(b, "move", "", 20);
    const MoveToken tok = parse_move_token(t, spec);
    if (tok.from < 1 || tok.from > n)
      throw ApiError(400, pos.is_togyz() ? tr("there is no hole {pit}", {{"pit", tok.from}})
                                         : tr("there is no pit {pit}", {{"pit", tok.from}}));
    move = tok.from - 1;
    if (pos.is_legal(move) && tok.landing) {
      Position q = pos;
      const auto info = q.play(move);
      if (*tok.landing != info.landing_index + 1)
        throw ApiError(
            400,
            tr("from {from} the last stone lands on {landing}, not {given}",
               {{"from", tok.from}, {"landing", info.landing_index + 1}, {"given", *tok.landing}}));
    }
  } else {
    throw ApiError(400, pos.is_togyz() ? tr("'move' must be a hole number or a move in notation")
                                       : tr("'move' must be a pit number or a move in notation"));
  }
  if (!pos.is_legal(move)) {
    const std::initializer_list<i18n::Arg> args = {{"hole", move + 1},
                                                   {"side", side_name(pos, pos.to_move)},
                                                   {"owner", side_name(pos, pos.to_move ^ 1)}};
    throw ApiError(400, !pos.is_togyz() ? tr("{side}'s pit {hole} is empty", args)
                        : pos.tuzdyk[pos.to_move ^ 1] == move
                            ? tr("{side}'s hole {hole} is {owner}'s tuzdyk", args)
                            : tr("{side}'s hole {hole} is empty", args));
  }
  return move;
}

}  // namespace kz::cli::serve
