#include "nn/mcts_engine.h"

#include <torch/torch.h>

#include <algorithm>
#include <thread>

#include "nn/nn_evaluator.h"

namespace kz {

namespace {

// A Player that forwards to an MctsPlayer but fills in the level's default limit when
// the caller gives none (the play loop asks without limits).
class LevelMctsPlayer : public Player {
 public:
  LevelMctsPlayer(std::shared_ptr<Evaluator> eval, const MctsPlayerOptions& o, double movetime)
      : inner_(std::move(eval), o), movetime_(movetime), label_(o.label) {}
  std::string name() const override { return label_; }
  void new_game() override { inner_.new_game(); }
  void set_progress_callback(ProgressCallback cb) override {
    inner_.set_progress_callback(std::move(cb));
  }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    ThinkLimits l = limits;
    if (l.nodes <= 0 && l.movetime_s <= 0 && movetime_ > 0) l.movetime_s = movetime_;
    return inner_.think(pos, l);
  }

 private:
  MctsPlayer inner_;
  double movetime_;
  std::string label_;
};

}  // namespace

MctsPlayerOptions mcts_level_options(const GameSpec& spec, Level level, double time_scale,
                                     uint64_t seed) {
  MctsPlayerOptions o;
  o.seed = seed;
  o.params.leaves_per_batch = 16;
  o.params.margin_utility = 0.05f;
  o.params.margin_scale = spec.is_togyz() ? 20.f : 8.f;
  o.max_batch = 64;
  o.cache_entries = 1 << 18;
  // Below expert the visits are fixed, so strength does not depend on the machine.
  switch (level) {
    case Level::kExpert:
    case Level::kPerfect:  // only reached through `Engine mcts`: the MCTS expert, unsolved
      o.visits = 0;
      break;  // time-limited (see movetime below)
    case Level::kHard:
      // Togyz: at 400 visits the network scored only 62 % against alpha-beta medium
      // (docs/levels.md); 1000 visits is still a tenth of expert's.
      o.visits = std::max<int64_t>(16, int64_t((spec.is_togyz() ? 1000 : 400) * time_scale));
      break;
    case Level::kMedium:
      o.visits = std::max<int64_t>(8, int64_t(100 * time_scale));
      break;
    default:
      o.visits = std::max<int64_t>(4, int64_t(24 * time_scale));
      break;
  }
  o.label = std::string("mcts-") + level_name(level);
  return o;
}

std::unique_ptr<Player> make_mcts_level_player(const MctsRequest& r) {
  // More LibTorch threads than cores only slows every network call (at Threads 255 on
  // two cores one batch took seconds, and `stop` waited for it), so the core count caps it.
  // Threads T >= 2: the tree thread and the network overlap (two batches of the one
  // tree in flight, MctsPlayerOptions::pipelined) and the network gets T - 1 threads of
  // its own. Giving LibTorch all T threads instead made one search 48x slower on two
  // cores as soon as another process ran: its intra-op threads wait on each other,
  // while the pipeline's two threads never wait for a core that is not theirs.
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::clamp(r.threads, 1, cores);
  torch::set_num_threads(std::max(1, threads - 1));
  Model model = load_model(r.model_path, &r.spec);
  auto eval = std::make_shared<NnEvaluator>(std::move(model));
  MctsPlayerOptions o = mcts_level_options(r.spec, r.level, r.time_scale, r.seed);
  o.pipelined = threads >= 2;
  const double movetime = r.level >= Level::kExpert ? 1.0 * r.time_scale : 0.0;
  if (o.visits == 0) o.visits = int64_t(1) << 40;
  return std::make_unique<LevelMctsPlayer>(eval, o, movetime);
}

void register_mcts_engine() {
  set_mcts_player_factory(make_mcts_level_player);
}

}  // namespace kz
