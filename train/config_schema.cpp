#include "train/config_schema.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "core/numbers.h"

namespace kz {

namespace {

// Where a key lives: a function returning the field of a RunConfig, so that one table
// row reads, checks, prints and dumps it.
#define KZ_FIELD(path)          \
  +[](RunConfig & c) -> auto& { \
    return c.path;              \
  }

std::string check_device(const std::string& name) {
  // The same device names every tool accepts (nn/model_file.h parse_device), checked
  // here so that no tool of a run starts with a device another refuses.
  bool ok = name == "cpu" || name == "cuda";
  if (!ok && name.rfind("cuda:", 0) == 0 && name.size() > 5 && name.size() <= 8) {
    ok = true;
    for (size_t i = 5; i < name.size(); ++i) ok = ok && name[i] >= '0' && name[i] <= '9';
  }
  return ok ? "" : "expected cpu, cuda or cuda:N";
}

std::string check_precision(const std::string& name) {
  return name == "fp32" || name == "bf16" ? "" : "expected \"fp32\" or \"bf16\"";
}

constexpr double kBig = 1e9;  // "no practical limit" for counts of steps and games

// clang-format off
const ConfigKey kSchema[] = {
  {"", "game", KZ_FIELD(game), 0, 0, "togyz, kalah, bantumi, kalah:M,N or kalah:M,N,empty"},
  {"", "device", KZ_FIELD(device), 0, 0, "cpu, cuda or cuda:N", false, check_device},
  {"", "seed", KZ_FIELD(seed), 0, 0, "base seed; each worker and generation derives its own"},

  {"network", "channels", KZ_FIELD(network.channels), 1, 1024, "width of the residual tower"},
  {"network", "blocks", KZ_FIELD(network.blocks), 0, 64, "residual blocks (2 convolutions each)"},
  {"network", "policy_channels", KZ_FIELD(network.policy_channels), 1, 1024, "width of the policy head's hidden convolution"},
  {"network", "value_channels", KZ_FIELD(network.value_channels), 1, 1024, "width of the value head's convolution before pooling"},
  {"network", "value_hidden", KZ_FIELD(network.value_hidden), 1, 8192, "hidden units of the value/margin MLP"},
  {"network", "opponent_policy_head", KZ_FIELD(network.opponent_policy_head), 0, 0, "a second policy head, trained on the reply to the move played (KataGo's auxiliary target); training only, play never evaluates it"},
  {"network", "score_distribution_head", KZ_FIELD(network.score_distribution_head), 0, 0, "logits over every final margin (-total seeds..+total seeds) beside the W/D/L head; the search's margin is then their expectation"},

  {"search", "c_puct", KZ_FIELD(search.c_puct), 0, 100, "PUCT exploration constant; higher searches broader"},
  {"search", "fpu_reduction", KZ_FIELD(search.fpu_reduction), -10, 10, "first-play urgency: an unvisited move is valued at the parent's Q minus this times sqrt(prior mass explored)"},
  {"search", "root_fpu_reduction", KZ_FIELD(search.root_fpu_reduction), -10, 10, "the same at the root (0 lets self-play's noise work)"},
  {"search", "root_policy_temperature", KZ_FIELD(search.root_policy_temperature), 0.05, 20, "softmax temperature of the root priors (> 1 flattens; 1 = off)"},
  {"search", "leaves_per_batch", KZ_FIELD(search.leaves_per_batch), 1, 4096, "leaves one search adds to each network batch"},
  {"search", "solver", KZ_FIELD(search.solver), 0, 0, "prove wins, draws and losses from finished games upwards"},
  {"search", "stop_at_decided", KZ_FIELD(search.stop_at_decided), 0, 0, "treat a decided position (Togyz kazan 82+, Kalah store over half) as finished"},
  {"search", "score_bounds", KZ_FIELD(search.score_bounds), 0, 0, "exact margins: bound each position's final margin, play a proven win for the most stones"},
  {"search", "margin_utility", KZ_FIELD(search.margin_utility), 0, 10, "utility = (win - loss) + margin_utility * tanh(margin / margin_scale)", true},
  {"search", "margin_scale", KZ_FIELD(search.margin_scale), 0.1, 1000, "a typical final margin, in stones", true},
  {"search", "forced_playouts_k", KZ_FIELD(search.forced_playouts_k), 0, 100, "forced playouts at the root of searches with noise (KataGo uses 2; 0 = off); the policy target prunes them"},
  {"search", "threads", KZ_FIELD(search_threads), 0, 256, "search threads of self-play, gating and the bench (0 = half the cores)"},

  {"selfplay", "games_in_parallel", KZ_FIELD(selfplay.games_in_parallel), 1, 100000, "games searched together, in two halves that take turns"},
  {"selfplay", "max_batch", KZ_FIELD(selfplay.max_batch), 1, 65536, "most positions per network call"},
  {"selfplay", "full_visits", KZ_FIELD(selfplay.full_visits), 1, 1e7, "visits of a full search (its visits are a policy target)"},
  {"selfplay", "fast_visits", KZ_FIELD(selfplay.fast_visits), 1, 1e7, "visits of a fast search (value target only)"},
  {"selfplay", "full_search_fraction", KZ_FIELD(selfplay.full_search_fraction), 0, 1, "share of moves that get a full search (playout cap randomisation)"},
  // A Dirichlet with alpha <= 0 does not exist; to turn the noise off, set dirichlet_fraction = 0.
  {"selfplay", "dirichlet_alpha", KZ_FIELD(selfplay.dirichlet_alpha), 0.001, 1000, "root noise of full searches (~10 / legal moves)"},
  {"selfplay", "dirichlet_fraction", KZ_FIELD(selfplay.dirichlet_fraction), 0, 1, "weight of the noise in the root priors (0 = no noise)"},
  {"selfplay", "opening_temperature", KZ_FIELD(selfplay.opening_temperature), 0, 100, "move temperature for the first temperature_plies plies"},
  {"selfplay", "temperature_plies", KZ_FIELD(selfplay.temperature_plies), 0, 100000, "plies played at opening_temperature"},
  {"selfplay", "final_temperature", KZ_FIELD(selfplay.final_temperature), 0, 100, "move temperature after them (0 = the best move)"},
  {"selfplay", "resign_threshold", KZ_FIELD(selfplay.resign_threshold), 0, 1, "resign when the mover's win+draw stays below this"},
  {"selfplay", "resign_consecutive", KZ_FIELD(selfplay.resign_consecutive), 1, 100000, "... for this many of its moves"},
  {"selfplay", "no_resign_fraction", KZ_FIELD(selfplay.no_resign_fraction), 0, 1, "share of games that never resign (to count false resignations)"},
  {"selfplay", "random_opening_plies", KZ_FIELD(selfplay.random_opening_plies), 0, 200, "uniformly random plies before the first search"},
  {"selfplay", "openings_file", KZ_FIELD(selfplay.openings_file), 0, 0, "PGN or one position string per line of start positions; \"\" = none"},
  {"selfplay", "openings_fraction", KZ_FIELD(selfplay.openings_fraction), 0, 1, "share of games that start from openings_file; the others from random_opening_plies random plies"},
  {"selfplay", "openings_plies", KZ_FIELD(selfplay.openings_plies), -1, 600, "a PGN openings_file's games give the position after this many plies (-1 = random_opening_plies)"},
  {"selfplay", "surprise_weight", KZ_FIELD(selfplay.surprise_weight), 0, 1, "policy surprise weighting: full-search rows written about (1 - s) + s x KL(search || prior) / the game's mean times (0 = once each)"},
  {"selfplay", "max_plies", KZ_FIELD(selfplay.max_plies), 1, 100000, "a game still running then is adjudicated by stores"},
  {"selfplay", "games_per_shard", KZ_FIELD(selfplay.games_per_shard), 1, 1e6, "games per written shard"},

  {"train", "batch_size", KZ_FIELD(train.batch_size), 1, 65536, "positions per optimizer step"},
  {"train", "steps_per_generation", KZ_FIELD(train.steps_per_generation), 1, 1e8, "optimizer steps per generation"},
  {"train", "learning_rate", KZ_FIELD(train.learning_rate), 0, 10, "peak learning rate, SGD with Nesterov momentum"},
  {"train", "momentum", KZ_FIELD(train.momentum), 0, 1, "SGD momentum"},
  {"train", "weight_decay", KZ_FIELD(train.weight_decay), 0, 1, "L2 weight decay"},
  {"train", "warmup_steps", KZ_FIELD(train.warmup_steps), 0, kBig, "linear warm-up from 0 at the very start of a run"},
  {"train", "lr_decay_steps", KZ_FIELD(train.lr_decay_steps), 1, kBig, "multiply the rate by lr_decay every this many total steps"},
  {"train", "lr_decay", KZ_FIELD(train.lr_decay), 0, 1, "the factor of each decay"},
  {"train", "policy_weight", KZ_FIELD(train.policy_weight), 0, 1000, "weight of the policy cross-entropy in the loss"},
  {"train", "value_weight", KZ_FIELD(train.value_weight), 0, 1000, "weight of the value cross-entropy"},
  {"train", "margin_weight", KZ_FIELD(train.margin_weight), 0, 1000, "weight of the margin Huber loss"},
  {"train", "value_target_root_weight", KZ_FIELD(train.value_target_root_weight), 0, 1, "value and margin targets = (1 - w) x game result + w x the search's root value (0 = the result alone)"},
  {"train", "opponent_policy_weight", KZ_FIELD(train.opponent_policy_weight), 0, 1000, "weight of the opponent-policy cross-entropy (KataGo 0.15); only with network.opponent_policy_head"},
  {"train", "score_distribution_weight", KZ_FIELD(train.score_distribution_weight), 0, 1000, "weight of the score distribution's cross-entropy on the final margin; only with network.score_distribution_head"},
  {"train", "window_rows", KZ_FIELD(train.window_rows), 1, double(int64_t(1) << 40), "train on the newest shards up to this many rows"},
  {"train", "window_generations", KZ_FIELD(train.window_generations), 0, 1e8, "or only the newest N generations (0 = no limit)"},
  {"train", "validation_fraction", KZ_FIELD(train.validation_fraction), 0, 0.5, "held-out games for the validation loss"},
  {"train", "validation_every", KZ_FIELD(train.validation_every), 1, 1e8, "steps between validation passes"},
  {"train", "threads", KZ_FIELD(train.threads), 1, 1024, "LibTorch intra-op threads of every executable of the run"},
  {"train", "precision", KZ_FIELD(train.precision), 0, 0, "fp32, or bf16: the forward pass under autocast in bfloat16 (weights and optimizer stay fp32)", false, check_precision},

  {"gate", "games", KZ_FIELD(gate.games), 2, 1e7, "games per match (paired: each opening with both colours)"},
  {"gate", "visits", KZ_FIELD(gate.visits), 1, 1e7, "visits per move for both players"},
  {"gate", "games_in_parallel", KZ_FIELD(gate.games_in_parallel), 1, 100000, "games played at once"},
  {"gate", "opening_plies", KZ_FIELD(gate.opening_plies), 0, 200, "random plies that make each opening pair"},
  {"gate", "opening_temperature", KZ_FIELD(gate.opening_temperature), 0, 100, "MCTS players sample their first temperature_plies moves by visits^(1/this) (0 = the best move)"},
  {"gate", "temperature_plies", KZ_FIELD(gate.temperature_plies), 0, 100000, "plies after the opening played at opening_temperature"},
  {"gate", "elo0", KZ_FIELD(gate.elo0), -4000, 4000, "SPRT: H0 \"no better than elo0\""},
  {"gate", "elo1", KZ_FIELD(gate.elo1), -4000, 4000, "SPRT: H1 \"at least elo1\""},
  {"gate", "alpha", KZ_FIELD(gate.alpha), 0.0001, 0.5, "SPRT: false positive rate"},
  {"gate", "beta", KZ_FIELD(gate.beta), 0.0001, 0.5, "SPRT: false negative rate"},
  {"gate", "promote_min_score", KZ_FIELD(gate.promote_min_score), 0, 1, "without an SPRT verdict, promote at this score or above"},

  {"loop", "generations", KZ_FIELD(loop.generations), 1, 1e6, "tools/loop.sh stops after this many generations"},
  {"loop", "games_per_generation", KZ_FIELD(loop.games_per_generation), 1, 1e8, "self-play games before each training step"},
  {"loop", "retrain_every", KZ_FIELD(loop.retrain_every), 0, 1e6, "every Nth generation trains a fresh network from scratch instead of continuing the last (0 = never)"},
  {"loop", "retrain_window_rows", KZ_FIELD(loop.retrain_window_rows), 0, double(int64_t(1) << 40), "... on the newest shards up to this many rows (0 = train.window_rows)"},
  {"loop", "retrain_steps", KZ_FIELD(loop.retrain_steps), 0, 1e8, "... for this many steps (0 = train.steps_per_generation)"},
  {"loop", "retrain_lr_decay_steps", KZ_FIELD(loop.retrain_lr_decay_steps), 0, kBig, "... with the rate decayed every this many steps (0 = train.lr_decay_steps)"},

  {"follow", "candidate_every_steps", KZ_FIELD(follow.candidate_every_steps), 1, 1e8, "continuous mode: the trainer writes a candidate every N steps"},
  {"follow", "max_samples_per_new_position", KZ_FIELD(follow.max_samples_per_new_position), 0.01, 1e6, "continuous mode: the trainer waits rather than train more samples than this per newly arrived position"},
  {"follow", "poll_seconds", KZ_FIELD(follow.poll_seconds), 0.05, 3600, "continuous mode: how often a waiting process looks at the run folder"},
};
// clang-format on

#undef KZ_FIELD

const char* const kSections[] = {"network", "search", "selfplay", "train",
                                 "gate",    "loop",   "follow"};

std::string number_literal(double v, bool is_float) {
  std::ostringstream s;
  s << std::setprecision(is_float ? 9 : 17) << v;
  std::string t = s.str();
  // TOML tells a float from an integer by its point.
  if (t.find_first_of(".e") == std::string::npos && t.find("inf") == std::string::npos &&
      t.find("nan") == std::string::npos)
    t += ".0";
  return t;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

ConfigType ConfigKey::type() const {
  return std::visit(
      [](auto f) {
        using T = std::remove_reference_t<decltype(f(std::declval<RunConfig&>()))>;
        if constexpr (std::is_same_v<T, bool>)
          return ConfigType::kBool;
        else if constexpr (std::is_integral_v<T>)
          return ConfigType::kInteger;
        else if constexpr (std::is_floating_point_v<T>)
          return ConfigType::kNumber;
        else
          return ConfigType::kString;
      },
      field);
}

std::string ConfigKey::path() const {
  return *section ? std::string(section) + "." + key : std::string(key);
}

std::span<const ConfigKey> config_schema() {
  return kSchema;
}
std::span<const char* const> config_sections() {
  return kSections;
}

const ConfigKey* find_config_key(std::string_view path) {
  for (const ConfigKey& k : kSchema)
    if (k.path() == path) return &k;
  return nullptr;
}

std::string config_value_text(const RunConfig& config, const ConfigKey& key, bool quote_strings) {
  RunConfig c = config;  // the fields are reached through non-const references
  return std::visit(
      [&](auto f) -> std::string {
        const auto& v = f(c);
        using T = std::remove_cvref_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>)
          return v ? "true" : "false";
        else if constexpr (std::is_integral_v<T>)
          return std::to_string(v);
        else if constexpr (std::is_floating_point_v<T>)
          return number_literal(double(v), std::is_same_v<T, float>);
        else if constexpr (std::is_same_v<T, GameSpec>)
          return quote_strings ? quoted(v.name()) : v.name();
        else
          return quote_strings ? quoted(v) : v;
      },
      key.field);
}

std::string config_default_text(const ConfigKey& key) {
  if (key.default_by_game) {
    RunConfig togyz, kalah;
    togyz.search = game_search_params(GameSpec::togyz());
    kalah.search = game_search_params(GameSpec::kalah(6, 4));
    const std::string t = config_value_text(togyz, key), k = config_value_text(kalah, key);
    return t == k ? t + " (by game)" : "by game: " + t + " Togyz, " + k + " Kalah";
  }
  return config_value_text(RunConfig{}, key);
}

std::string config_range_text(const ConfigKey& key) {
  if (!key.has_range()) return "";
  return number_text(key.min) + ".." + number_text(key.max);
}

std::string config_help_text() {
  static const char* const kTypeNames[] = {"bool", "integer", "number", "string"};
  std::ostringstream out;
  out << "Run config keys (configs/*.toml; `extends = \"base.toml\"` reads a base first):\n";
  std::string section = "?";
  for (const ConfigKey& k : kSchema) {
    if (k.section != section) {
      section = k.section;
      out << "\n" << (section.empty() ? "top level" : "[" + section + "]") << "\n";
    }
    out << "  " << k.key << " (" << kTypeNames[int(k.type())];
    if (k.has_range()) out << ", " << config_range_text(k);
    out << ", default " << config_default_text(k) << ")\n      " << k.help << "\n";
  }
  return out.str();
}

std::string config_markdown_table() {
  static const char* const kTypeNames[] = {"bool", "integer", "number", "string"};
  std::ostringstream out;
  out << "| key | type | range | default | meaning |\n|---|---|---|---|---|\n";
  for (const ConfigKey& k : kSchema) {
    std::string help = k.help;
    for (size_t at = 0; (at = help.find('|', at)) != std::string::npos; at += 2)
      help.replace(at, 1, "\\|");
    out << "| `" << k.path() << "` | " << kTypeNames[int(k.type())] << " | " << config_range_text(k)
        << " | `" << config_default_text(k) << "` | " << help << " |\n";
  }
  return out.str();
}

std::string config_as_toml(const RunConfig& config) {
  std::ostringstream out;
  std::string section;
  for (const ConfigKey& k : kSchema) {
    if (k.section != section) {
      section = k.section;
      out << "\n[" << section << "]\n";
    }
    out << k.key << " = " << config_value_text(config, k) << "\n";
  }
  return out.str();
}

}  // namespace kz
