// Writes the seed inputs that cannot be kept as text beside the targets: a valid shard
// of a few random Togyz and Kalah games, for fuzz_shard. tools/fuzz.sh runs it into
// build-fuzz/seeds/fuzz_shard/ before fuzzing. Usage: kz_fuzz_make_seeds DIR
#include <cstdio>
#include <random>

#include "tests/train_test_util.h"
#include "train/shard.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::mt19937_64 rng(14);
  int n = 0;
  for (const kz::GameSpec& spec : {kz::GameSpec::togyz(), kz::GameSpec::kalah(3, 2)}) {
    kz::ShardWriter writer(spec, 3, "seed.pt", "fuzz-seed");
    for (int g = 0; g < 2; ++g) {
      auto game = kz::test::random_game(spec, rng, uint32_t(g), 12);
      writer.add_game(game.rows, game.outcome, game.white_margin, game.length);
    }
    writer.write(dir + "/seed" + std::to_string(n++) + ".kzshard");
  }
  return 0;
}
