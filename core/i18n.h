// Words a player reads, in the player's language.
//
// Every sentence is one message id: the whole English sentence, with named placeholders
// `{name}` filled from arguments, so that a translator sees the whole sentence and may
// put its parts in another order; nothing a player reads is glued from pieces.
// `trn` picks the plural form by a count, which is also the placeholder `{n}`.
// The source language is English: without a translation the English sentence is what
// the player reads. GNU gettext's tools find the ids in the sources with
// `xgettext --keyword=tr --keyword=trn:1,2`.
#pragma once

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kz::i18n {

// One placeholder's value: `{name}` in a message is replaced by `value`.
struct Arg {
  Arg(std::string_view name, std::string value) : name(name), value(std::move(value)) {}
  Arg(std::string_view name, const char* value) : name(name), value(value) {}
  template <std::integral Int>
  Arg(std::string_view name, Int value) : name(name), value(std::to_string(value)) {}

  std::string_view name;
  std::string value;
};

// `text` with each `{name}` replaced by the value of the argument of that name. A
// placeholder without an argument stays as written (so a lost argument shows), `{{` and
// `}}` stand for literal braces.
std::string fill(std::string_view text, std::initializer_list<Arg> args);

// The message `msgid` in the player's language, placeholders filled.
std::string tr(std::string_view msgid, std::initializer_list<Arg> args = {});

// The message for a count `n`: `singular` or `plural` (in English: n == 1 or not; other
// languages have their own forms and rules), placeholders filled, `{n}` being `n`.
std::string trn(std::string_view singular, std::string_view plural, long long n,
                std::initializer_list<Arg> args = {});

// ---- Languages and catalogs --------------------------------------------------------
//
// The translations are GNU gettext catalogs (tools/po/<code>.po), checked and compiled
// by msgfmt at build time and carried inside the executable (tools/po/catalogs.cmake):
// glibc's own gettext() needs the locale of each language generated on the machine and
// ignores LANGUAGE under the C locale, so a program that must speak Kazakh on any
// machine reads its compiled catalogs itself. The plural rule is the catalog's own
// Plural-Forms expression, as GNU gettext evaluates it.

// One language's compiled catalog.
class Catalog {
 public:
  // Reads a GNU .mo file's bytes (the header entry gives the Plural-Forms rule); throws
  // std::runtime_error on a malformed file or an unreadable plural rule.
  Catalog(std::string code, std::string_view mo_bytes);

  const std::string& code() const { return code_; }
  // The header's Plural-Forms: nplurals and the expression of n.
  int nplurals() const { return nplurals_; }
  const std::string& plural_expression() const { return plural_expression_; }
  // Which plural form a count takes (0..nplurals-1).
  int plural_index(long long n) const;

  struct Entry {
    std::string plural_id;           // msgid_plural ("" for a plain message)
    std::vector<std::string> forms;  // one translation, or nplurals forms
  };
  // The entry of a message id (the singular id for plural messages); null when the
  // catalog lacks it (fuzzy entries are left out by msgfmt, so they count as missing).
  const Entry* find(std::string_view msgid) const;
  const std::map<std::string, Entry, std::less<>>& entries() const { return entries_; }

 private:
  std::string code_;
  int nplurals_ = 2;
  std::string plural_expression_ = "n != 1";
  std::map<std::string, Entry, std::less<>> entries_;
};

// The evaluated value of a gettext Plural-Forms expression (C syntax: n, numbers,
// ?:, ||, &&, comparisons, + - * / %, !, parentheses) for count n; throws
// std::runtime_error on a syntax error.
long long eval_plural(std::string_view expression, long long n);

// The catalogs a program is built with: the .mo files of tools/po, compiled into the
// object library kz_catalogs (tools/po/catalogs.cmake) that each executable links, as
// one definition of `kz_compiled_catalogs` (below). core/ does not build them: a program
// without that library (the fuzz targets) speaks English only.
struct CompiledCatalog {
  const char* code;            // "kk", "ru", "ky"
  const unsigned char* bytes;  // the .mo file
  size_t size;
};
struct CompiledCatalogs {
  const CompiledCatalog* list;
  size_t count;
};

// The compiled-in catalog of a language code ("kk", "ru", "ky"), null when none.
const Catalog* catalog(std::string_view code);
// Every language a player may choose: "en" (the source) and the compiled catalogs.
std::vector<std::string> languages();

// The language code a locale name or list names: "kk_KZ.UTF-8" -> "kk", "ru-RU" -> "ru",
// "C" and "POSIX" -> "en"; "" when it is empty.
std::string language_code(std::string_view locale);

// The language the process speaks. `requested` (a --lang value) wins when given;
// otherwise the first known language of LANGUAGE (a colon-separated list), then LC_ALL,
// LC_MESSAGES, LANG, as GNU gettext looks them up. A language without a catalog means
// English, with a one-line note on stderr; nothing here throws.
std::string choose_language(std::string_view requested);

// Sets the process-wide language (an unknown code: English); returns whether it is known.
bool set_language(std::string_view code);
// The language tr/trn translate to on this thread.
std::string current_language();

// For the duration of a scope, this thread translates to `code` (a server thread that
// answers one request in that request's language); the process-wide language elsewhere.
class ScopedLanguage {
 public:
  explicit ScopedLanguage(std::string_view code);
  ~ScopedLanguage();
  ScopedLanguage(const ScopedLanguage&) = delete;
  ScopedLanguage& operator=(const ScopedLanguage&) = delete;

 private:
  const Catalog* saved_;
  bool saved_set_;
};

}  // namespace kz::i18n
