// Engine control behind the engine protocol (tools/engine_protocol.cpp), lc0-style: the
// protocol loop reads and answers commands; this holds what they act on: the game and
// its position, the engine settings, the player, and the search thread. A `go` hands
// everything slow to the search thread, the setting up of the engine included
// (building the player, clearing a Hash of 16 GiB, loading a model, starting threads),
// so the protocol never waits and `stop` only raises a flag.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/game_session.h"
#include "core/position.h"
#include "mcts/levels.h"
#include "mcts/player.h"
#include "mcts/time_manager.h"
#include "tools/rating_levels.h"

namespace kz::cli {

class EngineControl {
 public:
  // auto: the engine `kumalak play` uses at this level (make_level_player); ab and mcts
  // force one.
  enum class EngineChoice { kAuto, kAlphaBeta, kMcts };
  // Writes one whole output line (the protocol serialises them).
  using Emit = std::function<void(const std::string& line)>;

  // `network`: the MCTS levels' evaluator (nullptr: every level alpha-beta, Engine mcts
  // refused at the next go). `ratings`: the levels named by a rating (nullptr: none).
  // `search_thread`: true, each go searches on a thread of its own and returns at once;
  // false (a host without threads: the one-thread WebAssembly engine), go() searches in
  // its caller and returns after the bestmove, and Threads stays 1. Where the host answers
  // commands while the search pauses (mcts/search_yield.h), stop() ends it as with a
  // thread; otherwise an infinite search is bounded (kInfiniteSearchSeconds) and its
  // bestmove held until stop().
  EngineControl(const GameSpec& spec, Level level, EvaluatorFactory network, Emit emit,
                std::shared_ptr<RatingLevels> ratings = nullptr, bool search_thread = true);
  ~EngineControl();  // stops and joins a search

  // --- The game ----------------------------------------------------------------------
  const GameSpec& spec() const { return spec_; }
  // The game set by the last `position` (or a new game's start).
  const GameSession& game() const { return game_; }
  const Position& position() const { return game_.position(); }
  // A new game of `spec` (the player is kept when the game is the same one).
  void new_game(const GameSpec& spec);
  // The game to search from: its current position.
  void set_game(GameSession game) { game_ = std::move(game); }

  // --- Settings (a new player at the next go, except for the move time) ---------------
  Level level() const { return level_; }
  void set_level(Level level);
  // The Level option's value as the greeting shows it: a named level or a rating.
  std::string level_text() const;
  // A level named by a rating (tools/rating_levels.h); throws ParseError naming the
  // range, or the missing human model, when `rating` is not one of this game.
  void set_level_rating(int rating);
  // The human model's ratings for the current game (nullopt: no human model).
  std::optional<RatingRange> rating_range() const;
  // UCI_LimitStrength / UCI_Elo: while the limit is on, the engine plays like a player of
  // `rating` whatever Level says. 0 = the range's default (default_rating).
  void set_limit_strength(bool on);
  void set_rating(int rating);
  // The Rating option's default: the middle of the range, rounded down to a hundred.
  static int default_rating(const RatingRange& range) {
    return (range.min + range.max) / 2 / 100 * 100;
  }
  void set_engine(EngineChoice engine);
  void set_movetime_ms(int64_t ms) { movetime_ms_ = ms; }
  // MoveOverhead: kept back from every move under a clock (TimeManagerOptions).
  void set_move_overhead_ms(int64_t ms) { time_options_.move_overhead_ms = ms; }
  void set_hash_mib(int mib);
  void set_threads(int threads);
  // Whether searches run on a thread of their own (the constructor's search_thread).
  bool search_thread() const { return search_thread_; }
  void set_model(const std::string& path);  // "" = the shipped model

  // --- Searching ------------------------------------------------------------------------
  // Starts a search of the current position on the search thread; it prints `info` lines
  // and ends with one `bestmove`. `infinite` answers only after stop(). Without limits,
  // MoveTime, else the level's own budget. `clock` (go wtime/btime ...): the side to
  // move's clock as the GUI read it when it sent the go; the move's budget is then
  // those limits capped by the clock (mcts/time_manager.h), the time the engine takes to
  // set itself up counted against it.
  void go(ThinkLimits limits, bool infinite, std::optional<MoveClock> clock = std::nullopt);
  // Ends a search early: raises the flag it watches (a search in the caller sees it when
  // it goes on after a pause); writes the bestmove an infinite search holds.
  void stop();
  // A search runs (on its thread, or paused in the caller) or holds its bestmove.
  bool searching() const {
    return held_bestmove_ || ((worker_.joinable() || !search_thread_) && !search_done_.load());
  }
  // Without a search thread nor pauses, how long `go infinite` searches when MoveTime is
  // not set.
  static constexpr double kInfiniteSearchSeconds = 10;
  // Joins a search that has finished (a finished search leaves a joinable thread).
  void reap();
  // Stops a running search and joins it. Only at the end: stop() itself never waits.
  void finish();

 private:
  Player& player();
  std::string info_line(const ThinkResult& r, const Position& pos) const;
  // One go's search, on the search thread or in go()'s caller: its info lines, then the
  // bestmove (written, or held until stop() when an infinite search runs in the caller).
  void search(const Position& pos, const ThinkLimits& limits, bool infinite,
              const std::optional<MoveClock>& clock, bool go_limits,
              std::chrono::steady_clock::time_point received);

  // The rating the next player plays at, 0 for the named level (throws when the game
  // has no such rating level).
  int playing_rating() const;

  GameSpec spec_;
  Level level_ = Level::kExpert;
  int level_rating_ = 0;  // Level set to a rating (0: the named level_)
  bool limit_strength_ = false;
  int rating_ = 0;  // the Rating option (0: its default)
  EvaluatorFactory network_;
  Emit emit_;
  std::shared_ptr<RatingLevels> ratings_;
  GameSession game_;
  std::unique_ptr<Player> player_;
  EngineChoice engine_ = EngineChoice::kAuto;
  int64_t movetime_ms_ = 0;
  TimeManagerOptions time_options_;
  int hash_mib_ = 0;
  int threads_ = 1;
  std::string model_;
  bool search_thread_ = true;
  // Without a search thread: the bestmove of an infinite search, until stop().
  std::optional<std::string> held_bestmove_;
  std::thread worker_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> search_done_{true};
  // What the last `info` line of the running search reported (search thread only).
  int last_info_depth_ = -1;
  int64_t last_info_nodes_ = -1;
};

// `kumalak engine` on any stream of commands, as run_engine_protocol in tools/commands.h,
// with the levels named by a rating: register_engine passes the shipped human models
// (tools/human_level.h), the fuzz target tests/fuzz/fuzz_protocol.cpp a stub.
int run_engine_protocol(std::istream& in, const std::string& game, const std::string& level,
                        const EvaluatorFactory& network, std::shared_ptr<RatingLevels> ratings);

}  // namespace kz::cli
