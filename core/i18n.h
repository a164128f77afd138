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
#include <initializer_list>
#include <string>
#include <string_view>

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

}  // namespace kz::i18n
