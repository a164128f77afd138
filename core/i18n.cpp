#include "core/i18n.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <stdexcept>

// The catalogs of the program, defined by the object library kz_catalogs that its
// executable links (tools/po/catalogs.cmake); weak, so that a program without it (the
// fuzz targets) links and speaks English only.
extern "C" const kz::i18n::CompiledCatalogs kz_compiled_catalogs __attribute__((weak));

namespace kz::i18n {

std::string fill(std::string_view text, std::initializer_list<Arg> args) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '{') {
      const size_t close = text.find('}', i + 1);
      if (close != std::string_view::npos) {
        const std::string_view name = text.substr(i + 1, close - i - 1);
        const Arg* found = nullptr;
        for (const Arg& arg : args)
          if (arg.name == name) found = &arg;
        if (found) {
          out += found->value;
          i = close;
          continue;
        }
      }
    }
    out += c;
  }
  return out;
}

// ---- Plural-Forms expressions -------------------------------------------------------

namespace {

// A recursive-descent evaluator of gettext's C-like plural expressions.
class PluralParser {
 public:
  PluralParser(std::string_view text, long long n) : text_(text), n_(n) {}

  long long run() {
    const long long v = ternary();
    skip();
    if (pos_ != text_.size()) error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    throw std::runtime_error("plural expression '" + std::string(text_) + "': " + what);
  }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool eat(std::string_view op) {
    skip();
    if (text_.substr(pos_, op.size()) != op) return false;
    // "<" must not take the first half of "<=", "!" not that of "!=".
    if (op.size() == 1 && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=' &&
        (op == "<" || op == ">" || op == "!" || op == "="))
      return false;
    pos_ += op.size();
    return true;
  }
  long long ternary() {
    const long long c = logical_or();
    if (!eat("?")) return c;
    const long long a = ternary();
    if (!eat(":")) error("':' expected");
    const long long b = ternary();
    return c ? a : b;
  }
  long long logical_or() {
    long long v = logical_and();
    while (eat("||")) {
      const long long r = logical_and();
      v = v || r;
    }
    return v;
  }
  long long logical_and() {
    long long v = equality();
    while (eat("&&")) {
      const long long r = equality();
      v = v && r;
    }
    return v;
  }
  long long equality() {
    long long v = relation();
    for (;;) {
      if (eat("=="))
        v = v == relation();
      else if (eat("!="))
        v = v != relation();
      else
        return v;
    }
  }
  long long relation() {
    long long v = additive();
    for (;;) {
      if (eat("<="))
        v = v <= additive();
      else if (eat(">="))
        v = v >= additive();
      else if (eat("<"))
        v = v < additive();
      else if (eat(">"))
        v = v > additive();
      else
        return v;
    }
  }
  long long additive() {
    long long v = multiplicative();
    for (;;) {
      if (eat("+"))
        v += multiplicative();
      else if (eat("-"))
        v -= multiplicative();
      else
        return v;
    }
  }
  long long multiplicative() {
    long long v = unary();
    for (;;) {
      const bool mul = eat("*");
      const bool div = !mul && eat("/");
      const bool mod = !mul && !div && eat("%");
      if (!mul && !div && !mod) return v;
      const long long r = unary();
      if (mul)
        v *= r;
      else if (r == 0)
        error("division by zero");
      else
        v = div ? v / r : v % r;
    }
  }
  long long unary() {
    if (eat("!")) return !unary();
    if (eat("(")) {
      const long long v = ternary();
      if (!eat(")")) error("')' expected");
      return v;
    }
    skip();
    if (pos_ < text_.size() && text_[pos_] == 'n') {
      ++pos_;
      return n_;
    }
    if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      long long v = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
        v = v * 10 + (text_[pos_++] - '0');
      return v;
    }
    error(pos_ < text_.size() ? "unexpected '" + std::string(1, text_[pos_]) + "'"
                              : "unexpected end");
  }

  std::string_view text_;
  long long n_;
  size_t pos_ = 0;
};

uint32_t read_u32(std::string_view bytes, size_t offset, bool swap) {
  if (offset + 4 > bytes.size()) throw std::runtime_error("catalog: truncated .mo file");
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  return swap ? __builtin_bswap32(v) : v;
}

std::string_view mo_string(std::string_view bytes, size_t table, uint32_t i, bool swap) {
  const uint32_t length = read_u32(bytes, table + 8 * size_t(i), swap);
  const uint32_t offset = read_u32(bytes, table + 8 * size_t(i) + 4, swap);
  if (size_t(offset) + length > bytes.size()) throw std::runtime_error("catalog: bad string");
  return bytes.substr(offset, length);
}

std::vector<std::string> split_nul(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t z = s.find('\0', start);
    out.emplace_back(s.substr(start, z == std::string_view::npos ? s.npos : z - start));
    if (z == std::string_view::npos) return out;
    start = z + 1;
  }
}

}  // namespace

long long eval_plural(std::string_view expression, long long n) {
  return PluralParser(expression, n).run();
}

Catalog::Catalog(std::string code, std::string_view mo) : code_(std::move(code)) {
  const uint32_t magic = read_u32(mo, 0, false);
  const bool swap = magic == 0xde120495u;
  if (!swap && magic != 0x950412deu)
    throw std::runtime_error("catalog " + code_ + ": not a .mo file");
  const uint32_t count = read_u32(mo, 8, swap);
  const size_t originals = read_u32(mo, 12, swap), translations = read_u32(mo, 16, swap);
  for (uint32_t i = 0; i < count; ++i) {
    const std::vector<std::string> ids = split_nul(mo_string(mo, originals, i, swap));
    const std::string_view text = mo_string(mo, translations, i, swap);
    if (ids[0].empty()) {  // the header: "Plural-Forms: nplurals=3; plural=...;"
      const size_t at = text.find("Plural-Forms:");
      if (at == std::string_view::npos) continue;
      const std::string_view line = text.substr(at, text.find('\n', at) - at);
      const size_t np = line.find("nplurals="), pl = line.find("plural=", np + 1);
      if (np == line.npos || pl == line.npos)
        throw std::runtime_error("catalog " + code_ + ": unreadable Plural-Forms");
      nplurals_ = std::atoi(std::string(line.substr(np + 9)).c_str());
      std::string_view e = line.substr(pl + 7);
      while (!e.empty() && (e.back() == ';' || e.back() == ' ' || e.back() == '\r'))
        e.remove_suffix(1);
      plural_expression_ = std::string(e);
      eval_plural(plural_expression_, 1);  // a syntax error shows now, not mid-game
      continue;
    }
    Entry entry;
    if (ids.size() > 1) entry.plural_id = ids[1];
    entry.forms = split_nul(text);
    entries_.emplace(ids[0], std::move(entry));
  }
  if (nplurals_ < 1) throw std::runtime_error("catalog " + code_ + ": nplurals must be >= 1");
}

int Catalog::plural_index(long long n) const {
  const long long i = eval_plural(plural_expression_, n);
  return i < 0 || i >= nplurals_ ? 0 : int(i);
}

const Catalog::Entry* Catalog::find(std::string_view msgid) const {
  const auto it = entries_.find(msgid);
  return it == entries_.end() ? nullptr : &it->second;
}

// ---- Choosing the language ----------------------------------------------------------

namespace {

const std::vector<std::unique_ptr<Catalog>>& all_catalogs() {
  static const std::vector<std::unique_ptr<Catalog>> catalogs = [] {
    std::vector<std::unique_ptr<Catalog>> out;
    if (&kz_compiled_catalogs == nullptr) return out;
    for (size_t i = 0; i < kz_compiled_catalogs.count; ++i) {
      const CompiledCatalog& c = kz_compiled_catalogs.list[i];
      out.push_back(std::make_unique<Catalog>(
          c.code, std::string_view(reinterpret_cast<const char*>(c.bytes), c.size)));
    }
    return out;
  }();
  return catalogs;
}

std::mutex g_language_mutex;
const Catalog* g_language = nullptr;  // null: English
thread_local const Catalog* t_language = nullptr;
thread_local bool t_language_set = false;

const Catalog* active_catalog() {
  if (t_language_set) return t_language;
  std::lock_guard<std::mutex> lock(g_language_mutex);
  return g_language;
}

bool known(std::string_view code) {
  return code == "en" || catalog(code) != nullptr;
}

}  // namespace

const Catalog* catalog(std::string_view code) {
  for (const auto& c : all_catalogs())
    if (c->code() == code) return c.get();
  return nullptr;
}

std::vector<std::string> languages() {
  std::vector<std::string> out{"en"};
  for (const auto& c : all_catalogs()) out.push_back(c->code());
  return out;
}

std::string language_code(std::string_view locale) {
  const size_t end = locale.find_first_of("_-.@");
  std::string code(locale.substr(0, end));
  for (char& c : code)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  if (code == "c" || code == "posix") return "en";
  return code;
}

std::string choose_language(std::string_view requested) {
  std::string unknown;
  auto pick = [&](std::string_view name) -> std::string {
    const std::string code = language_code(name);
    if (code.empty() || known(code)) return code;
    if (unknown.empty()) unknown = std::string(name);
    return "";
  };
  std::string chosen;
  if (!requested.empty()) {
    chosen = pick(requested);
  } else {
    if (const char* list = std::getenv("LANGUAGE")) {
      std::string_view rest(list);
      while (chosen.empty() && !rest.empty()) {
        const size_t colon = rest.find(':');
        chosen = pick(rest.substr(0, colon));
        rest = colon == rest.npos ? std::string_view() : rest.substr(colon + 1);
      }
    }
    for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
      if (!chosen.empty()) break;
      const char* value = std::getenv(var);
      if (value && *value) {
        chosen = pick(value);
        if (chosen.empty()) break;  // the first set of the three decides, as in gettext
      }
    }
  }
  if (chosen.empty() && !unknown.empty()) {
    std::string list;
    for (const auto& l : languages()) list += (list.empty() ? "" : ", ") + l;
    std::cerr << "note: no translation for language '" << unknown
              << "', using English (known: " << list << ")\n";
  }
  return chosen.empty() ? "en" : chosen;
}

bool set_language(std::string_view code) {
  std::lock_guard<std::mutex> lock(g_language_mutex);
  g_language = catalog(code);
  return known(code);
}

std::string current_language() {
  const Catalog* c = active_catalog();
  return c ? c->code() : "en";
}

ScopedLanguage::ScopedLanguage(std::string_view code)
    : saved_(t_language), saved_set_(t_language_set) {
  t_language = catalog(code);
  t_language_set = true;
}

ScopedLanguage::~ScopedLanguage() {
  t_language = saved_;
  t_language_set = saved_set_;
}

// ---- Translating ----------------------------------------------------------------------

std::string tr(std::string_view msgid, std::initializer_list<Arg> args) {
  if (const Catalog* c = active_catalog())
    if (const Catalog::Entry* e = c->find(msgid); e && !e->forms.empty() && !e->forms[0].empty())
      return fill(e->forms[0], args);
  return fill(msgid, args);
}

std::string trn(std::string_view singular, std::string_view plural, long long n,
                std::initializer_list<Arg> args) {
  std::string_view text = n == 1 ? singular : plural;
  if (const Catalog* c = active_catalog())
    if (const Catalog::Entry* e = c->find(singular)) {
      const size_t i = size_t(c->plural_index(n));
      if (i < e->forms.size() && !e->forms[i].empty()) text = e->forms[i];
    }
  std::string out = fill(text, args);
  return fill(out, {Arg("n", n)});
}

}  // namespace kz::i18n
