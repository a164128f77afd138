#include "core/notation.h"

#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>
#include <sstream>

#include "core/atomic_file.h"
#include "core/i18n.h"

namespace kz {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_result(std::string_view t) {
  return t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*";
}

// Strips a move-number prefix ("12.", "12...") from a token; returns the rest.
std::string_view strip_move_number(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i > 0 && i < t.size() + 1 && i < t.size() && t[i] == '.') {
    while (i < t.size() && t[i] == '.') ++i;
    return t.substr(i);
  }
  return t;
}

}  // namespace

MoveToken parse_move_token(std::string_view token, const GameSpec& spec) {
  MoveToken mt;
  mt.text = std::string(token);
  // Players type moves (kumalak play, records they load): said in their language.
  using i18n::tr;
  auto fail = [&](const std::string& why) {
    throw ParseError(
        tr("'{move}' is not a move: {problem}", {{"move", mt.text}, {"problem", why}}));
  };
  if (token.empty()) fail(tr("empty"));
  size_t i = 0;
  if (!spec.is_togyz()) {
    int v = 0;
    while (i < token.size() && is_digit(token[i]) && i < 3) v = v * 10 + (token[i++] - '0');
    if (i == 0 || i != token.size())
      fail(tr("expected a pit number 1..{pits}", {{"pits", int(spec.pits)}}));
    if (v < 1 || v > spec.pits)
      fail(tr("pit {pit} is outside 1..{pits}", {{"pit", v}, {"pits", int(spec.pits)}}));
    mt.from = v;
    return mt;
  }
  if (token.size() < 2 || !is_digit(token[0]) || !is_digit(token[1]))
    fail(tr("expected two digits: the hole moved from and the hole where the last stone landed"));
  mt.from = token[0] - '0';
  mt.landing = token[1] - '0';
  if (mt.from < 1 || mt.from > 9) fail(tr("hole {hole} does not exist", {{"hole", mt.from}}));
  if (*mt.landing < 1 || *mt.landing > 9)
    fail(tr("landing hole {hole} does not exist", {{"hole", *mt.landing}}));
  i = 2;
  if (i < token.size() && (token[i] == 'x' || token[i] == 'X')) {
    mt.tuzdyk_mark = true;
    ++i;
  } else if (i + 1 < token.size() && uint8_t(token[i]) == 0xD1 && uint8_t(token[i + 1]) == 0x85) {
    mt.tuzdyk_mark = true;  // Cyrillic lower-case х
    i += 2;
  } else if (i + 1 < token.size() && uint8_t(token[i]) == 0xD0 && uint8_t(token[i + 1]) == 0xA5) {
    mt.tuzdyk_mark = true;  // Cyrillic upper-case Х
    i += 2;
  }
  if (i < token.size() && token[i] == '(') {
    size_t close = token.find(')', i);
    if (close == std::string_view::npos) fail(tr("unclosed '(' in the kazan annotation"));
    int v = 0;
    size_t digits = 0;
    for (size_t k = i + 1; k < close; ++k) {
      if (!is_digit(token[k]) || ++digits > 3) fail(tr("kazan annotation must be a number"));
      v = v * 10 + (token[k] - '0');
    }
    if (digits == 0) fail(tr("empty kazan annotation"));
    if (v > kTogyzStones) fail(tr("kazan annotation {n} exceeds 162", {{"n", v}}));
    mt.kazan = v;
    i = close + 1;
  }
  if (i != token.size())
    fail(tr("unexpected '{text}' after the move", {{"text", std::string(token.substr(i))}}));
  return mt;
}

std::string format_move(const Position& before, int move, bool with_kazan) {
  if (!before.is_togyz()) return std::to_string(move + 1);
  Position after = before;
  const auto info = after.play(move);
  std::string s = std::to_string(move + 1) + std::to_string(info.landing_index + 1);
  // After a game-ending move the annotation is the kazan before the end-of-game sweep,
  // as online rooms write it (replay_record accepts both).
  const int kazan = info.ended_game ? info.mover_store_before_sweep : after.store[before.to_move];
  if (info.made_tuzdyk)
    s += 'x';
  else if (with_kazan && info.captured > 0)
    s += "(" + std::to_string(kazan) + ")";
  return s;
}

std::string tag_value(const RecordTags& tags, const std::string& name,
                      const std::string& fallback) {
  for (const auto& [k, v] : tags)
    if (k == name) return v;
  return fallback;
}

void set_tag_value(RecordTags& tags, const std::string& name, const std::string& value) {
  for (auto& [k, v] : tags)
    if (k == name) {
      v = value;
      return;
    }
  tags.emplace_back(name, value);
}

std::string GameRecord::tag(const std::string& name, const std::string& fallback) const {
  return tag_value(tags, name, fallback);
}

void GameRecord::set_tag(const std::string& name, const std::string& value) {
  set_tag_value(tags, name, value);
}

std::string GameRecord::describe() const {
  // Part of the errors a player meets loading a record: in the player's language.
  using i18n::tr;
  const std::string white = tag("White"), black = tag("Black");
  const bool names = !white.empty() || !black.empty();
  const std::initializer_list<i18n::Arg> args = {
      {"index", index}, {"white", white}, {"black", black}, {"source", source}, {"line", line}};
  if (source.empty())
    return names ? tr("game {index} ({white} vs {black}, line {line})", args)
                 : tr("game {index} (line {line})", args);
  return names ? tr("game {index} ({white} vs {black}, {source}:line {line})", args)
               : tr("game {index} ({source}:line {line})", args);
}

std::vector<GameRecord> read_pgn_file(const std::string& path) {
  // A directory opens as a stream on Linux and then fails inside the read (with an
  // exception the callers never expected), so it is refused by name first.
  // Said in the player's language: a player names these files (analyze, play --record).
  using i18n::tr;
  if (const std::string why = why_not_a_file(path); !why.empty()) {
    std::error_code ec;
    throw ParseError(
        std::filesystem::is_directory(path, ec)
            ? tr("cannot open '{path}': it is a directory, not a file", {{"path", path}})
            : tr("cannot open '{path}': no such file", {{"path", path}}));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(tr("cannot open '{path}'", {{"path", path}}));
  try {
    return read_pgn(in, path);
  } catch (const std::ios_base::failure& e) {
    throw ParseError(tr("cannot read '{path}': {error}", {{"path", path}, {"error", e.what()}}));
  }
}

namespace {

// Said in the player's language: a player meets these loading a record (analyze, the
// page's "Load game record"). The file and line are no words, so they lead as they are.
using i18n::tr;

// One pass over a PGN-like text, game by game: tags, comments, move tokens and results.
// The game being read and the line reached are shared by its steps.
class PgnReader {
 public:
  PgnReader(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  std::vector<GameRecord> read() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
      } else if (is_space(c)) {
        ++i_;
      } else if (c == '[') {
        read_tag();
      } else if (c == '{') {
        read_brace_comment();
      } else if (c == ';') {  // comment to the end of the line
        while (i_ < text_.size() && text_[i_] != '\n') ++i_;
      } else {
        read_token();
      }
    }
    flush();
    return std::move(games_);
  }

 private:
  // "file:line: ", the start of an error message about line `line`.
  std::string where(int line) const { return source_ + ":" + std::to_string(line) + ": "; }

  // The current game begins here unless it has begun.
  void begin_game() {
    if (!have_) {
      have_ = true;
      cur_.line = line_;
      cur_.source = source_;
    }
  }

  // The current game, if one has begun, is complete; the next starts empty.
  void flush() {
    if (have_) {
      cur_.index = int(games_.size()) + 1;
      games_.push_back(std::move(cur_));
    }
    cur_ = GameRecord{};
    have_ = in_moves_ = false;
  }

  // [Name "value"] at i_: a tag after moves starts the next game. The value may hold ']'
  // and, escaped with a backslash, '"' and '\\' (as PGN writes them); the tag ends at
  // the ']' after the closing quote.
  void read_tag() {
    if (in_moves_) flush();
    begin_game();
    const size_t eol = std::min(text_.find('\n', i_), text_.size());
    const size_t q1 = text_.find('"', i_);
    if (q1 == std::string::npos || q1 > eol) {
      const size_t end = std::min(text_.find(']', i_), eol);
      throw ParseError(where(line_) + tr("tag '{tag}' must look like [Name \"value\"]",
                                         {{"tag", text_.substr(i_ + 1, end - i_ - 1)}}));
    }
    std::string name = text_.substr(i_ + 1, q1 - i_ - 1);
    while (!name.empty() && is_space(name.back())) name.pop_back();
    while (!name.empty() && is_space(name.front())) name.erase(name.begin());
    if (name.empty()) throw ParseError(where(line_) + tr("tag without a name"));
    std::string value;
    size_t k = q1 + 1;
    for (; k < eol && text_[k] != '"'; ++k) {
      if (text_[k] == '\\' && k + 1 < eol && (text_[k + 1] == '"' || text_[k + 1] == '\\')) ++k;
      value += text_[k];
    }
    size_t close = k + 1;
    while (close < eol && is_space(text_[close])) ++close;
    if (k >= eol || close >= eol || text_[close] != ']')
      close = read_value_with_bare_quotes(name, q1, eol, k < eol, value);
    cur_.tags.emplace_back(name, value);
    i_ = close + 1;
  }

  // Unescaped quotes inside the value ([Event "The "Spring" cup"]), as some sites write
  // them: the value runs to the last quote before the line's last ']'. `q1` is the
  // opening quote, `eol` the line's end and `quote_closed` whether a quote was found
  // before it. Sets `value` and returns where the tag's ']' is.
  size_t read_value_with_bare_quotes(const std::string& name, size_t q1, size_t eol,
                                     bool quote_closed, std::string& value) const {
    const size_t last_close = text_.rfind(']', eol - 1);
    const size_t last_quote = last_close == std::string::npos || last_close < i_
                                  ? std::string::npos
                                  : text_.rfind('"', last_close);
    if (last_quote == std::string::npos || last_quote <= q1)
      throw ParseError(
          where(line_) +
          (quote_closed ? tr("tag {name} without a closing ']'", {{"name", name}})
                        : tr("tag {name}: the value's '\"' is never closed", {{"name", name}})));
    for (size_t m = last_quote + 1; m < last_close; ++m)
      if (!is_space(text_[m]))
        throw ParseError(where(line_) +
                         tr("tag {name}: text after the value's closing '\"'", {{"name", name}}));
    value = text_.substr(q1 + 1, last_quote - q1 - 1);
    return last_close;
  }

  // {comment} at i_, which may span lines.
  void read_brace_comment() {
    const size_t close = text_.find('}', i_);
    if (close == std::string::npos)
      throw ParseError(where(line_) +
                       tr("comment '{brace}' is never closed", {{"brace", std::string("{")}}));
    for (size_t k = i_; k < close; ++k) line_ += text_[k] == '\n';
    std::string comment = text_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
    // A comment right after the result (PlayOK's "1-0 {zero}") belongs to that game.
    if (!have_ && !games_.empty()) {
      games_.back().comments.push_back(std::move(comment));
      return;
    }
    begin_game();
    cur_.comments.push_back(std::move(comment));
    in_moves_ = true;
  }

  // A move (with or without its number) or a result, which ends the game, at i_.
  void read_token() {
    size_t j = i_;
    while (j < text_.size() && !is_space(text_[j]) && text_[j] != '{' && text_[j] != '[') ++j;
    const std::string_view token(text_.data() + i_, j - i_);
    i_ = j;
    begin_game();
    in_moves_ = true;
    if (is_result(token)) {
      cur_.result = std::string(token);
      flush();
      return;
    }
    const std::string_view move = strip_move_number(token);
    if (move.empty()) return;
    cur_.moves.emplace_back(move);
    cur_.move_lines.push_back(line_);
  }

  const std::string& text_;
  const std::string& source_;
  std::vector<GameRecord> games_;
  GameRecord cur_;         // the game being read
  bool have_ = false;      // whether cur_ has begun
  bool in_moves_ = false;  // whether cur_ has reached its moves (a tag then starts the next)
  int line_ = 1;           // the line of text_[i_]
  size_t i_ = 0;           // where the reading is
};

}  // namespace

std::vector<GameRecord> read_pgn(std::istream& in, const std::string& source) {
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return PgnReader(text, source).read();
}

std::string move_token_disagreement(const MoveToken& mt, const Position& after, int mover,
                                    const Position::MoveInfo& info) {
  using i18n::tr;
  if (!mt.landing) return "";  // a bare pit number claims nothing
  if (*mt.landing != info.landing_index + 1)
    return tr("says the last stone lands on hole {given}, the rules land it on hole {landing}",
              {{"given", *mt.landing}, {"landing", info.landing_index + 1}});
  if (mt.tuzdyk_mark != info.made_tuzdyk)
    return mt.tuzdyk_mark ? tr("is marked as making a tuzdyk, but the rules make none")
                          : tr("makes a tuzdyk by the rules, but is not marked with 'x'");
  // When the move ends the game, online rooms write the kazan before the rows are swept
  // into the kazans; the kazan after the sweep is accepted too.
  if (mt.kazan && *mt.kazan != after.store[mover] &&
      !(info.ended_game && *mt.kazan == info.mover_store_before_sweep))
    return info.ended_game
               ? tr("says the mover's kazan is {given}, the rules make it {kazan} ({before} "
                    "before the end-of-game sweep)",
                    {{"given", *mt.kazan},
                     {"kazan", int(after.store[mover])},
                     {"before", int(info.mover_store_before_sweep)}})
               : tr("says the mover's kazan is {given}, the rules make it {kazan}",
                    {{"given", *mt.kazan}, {"kazan", int(after.store[mover])}});
  return "";
}

Position record_start(const GameRecord& record, const GameSpec& spec) {
  return record_start(record, spec, Position::start(spec));
}

Position record_start(const GameRecord& record, const GameSpec& spec, const Position& fallback) {
  if (auto fen = record.tag("FEN"); !fen.empty()) return Position::parse(fen, spec);
  return fallback;
}

ReplayResult replay_record(const GameRecord& record, const Position& start) {
  ReplayResult r;
  r.final_position = start;
  Position& pos = r.final_position;
  const GameSpec spec{start.variant, start.npits, 0};
  for (size_t ply = 0; ply < record.moves.size(); ++ply) {
    // Said in the player's language: a player meets these loading a record in the page.
    // A record built in code may have no line numbers.
    const auto fail = [&](const std::string& why) {
      if (ply < record.move_lines.size())
        throw ParseError(i18n::tr("{game}, ply {ply} (line {line}), move '{move}': {problem}",
                                  {{"game", record.describe()},
                                   {"ply", ply + 1},
                                   {"line", record.move_lines[ply]},
                                   {"move", record.moves[ply]},
                                   {"problem", why}}));
      throw ParseError(
          i18n::tr("{game}, ply {ply}, move '{move}': {problem}", {{"game", record.describe()},
                                                                   {"ply", ply + 1},
                                                                   {"move", record.moves[ply]},
                                                                   {"problem", why}}));
    };
    MoveToken mt;
    try {
      mt = parse_move_token(record.moves[ply], spec);
    } catch (const ParseError& e) {
      fail(e.what());
    }
    if (pos.is_over()) fail(i18n::tr("the game is already over"));
    const int move = mt.from - 1;
    if (!pos.is_legal(move))
      fail(spec.is_togyz() ? i18n::tr("hole {hole} is empty in {position}",
                                      {{"hole", mt.from}, {"position", pos.to_string()}})
                           : i18n::tr("pit {pit} is empty in {position}",
                                      {{"pit", mt.from}, {"position", pos.to_string()}}));
    const int mover = pos.to_move;
    const auto info = pos.play(move);
    if (const std::string why = move_token_disagreement(mt, pos, mover, info); !why.empty())
      fail(why);
    r.moves.push_back(move);
  }
  r.plies = int(r.moves.size());
  return r;
}

std::vector<int> parse_move_list(std::string_view text) {
  std::vector<int> out;
  std::string tok;
  std::istringstream ss{std::string(text)};
  while (ss >> tok) {
    int v = 0;
    size_t k = 0;
    while (k < tok.size() && is_digit(tok[k]) && k < 3) v = v * 10 + (tok[k++] - '0');
    if (k == 0 || k != tok.size())
      throw ParseError(i18n::tr("move {n}: '{token}' is not a pit number",
                                {{"n", out.size() + 1}, {"token", tok}}));
    out.push_back(v);
  }
  return out;
}

ReplayResult replay_moves(const std::vector<int>& pits_1based, const Position& start) {
  ReplayResult r;
  r.final_position = start;
  for (size_t ply = 0; ply < pits_1based.size(); ++ply) {
    const int pit = pits_1based[ply];
    // kumalak hint --moves: typed by a player, said in the player's language.
    const auto fail = [&](const std::string& why) {
      throw ParseError(i18n::tr("ply {ply}, move {move}: {problem}",
                                {{"ply", ply + 1}, {"move", pit}, {"problem", why}}));
    };
    // Togyz has holes and Kalah pits: each game's own word, in every language.
    const bool togyz = r.final_position.is_togyz();
    if (r.final_position.is_over()) fail(i18n::tr("the game is already over"));
    if (pit < 1 || pit > r.final_position.npits)
      fail(togyz ? i18n::tr("hole must be 1..{pits}", {{"pits", int(r.final_position.npits)}})
                 : i18n::tr("pit must be 1..{pits}", {{"pits", int(r.final_position.npits)}}));
    if (!r.final_position.is_legal(pit - 1))
      fail(togyz ? i18n::tr("hole {hole} is empty in {position}",
                            {{"hole", pit}, {"position", r.final_position.to_string()}})
                 : i18n::tr("pit {pit} is empty in {position}",
                            {{"pit", pit}, {"position", r.final_position.to_string()}}));
    r.final_position.play(pit - 1);
    r.moves.push_back(pit - 1);
  }
  r.plies = int(r.moves.size());
  return r;
}

std::string write_pgn(const RecordTags& tags, const Position& start, const std::vector<int>& moves,
                      const std::vector<std::string>& comments_after_move, bool with_kazan) {
  std::string out;
  std::string result;
  for (const auto& [k, v] : tags) {
    std::string escaped;
    for (char ch : v) {
      if (ch == '"' || ch == '\\') escaped += '\\';
      escaped += ch == '\n' ? ' ' : ch;
    }
    out += "[" + k + " \"" + escaped + "\"]\n";
    if (k == "Result") result = v;
  }
  out += "\n";
  Position pos = start;
  std::string line;
  int number = 1;
  bool need_number = true;
  auto emit = [&](const std::string& word) {
    if (!line.empty() && line.size() + 1 + word.size() > 79) {
      out += line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  };
  // A number opens each run of White's (South's) moves, and Black's after a comment
  // or at the start; a Kalah extra turn continues the run without a new number.
  int previous_mover = -1;
  for (size_t ply = 0; ply < moves.size(); ++ply) {
    const int mover = pos.to_move;
    if (mover == 0 && previous_mover != 0) {
      emit(std::to_string(number) + ".");
    } else if (mover == 1 && previous_mover != 1 && need_number) {
      emit(std::to_string(number) + "...");
    }
    need_number = false;
    previous_mover = mover;
    const std::string word = format_move(pos, moves[ply], with_kazan);
    pos.play(moves[ply]);
    emit(word);
    if (ply < comments_after_move.size() && !comments_after_move[ply].empty()) {
      emit("{" + comments_after_move[ply] + "}");
      need_number = true;
    }
    if (mover == 1 && pos.to_move == 0) ++number;
  }
  if (result.empty()) result = outcome_string(pos.outcome());
  emit(result);
  out += line + "\n";
  return out;
}

}  // namespace kz
