// kz-forward-speed: how many positions a second the network evaluates through the
// evaluator play uses (features, forward, outputs), on one thread, in batches: the same
// program in the player's build and in the WebAssembly build, so that the two forwards
// are compared side by side (tools/wasm/speed.sh, docs/browser.md). The full build's
// `kumalak bench --peak` measures more (each kernel against the CPU's peak) but needs
// LibTorch.
//   kz-forward-speed MODEL [SECONDS] [BATCH]     e.g. models/togyz.pt 3 64
// Prints one line: "<evals/s> positions/s, batch B, precision P".
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "core/position.h"
#include "nn/folded_network.h"
#include "nn/model_evaluator.h"
#include "nn/model_header.h"
#include "nn/plain_model.h"
#include "tools/command_error.h"

int main(int argc, char** argv) {
  using namespace kz;
  if (argc < 2 || argc > 4) {
    std::cerr << "usage: kz-forward-speed MODEL [SECONDS] [BATCH]\n";
    return 2;
  }
  try {
    const std::string model = argv[1];
    const double seconds = argc > 2 ? std::stod(argv[2]) : 3.0;
    const int batch = argc > 3 ? std::stoi(argv[3]) : 64;
    if (!(seconds > 0 && seconds <= 600) || batch < 1 || batch > 1024)
      throw std::invalid_argument("SECONDS must be in (0, 600] and BATCH in 1..1024");
    const GameSpec spec = GameSpec::parse(load_plain_model(model).meta.game);
    auto evaluator = load_model_evaluator(spec, model, 1);
    // Positions of a real game's opening: random legal moves from the start, a fixed seed.
    std::mt19937 rng(7);
    std::vector<Position> positions;
    while (int(positions.size()) < batch) {
      Position p = Position::start(spec);
      for (int ply = int(rng() % 40); ply > 0 && !p.is_over(); --ply)
        p.play(random_legal_move(p, rng));
      if (!p.is_over()) positions.push_back(p);
    }
    std::vector<EvalOutput> out(positions.size());
    evaluator->evaluate(positions, out);  // the kernels made, the memory touched
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    long evaluated = 0;
    double elapsed = 0;
    while (elapsed < seconds) {
      evaluator->evaluate(positions, out);
      evaluated += batch;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    std::cout << long(evaluated / elapsed) << " positions/s, batch " << batch << ", precision "
              << to_string(default_inference_precision()) << std::endl;
    return 0;
  } catch (const std::exception& e) {
    kz::cli::print_command_error("kz-forward-speed", e);
    return 1;
  }
}
