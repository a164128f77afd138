// The server's answers compressed with gzip, never with cpp-httplib's slowest Brotli
// (tools/serve/http.h without_brotli).
#include <gtest/gtest.h>

#include <string>

#include "tests/serve_test_util.h"
#include "tools/serve/lang_api.h"

namespace kz::cli::serve {
namespace {

TEST(ServeCompression, TakesBrotliOutOfAcceptEncoding) {
  EXPECT_EQ(without_brotli("gzip, deflate, br"), "gzip, deflate");
  EXPECT_EQ(without_brotli("br"), "");
  EXPECT_EQ(without_brotli("br;q=1.0, gzip;q=0.8, *;q=0.1"), "gzip;q=0.8, *;q=0.1");
  EXPECT_EQ(without_brotli(" gzip ,br , identity"), "gzip, identity");
  EXPECT_EQ(without_brotli("brotli-like, gzip"), "brotli-like, gzip");
  EXPECT_EQ(without_brotli(""), "");
}

// The headers and the raw body of a GET that takes `encodings`.
httplib::Result raw_get(int port, const std::string& path, const std::string& encodings) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_decompress(false);
  return cli.Get(path.c_str(), {{"Accept-Encoding", encodings}});
}

TEST(ServeCompression, AnswersABrowserThatTakesBrotliWithGzip) {
  LocalHttpServer server(2, [](ApiRouter& router) { add_language_routes(router); });
  // A browser's usual header: gzip, whole and fast.
  const auto browser = raw_get(server.port(), "/api/lang/kk", "gzip, deflate, br, zstd");
  ASSERT_TRUE(browser);
  EXPECT_EQ(browser->status, 200);
  EXPECT_EQ(browser->get_header_value("Content-Encoding"), "gzip");
  ASSERT_GE(browser->body.size(), 2u);
  EXPECT_EQ(uint8_t(browser->body[0]), 0x1f);  // gzip's magic
  EXPECT_EQ(uint8_t(browser->body[1]), 0x8b);
  // One that takes Brotli alone gets the answer as it is.
  const auto brotli_only = raw_get(server.port(), "/api/lang/kk", "br");
  ASSERT_TRUE(brotli_only);
  EXPECT_EQ(brotli_only->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(nlohmann::json::parse(brotli_only->body)["lang"], "kk");
  // Decompressed by the client, the gzip answer is the same catalog.
  httplib::Client cli("127.0.0.1", server.port());
  const auto plain = cli.Get("/api/lang/kk", {{"Accept-Encoding", "gzip, br"}});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->body, brotli_only->body);
}

}  // namespace
}  // namespace kz::cli::serve
