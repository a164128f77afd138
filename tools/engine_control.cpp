#include "tools/engine_control.h"

#include <chrono>
#include <cmath>
#include <sstream>

#include "core/notation.h"
#include "core/numbers.h"
#include "mcts/alphabeta.h"
#include "mcts/search_yield.h"

namespace kz::cli {

EngineControl::EngineControl(const GameSpec& spec, Level level, EvaluatorFactory network, Emit emit,
                             std::shared_ptr<RatingLevels> ratings, bool search_thread)
    : spec_(spec),
      level_(level),
      network_(std::move(network)),
      emit_(std::move(emit)),
      ratings_(std::move(ratings)),
      game_(spec_),
      search_thread_(search_thread) {}

EngineControl::~EngineControl() {
  finish();
}

void EngineControl::new_game(const GameSpec& spec) {
  if (!(spec == spec_)) player_.reset();
  spec_ = spec;
  game_ = GameSession(spec_);
  if (player_) player_->new_game();
}

void EngineControl::set_level(Level level) {
  level_ = level;
  level_rating_ = 0;
  player_.reset();
}

std::string EngineControl::level_text() const {
  return level_rating_ > 0 ? std::to_string(level_rating_) : level_name(level_);
}

void EngineControl::set_level_rating(int rating) {
  if (const std::string why = rating_level_problem(ratings_.get(), spec_, rating); !why.empty())
    throw ParseError("option Level: " + std::to_string(rating) + ": " + why);
  level_rating_ = rating;
  player_.reset();
}

std::optional<RatingRange> EngineControl::rating_range() const {
  return ratings_ ? ratings_->range(spec_) : std::nullopt;
}

void EngineControl::set_limit_strength(bool on) {
  if (on && !rating_range())
    throw ParseError("option LimitStrength: " + rating_level_problem(ratings_.get(), spec_, 0));
  limit_strength_ = on;
  player_.reset();
}

void EngineControl::set_rating(int rating) {
  if (const std::string why = rating_level_problem(ratings_.get(), spec_, rating); !why.empty())
    throw ParseError("option Rating: " + std::to_string(rating) + ": " + why);
  rating_ = rating;
  player_.reset();
}

int EngineControl::playing_rating() const {
  int rating = level_rating_;
  if (limit_strength_) {
    const auto range = rating_range();
    rating = rating_ > 0 ? rating_ : range ? default_rating(*range) : 0;
  }
  if (rating > 0 || limit_strength_)
    if (const std::string why = rating_level_problem(ratings_.get(), spec_, rating); !why.empty())
      throw ParseError("level " + std::to_string(rating) + ": " + why);
  return rating;
}
void EngineControl::set_engine(EngineChoice engine) {
  engine_ = engine;
  player_.reset();
}
void EngineControl::set_hash_mib(int mib) {
  hash_mib_ = mib;
  player_.reset();
}
void EngineControl::set_threads(int threads) {
  if (!search_thread_ && threads > 1)
    throw ParseError("option Threads: " + std::to_string(threads) +
                     ": this engine has no threads (its only value is 1)");
  threads_ = threads;
  player_.reset();
}

void EngineControl::stop() {
  stop_.store(true);
  if (held_bestmove_) {
    const std::string line = std::move(*held_bestmove_);
    held_bestmove_.reset();
    emit_(line);
  }
}
void EngineControl::set_model(const std::string& path) {
  model_ = path;
  player_.reset();
}

void EngineControl::reap() {
  if (worker_.joinable() && search_done_.load()) worker_.join();
}

void EngineControl::finish() {
  if (!worker_.joinable()) return;
  stop_.store(true);
  worker_.join();
}

Player& EngineControl::player() {
  if (!player_) {
    // A rating (Level, or LimitStrength with Rating): the human policy, whatever Engine says.
    if (const int rating = playing_rating(); rating > 0) {
      player_ = ratings_->player(spec_, rating, LevelPlayerOptions{}.seed);
      return *player_;
    }
    LevelPlayerOptions lo;
    lo.threads = threads_;
    lo.force_alphabeta = engine_ == EngineChoice::kAlphaBeta;
    lo.network = network_;
    if (engine_ == EngineChoice::kMcts) {
      const std::string model = model_.empty() ? shipped_model_path(spec_) : model_;
      if (model.empty()) throw ParseError("Engine mcts needs a Model (none is shipped)");
      player_ = make_mcts_level_player(spec_, level_, model, lo);
    } else {
      player_ = make_level_player(spec_, level_, model_, lo);
    }
    if (auto* ab = dynamic_cast<AlphaBetaPlayer*>(player_.get()); ab && hash_mib_ > 0) {
      AlphaBetaOptions o = ab->options();
      o.tt_mib = hash_mib_;
      ab->set_options(o);
    }
  }
  return *player_;
}

std::string EngineControl::info_line(const ThinkResult& r, const Position& pos) const {
  std::ostringstream s;
  const double secs = std::max(r.seconds, 1e-6);
  s << "info depth " << r.depth << " nodes " << r.nodes << " nps " << int64_t(r.nodes / secs)
    << " time " << int64_t(std::lround(r.seconds * 1000)) << " wdl " << std::lround(r.win * 1000)
    << " " << std::lround(r.draw * 1000) << " " << std::lround(r.loss * 1000) << " margin "
    << std::lround(r.margin * 10) / 10.0;
  if (r.proven) s << " proven";
  if (r.margin_exact) s << " exact";  // the margin too: the final margin with best play
  if (!r.pv.empty()) {
    s << " pv";
    Position p = pos;
    for (int m : r.pv) {
      if (p.is_over() || !p.is_legal(m)) break;
      s << " " << m + 1;
      p.play(m);
    }
  }
  return s.str();
}

void EngineControl::go(ThinkLimits limits, bool infinite, std::optional<MoveClock> clock) {
  const auto received = std::chrono::steady_clock::now();
  // The limits the go gave, before MoveTime fills them in: under a clock they replace the
  // level's own budget.
  const bool go_limits = limits.nodes > 0 || limits.depth > 0 || limits.movetime_s > 0;
  if (infinite) {
    clock.reset();
    limits = ThinkLimits{};
    limits.depth = kMaxSearchDepth;   // alpha-beta: until stopped
    limits.nodes = int64_t(1) << 62;  // MCTS: until stopped
    // In the caller only a host that answers stop while the search pauses can stop it
    // (mcts/search_yield.h); otherwise bounded, by MoveTime or kInfiniteSearchSeconds.
    if (!search_thread_ && !search_yields())
      limits.movetime_s = movetime_ms_ > 0 ? movetime_ms_ / 1000.0 : kInfiniteSearchSeconds;
  } else if (limits.nodes == 0 && limits.depth == 0 && limits.movetime_s == 0 && movetime_ms_ > 0) {
    limits.movetime_s = movetime_ms_ / 1000.0;
  }
  const Position pos = game_.position();
  if (pos.legal_mask() == 0) {
    emit_("info string the game is over: " + std::string(outcome_string(pos.outcome())));
    emit_("bestmove none");
    return;
  }
  // The last search may have marked itself done after the protocol's reap() (it marks
  // done, then prints bestmove): join it here, never assign over a joinable thread
  // (std::terminate; found by tests/fuzz/fuzz_protocol).
  if (worker_.joinable()) worker_.join();
  stop_.store(false);
  search_done_.store(false);
  limits.stop = &stop_;
  if (!search_thread_) {
    search(pos, limits, infinite, clock, go_limits, received);
    return;
  }
  // Everything from here on may be slow, so it runs on the search thread. The protocol
  // refuses every command that changes the session while it runs, so the player and the
  // settings are the search thread's alone until search_done_.
  worker_ = std::thread([this, pos, limits, infinite, clock, go_limits, received] {
    search(pos, limits, infinite, clock, go_limits, received);
  });
}

void EngineControl::search(const Position& pos, const ThinkLimits& limits, bool infinite,
                           const std::optional<MoveClock>& clock, bool go_limits,
                           std::chrono::steady_clock::time_point received) {
  ThinkResult r;
  std::string failure;
  try {
    Player& p = player();  // built on first use: tables, model, threads
    last_info_depth_ = -1;
    last_info_nodes_ = -1;
    p.set_progress_callback([this, pos](const ThinkResult& progress) {
      last_info_depth_ = progress.depth;
      last_info_nodes_ = progress.nodes;
      emit_(info_line(progress, pos));
    });
    ThinkLimits l = limits;
    if (clock) {
      // The level's budget (or the go's own limits, or MoveTime) where the clock allows;
      // the time spent setting up the engine is already gone from the clock.
      ThinkLimits own = go_limits || movetime_ms_ > 0 ? limits : p.budget();
      own.stop = limits.stop;
      MoveClock now = *clock;
      now.time_left_ms -= std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - received)
                              .count();
      l = limits_under_clock(pos, now, own, time_options_);
    }
    if (stop_.load()) {
      // `stop` came while the engine was being set up: the shortest search that still
      // answers with a considered legal move.
      l = ThinkLimits{};
      l.depth = 1;
      l.nodes = 1;
    }
    r = p.think(pos, l);
    // The last iteration was already reported unless the search was cut short.
    if (r.depth != last_info_depth_ || r.nodes != last_info_nodes_) emit_(info_line(r, pos));
  } catch (const std::exception& e) {
    failure = e.what();
    player_.reset();  // half built: the next go builds it again
  }
  if (!failure.empty()) emit_("error " + failure);
  // A bestmove always ends a go, so that a GUI never waits forever.
  std::string bestmove =
      r.best_move >= 0 ? "bestmove " + std::to_string(r.best_move + 1) : "bestmove none";
  // UCI's rule: an infinite search answers only after stop. In the caller it cannot wait
  // for one: unless a stop ended it, it holds the answer for stop() to write.
  if (infinite && failure.empty() && !search_thread_ && !stop_.load()) {
    search_done_.store(true);
    held_bestmove_ = std::move(bestmove);
    return;
  }
  while (infinite && failure.empty() && !stop_.load())
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  // Marked done before the last line, so that a command sent right after bestmove is
  // never refused as "during a search" (the protocol then joins this thread).
  search_done_.store(true);
  emit_(bestmove);
}

}  // namespace kz::cli
