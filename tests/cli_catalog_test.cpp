// End-to-end: `kumalak catalog` prints the page's words as serve's GET /api/lang/{code}
// answers them (the static site's lang-*.json files are made with it), and refuses a
// language it has not, or a code that is not one, naming the known ones.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/test_util.h"

namespace {

using nlohmann::json;

std::string kumalak_catalog(const std::string& args, int* status) {
  std::string out;
  *status = kz::test::run_command(kz::test::bin("kumalak") + " catalog " + args, &out,
                                  /*merge_stderr=*/true);
  return out;
}

TEST(CliCatalog, ListsTheLanguagesAndPrintsEachCatalog) {
  int status = 0;
  const json list = json::parse(kumalak_catalog("", &status));
  EXPECT_EQ(status, 0);
  ASSERT_EQ(list["languages"], json({"en", "kk", "ky", "ru"}));
  const json ru = json::parse(kumalak_catalog("ru", &status));
  EXPECT_EQ(status, 0);
  EXPECT_EQ(ru["lang"], "ru");
  EXPECT_EQ(ru["nplurals"], 3);
  EXPECT_EQ(ru["messages"]["the game is over"], "партия окончена");
  EXPECT_TRUE(
      ru["messages"]["Loaded {n} ply. Both sides are yours; “Analyse the game” judges every move."]
          .is_array());
  const json en = json::parse(kumalak_catalog("en", &status));
  EXPECT_TRUE(en["messages"].empty());
}

TEST(CliCatalog, RefusesAnUnknownLanguageNamingTheKnownOnes) {
  int status = 0;
  std::string out = kumalak_catalog("xx", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("known: en, kk, ky, ru"), std::string::npos) << out;
  out = kumalak_catalog("'a/b'", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("letters, digits"), std::string::npos) << out;
}

}  // namespace
