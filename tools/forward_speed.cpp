// kz-forward-speed: how many positions a second the network evaluates through the
// evaluator play uses (features, forward, outputs), on one thread, in batches: the same
// program in the player's build and in the WebAssembly build, so that the two forwards
// are compared side by side (tools/wasm/speed.sh, docs/browser.md), each also against its
// own build's measured fp32 peak (nn/cpu_peak.h: the widest fp32 multiply-adds the build
// can run), so that the two forwards' distances from what their instructions allow are
// compared too. The full build's
// `kumalak bench --peak` measures more (each kernel against the CPU's peak) but needs
// LibTorch.
//   kz-forward-speed MODEL [SECONDS] [BATCH]     e.g. models/togyz.pt 3 64
// Prints one line: "<evals/s> positions/s, batch B, precision P, <G> GFLOP/s, <F> of the
// <isa> peak <P> GFLOP/s" (the last part "no peak measured" on a CPU without one); for
// the portable forward's integer path (KUMALAK_PRECISION=int8 in the WebAssembly build,
// or with KUMALAK_BACKEND=portable natively) GOP/s against the i16 dot product's peak.
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/position.h"
#include "nn/cpu_peak.h"
#include "nn/folded_network.h"
#include "nn/model_evaluator.h"
#include "nn/model_header.h"
#include "nn/network_evaluator.h"
#include "nn/network_flops.h"
#include "nn/onednn_network.h"
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
    const ModelMetadata meta = load_plain_model(model).meta;
    const GameSpec spec = GameSpec::parse(meta.game);
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
    const double rate = double(evaluated) / elapsed;
    const auto* network = dynamic_cast<const NetworkEvaluator*>(evaluator.get());
    const InferencePrecision precision =
        network ? network->network().precision()
                : resolve_inference_precision(default_inference_precision());
    // The portable forward's integer path (nn/portable_int_convolution.h) is set against
    // the i16 dot product's peak, the instructions it runs on, in integer operations.
    const bool integer = network && precision == InferencePrecision::kInt8 &&
                         network->network().implementation() == "portable";
    const char* unit = integer ? "GOP/s" : "GFLOP/s";
    const double gflops =
        rate * double(forward_flops_per_position(meta.network, 2 * spec.pits)) / 1e9;
    // After the forward's timing, so that it does not warm or heat the core for it. Else
    // always the fp32 peak: a bf16 forward may run on AMX tiles, whose peak no loop here
    // measures, and may then pass it.
    const PeakMeasurement peak = integer ? measure_i16_dot_peak(1.0) : measure_fp32_peak(1.0);
    std::ostringstream line;
    line << long(rate) << " positions/s, batch " << batch << ", precision " << to_string(precision)
         << ", " << std::fixed << std::setprecision(1) << gflops << " " << unit << ", ";
    if (peak.isa.empty())
      line << "no peak measured";
    else
      line << std::setprecision(3) << gflops / peak.gflops << " of the " << peak.isa << " peak "
           << std::setprecision(1) << peak.gflops << " " << unit;
    std::cout << line.str() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    kz::cli::print_command_error("kz-forward-speed", e);
    return 1;
  }
}
