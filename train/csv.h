// Minimal CSV (RFC 4180 quoting) shared by the ladder table and the metrics log, so both
// files open in spreadsheets and pandas, and names with commas or quotes survive.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kz {

// `field` quoted when it holds a comma, quote, CR or LF (quotes doubled), else as is.
std::string csv_escape(std::string_view field);

// Splits one line (no line break) into fields. Returns false for a malformed line (an
// unterminated quote or text after a closing quote); a line never crashes the parser.
bool csv_split(std::string_view line, std::vector<std::string>& fields);

}  // namespace kz
