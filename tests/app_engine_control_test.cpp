// The engine the protocol drives (tools/engine_control.h), in-process: a go answers with
// one bestmove of a legal move after its info lines, the game and the settings it keeps,
// and the refusals of a level named by a rating where there is no human model.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "tools/engine_control.h"

namespace kz::cli {
namespace {

// The lines an EngineControl emits, from its search thread.
class Lines {
 public:
  EngineControl::Emit emit() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(line);
    };
  }
  std::vector<std::string> get() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }
  // Waits (at most a minute) for the line that ends a go.
  std::string bestmove() {
    for (int i = 0; i < 6000; ++i) {
      for (const std::string& line : get())
        if (line.starts_with("bestmove")) return line;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "";
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

TEST(EngineControl, AGoEndsWithOneLegalBestmove) {
  Lines lines;
  EngineControl engine(GameSpec::togyz(), Level::kEasy, nullptr, lines.emit());
  EXPECT_EQ(engine.level_text(), "easy");
  EXPECT_EQ(engine.position().to_string(), Position::start(GameSpec::togyz()).to_string());
  ThinkLimits limits;
  limits.nodes = 200;
  engine.go(limits, false);
  const std::string best = lines.bestmove();
  engine.finish();
  ASSERT_TRUE(best.starts_with("bestmove ")) << best;
  const int pit = std::stoi(best.substr(9)) - 1;  // 1-based
  EXPECT_TRUE(engine.position().is_legal(pit)) << best;
  int bestmoves = 0;
  for (const std::string& line : lines.get()) bestmoves += line.starts_with("bestmove");
  EXPECT_EQ(bestmoves, 1);
  EXPECT_TRUE(lines.get().front().starts_with("info ")) << lines.get().front();
}

TEST(EngineControl, ARatingLevelNeedsAHumanModel) {
  Lines lines;
  EngineControl engine(GameSpec::togyz(), Level::kExpert, nullptr, lines.emit());
  EXPECT_FALSE(engine.rating_range().has_value());
  EXPECT_THROW(engine.set_level_rating(1400), ParseError);
  EXPECT_EQ(engine.level_text(), "expert");
  EXPECT_EQ(EngineControl::default_rating({800, 2200}), 1500);
  EXPECT_EQ(EngineControl::default_rating({1000, 1950}), 1400);
}

}  // namespace
}  // namespace kz::cli
