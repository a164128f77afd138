// The API's call table apart from HTTP (tools/serve/api_router.h): what the page's
// WebAssembly engine and the HTTP server both answer through. Routes by method and path
// (and a path's last part), the refusals of a malformed request, a handler's errors as
// statuses, and the answer's language.
#include <gtest/gtest.h>

#include "core/i18n.h"
#include "core/position.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {
namespace {

ApiRouter echo_router() {
  ApiRouter router;
  router.add("GET", "/api/echo", [](const json& b) { return json{{"got", b}}; });
  router.add("POST", "/api/echo", [](const json& b) { return json{{"posted", b}}; });
  router.add("GET", "/api/refuse", [](const json&) -> json { throw ApiError(409, "busy"); });
  router.add("GET", "/api/parse", [](const json&) -> json { throw ParseError("bad move"); });
  router.add("GET", "/api/crash", [](const json&) -> json { throw std::logic_error("bug"); });
  router.add("GET", "/api/words", [](const json&) {
    return json{{"text", i18n::tr("the game is over")}};
  });
  router.add_raw(
      "GET", "/api/part/",
      [](const ApiRequest& r, ApiResponse& out) {
        out.body = "part " + r.tail;
        out.content_type = "text/plain";
      },
      /*with_tail=*/true);
  return router;
}

ApiRequest get(const std::string& path, json params = json::object()) {
  return {"GET", path, "", std::move(params), "", ""};
}

ApiRequest post(const std::string& path, const std::string& body) {
  return {"POST", path, "", json::object(), body, ""};
}

json body_of(const ApiResponse& r) {
  return json::parse(r.body);
}

TEST(ApiRouter, AnswersTheRouteOfTheMethodAndPath) {
  const ApiRouter router = echo_router();
  ApiResponse r = router.answer(get("/api/echo", {{"session", "abc"}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(body_of(r)["got"]["session"], "abc");
  r = router.answer(post("/api/echo", R"({"move": 3})"));
  EXPECT_EQ(body_of(r)["posted"]["move"], 3);
  r = router.answer(post("/api/echo", ""));  // an empty body is {}
  EXPECT_EQ(body_of(r)["posted"], json::object());
}

TEST(ApiRouter, APathWithATakesOnePartMore) {
  const ApiRouter router = echo_router();
  ApiResponse r = router.answer(get("/api/part/kk"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "part kk");
  EXPECT_EQ(r.content_type, "text/plain");
  EXPECT_EQ(router.answer(get("/api/part/")).status, 404);
  EXPECT_EQ(router.answer(get("/api/part/kk/more")).status, 404);
}

TEST(ApiRouter, UnknownCallsAre404NamingThePath) {
  const ApiRouter router = echo_router();
  ApiResponse r = router.answer(get("/api/nothing"));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(body_of(r)["error"].get<std::string>().find("/api/nothing"), std::string::npos);
  EXPECT_EQ(router.answer(post("/api/refuse", "{}")).status, 404);  // GET only
}

TEST(ApiRouter, MalformedRequestsAre400SayingWhatIsWrong) {
  const ApiRouter router = echo_router();
  for (const char* body : {"{", "[1, 2]", "3", "\"text\"", "{\"a\": }"}) {
    const ApiResponse r = router.answer(post("/api/echo", body));
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_FALSE(body_of(r)["error"].get<std::string>().empty()) << body;
  }
  ApiResponse r = router.answer(get("/api/echo", {{"session", std::string(201, 'x')}}));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(body_of(r)["error"].get<std::string>().find("session"), std::string::npos);
  EXPECT_EQ(router.answer(get("/api/echo", {{"ply", 3}})).status, 400);  // not a string
  EXPECT_EQ(router.answer(post("/api/echo", std::string(kMaxBodyBytes + 1, ' '))).status, 413);
}

// Bytes that are not UTF-8 in a request (a body cut inside a letter, a path of %FF) are
// quoted by the refusal as U+FFFD: the answer is JSON and says what is wrong, where
// writing the raw bytes into JSON threw out of the router (and, over HTTP, ended the
// server).
TEST(ApiRouter, BytesThatAreNotUtf8AreRefusedNotThrown) {
  const ApiRouter router = echo_router();
  for (const char* body : {"{\"a\": \"\xd0", "{\"a\": \"\xff\"}", "\xc3\x28"}) {
    ApiResponse r;
    ASSERT_NO_THROW(r = router.answer(post("/api/echo", body)));
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(body_of(r)["error"].get<std::string>().find("JSON"), std::string::npos) << r.body;
  }
  ApiResponse r;
  ASSERT_NO_THROW(r = router.answer(get("/api/\xff")));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(body_of(r)["error"].get<std::string>().find("/api/\xef\xbf\xbd"), std::string::npos)
      << r.body;
  // A handler's answer that quotes such bytes back is sent, not refused.
  ASSERT_NO_THROW(r = router.answer(get("/api/echo", {{"name", "Ann\xff"}})));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r)["got"]["name"], "Ann\xef\xbf\xbd");
}

TEST(ApiRouter, HandlersErrorsBecomeTheirStatuses) {
  const ApiRouter router = echo_router();
  ApiResponse r = router.answer(get("/api/refuse"));
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(body_of(r)["error"], "busy");
  EXPECT_EQ(router.answer(get("/api/parse")).status, 400);
  r = router.answer(get("/api/crash"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(body_of(r)["error"], "internal error: bug");
}

TEST(ApiRouter, AnswersInTheFirstLanguageThatHasACatalog) {
  EXPECT_EQ(language_of("kk, ru;q=0.8"), "kk");
  EXPECT_EQ(language_of("xx, ru;q=0.8"), "ru");
  EXPECT_EQ(language_of(""), "en");
  EXPECT_EQ(language_of("xx"), "en");
  const ApiRouter router = echo_router();
  ApiRequest request = get("/api/words");
  const std::string english = body_of(router.answer(request))["text"];
  request.accept_language = "ru";
  const std::string russian = body_of(router.answer(request))["text"];
  EXPECT_EQ(english, "the game is over");
  EXPECT_NE(russian, english);
}

}  // namespace
}  // namespace kz::cli::serve
