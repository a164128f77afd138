#include "core/puzzle_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/i18n.h"

namespace kz {

namespace {

constexpr const char* kThemeNames[] = {"winning-line", "tuzdyk", "capture", "only-move"};
constexpr int kFields = 7;
constexpr size_t kMaxSolution = 64;

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 32) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-')) return false;
  return true;
}

bool valid_source(std::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}

// A whole decimal integer in [lo, hi]; false otherwise.
bool parse_int_in(const std::string& s, long lo, long hi, long& out) {
  if (s.empty() || s.size() > 12) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  out = std::strtol(s.c_str(), nullptr, 10);
  return out >= lo && out <= hi;
}

std::string format_gap(double gap) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", gap);
  return buf;
}

std::string solution_text(const std::vector<int>& moves) {
  std::string s;
  for (int m : moves) {
    if (!s.empty()) s += ' ';
    s += std::to_string(m + 1);
  }
  return s;
}

// Plays the solution from `pos`; "" when every move is legal in turn, else why not.
std::string solution_fault(const Position& pos, const std::vector<int>& moves) {
  if (moves.empty()) return "the solution is empty";
  if (moves.size() > kMaxSolution)
    return "the solution has more than " + std::to_string(kMaxSolution) + " moves";
  Position p = pos;
  for (size_t i = 0; i < moves.size(); ++i) {
    if (!p.is_legal(moves[i]))
      return "solution move " + std::to_string(i + 1) + " (" + std::to_string(moves[i] + 1) +
             ") is not legal" + (p.is_over() ? " (the game is over)" : "");
    p.play(moves[i]);
  }
  return "";
}

std::string puzzle_fault(const Puzzle& z) {
  if (!valid_id(z.id)) return "id '" + z.id + "' is not 1-32 letters, digits or '-'";
  if (z.position.is_over()) return "the position is a finished game";
  if (auto f = solution_fault(z.position, z.solution); !f.empty()) return f;
  if (z.rating < kMinPuzzleRating || z.rating > kMaxPuzzleRating)
    return "rating " + std::to_string(z.rating) + " is outside " +
           std::to_string(kMinPuzzleRating) + ".." + std::to_string(kMaxPuzzleRating);
  if (!(z.gap > 0 && z.gap <= 1)) return "gap " + format_gap(z.gap) + " is outside (0, 1]";
  if (!valid_source(z.source)) return "the source is empty, too long or holds a control character";
  return "";
}

}  // namespace

const char* puzzle_theme_name(PuzzleTheme theme) {
  return kThemeNames[int(theme)];
}

bool parse_puzzle_theme(std::string_view name, PuzzleTheme& theme) {
  for (int i = 0; i < 4; ++i)
    if (name == kThemeNames[i]) {
      theme = PuzzleTheme(i);
      return true;
    }
  return false;
}

std::string format_puzzle_file(const PuzzleSet& set) {
  std::ostringstream o;
  o << "# KumalakZero puzzles (docs/puzzles.md): id, position, solution (1-based pits, key move\n"
    << "# first), theme, rating, gap in expected score to the second best move, source game.\n"
    << kPuzzleMagic << " " << kPuzzleFormatVersion << " " << set.spec.name() << "\n";
  for (const Puzzle& z : set.puzzles) {
    if (auto f = puzzle_fault(z); !f.empty())
      throw std::invalid_argument("puzzle " + z.id + ": " + f);
    o << z.id << '\t' << z.position.to_string() << '\t' << solution_text(z.solution) << '\t'
      << puzzle_theme_name(z.theme) << '\t' << z.rating << '\t' << format_gap(z.gap) << '\t'
      << z.source << "\n";
  }
  o << "end " << set.puzzles.size() << "\n";
  return o.str();
}

void write_puzzle_file(const std::string& path, const PuzzleSet& set) {
  const std::string text = format_puzzle_file(set);  // checks first: nothing half-written
  write_file_atomically(path, [&](std::ostream& o) { o << text; });
}

PuzzleSet parse_puzzle_text(const std::string& text, const std::string& source) {
  PuzzleSet set;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    throw ParseError(source + ":" + std::to_string(line_no) + ": " + what);
  };
  bool header = false, ended = false;
  std::vector<std::string> ids;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (ended) fail("text after the 'end' line");
    if (!header) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream hs(line);
      std::string magic, game, extra;
      long version = 0;
      if (!(hs >> magic) || magic != kPuzzleMagic)
        fail(std::string("not a puzzle file: expected '") + kPuzzleMagic + " " +
             std::to_string(kPuzzleFormatVersion) + " GAME'");
      if (!(hs >> version) || version != kPuzzleFormatVersion)
        fail("format version is not " + std::to_string(kPuzzleFormatVersion));
      if (!(hs >> game) || (hs >> extra)) fail("the header must name one game");
      try {
        set.spec = GameSpec::parse(game);
      } catch (const ParseError& e) {
        fail(e.what());
      }
      header = true;
      continue;
    }
    if (line.rfind("end", 0) == 0 && line.find('\t') == std::string::npos) {
      long n = -1;
      if (line.size() < 5 || line[3] != ' ' || !parse_int_in(line.substr(4), 0, 10000000, n))
        fail("expected 'end N'");
      if (size_t(n) != set.puzzles.size())
        fail("'end' says " + std::to_string(n) + " puzzles, the file holds " +
             std::to_string(set.puzzles.size()));
      ended = true;
      continue;
    }
    const auto f = split_tabs(line);
    if (f.size() != kFields)
      fail("expected " + std::to_string(kFields) + " tab-separated fields, found " +
           std::to_string(f.size()));
    Puzzle z;
    z.id = f[0];
    if (!valid_id(z.id)) fail("id '" + z.id + "' is not 1-32 letters, digits or '-'");
    for (const auto& seen : ids)
      if (seen == z.id) fail("id '" + z.id + "' is used twice");
    try {
      z.position = Position::parse(f[1], set.spec);
    } catch (const ParseError& e) {
      fail(std::string("position: ") + e.what());
    }
    std::istringstream ss(f[2]);
    for (std::string tok; ss >> tok;) {
      long pit = 0;
      if (!parse_int_in(tok, 1, set.spec.pits, pit))
        fail("solution move '" + tok + "' is not a pit 1.." + std::to_string(set.spec.pits));
      z.solution.push_back(int(pit) - 1);
    }
    if (!parse_puzzle_theme(f[3], z.theme)) fail("unknown theme '" + f[3] + "'");
    long rating = 0;
    if (!parse_int_in(f[4], kMinPuzzleRating, kMaxPuzzleRating, rating))
      fail("rating '" + f[4] + "' is not a whole number in " + std::to_string(kMinPuzzleRating) +
           ".." + std::to_string(kMaxPuzzleRating));
    z.rating = int(rating);
    char* end = nullptr;
    z.gap = std::strtod(f[5].c_str(), &end);
    if (f[5].empty() || end != f[5].c_str() + f[5].size() || !std::isfinite(z.gap))
      fail("gap '" + f[5] + "' is not a number");
    z.source = f[6];
    if (auto fault = puzzle_fault(z); !fault.empty()) fail(fault);
    ids.push_back(z.id);
    set.puzzles.push_back(std::move(z));
  }
  if (!header) {
    line_no = std::max(line_no, 1);
    fail("not a puzzle file: no header line");
  }
  if (!ended) {
    ++line_no;
    fail("truncated: the 'end N' line is missing");
  }
  return set;
}

PuzzleSet read_puzzle_file(const std::string& path) {
  // A player names the file (kumalak puzzle --file): said in the player's language. What
  // is wrong inside one is for whoever built it, and stays English.
  using i18n::tr;
  if (auto why = why_not_a_file(path); !why.empty()) {
    std::error_code ec;
    throw ParseError(
        std::filesystem::is_directory(path, ec)
            ? tr("{path}:0: cannot read the puzzle file: it is a directory, not a file",
                 {{"path", path}})
            : tr("{path}:0: cannot read the puzzle file: no such file", {{"path", path}}));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(tr("{path}:0: cannot open the puzzle file", {{"path", path}}));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_puzzle_text(ss.str(), path);
}

long long days_from_date(const std::string& date) {
  int y = 0, m = 0, d = 0;
  char s1 = 0, s2 = 0, rest = 0;
  if (date.size() != 10 ||
      std::sscanf(date.c_str(), "%4d%c%2d%c%2d%c", &y, &s1, &m, &s2, &d, &rest) != 5 ||
      !(s1 == s2 && (s1 == '-' || s1 == '.')))
    throw ParseError(i18n::tr("date '{date}' is not YYYY-MM-DD", {{"date", date}}));
  for (char c : date)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != s1)
      throw ParseError(i18n::tr("date '{date}' is not YYYY-MM-DD", {{"date", date}}));
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (y < 1970 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1] + (m == 2 && leap))
    throw ParseError(
        i18n::tr("date '{date}' is not a calendar date from 1970 on", {{"date", date}}));
  // Howard Hinnant's days_from_civil.
  const int yy = y - (m <= 2);
  const int era = yy / 400;
  const unsigned yoe = unsigned(yy - era * 400);
  const unsigned doy = unsigned((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (long long)era * 146097 + (long long)doe - 719468;
}

std::string utc_date_today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

size_t daily_puzzle_index(const std::string& date, size_t count) {
  const long long days = days_from_date(date);
  if (count == 0) return 0;
  return size_t(mix64(uint64_t(days) ^ 0x70757a7a6c65ull) % count);
}

std::string shipped_puzzle_path(const GameSpec& spec) {
  const char* env = std::getenv("KZ_MODELS_DIR");
  const std::string dir = env && *env ? env : "models";
  std::string stem;
  if (spec == GameSpec::togyz())
    stem = "togyz";
  else if (spec == GameSpec::kalah(6, 4))
    stem = "kalah";
  else
    for (char c : spec.name()) stem += (c == ':' || c == ',') ? '-' : c;
  return dir + "/puzzles/" + stem + ".txt";
}

}  // namespace kz
