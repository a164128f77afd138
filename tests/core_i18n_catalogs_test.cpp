// The translations: every message id the sources hold (the template xgettext extracts
// at build time, tools/po/extract.sh) has a Kazakh, Russian and Kyrgyz translation with
// exactly the id's placeholders and every plural form, and the language is chosen from
// --lang, then LANGUAGE, LC_ALL, LC_MESSAGES, LANG, falling back to English.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "core/i18n.h"

namespace kz {
namespace {

using i18n::Catalog;

struct PotEntry {
  std::string id, plural_id;
};

// The unescaped text of a .po string line's quoted part.
std::string unquote(const std::string& line) {
  const size_t a = line.find('"'), b = line.rfind('"');
  std::string out;
  for (size_t i = a + 1; i < b; ++i) {
    if (line[i] == '\\' && i + 1 < b) {
      ++i;
      out += line[i] == 'n' ? '\n' : line[i] == 't' ? '\t' : line[i];
    } else {
      out += line[i];
    }
  }
  return out;
}

// The entries of the extracted template (msgid and msgid_plural, continuation lines
// joined), without the header.
std::vector<PotEntry> read_pot(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "no template at " << path << " (the build's kz_pot target makes it)";
  std::vector<PotEntry> entries;
  std::string line, *field = nullptr;
  PotEntry cur;
  auto flush = [&] {
    if (!cur.id.empty()) entries.push_back(cur);
    cur = {};
  };
  while (std::getline(in, line)) {
    if (line.rfind("msgid_plural ", 0) == 0) {
      cur.plural_id = unquote(line);
      field = &cur.plural_id;
    } else if (line.rfind("msgid ", 0) == 0) {
      flush();
      cur.id = unquote(line);
      field = &cur.id;
    } else if (line.rfind("msgstr", 0) == 0) {
      field = nullptr;
    } else if (!line.empty() && line[0] == '"' && field) {
      *field += unquote(line);
    }
  }
  flush();
  return entries;
}

std::multiset<std::string> placeholders(const std::string& text) {
  std::multiset<std::string> out;
  static const std::regex re(R"(\{(\w+)\})");
  std::set<std::string> seen;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    if (seen.insert((*it)[1]).second) out.insert((*it)[1]);
  return out;
}

std::string names(const std::multiset<std::string>& s) {
  std::string out;
  for (const auto& n : s) out += "{" + n + "} ";
  return out;
}

const char* const kLanguages[] = {"kk", "ru", "ky"};

TEST(I18nCatalogs, EveryMessageIdHasEveryTranslation) {
  const auto entries = read_pot(KZ_POT_FILE);
  ASSERT_GT(entries.size(), 100u) << "the template should hold the page's and the CLI's messages";
  for (const char* lang : kLanguages) {
    const Catalog* c = i18n::catalog(lang);
    ASSERT_NE(c, nullptr) << "no compiled catalog for " << lang;
    for (const PotEntry& e : entries) {
      const Catalog::Entry* t = c->find(e.id);
      if (!t) {
        ADD_FAILURE() << lang << ": no translation of \"" << e.id
                      << "\" (tools/po/extract.sh --update, then translate tools/po/" << lang
                      << ".po)";
        continue;
      }
      if (e.plural_id.empty()) {
        ASSERT_EQ(t->forms.size(), 1u) << lang << ": \"" << e.id << "\"";
      } else {
        EXPECT_EQ(t->plural_id, e.plural_id) << lang;
        EXPECT_EQ(int(t->forms.size()), c->nplurals())
            << lang << ": \"" << e.id << "\" needs all " << c->nplurals() << " plural forms";
      }
      for (const std::string& f : t->forms)
        EXPECT_FALSE(f.empty()) << lang << ": \"" << e.id << "\"";
    }
  }
}

TEST(I18nCatalogs, TranslationsKeepExactlyThePlaceholders) {
  for (const PotEntry& e : read_pot(KZ_POT_FILE)) {
    std::multiset<std::string> want = placeholders(e.id);
    if (!e.plural_id.empty()) want = placeholders(e.id + e.plural_id);
    for (const char* lang : kLanguages) {
      const Catalog::Entry* t = i18n::catalog(lang)->find(e.id);
      if (!t) continue;  // reported by EveryMessageIdHasEveryTranslation
      for (const std::string& f : t->forms)
        EXPECT_EQ(placeholders(f), want)
            << lang << ": \"" << f << "\" has " << names(placeholders(f)) << "but \"" << e.id
            << "\" has " << names(want);
    }
  }
}

TEST(I18nCatalogs, NoEnglishLeftInATranslation) {
  // A translation identical to a message id with words in it is an untranslated copy.
  static const std::regex words(R"([A-Za-z]{2,})");
  for (const PotEntry& e : read_pot(KZ_POT_FILE)) {
    const std::string bare = std::regex_replace(e.id, std::regex(R"(\{\w+\})"), "");
    if (!std::regex_search(bare, words)) continue;
    for (const char* lang : kLanguages) {
      const Catalog::Entry* t = i18n::catalog(lang)->find(e.id);
      if (!t) continue;
      for (const std::string& f : t->forms)
        EXPECT_NE(f, e.id) << lang << ": \"" << e.id << "\" is not translated";
    }
  }
}

// The words of one game's pieces, as a translation must not use them for the other game.
struct GameWords {
  const char* lang;
  std::vector<std::string> togyz;  // hole, stone, kazan (at the start of a word)
  std::vector<std::string> kalah;  // pit, seed, store
};

// Whether `text` holds `stem` at the start of a word (UTF-8: a word starts after a byte
// that is not a letter's, i.e. after ASCII that is not a letter, or at the start).
bool has_word_starting(const std::string& text, const std::string& stem) {
  for (size_t at = text.find(stem); at != std::string::npos; at = text.find(stem, at + 1)) {
    const unsigned char before = at == 0 ? ' ' : static_cast<unsigned char>(text[at - 1]);
    if (before < 0x80 && !std::isalpha(before)) return true;
  }
  return false;
}

TEST(I18nCatalogs, EachGameInItsOwnWords) {
  // An id names Togyz's pieces (hole, stone, kazan, tuzdyk) and nothing of Kalah's, or
  // Kalah's (pit, seed, store) and nothing of Togyz's: its translations say that game's
  // words, never the other game's (a Togyz error that says "pit" in Kazakh is wrong even
  // where the English is right). Placeholders are not words.
  static const std::regex togyz_words(R"(\b(hole|holes|stone|stones|kazan\d?|tuzdyk|tuzdyks)\b)");
  static const std::regex kalah_words(R"(\b(pit|pits|seed|seeds|store\d?|South|North|Kalah)\b)");
  static const std::regex togyz_only(
      R"(\b(Togyz|White|Black|hole|holes|kazan\d?|tuzdyk|tuzdyks)\b)");
  // Said of one game in the other's English words, or of both games on purpose.
  static const std::set<std::string> mixed = {
      "gives away {n} stone against perfect play (mover {best} -> {got})",  // Kalah only
      "moves from the start: the mover's pit numbers",                      // both games' help
  };
  const GameWords words[] = {
      {"kk", {"отау", "құмалақ", "қазан"}, {"ұя", "тас", "қойма"}},
      {"ru", {"кумалак", "казан"}, {"камен", "камн", "амбар"}},
      {"ky", {"үй", "коргоол", "казан"}, {"уя", "таш", "кампа"}},
  };
  int togyz_ids = 0, kalah_ids = 0;
  for (const PotEntry& e : read_pot(KZ_POT_FILE)) {
    if (mixed.count(e.id)) continue;
    const std::string bare =
        std::regex_replace(e.id + " " + e.plural_id, std::regex(R"(\{\w+\})"), "");
    const bool togyz =
        std::regex_search(bare, togyz_words) && !std::regex_search(bare, kalah_words);
    const bool kalah = std::regex_search(bare, kalah_words) && !std::regex_search(bare, togyz_only);
    togyz_ids += togyz;
    kalah_ids += kalah;
    if (!togyz && !kalah) continue;
    for (const GameWords& w : words) {
      const Catalog::Entry* t = i18n::catalog(w.lang)->find(e.id);
      if (!t) continue;  // reported by EveryMessageIdHasEveryTranslation
      for (const std::string& f : t->forms)
        for (const std::string& wrong : togyz ? w.kalah : w.togyz)
          EXPECT_FALSE(has_word_starting(f, wrong))
              << w.lang << ": \"" << f << "\" says '" << wrong << "' of "
              << (togyz ? "Togyz" : "Kalah") << " (\"" << e.id << "\")";
    }
  }
  EXPECT_GT(togyz_ids, 40);
  EXPECT_GT(kalah_ids, 30);
}

// The UTF-8 bytes of a word that begins at text[at] (up to a space or ASCII punctuation).
std::string word_at(const std::string& text, size_t at) {
  size_t end = at;
  while (end < text.size() && (static_cast<unsigned char>(text[end]) >= 0x80 ||
                               std::isalnum(static_cast<unsigned char>(text[end]))))
    ++end;
  return text.substr(at, end - at);
}

TEST(I18nCatalogs, NoKazakhOrKyrgyzEndingHangsOnANumber) {
  // A case ending follows the sound of the number it is glued to (2-ге but 6-ға, 3-і but
  // 2-сі), which a message cannot know: a placeholder is never followed by an ending.
  // It may be an ordinal before its noun, written with a hyphen (`{hole}-отауынан`).
  const std::vector<std::string> nouns = {"отау", "ұя", "қазан", "қойма", "ойын", "жол", "жартылай",
                                          "жүріс", "буын", "үй", "уя", "казан", "кампа", "оюн",
                                          "сап", "жарым", "жүрүш", "муун",
                                          // a puzzle (kk, ky) and a date's day (ky)
                                          "есеп", "маселе", "күн"};
  // Postpositions that need the dative or another case: never straight after a number.
  const std::vector<std::string> postpositions = {"дейін", "шейін", "чейин"};
  for (const char* lang : {"kk", "ky"}) {
    for (const auto& [id, entry] : i18n::catalog(lang)->entries()) {
      for (const std::string& f : entry.forms) {
        for (size_t close = f.find('}'); close != std::string::npos;
             close = f.find('}', close + 1)) {
          if (close + 1 >= f.size()) continue;
          size_t at = close + 1;
          const bool hyphen = f[at] == '-';
          if (hyphen) ++at;
          if (at < f.size() && static_cast<unsigned char>(f[at]) >= 0x80) {
            const std::string word = word_at(f, at);
            bool noun = false;
            for (const std::string& n : nouns) noun |= word.rfind(n, 0) == 0;
            EXPECT_TRUE(hyphen && noun) << lang << ": \"" << f << "\" glues '" << word
                                        << "' to a number (\"" << id << "\")";
          }
          if (f.compare(close + 1, 1, " ") == 0) {
            for (const std::string& p : postpositions) {
              EXPECT_NE(f.compare(close + 2, p.size(), p), 0)
                  << lang << ": \"" << f << "\" has '" << p << "' right after a number (\"" << id
                  << "\"): put a noun between, which takes the case";
            }
          }
        }
      }
    }
  }
}

TEST(I18nCatalogs, RussianSaysTheOpponentNotTheir) {
  // "their hole" is the opponent's: "лунка 3 соперника", never the calque "их лунка".
  static const std::regex their(R"((^|[ (]|«)(их|им) (лунк|туздык|сторон|следующ))");
  for (const auto& [id, entry] : i18n::catalog("ru")->entries())
    for (const std::string& f : entry.forms)
      EXPECT_FALSE(std::regex_search(f, their)) << "ru: \"" << f << "\" (\"" << id << "\")";
}

TEST(I18nCatalogs, PluralRulesOfTheCatalogs) {
  const Catalog* ru = i18n::catalog("ru");
  ASSERT_NE(ru, nullptr);
  EXPECT_EQ(ru->nplurals(), 3);
  for (auto [n, form] : {std::pair{1, 0},
                         {2, 1},
                         {4, 1},
                         {5, 2},
                         {11, 2},
                         {12, 2},
                         {21, 0},
                         {22, 1},
                         {25, 2},
                         {111, 2},
                         {0, 2}})
    EXPECT_EQ(ru->plural_index(n), form) << "ru, n = " << n;
  for (const char* lang : {"kk", "ky"}) {
    EXPECT_EQ(i18n::catalog(lang)->nplurals(), 2) << lang;
    EXPECT_EQ(i18n::catalog(lang)->plural_index(1), 0) << lang;
    EXPECT_EQ(i18n::catalog(lang)->plural_index(5), 1) << lang;
  }
}

TEST(I18nCatalogs, PluralExpressionEvaluator) {
  EXPECT_EQ(i18n::eval_plural("n != 1", 1), 0);
  EXPECT_EQ(i18n::eval_plural("(n != 1)", 3), 1);
  EXPECT_EQ(i18n::eval_plural("n==0 ? 0 : n==1 ? 1 : n%100>=3 && n%100<=10 ? 3 : 5", 105), 3);
  EXPECT_EQ(i18n::eval_plural("!(n > 2) || n <= 0", 3), 0);
  EXPECT_THROW(i18n::eval_plural("n +", 1), std::runtime_error);
  EXPECT_THROW(i18n::eval_plural("n % 0", 1), std::runtime_error);
  EXPECT_THROW(i18n::eval_plural("x", 1), std::runtime_error);
}

TEST(I18nCatalogs, TranslatesInTheChosenLanguage) {
  {
    const i18n::ScopedLanguage ru("ru");
    EXPECT_EQ(i18n::current_language(), "ru");
    EXPECT_EQ(i18n::tr("Undo"), "Отменить");
    EXPECT_EQ(i18n::trn("sows {n} stone", "sows {n} stones", 1), "раскладывает 1 кумалак");
    EXPECT_EQ(i18n::trn("sows {n} stone", "sows {n} stones", 3), "раскладывает 3 кумалака");
    EXPECT_EQ(i18n::trn("sows {n} stone", "sows {n} stones", 11), "раскладывает 11 кумалаков");
    EXPECT_EQ(i18n::tr("kazan {n}", {{"n", 82}}), "казан 82");
    // A message no catalog has stays English.
    EXPECT_EQ(i18n::tr("not in any catalog {x}", {{"x", 1}}), "not in any catalog 1");
  }
  {
    const i18n::ScopedLanguage kk("kk");
    EXPECT_EQ(i18n::tr("tuzdyk"), "тұздық");
  }
  {
    const i18n::ScopedLanguage ky("ky");
    EXPECT_EQ(i18n::tr("tuzdyk"), "туз");
  }
  const i18n::ScopedLanguage unknown("xx");
  EXPECT_EQ(i18n::tr("Undo"), "Undo");
}

TEST(I18nCatalogs, LanguageFromFlagThenEnvironment) {
  EXPECT_EQ(i18n::language_code("kk_KZ.UTF-8"), "kk");
  EXPECT_EQ(i18n::language_code("ru-RU"), "ru");
  EXPECT_EQ(i18n::language_code("C.UTF-8"), "en");
  EXPECT_EQ(i18n::language_code("POSIX"), "en");
  for (const char* v : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}) unsetenv(v);
  EXPECT_EQ(i18n::choose_language(""), "en");
  setenv("LANG", "ky_KG.UTF-8", 1);
  EXPECT_EQ(i18n::choose_language(""), "ky");
  setenv("LC_ALL", "ru_RU.UTF-8", 1);
  EXPECT_EQ(i18n::choose_language(""), "ru") << "LC_ALL comes before LANG";
  setenv("LANGUAGE", "de:kk", 1);
  EXPECT_EQ(i18n::choose_language(""), "kk") << "the first known language of LANGUAGE's list";
  EXPECT_EQ(i18n::choose_language("ky"), "ky") << "--lang comes first";
#ifndef __EMSCRIPTEN__  // capturing stderr needs dup2 of fd 2, which Node's raw files lack
  testing::internal::CaptureStderr();
  EXPECT_EQ(i18n::choose_language("de"), "en");
  EXPECT_NE(testing::internal::GetCapturedStderr().find("no translation for language 'de'"),
            std::string::npos);
#else
  EXPECT_EQ(i18n::choose_language("de"), "en");
#endif
  for (const char* v : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}) unsetenv(v);
  setenv("LANGUAGE", "en", 1);  // as CTest runs every test
}

}  // namespace
}  // namespace kz
