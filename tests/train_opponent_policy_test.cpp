// The opponent-policy head ([network] opponent_policy_head, [train]
// opponent_policy_weight; KataGo's auxiliary target): which row a sampled row's target
// comes from (ReplayBuffer::next_row), what the target is (opponent_policy_target), the
// config keys, and training with the head from a model without it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "nn/model_file.h"
#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/config.h"
#include "train/replay_buffer.h"
#include "train/trainer.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

// One game's rows, as self-play writes them, from the start position: a row for each
// ply in `plies` (increasing; a ply twice = a surprise-weighting copy, a ply left out =
// a row written zero times). Row k's policy is all on one move and marks the row
// (visits = 100 + its ply). `fast` plies are fast-search rows (no policy target).
std::vector<ShardRow> game_rows(const GameSpec& spec, const std::vector<int>& plies,
                                const std::vector<int>& fast = {}) {
  std::vector<ShardRow> rows;
  Position p = Position::start(spec);
  int ply = 0;
  for (int want : plies) {
    while (ply < want) {  // play the first legal move up to the wanted ply
      p.play(__builtin_ctz(p.legal_mask()));
      ++ply;
    }
    EXPECT_FALSE(p.is_over());
    ShardRow r;
    r.pos = p;
    r.ply = uint16_t(ply);
    r.visits = 100 + uint32_t(ply);
    const int move = __builtin_ctz(p.legal_mask());
    r.played_move = int8_t(move);
    const bool is_fast = std::find(fast.begin(), fast.end(), ply) != fast.end();
    if (!is_fast) {
      r.flags = ShardRow::kRowFullSearch;
      // A policy that is not the played move: the target must be the policy.
      std::array<uint32_t, kMaxMoves> counts{};
      for (int i = 0; i < spec.pits; ++i)
        if (p.is_legal(i)) counts[size_t(i)] = 1 + uint32_t(i);
      r.set_policy_from_visits(counts);
    }
    rows.push_back(r);
  }
  return rows;
}

ReplayBuffer load_shard(const GameSpec& spec, const std::string& dir) {
  ReplayConfig rc;
  rc.game = spec;
  ReplayBuffer buffer(rc);
  buffer.load(dir);
  return buffer;
}

// Game 0: plies 4, 5 (three copies), 6, 8 (7 written zero times), 9 fast, 10 (its last
// row). Game 1: plies 0, 1. Each row's next row is the first row of the next ply.
TEST(OpponentPolicy, NextRowIsTheNextPlyOfTheSameGame) {
  const GameSpec spec = GameSpec::togyz();
  const std::string dir = test::temp_dir("kz-opp");
  ShardWriter w(spec, 0);
  w.add_game(game_rows(spec, {4, 5, 5, 5, 6, 8, 9, 10}, {9}), Outcome::kDraw, 0);
  w.add_game(game_rows(spec, {0, 1}), Outcome::kDraw, 0);
  w.write(dir + "/a.kzshard");
  const ReplayBuffer buffer = load_shard(spec, dir);
  ASSERT_EQ(buffer.size(), 10u);
  // The window keeps shard order: index = row of the shard.
  for (size_t i = 0; i < buffer.size(); ++i) EXPECT_EQ(buffer.row(i).game_id, i < 8 ? 0u : 1u);
  auto next_index = [&](size_t i) -> int {
    const ShardRow* n = buffer.next_row(i);
    for (size_t k = 0; k < buffer.size(); ++k)
      if (n == &buffer.row(k)) return int(k);
    return n ? -2 : -1;  // -2: a row that is not in the window (must not happen)
  };
  EXPECT_EQ(next_index(0), 1);  // ply 4 -> the first copy of ply 5
  EXPECT_EQ(next_index(1), 4);  // each copy of ply 5 -> ply 6
  EXPECT_EQ(next_index(2), 4);
  EXPECT_EQ(next_index(3), 4);
  EXPECT_EQ(next_index(4), -1);  // ply 6: ply 7 has no row
  EXPECT_EQ(next_index(5), 6);   // ply 8 -> ply 9 (a fast row)
  EXPECT_EQ(next_index(6), 7);
  EXPECT_EQ(next_index(7), -1);  // the game's last row
  EXPECT_EQ(next_index(8), 9);   // game 1
  EXPECT_EQ(next_index(9), -1);
  fs::remove_all(dir);
}

TEST(OpponentPolicy, TargetIsTheNextRowsPolicyOrPlayedMove) {
  const GameSpec spec = GameSpec::togyz();
  const int m = spec.pits;
  const std::vector<ShardRow> rows = game_rows(spec, {4, 5, 6, 7}, {6});
  // Full-search next row: its policy, on the opponent's cells (m..2m-1) of the ring.
  const OpponentPolicyTarget full = opponent_policy_target(rows[0], &rows[1]);
  EXPECT_EQ(full.weight, 1.f);
  float sum = 0;
  for (int k = 0; k < 2 * m; ++k) {
    const float want = k >= m ? rows[1].policy[size_t(k - m)] : 0.f;
    EXPECT_EQ(full.policy[size_t(k)], want) << k;
    sum += full.policy[size_t(k)];
  }
  EXPECT_NEAR(sum, 1, 1e-6);
  EXPECT_NE(rows[1].policy[size_t(rows[1].played_move)], 1.f);  // policy, not the move
  // Fast-search next row: the one-hot of the move it played.
  const OpponentPolicyTarget fast = opponent_policy_target(rows[1], &rows[2]);
  EXPECT_EQ(fast.weight, 1.f);
  for (int k = 0; k < 2 * m; ++k)
    EXPECT_EQ(fast.policy[size_t(k)], k == m + rows[2].played_move ? 1.f : 0.f) << k;
  // No next position, or one without a recorded move: weight 0, no target.
  for (const OpponentPolicyTarget& t : {opponent_policy_target(rows[3], nullptr), [&] {
                                          ShardRow unknown = rows[2];
                                          unknown.played_move = -1;
                                          return opponent_policy_target(rows[1], &unknown);
                                        }()}) {
    EXPECT_EQ(t.weight, 0.f);
    for (float v : t.policy) EXPECT_EQ(v, 0.f);
  }
}

// Kalah: a move that ends in the store moves again, so the "reply" is the mover's own
// next move, on the mover's cells 0..m-1.
TEST(OpponentPolicy, AnExtraTurnIsOnTheMoversOwnCells) {
  const GameSpec spec = GameSpec::parse("kalah");
  ShardRow first;
  first.pos = Position::start(spec);
  first.played_move = 2;  // 4 stones from the third pit: the last lands in the store
  ShardRow second;
  second.pos = first.pos;
  second.pos.play(2);
  ASSERT_EQ(second.pos.to_move, first.pos.to_move);
  second.played_move = 0;
  const OpponentPolicyTarget t = opponent_policy_target(first, &second);
  EXPECT_EQ(t.weight, 1.f);
  for (int k = 0; k < 2 * spec.pits; ++k) EXPECT_EQ(t.policy[size_t(k)], k == 0 ? 1.f : 0.f);
}

TEST(OpponentPolicy, ConfigKeys) {
  const RunConfig plain = parse_config("", "t.toml");
  EXPECT_FALSE(plain.network.opponent_policy_head);
  EXPECT_EQ(plain.train.opponent_policy_weight, 0.15f);
  const RunConfig on = parse_config(
      "[network]\nopponent_policy_head = true\n[train]\nopponent_policy_weight = 0.3\n", "t.toml");
  EXPECT_TRUE(on.network.opponent_policy_head);
  EXPECT_EQ(on.train.opponent_policy_weight, 0.3f);
  auto error = [](const std::string& text) {
    try {
      parse_config(text, "t.toml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string not_bool = error("[network]\nopponent_policy_head = 1\n");
  EXPECT_NE(not_bool.find("t.toml:2"), std::string::npos) << not_bool;
  EXPECT_NE(not_bool.find("opponent_policy_head"), std::string::npos) << not_bool;
  const std::string negative = error("[train]\nopponent_policy_weight = -0.1\n");
  EXPECT_NE(negative.find("t.toml:2"), std::string::npos) << negative;
  EXPECT_NE(negative.find("outside"), std::string::npos) << negative;
}

// Training with the head from a model without it (as `--init models/togyz.pt`): the
// head starts fresh, the rest is the model's; the head's loss is trained and reported;
// the trained model has the head and trains on from it.
TEST(OpponentPolicy, TrainsFromAModelWithoutTheHead) {
  const std::string dir = test::temp_dir("kz-opp-train");
  RunConfig config = load_config(test::source_dir() + "/configs/tiny.toml");
  std::mt19937_64 rng(11);
  fs::create_directories(dir + "/data");
  test::write_random_shard(config.game, rng, 12, dir + "/data/a.kzshard");
  Model start = make_random_model(config.game, config.network, 3);
  ASSERT_FALSE(start.meta.network.opponent_policy_head);
  save_model(dir + "/start.pt", start);
  auto train = [&](const std::string& init, const std::string& out, bool head) {
    TrainOptions o;
    o.config = config;
    o.config.network.opponent_policy_head = head;
    o.config.train.validation_fraction = 0.2;
    o.config.train.validation_every = 1000;  // once, at the end
    o.data_dir = dir + "/data";
    o.init_model = init;
    o.out_model = dir + "/" + out;
    o.steps = 10;
    o.show_progress = false;
    return run_training(o);
  };
  const TrainReport with = train(dir + "/start.pt", "with.pt", true);
  EXPECT_TRUE(std::isfinite(with.last_opponent));
  EXPECT_GT(with.last_opponent, 0);
  EXPECT_GT(with.val_opponent, 0);
  Model trained = load_model(dir + "/with.pt");
  EXPECT_TRUE(trained.meta.network.opponent_policy_head);
  EXPECT_EQ(trained.net->parameter_count(), expected_parameter_count(trained.meta.network));
  // Without the head nothing about it is computed or reported.
  const TrainReport without = train(dir + "/start.pt", "without.pt", false);
  EXPECT_EQ(without.last_opponent, 0);
  EXPECT_EQ(without.val_opponent, -1);
  EXPECT_FALSE(load_model(dir + "/without.pt").meta.network.opponent_policy_head);
  // From the model with the head, on with it.
  const TrainReport again = train(dir + "/with.pt", "again.pt", true);
  EXPECT_GT(again.last_opponent, 0);
  EXPECT_TRUE(load_model(dir + "/again.pt").meta.network.opponent_policy_head);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
