#include "train/csv.h"

namespace kz {

std::string csv_escape(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

bool csv_split(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // files edited on Windows
  std::string cur;
  size_t i = 0;
  while (true) {
    cur.clear();
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          cur += line[i++];
        }
      }
      if (!closed) return false;
      if (i < line.size() && line[i] != ',') return false;
    } else {
      while (i < line.size() && line[i] != ',') cur += line[i++];
    }
    fields.push_back(cur);
    if (i >= line.size()) return true;
    ++i;  // the comma
  }
}

}  // namespace kz
