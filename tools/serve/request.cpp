#include "tools/serve/request.h"

#include <algorithm>
#include <cctype>

#include "core/notation.h"
#include "tools/serve/session.h"

namespace kz::cli::serve {

std::string str_field(const json& b, const char* name, const std::string& fallback,
                      size_t max_len) {
  if (!b.contains(name) || b[name].is_null()) return fallback;
  if (!b[name].is_string()) throw ApiError(400, std::string("'") + name + "' must be a string");
  const std::string v = b[name].get<std::string>();
  if (v.size() > max_len)
    throw ApiError(400, std::string("'") + name + "' is too long (at most " +
                            std::to_string(max_len) + " characters)");
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
  throw ApiError(400, std::string("'") + name + "' must be a whole number");
}

Level level_field(const json& b, const char* name, Level fallback) {
  const std::string v = str_field(b, name, "");
  return v.empty() ? fallback : parse_level(v);
}

int side_field(const json& b, const GameSpec& spec, int fallback) {
  const std::string v = str_field(b, "human", "");
  if (v.empty()) return fallback;
  if (v == "white" || v == "south") return 0;
  if (v == "black" || v == "north") return 1;
  if (v == "both") return kHumanBoth;
  throw ApiError(400, "'human' is " + std::string(side_word(spec, 0)) + ", " + side_word(spec, 1) +
                          " or both, not '" + v + "'");
}

int move_field(const json& b, const GameSpec& spec, const Position& pos) {
  if (!b.contains("move")) throw ApiError(400, "'move' is missing");
  int move = -1;
  const json& m = b["move"];
  const int n = pos.npits;
  if (m.is_number_integer()) {
    const long v = m.get<long>();
    if (v < 1 || v > n)
      throw ApiError(400, "there is no pit " + std::to_string(v) + ": they are numbered 1-" +
                              std::to_string(n));
    move = int(v) - 1;
  } else if (m.is_string()) {
    const std::string t = str_field(b, "move", "", 20);
    const MoveToken tok = parse_move_token(t, spec);
    if (tok.from < 1 || tok.from > n)
      throw ApiError(400, "there is no pit " + std::to_string(tok.from));
    move = tok.from - 1;
    if (pos.is_legal(move) && tok.landing) {
      Position q = pos;
      const auto info = q.play(move);
      if (*tok.landing != info.landing_index + 1)
        throw ApiError(400, "from " + std::to_string(tok.from) + " the last stone lands on " +
                                std::to_string(info.landing_index + 1) + ", not " +
                                std::to_string(*tok.landing));
    }
  } else {
    throw ApiError(400, "'move' must be a pit number or a move in notation");
  }
  if (!pos.is_legal(move))
    throw ApiError(
        400, std::string(pos.is_togyz() ? "hole " : "pit ") + std::to_string(move + 1) + " of " +
                 side_word(spec, pos.to_move) + " is " +
                 (pos.is_togyz() && pos.tuzdyk[pos.to_move ^ 1] == move ? "a tuzdyk" : "empty"));
  return move;
}

}  // namespace kz::cli::serve
