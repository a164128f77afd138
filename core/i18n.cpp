#include "core/i18n.h"

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

std::string tr(std::string_view msgid, std::initializer_list<Arg> args) {
  return fill(msgid, args);
}

std::string trn(std::string_view singular, std::string_view plural, long long n,
                std::initializer_list<Arg> args) {
  const std::string_view text = n == 1 ? singular : plural;
  std::string out = fill(text, args);
  return fill(out, {Arg("n", n)});
}

}  // namespace kz::i18n
