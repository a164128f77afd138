// The fields of `kumalak serve`'s requests, read and checked: each reader throws an
// ApiError 400 (tools/serve/api_router.h) that says which field is wrong and why, so a handler
// only ever sees values it can use.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/position.h"
#include "mcts/levels.h"
#include "tools/rating_levels.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// A string field, or `fallback` when absent or null; at most `max_len` characters.
std::string str_field(const json& b, const char* name, const std::string& fallback,
                      size_t max_len = 200);
// The `session` id (at most 64 characters; "" when absent).
std::string session_field(const json& b);
// An integer given as a JSON number or, in GET parameters, as a string of digits.
std::optional<long> int_field(const json& b, const char* name);
// A level name, or `fallback` when absent; a ParseError names a bad one.
Level level_field(const json& b, const char* name, Level fallback);
// The engine's level of a game: a level name, or a PlayOK rating (a JSON number or a
// string of digits) that `ratings` has for `spec`'s game; `fallback` when absent. A
// rating outside the human model's range, or without a human model, is a 400 naming the
// range or the missing model.
struct LevelChoice {
  Level level = Level::kMedium;
  int rating = 0;  // > 0: a level named by a rating
};
LevelChoice rated_level_field(const json& b, const char* name, LevelChoice fallback,
                              const GameSpec& spec, RatingLevels* ratings);
// `human`: the person's side (0, 1) or both (kHumanBoth, tools/serve/session.h), in the
// words of `spec`; `fallback` when absent.
int side_field(const json& b, const GameSpec& spec, int fallback);
// `move`: the person's move in `pos` of game `spec`, a pit number 1..m or a move in
// notation ("98", "36x", checked against where it lands). Returns the 0-based pit of a
// legal move; refuses anything else with the reason.
int move_field(const json& b, const GameSpec& spec, const Position& pos);

}  // namespace kz::cli::serve
