#include "tools/serve/network_fronts.h"

#include <random>

#include "mcts/mcts_player.h"

namespace kz::cli::serve {

void FrontClient::evaluate(std::span<const Position> positions, std::span<EvalOutput> out) {
  if (!joined_) {
    network_->front().client_joined();
    joined_ = true;
  }
  network_->front().evaluate(positions, out);
}

void FrontClient::leave() {
  if (!joined_) return;
  joined_ = false;
  network_->front().client_done();
}

namespace {

// The network MCTS of a level, its searches through a shared front: the level's time
// when the caller gives no limit (expert), and it leaves the front when a think() ends,
// however it ends (done, stopped, or the network threw). `client` null: `evaluator` is
// the network itself (no fronts).
class NetworkLevelPlayer : public Player {
 public:
  NetworkLevelPlayer(std::shared_ptr<Evaluator> evaluator, std::shared_ptr<FrontClient> client,
                     const MctsPlayerOptions& options, double movetime_s)
      : client_(std::move(client)),
        inner_(std::move(evaluator), options),
        movetime_s_(movetime_s),
        label_(options.label) {}
  std::string name() const override { return label_; }
  void new_game() override { inner_.new_game(); }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    struct Leave {
      FrontClient* client;
      ~Leave() {
        if (client) client->leave();
      }
    } leave{client_.get()};
    ThinkLimits l = limits;
    if (l.nodes <= 0 && l.movetime_s <= 0 && movetime_s_ > 0) l.movetime_s = movetime_s_;
    return inner_.think(pos, l);
  }
  void set_progress_callback(ProgressCallback cb) override {
    inner_.set_progress_callback(std::move(cb));
  }

 private:
  std::shared_ptr<FrontClient> client_;
  MctsPlayer inner_;
  double movetime_s_;
  std::string label_;
};

}  // namespace

LevelEngines::LevelEngines(EvaluatorFactory network, int max_batch, size_t cache_entries,
                           std::chrono::microseconds max_wait, bool shared_fronts)
    : network_(std::move(network)),
      max_batch_(max_batch),
      cache_entries_(cache_entries),
      max_wait_(max_wait),
      shared_fronts_(shared_fronts) {}

std::shared_ptr<SharedNetwork> LevelEngines::network_for(const GameSpec& spec,
                                                         const std::string& model_path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = networks_[spec.name() + "\n" + model_path];
  // One LibTorch thread: the front's collector is the network's only caller, and the
  // searches' tree work needs the other cores.
  if (!slot)
    slot = std::make_shared<SharedNetwork>(network_(spec, model_path, 1), max_batch_, max_wait_);
  return slot;
}

std::shared_ptr<Evaluator> LevelEngines::direct_network(const GameSpec& spec,
                                                        const std::string& model_path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = direct_[spec.name() + "\n" + model_path];
  if (!slot) slot = network_(spec, model_path, 1);
  return slot;
}

void LevelEngines::preload(const std::vector<GameSpec>& games) {
  if (!network_) return;
  for (const GameSpec& spec : games) {
    const std::string model = shipped_model_path(spec);
    if (model.empty()) continue;
    std::shared_ptr<SharedNetwork> shared = shared_fronts_ ? network_for(spec, model) : nullptr;
    const std::shared_ptr<Evaluator> direct = shared ? nullptr : direct_network(spec, model);
    Evaluator& net = shared ? shared->front() : *direct;
    std::vector<Position> positions(64, Position::start(spec));
    std::vector<EvalOutput> out(positions.size());
    for (size_t n = 1; n <= positions.size(); n += n < 16 ? n : 16)
      net.evaluate(std::span<const Position>(positions).first(n),
                   std::span<EvalOutput>(out).first(n));
  }
}

PlayerFactory LevelEngines::factory() {
  return [this](Task task, const GameSpec& spec, Level level) -> std::unique_ptr<Player> {
    const uint64_t seed = std::random_device{}();  // the low levels' noise differs by game
    if (uses_network(task, spec, level)) {
      MctsPlayerOptions o = mcts_level_options(spec, level, 1.0, seed);
      o.cache_entries = cache_entries_;
      const double movetime_s = level_spec(spec, level).mcts_movetime_s;
      const std::string model = shipped_model_path(spec);
      if (!shared_fronts_)
        return std::make_unique<NetworkLevelPlayer>(direct_network(spec, model), nullptr, o,
                                                    movetime_s);
      auto client = std::make_shared<FrontClient>(network_for(spec, model));
      return std::make_unique<NetworkLevelPlayer>(client, client, o, movetime_s);
    }
    LevelPlayerOptions lo;
    lo.seed = seed;
    lo.network = network_;
    if (task == Task::kMove) return make_level_player(spec, level, "", lo);
    return make_analysis_player(spec, level, "", task == Task::kHint ? 3 : 0, lo);
  };
}

bool LevelEngines::uses_network(Task task, const GameSpec& spec, Level level) const {
  if (!network_ || level == Level::kPerfect || !level_spec(spec, level).network) return false;
  // Kalah's expert, and its hard for hints and analysis, try the solver first
  // (make_level_player, make_analysis_player): those stay the levels' own players.
  if (!spec.is_togyz() && (level == Level::kExpert || task != Task::kMove)) return false;
  return !shipped_model_path(spec).empty();
}

FrontStats LevelEngines::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  FrontStats s;
  for (const auto& [key, net] : networks_) {
    ++s.networks;
    s.batches += net->front().batches();
    s.evaluated += net->front().evaluated();
  }
  return s;
}

}  // namespace kz::cli::serve
