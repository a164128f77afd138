#include "tools/serve/network_fronts.h"

#include <random>

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

// A level's player whose searches go through a shared front: it leaves the front when
// a think() ends, however it ends (done, stopped, or the network threw).
class NetworkPlayer : public Player {
 public:
  NetworkPlayer(std::unique_ptr<Player> inner, std::shared_ptr<FrontClient> client)
      : inner_(std::move(inner)), client_(std::move(client)) {}
  std::string name() const override { return inner_->name(); }
  void new_game() override { inner_->new_game(); }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    struct Leave {
      FrontClient& client;
      ~Leave() { client.leave(); }
    } leave{*client_};
    return inner_->think(pos, limits);
  }
  void set_progress_callback(ProgressCallback cb) override {
    inner_->set_progress_callback(std::move(cb));
  }

 private:
  std::unique_ptr<Player> inner_;
  std::shared_ptr<FrontClient> client_;
};

}  // namespace

LevelEngines::LevelEngines(EvaluatorFactory network, int max_batch, size_t cache_entries)
    : network_(std::move(network)), max_batch_(max_batch), cache_entries_(cache_entries) {}

std::shared_ptr<SharedNetwork> LevelEngines::network_for(const GameSpec& spec,
                                                         const std::string& model_path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = networks_[spec.name() + "\n" + model_path];
  // One LibTorch thread: the front's collector is the network's only caller, and the
  // searches' tree work needs the other cores.
  if (!slot) slot = std::make_shared<SharedNetwork>(network_(spec, model_path, 1), max_batch_);
  return slot;
}

PlayerFactory LevelEngines::factory() {
  return [this](Task task, const GameSpec& spec, Level level) -> std::unique_ptr<Player> {
    LevelPlayerOptions lo;
    lo.seed = std::random_device{}();  // the low levels' noise differs from game to game
    lo.mcts_cache_entries = cache_entries_;
    std::shared_ptr<FrontClient> client;
    if (network_)
      lo.network = [this, &client](const GameSpec& s, const std::string& model_path,
                                   int) -> std::shared_ptr<Evaluator> {
        client = std::make_shared<FrontClient>(network_for(s, model_path));
        return client;
      };
    std::unique_ptr<Player> player =
        task == Task::kMove
            ? make_level_player(spec, level, "", lo)
            : make_analysis_player(spec, level, "", task == Task::kHint ? 3 : 0, lo);
    if (!client) return player;
    return std::make_unique<NetworkPlayer>(std::move(player), std::move(client));
  };
}

bool LevelEngines::uses_network(Task, const GameSpec& spec, Level level) const {
  if (!network_ || !level_spec(spec, level).network) return false;
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
