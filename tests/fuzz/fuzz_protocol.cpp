// Fuzz target: the engine protocol's command handler (tools/engine_protocol.cpp), fed the
// input as lines. Searches are kept short and sizes small, so that the fuzzer spends
// its time in the parsing: every `go` becomes `go depth 2`, and options that allocate
// or load (Hash, Threads, Model) are left out; the number parsing they use is the
// shared one (core/numbers.h), which the other targets and the tests reach. The levels
// named by a rating get a stub in place of the human model (LibTorch is not linked
// here): Togyz has the range 800..2200 and its "human" plays the lowest legal hole.
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <string>

#include "tools/commands.h"
#include "tools/engine_control.h"

namespace {
class LowestHolePlayer : public kz::Player {
 public:
  std::string name() const override { return "stub-human"; }
  kz::ThinkResult think(const kz::Position& pos, const kz::ThinkLimits&) override {
    kz::ThinkResult r;
    if (const uint32_t legal = pos.legal_mask()) r.best_move = __builtin_ctz(legal);
    return r;
  }
};
class StubRatingLevels : public kz::RatingLevels {
 public:
  std::optional<kz::RatingRange> range(const kz::GameSpec& spec) override {
    if (!spec.is_togyz()) return std::nullopt;
    return kz::RatingRange{800, 2200};
  }
  std::string expected_model(const kz::GameSpec&) override { return "a stub"; }
  std::unique_ptr<kz::Player> player(const kz::GameSpec&, int, uint64_t) override {
    return std::make_unique<LowestHolePlayer>();
  }
  std::vector<kz::HumanMove> moves(const kz::GameSpec&, const kz::Position&, int) override {
    return {};
  }
  std::array<std::optional<kz::PlayedLike>, 2> played_like(const kz::GameSpec&, const kz::Position&,
                                                           std::span<const int>) override {
    return {};
  }
};

struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
};
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static NullBuffer null;
  static auto* quiet = std::cout.rdbuf(&null);  // answers are not what is tested
  (void)quiet;
  std::istringstream raw(std::string(reinterpret_cast<const char*>(data), size));
  std::string commands;
  int lines = 0;
  for (std::string line; std::getline(raw, line) && lines < 64; ++lines) {
    const std::string l = lower(line);
    if (l.find("hash") != std::string::npos || l.find("threads") != std::string::npos ||
        l.find("model") != std::string::npos || l.find("movetime") != std::string::npos)
      continue;
    const size_t first = l.find_first_not_of(" \t");
    if (first != std::string::npos && l.compare(first, 2, "go") == 0) line = "go depth 2";
    commands += line + "\n";
  }
  std::istringstream in(commands);
  kz::cli::run_engine_protocol(in, "kalah:4,3", "beginner", nullptr,
                               std::make_shared<StubRatingLevels>());
  return 0;
}
