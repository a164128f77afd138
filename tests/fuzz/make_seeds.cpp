// Writes the seed inputs that cannot be kept as text beside the targets: a valid shard
// of a few random Togyz and Kalah games, for fuzz_shard, or with --openings an opening
// explorer of random games, for fuzz_openings. tools/fuzz.sh runs it into
// build-fuzz/seeds/<target>/ before fuzzing. Usage: kz_fuzz_make_seeds [--openings] DIR
#include <cstdio>
#include <random>

#include "core/opening_explorer.h"
#include "tests/train_test_util.h"
#include "train/shard.h"

int main(int argc, char** argv) {
  const bool openings = argc == 3 && std::string(argv[1]) == "--openings";
  if (argc != 2 && !openings) {
    std::fprintf(stderr, "usage: %s [--openings] DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[argc - 1];
  std::mt19937_64 rng(14);
  int n = 0;
  if (openings) {
    // Twelve random games of 8 plies, so that the start position's moves carry counts of
    // several sources; every position is kept.
    for (const kz::GameSpec& spec : {kz::GameSpec::togyz(), kz::GameSpec::kalah(3, 2)}) {
      kz::OpeningTreeBuilder builder(spec, 8, 1);
      for (int g = 0; g < 12; ++g) {
        kz::Position p = kz::Position::start(spec);
        std::vector<int> moves;
        for (int ply = 0; ply < 8 && !p.is_over(); ++ply) {
          moves.push_back(kz::random_legal_move(p, rng));
          p.play(moves.back());
        }
        const auto bucket = kz::ExplorerBucket(g % kz::kExplorerBuckets);
        builder.add_game(kz::Position::start(spec), moves, kz::Outcome(int(g % 4) - 1),
                         {bucket, kz::ExplorerBucket::kTitled}, {1000 + 100 * g, 0});
      }
      builder.finish("{\"seed\":true}").write(dir + "/seed" + std::to_string(n++) + ".kzo");
    }
    return 0;
  }
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
