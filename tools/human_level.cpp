#include "tools/human_level.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/i18n.h"
#include "core/numbers.h"
#include "mcts/levels.h"
#include "nn/game_likelihood.h"
#include "nn/human_rating.h"
#include "nn/model_evaluator.h"
#include "nn/model_header.h"
#include "nn/player_rating.h"
#include "nn/search_mixture.h"

namespace kz {

std::string shipped_human_model_path(const GameSpec& spec) {
  const char* env = std::getenv("KZ_MODELS_DIR");
  const std::filesystem::path dir = env && *env ? env : "models";
  const auto path = dir / (model_file_stem(spec) + "-human.pt");
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? path.string() : "";
}

std::unique_ptr<HumanHead> load_human_policy(const GameSpec& spec, const std::string& path) {
  const std::string file = path.empty() ? shipped_human_model_path(spec) : path;
  if (file.empty())
    throw std::runtime_error("no human model for " + spec.name() + " (models/" +
                             model_file_stem(spec) + "-human.pt, KZ_MODELS_DIR or --human-model)");
  return std::make_unique<HumanHead>(load_plain_model(file, &spec));
}

std::shared_ptr<HumanHead> load_human_level(const GameSpec& spec, int rating,
                                            const std::string& human_model) {
  using i18n::tr;
  std::string path = human_model;
  if (path.empty()) {
    path = shipped_human_model_path(spec);
    if (path.empty())
      throw ParseError(
          tr("level {rating}: a rating level needs a human model for {game} "
             "({file}, KZ_MODELS_DIR or --human-model), and there is none",
             {{"rating", rating},
              {"game", spec.name()},
              {"file", "models/" + model_file_stem(spec) + "-human.pt"}}));
  } else if (!std::filesystem::is_regular_file(path)) {
    throw ParseError(tr("level {rating}: the human model '{file}' does not exist",
                        {{"rating", rating}, {"file", path}}));
  }
  std::shared_ptr<HumanHead> policy;
  try {
    policy = std::make_shared<HumanHead>(load_plain_model(path, &spec));
  } catch (const std::exception& e) {
    throw ParseError(tr("level {rating}: the human model '{file}' cannot be used: {error}",
                        {{"rating", rating}, {"file", path}, {"error", e.what()}}));
  }
  const HumanHeadInfo& info = policy->info();
  if (rating < info.rating_min || rating > info.rating_max)
    throw ParseError(tr(
        "level {rating}: a rating level must lie in the human model's range "
        "{min}..{max} ({file})",
        {{"rating", rating}, {"min", info.rating_min}, {"max", info.rating_max}, {"file", path}}));
  return policy;
}

std::vector<HumanMove> human_moves(HumanHead& policy, const Position& pos, int rating,
                                   HumanSearch* search, MixUse use) {
  auto probabilities = policy.probabilities(std::span<const Position>(&pos, 1), rating)[0];
  const HumanHeadInfo& info = policy.info();
  const bool filter = search && use == MixUse::kPlay && !info.search_filter_play_weights.empty();
  const double lambda = !search || filter      ? 0.0
                        : use == MixUse::kPlay ? human_play_mix(info, rating)
                                               : human_search_mix(info, rating);
  if (filter) {
    if (const double tau = human_play_filter(info, rating); tau > 0)
      human_play_filter_apply(probabilities, search->search(pos), tau);
  } else if (lambda > 0) {
    mix_with_best_move(probabilities, lambda, search->search(pos).best_move);
  }
  std::vector<HumanMove> moves;
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
    const int k = __builtin_ctz(mask);
    moves.push_back({k, probabilities[size_t(k)]});
  }
  std::stable_sort(moves.begin(), moves.end(), [](const HumanMove& a, const HumanMove& b) {
    return a.probability > b.probability;
  });
  return moves;
}

void human_play_filter_apply(std::array<float, kMaxPits>& p, const SearchAnswer& answer,
                             double tau) {
  if (tau <= 0) return;
  const float top = *std::max_element(answer.share.begin(), answer.share.end());
  double sum = 0;
  for (size_t k = 0; k < p.size(); ++k) {
    if (answer.share[k] < tau * top) p[k] *= kHumanFilterFloor;
    sum += p[k];
  }
  if (sum <= 0) return;
  for (float& x : p) x = float(x / sum);
}

std::shared_ptr<Evaluator> human_level_engine(const GameSpec& spec, const HumanHead& policy) {
  if (policy.info().search_mix_weights.empty()) return nullptr;
  const std::string engine = shipped_model_path(spec);
  if (engine.empty())
    throw ParseError(
        i18n::tr("the human model's search mixture needs the engine network for {game} ({file}), "
                 "and there is none",
                 {{"game", spec.name()}, {"file", "models/" + model_file_stem(spec) + ".pt"}}));
  std::shared_ptr<Evaluator> evaluator;
  try {
    evaluator = load_model_evaluator(spec, engine, 1);
  } catch (const std::exception& e) {
    throw ParseError(i18n::tr("the human model's search mixture cannot use {file}: {error}",
                              {{"file", engine}, {"error", e.what()}}));
  }
  return evaluator;
}

std::shared_ptr<HumanSearch> human_level_search(const GameSpec& spec, const HumanHead& policy,
                                                MixUse use, std::shared_ptr<Evaluator> engine) {
  if (policy.info().search_mix_weights.empty()) return nullptr;
  if (!engine) engine = human_level_engine(spec, policy);
  return std::make_shared<HumanSearch>(spec, std::move(engine),
                                       human_search_visits(policy.info(), use == MixUse::kPlay));
}

HumanLevelPlayer::HumanLevelPlayer(std::shared_ptr<HumanHead> policy, int rating, uint64_t seed,
                                   std::shared_ptr<HumanSearch> search)
    : policy_(std::move(policy)), rating_(rating), rng_(seed), search_(std::move(search)) {}

std::string HumanLevelPlayer::name() const {
  return "human-" + std::to_string(rating_);
}

ThinkResult HumanLevelPlayer::think(const Position& pos, const ThinkLimits&) {
  const auto start = std::chrono::steady_clock::now();
  ThinkResult r;
  if (pos.is_over()) return r;
  const std::vector<HumanMove> moves =
      human_moves(*policy_, pos, rating_, search_.get(), MixUse::kPlay);
  // Temperature 1: each legal move with its own probability. The uniform draw is made
  // by hand (not std::discrete_distribution, whose algorithm the standard leaves to the
  // library) so that a seed gives the same game with every standard library.
  double total = 0;
  for (const HumanMove& m : moves) total += m.probability;
  const double u = double(rng_() >> 11) * 0x1.0p-53 * total;
  double acc = 0;
  r.best_move = moves.back().move;
  for (const HumanMove& m : moves) {
    acc += m.probability;
    if (u < acc) {
      r.best_move = m.move;
      break;
    }
  }
  for (const HumanMove& m : moves) {
    MoveEval e;
    e.move = m.move;
    e.prior = m.probability;
    r.moves.push_back(e);
  }
  // The drawn move first, as every Player lists its choice.
  std::stable_partition(r.moves.begin(), r.moves.end(),
                        [&](const MoveEval& e) { return e.move == r.best_move; });
  r.pv = {r.best_move};
  r.nodes = 1;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::array<std::optional<PlayedLike>, 2> played_like_both(HumanHead& policy, const Position& start,
                                                          std::span<const int> moves,
                                                          HumanSearch* search) {
  const HumanHeadInfo& info = policy.info();
  const std::vector<int> grid = human_rating_grid(info, 25);
  SearchBestMove best_move;
  if (search) best_move = [search](const Position& pos) { return search->search(pos).best_move; };
  // Both sides' moves in one network call (nn/game_likelihood.h).
  const GameLikelihood game = game_likelihood(policy, start, moves, grid, best_move);
  std::array<std::optional<PlayedLike>, 2> out;
  if (game.positions.empty()) return out;
  const std::vector<Position>& positions = game.positions;
  const std::vector<int>&played = game.played, &plies = game.plies, &side = game.side;
  const std::vector<char>& searched_move = game.searched_move;
  const std::array<std::vector<double>, 2>& loglik = game.loglik;
  const std::array<bool, 2> moved{!loglik[0].empty(), !loglik[1].empty()};
  // With the model's two-sided prior where it has one and both sides moved, else each
  // side with the one-sided prior where there is one (nn/human_rating.h).
  std::array<RatingEstimate, 2> estimate{};
  if (moved[0] && moved[1]) {
    estimate = estimate_ratings_jointly(grid, loglik[0], loglik[1], info);
  } else {
    const std::vector<double> log_prior = rating_log_prior(info, grid);
    for (int s = 0; s < 2; ++s)
      if (moved[size_t(s)])
        estimate[size_t(s)] = estimate_rating_posterior(grid, loglik[size_t(s)], log_prior);
  }
  std::vector<int> rating_of(positions.size());
  for (int s = 0; s < 2; ++s) {
    if (!moved[size_t(s)]) continue;
    PlayedLike& like = out[size_t(s)].emplace();
    like.rating = int(std::lround(estimate[size_t(s)].rating));
    like.low = int(std::lround(estimate[size_t(s)].low));
    like.high = int(std::lround(estimate[size_t(s)].high));
  }
  for (size_t i = 0; i < positions.size(); ++i) rating_of[i] = out[size_t(side[i])]->rating;
  const auto probabilities = policy.probabilities(positions, rating_of, {});
  for (size_t i = 0; i < positions.size(); ++i) {
    double p = probabilities[i][size_t(played[i])];
    if (!searched_move.empty()) {
      const double lambda = human_search_mix(info, rating_of[i]);
      p = mix_with_search(p, lambda, searched_move[i] ? 1.0 : 0.0);
    }
    out[size_t(side[i])]->moves.push_back({plies[i], played[i], float(p)});
  }
  return out;
}

std::optional<RatingRange> ShippedRatingLevels::range(const GameSpec& spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto known = ranges_.find(spec.name());
  if (known != ranges_.end()) return known->second;
  // The header alone (no LibTorch): the greeting of the protocol names the range at once.
  std::optional<RatingRange> range;
  const std::string path = shipped_human_model_path(spec);
  if (!path.empty()) {
    try {
      std::string bytes;
      const CheckedModel model = read_checked_model(path, bytes);
      if (model.meta.network.human_policy_head && GameSpec::parse(model.meta.game) == spec &&
          human_head_problem(model.meta.human).empty())
        range = RatingRange{model.meta.human.rating_min, model.meta.human.rating_max};
    } catch (const std::exception&) {
      // A broken file is no human model; load_human_level says why when it is asked for.
    }
  }
  ranges_[spec.name()] = range;
  return range;
}

std::string ShippedRatingLevels::expected_model(const GameSpec& spec) {
  return "models/" + model_file_stem(spec) + "-human.pt or KZ_MODELS_DIR";
}

std::shared_ptr<HumanHead> ShippedRatingLevels::policy(const GameSpec& spec) {
  const std::optional<RatingRange> known = range(spec);
  if (!known) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = policies_[spec.name()];
  if (!slot) slot = load_human_level(spec, known->min, "");
  return slot;
}

std::shared_ptr<HumanSearch> ShippedRatingLevels::search(const GameSpec& spec,
                                                         const HumanHead& policy, MixUse use) {
  if (policy.info().search_mix_weights.empty()) return nullptr;
  std::shared_ptr<Evaluator> engine;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = engines_[spec.name()];
    if (!slot) slot = human_level_engine(spec, policy);
    engine = slot;
  }
  return human_level_search(spec, policy, use, std::move(engine));
}

std::unique_ptr<Player> ShippedRatingLevels::player(const GameSpec& spec, int rating,
                                                    uint64_t seed) {
  if (const std::string why = rating_level_problem(this, spec, rating); !why.empty())
    throw ParseError("level " + std::to_string(rating) + ": " + why);
  const auto p = policy(spec);
  return std::make_unique<HumanLevelPlayer>(p, rating, seed, search(spec, *p, MixUse::kPlay));
}

std::vector<HumanMove> ShippedRatingLevels::moves(const GameSpec& spec, const Position& pos,
                                                  int rating) {
  const auto p = policy(spec);
  if (!p || pos.is_over()) return {};
  return human_moves(*p, pos, rating, search(spec, *p, MixUse::kDescribe).get());
}

std::array<std::optional<PlayedLike>, 2> ShippedRatingLevels::played_like(
    const GameSpec& spec, const Position& start, std::span<const int> moves) {
  const auto p = policy(spec);
  if (!p) return {};
  return played_like_both(*p, start, moves, search(spec, *p, MixUse::kDescribe).get());
}

std::optional<GameRatingLikelihoods> ShippedRatingLevels::game_likelihoods(
    const GameSpec& spec, const Position& start, std::span<const int> moves) {
  const auto p = policy(spec);
  if (!p) return std::nullopt;
  const HumanHeadInfo& info = p->info();
  GameRatingLikelihoods out;
  out.grid = human_rating_grid(info, kRatingGridStep);
  const std::shared_ptr<HumanSearch> mixture = search(spec, *p, MixUse::kDescribe);
  SearchBestMove best_move;
  if (mixture)
    best_move = [&mixture](const Position& pos) { return mixture->search(pos).best_move; };
  out.loglik = game_likelihood(*p, start, moves, out.grid, best_move).loglik;
  // As played_like_both: both sides jointly where both moved (the pair prior), else each
  // alone with the one-sided prior.
  const std::array<bool, 2> moved{!out.loglik[0].empty(), !out.loglik[1].empty()};
  std::array<RatingEstimate, 2> estimate{};
  if (moved[0] && moved[1]) {
    estimate = estimate_ratings_jointly(out.grid, out.loglik[0], out.loglik[1], info);
  } else {
    const std::vector<double> log_prior = rating_log_prior(info, out.grid);
    for (size_t s = 0; s < 2; ++s)
      if (moved[s]) estimate[s] = estimate_rating_posterior(out.grid, out.loglik[s], log_prior);
  }
  for (size_t s = 0; s < 2; ++s)
    if (moved[s])
      out.played_like[s] = PlayedLike{int(std::lround(estimate[s].rating)),
                                      int(std::lround(estimate[s].low)),
                                      int(std::lround(estimate[s].high)),
                                      {}};
  return out;
}

std::optional<ManyGamesRating> ShippedRatingLevels::rating_over_games(
    const GameSpec& spec, std::span<const PlayerGameLikelihoods> games) {
  const auto p = policy(spec);
  if (!p) return std::nullopt;
  const std::vector<int> grid = human_rating_grid(p->info(), kRatingGridStep);
  std::vector<GameRatingEvidence> evidence;
  evidence.reserve(games.size());
  for (const PlayerGameLikelihoods& g : games) evidence.push_back({g.player, g.opponent});
  const PlayerRatingEstimate e = estimate_player_rating(grid, evidence, p->info());
  return ManyGamesRating{int(std::lround(e.estimate.rating)), int(std::lround(e.estimate.low)),
                         int(std::lround(e.estimate.high)), e.games};
}

}  // namespace kz
