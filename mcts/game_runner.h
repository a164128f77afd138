// The one loop that plays games between two sides: self-play (train/selfplay.cpp), gating
// matches and ladders (train/match.cpp), `kumalak levels-match` and `kumalak bench`'s
// search measurement all drive a GameRunner. Modelled on KataGo's GameRunner/MatchPairer
// and lc0's SelfPlayGame.
//
// A side is any player:
// - an MCTS side: an evaluator, a cache and a SearchDriver shared by all of that side's
//   games, search parameters and visits per move; each game gets its own Search tree and
//   the driver batches the leaves of every game that side is to move in;
// - a Player side: an engine that thinks on its own (alpha-beta, a level, perfect), made
//   per game by a factory.
// Both colours may be the same side (self-play: one tree plays both colours).
//
// What the runner owns, once for every caller: the slots of the games in progress, the
// search rounds and when a search is done (Search::done), playing moves and keeping
// every tree's root on the game, the end of a game (decided, resigned, or adjudicated by
// the stores at max_plies: Position::outcome_by_stores), and the threads. What a game
// is for (rows to record, a result to count, an opening to choose, when to stop) belongs
// to a GameController. PairedMatch is the controller of a match over paired openings.
//
// Scheduling, which decides the batches and therefore (through cache timing) the exact
// games, comes in two forms:
// - kRounds: one round at a time. Player sides move first (they do not batch), then every
//   MCTS side runs one SearchDriver::step over the games it is to move in (two MCTS sides
//   at the same time on two threads when `sides_in_parallel`); then searches that are
//   done play their moves, and free slots are refilled. Matches use this.
// - kPipelined: one MCTS side; even and odd slots form the two halves of
//   SearchDriver::run_pipelined, so one half's tree work overlaps the network's work on
//   the other. A slot whose game ends starts its next game at once. Self-play uses this.
// Search threads (`threads` > 1): each thread plays the games of its own share of the
// slots (a lane) with the schedule above and drivers and caches of its own, and all
// lanes' leaves of one MCTS side go to one BatchingFront (mcts/batching_front.h) over
// that side's evaluator, which forms full batches across the threads and evaluates them
// on a thread of its own. A game is the same whichever thread plays it (its search sees
// only its own tree and each position's evaluation), so only the batches and the cache
// hits change. Player sides need no front: each thread thinks for its own games
// (levels-match). The controller is called under one lock, never from two threads at
// once. threads = 1 is exactly the single-threaded runner.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "mcts/driver.h"
#include "mcts/player.h"
#include "mcts/search.h"

namespace kz {

// One side. Exactly one of `driver` and `make_player` is set.
struct GameSide {
  std::string name;
  // MCTS: the side's driver (which holds its evaluator and cache), the parameters of its
  // searches and the visits per move (a controller may change both per move).
  SearchDriver* driver = nullptr;
  SearchParams params;
  int64_t visits = 0;
  // Player: a fresh player for game `game_index`, as side `side` (0 or 1).
  std::function<std::unique_ptr<Player>(int game_index, int side)> make_player;
  ThinkLimits limits;  // what the player is asked to think with

  bool is_mcts() const { return driver != nullptr; }
};

// A game in a slot of the runner.
struct RunnerGame {
  int slot = 0;
  // Set by the controller when it starts a game:
  int index = 0;                     // the controller's number for the game
  Position pos;                      // the start position (the runner plays the moves on it)
  int side_of[2] = {0, 1};           // which side plays White/South (colour 0) and Black/North
  uint64_t search_seed[2] = {1, 1};  // per side: the seed of its Search (MCTS sides)
  // Kept by the runner:
  int plies = 0;
  uint64_t line_hash = 0;  // of the start position and the moves played: tells games apart
  bool active = false;
  int resigned = -1;  // a controller sets the colour that resigns (on_search_done)
  // An early verdict of the controller (PairedMatch's resign adjudication): the colour
  // judged lost and the ply it was judged at, -1 when none. With the verdict only noted
  // (PairedMatch::Options::resign_verify) the game plays on, so the verdict can be
  // checked against the result.
  int verdict_loser = -1, verdict_ply = -1;
  int64_t target = 0;                 // visits for the current move
  int64_t start_visits = 0;           // the mover's root visits when its search began (tree reuse)
  std::unique_ptr<Search> search[2];  // per side, MCTS sides (one when both are the same)
  std::unique_ptr<Player> player[2];  // per side, Player sides

  int mover_side() const { return side_of[pos.to_move]; }
};

struct GameEnd {
  Outcome outcome = Outcome::kDraw;  // resigned, finished, decided, or adjudicated
  bool adjudicated = false;          // stopped at max_plies, judged by the stores
};

class GameController {
 public:
  virtual ~GameController() = default;
  // Fills some of the free slots (`free` in slot order) with new games: sets index, pos,
  // side_of and search_seed and marks each game it starts active. Starting none is fine.
  virtual void start_games(std::span<RunnerGame* const> free) = 0;
  // Before game g's MCTS search for its next move (mover side's `search`, already
  // created): may change the search's parameters and the visit target (starts at the
  // side's visits). The runner sets the root after this (root noise sees the params).
  virtual void prepare_move(RunnerGame& /*g*/, Search& /*search*/, int64_t& /*target*/) {}
  // The search for g's move is done: the move to play (the default: the most visited,
  // a proven win first). May set g.resigned to end the game after this move.
  virtual int on_search_done(RunnerGame& g, Search& search);
  // A Player side answered; the runner plays r.best_move after this.
  virtual void on_player_move(RunnerGame& /*g*/, int /*side*/, const ThinkResult& /*r*/) {}
  // g is over (g.pos is its final position); the slot is free after this returns.
  virtual void on_game_end(RunnerGame& g, const GameEnd& end) = 0;
  // Asked once per round (kRounds) or per half (kPipelined): false stops the run with
  // games unfinished (the bench's clock).
  virtual bool keep_going() { return true; }
};

struct GameRunnerOptions {
  enum class Schedule { kRounds, kPipelined };
  Schedule schedule = Schedule::kRounds;
  int slots = 1;                  // games in progress at once (all threads together)
  int max_plies = 600;            // adjudicated by the stores after this many plies
  int threads = 1;                // search threads, each its own share of the slots
  bool sides_in_parallel = true;  // kRounds: two MCTS sides step on two threads
};

class GameRunner {
 public:
  // `sides[0]` and `sides[1]`; a game's side_of says which plays which colour. The
  // sides and the controller must outlive run().
  GameRunner(std::span<const GameSide> sides, GameController& controller,
             const GameRunnerOptions& options);
  // Plays until no slot has a game (the controller started none) or keep_going() says
  // stop. Throws std::invalid_argument for an impossible set-up and std::runtime_error
  // when a Player answers an illegal move.
  void run();
  // The slots as run() left them (games the controller's keep_going() stopped are still
  // active).
  std::span<const RunnerGame> games() const { return slots_; }

 private:
  // The slots one thread plays and the driver it uses for each side.
  struct Lane {
    std::span<RunnerGame> slots;
    SearchDriver* driver[2] = {nullptr, nullptr};
  };
  bool same_side() const { return sides_.size() == 1; }
  std::unique_lock<std::mutex> controller_lock();  // locked when threaded_
  int search_done_move(RunnerGame& g, Search& search);
  bool keep_going();
  void refill(std::span<RunnerGame> slots);
  void begin_game(RunnerGame& g);
  void before_move(RunnerGame& g);  // a new game or the move after a played one
  void play(RunnerGame& g, int move);
  void play_player_moves(RunnerGame& g);
  void finish(RunnerGame& g, bool adjudicated);
  void run_lane(Lane& lane);
  void run_rounds(Lane& lane);
  void run_pipelined(Lane& lane);
  void run_threads();

  std::vector<GameSide> sides_;  // one entry when both sides are the same
  GameController& controller_;
  GameRunnerOptions options_;
  std::vector<RunnerGame> slots_;
  std::mutex controller_mutex_;  // held around controller calls when threads > 1
  bool threaded_ = false;
  std::atomic<bool> abort_{false};  // a thread failed: the others stop
};

// The search threads to use when none are asked for: half the cores, at least one. One
// runner thread with the pipelined driver already keeps two cores busy (its tree work
// and the network on the evaluation thread).
int default_search_threads();
// `requested` when > 0, else default_search_threads().
inline int search_threads_or_default(int requested) {
  return requested > 0 ? requested : default_search_threads();
}

// A match over paired openings: game pair p starts from opening p twice, side 0 with
// White in the first game and with Black in the second, so neither side profits from a
// lucky opening or from moving first. A pair starts only when two slots are free (the
// two games of a pair are in flight together). Results are from side 0's point of view,
// in half points.
class PairedMatch : public GameController {
 public:
  struct Options {
    int pairs = 1;
    // The opening of pair p; called once per pair when it starts.
    std::function<Position(int pair)> opening;
    // Per game: the seed of each MCTS side's search (default: seed + 2 * pair + game).
    uint64_t seed = 1;
    // After each game: its pair, the game within the pair (0: side 0 is White), side 0's
    // half points (0, 1 or 2) and the game.
    std::function<void(int pair, int game, int points, const RunnerGame&, const GameEnd&)> on_game;
    // After both games of a pair: side 0's half points over the pair (0..4). Returning
    // false starts no further pair (an SPRT verdict).
    std::function<bool(int pair, int points)> on_pair;
    // Per Player move, for statistics.
    std::function<void(const RunnerGame&, int side, const ThinkResult&)> on_player_move;
    // MCTS sides sample their moves of the first `temperature_plies` plies after the
    // opening in proportion to visits^(1/temperature), from a generator of each game's
    // own (seeded by `seed` and the game's index); 0 = always the best move. Without it
    // two equal players repeat the same game in both colours of a pair (and the same
    // match every time): a gate then measures the openings, not the players. Player
    // sides (alpha-beta) are not affected.
    float temperature = 0;
    int temperature_plies = 0;
    // Resign adjudication (cutechess-cli's two-sided -resign), for matches at long time
    // controls where a lost game would otherwise be played out to the last stone: the
    // game ends as a loss for a colour when its own searches gave it an expected score
    // (win + draw / 2) of at most `resign_score` on each of its last `resign_moves`
    // moves and its opponent's gave the opponent at least 1 - resign_score on each of
    // its last `resign_moves`. Both engines must agree, so one engine's blind spot
    // cannot end a game. 0 = off (games are played out). With `resign_verify` the
    // verdict is only noted (RunnerGame::verdict_loser) and the game plays on: the share
    // of wrong verdicts says whether the threshold is safe.
    float resign_score = 0;
    int resign_moves = 3;
    bool resign_verify = false;
  };
  explicit PairedMatch(Options options);

  void start_games(std::span<RunnerGame* const> free) override;
  int on_search_done(RunnerGame& g, Search& search) override;
  void on_player_move(RunnerGame& g, int side, const ThinkResult& r) override;
  void on_game_end(RunnerGame& g, const GameEnd& end) override;

  // Resign adjudication: colour `colour` of game g has just searched and valued its
  // position at expected score `score`; may set g's verdict (and g.resigned).
  void note_score(RunnerGame& g, int colour, float score);

  // The pair and game within the pair of a runner game's index.
  static int pair_of(int index) { return index / 2; }
  static int game_in_pair(int index) { return index % 2; }

 private:
  Options o_;
  int next_pair_ = 0;
  bool stop_starting_ = false;
  std::vector<int> pair_points_, pair_games_done_;
  std::vector<std::mt19937_64> move_rngs_;  // by game index: the temperature's draws
  // By game index and colour: consecutive moves at or below resign_score (lost) and at
  // or above 1 - resign_score (won), as that colour's own searches saw them.
  struct ScoreStreaks {
    int lost[2] = {0, 0}, won[2] = {0, 0};
  };
  std::vector<ScoreStreaks> streaks_;
};

// Half points of the side playing colour `colour` for a game that ended in `outcome`.
inline int half_points(Outcome outcome, int colour) {
  if (outcome == Outcome::kDraw) return 1;
  return (outcome == Outcome::kWhiteWins) == (colour == 0) ? 2 : 0;
}

}  // namespace kz
