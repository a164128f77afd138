// JSON text for what the commands print and the API answers. Strings that come from
// outside (a file's name, a record's player names, a request's body) may hold bytes that
// are not UTF-8, which nlohmann's dump() refuses by throwing, past the message that would
// have said what is wrong (a file name of another encoding ended `kumalak replay`); here
// each such byte is written as U+FFFD and the rest as it is.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kz::cli {

// `value` as JSON text, `indent` as dump()'s (-1: one line). A template, so that an
// ordered_json keeps its keys' order (a conversion to json would sort them).
template <class Json>
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace kz::cli
