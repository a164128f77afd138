// The whole API (tools/serve/api.h) answering thousands of requests made at random from
// its own routes, keys and values both good and bad (a seeded generator, so a failure
// replays): whatever comes, every answer is JSON, a refusal says what is wrong in the
// request's language, and nothing is a 500 (an exception the API did not expect). The
// page's engine and `kumalak serve` answer through this router, each call as the page or
// any program on the network sends it.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/serve_test_util.h"
#include "tools/serve/api.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {
namespace {

const char* const kPgn =
    "[Event \"x\"]\n[White \"Ann\"]\n[Black \"Bob\"]\n[WhiteElo \"1200\"]\n[Result \"1-0\"]\n\n"
    "1. 76 98 2. 66 87x 1-0\n";

class RandomRequests {
 public:
  explicit RandomRequests(uint64_t seed) : rng_(seed) {}

  ApiRequest next() {
    static const std::vector<std::string> kGets = {
        "/api/board",   "/api/games/evidence", "/api/info",     "/api/lang",
        "/api/lang/kk", "/api/lang/xx",        "/api/openings", "/api/openings/engine",
        "/api/puzzle",  "/api/state",          "/api/nothing"};
    static const std::vector<std::string> kPosts = {
        "/api/analyze",        "/api/close",        "/api/games/evidence", "/api/games/rating",
        "/api/hint",           "/api/load",         "/api/move",           "/api/new",
        "/api/openings/games", "/api/puzzle/check", "/api/puzzle/try",     "/api/record/games",
        "/api/stop",           "/api/undo"};
    static const std::vector<std::string> kKeys = {
        "session", "game",  "level", "human",        "position", "move",   "moves",  "ply",
        "pgn",     "index", "id",    "best",         "player",   "visits", "rating", "clock",
        "texts",   "games", "side",  "moves_played", "lang",     "count"};
    static const std::vector<std::string> kLanguages = {"kk", "ru", "ky", "en", "zz", ""};
    ApiRequest r;
    nlohmann::json fields = nlohmann::json::object();
    const int keys = pick(6);
    for (int i = 0; i < keys; ++i) fields[kKeys[pick(int(kKeys.size()))]] = value();
    if (!sessions_.empty() && pick(2) == 0)
      fields["session"] = sessions_[pick(int(sessions_.size()))];
    r.accept_language = kLanguages[pick(int(kLanguages.size()))];
    if (pick(3) == 0) {
      r.method = "GET";
      r.path = kGets[pick(int(kGets.size()))];
      // A query's parameters are strings, as a URL carries them.
      for (auto& [key, v] : fields.items())
        r.params[key] = v.is_string() ? v.get<std::string>() : v.dump();
    } else {
      r.method = "POST";
      r.path = kPosts[pick(int(kPosts.size()))];
      r.body = fields.dump();
      if (pick(10) == 0) r.body.resize(size_t(pick(int(r.body.size()) + 1)));  // cut short
    }
    return r;
  }

  // The sessions the answers named, the last few kept, so that calls go on with them.
  void saw(const nlohmann::json& answer) {
    if (!answer.is_object() || !answer.contains("session") || !answer["session"].is_string())
      return;
    sessions_.push_back(answer["session"].get<std::string>());
    if (sessions_.size() > 6) sessions_.erase(sessions_.begin());
  }

 private:
  int pick(int n) { return int(rng_() % uint64_t(n)); }

  nlohmann::json value() {
    switch (pick(13)) {
      case 0:
        return pick(205) - 5;
      case 1: {
        static const char* const games[] = {
            "togyz",       "kalah",           "bantumi", "kalah:6,4",
            "kalah:99,99", "kalah:1,1,empty", "chess",   ""};
        return games[pick(8)];
      }
      case 2: {
        static const char* const levels[] = {"beginner", "easy", "medium", "hard", "expert",
                                             "perfect",  "1200", "99999",  "-1"};
        return levels[pick(9)];
      }
      case 3: {
        static const char* const sides[] = {"white", "black", "both", "none", "south"};
        return sides[pick(5)];
      }
      case 4:
        return "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 - - w";
      case 5: {
        const std::string pgn = kPgn;
        switch (pick(4)) {
          case 0:
            return pgn;
          case 1:
            return pgn.substr(0, size_t(pick(int(pgn.size()))));
          case 2:
            return pgn + pgn + pgn;
          default:
            return std::string("garbage");
        }
      }
      case 6:
        return double(rng_()) * 1e-7;
      case 7:
        return nullptr;
      case 8:
        return nlohmann::json::array({1, 2, "x"});
      case 9:
        return nlohmann::json{{"a", 1}};
      case 10:
        return "7 7 7 7";
      case 11: {
        std::string text;  // letters of several scripts, a control character or two
        for (int i = pick(30); i > 0; --i) {
          const int c = 1 + pick(0x4ff);
          if (c < 0x80)
            text += char(c);
          else if (c < 0x800)
            text += {char(0xc0 | (c >> 6)), char(0x80 | (c & 0x3f))};
        }
        return text;
      }
      default:
        return pick(2) == 0;
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::string> sessions_;
};

TEST(ServeRandomRequests, EveryAnswerIsJsonAndNoneIsAnUnexpectedError) {
  ServeApiOptions options;
  options.max_sessions = 4;
  options.engine.no_threads = true;  // the jobs run between the calls, as in the page
  ServeApi api(options, [](Task, const GameSpec&, Level) { return rollout_player(20); });
  ApiRouter router;
  api.routes(router);
  api.start();
  RandomRequests requests(20261207);
  std::map<int, int> statuses;
  for (int i = 0; i < 20000; ++i) {
    const ApiRequest request = requests.next();
    const std::string what = request.method + " " + request.path + " " + request.body +
                             (request.params.empty() ? "" : " " + request.params.dump());
    ApiResponse answer;
    try {
      answer = router.answer(request);
    } catch (const std::exception& e) {  // the router answers everything: nothing may escape
      FAIL() << e.what() << " escaped the router, for "
             << nlohmann::json(what).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    }
    ++statuses[answer.status];
    // 503: the engine is full (its sessions) or has no model for the call, said in words.
    ASSERT_TRUE(answer.status < 500 || answer.status == 503) << what << "\n" << answer.body;
    if (request.path.rfind("/api/lang", 0) == 0 && answer.status == 200) continue;  // a catalog
    const nlohmann::json body = nlohmann::json::parse(answer.body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << what << "\n" << answer.body;
    if (answer.status >= 400) {
      ASSERT_TRUE(body.contains("error") && body["error"].is_string()) << what << "\n"
                                                                       << answer.body;
      EXPECT_FALSE(body["error"].get<std::string>().empty()) << what;
    }
    requests.saw(body);
    if (i % 7 == 0) api.work();  // one queued job (a move, a hint, a ply of an analysis)
  }
  api.stop();
  // The requests reached the calls' own checks and answers, not only the router's.
  EXPECT_GT(statuses[200], 1000);
  EXPECT_GT(statuses[400], 1000);
  std::string seen;
  for (const auto& [status, count] : statuses)
    seen += std::to_string(status) + ": " + std::to_string(count) + "  ";
  std::cout << "statuses " << seen << "\n";
}

}  // namespace
}  // namespace kz::cli::serve
