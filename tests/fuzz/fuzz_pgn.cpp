// Fuzz target: the PGN reader (read_pgn) and the replay of every game it finds
// (replay_record), with the FEN tag as `kumalak replay` uses it. Seeds: the tests'
// records and ../shared/data/togyz (tools/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/notation.h"

using namespace kz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<GameRecord> games;
  try {
    games = read_pgn(in, "fuzz.pgn");
  } catch (const ParseError&) {
    return 0;
  }
  for (const GameRecord& g : games) {
    for (const GameSpec& spec : {GameSpec::togyz(), GameSpec::kalah(6, 4)}) {
      try {
        Position start = Position::start(spec);
        if (auto fen = g.tag("FEN"); !fen.empty()) start = Position::parse(fen, spec);
        const ReplayResult r = replay_record(g, start);
        // What was replayed can be written and read back.
        std::istringstream back(write_pgn(g.tags, start, r.moves));
        const auto again = read_pgn(back, "again.pgn");
        if (again.empty()) __builtin_trap();
      } catch (const ParseError&) {
      }
    }
  }
  return 0;
}
