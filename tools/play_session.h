// The game of `kumalak play` apart from the terminal: the person's and the engine's
// moves, hints and evaluations, taking moves back, the clocks and saving the record.
// Nothing here prints: every step returns what happened, and tools/cmd_play.cpp reads
// the person's lines and says it (in tools/play_words.h's sentences), so that the
// session is tested directly (tests/app_play_session_test.cpp) and the terminal stays a
// thin loop.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "core/clock_control.h"
#include "core/game_clock.h"
#include "core/game_session.h"
#include "core/position.h"
#include "mcts/advice.h"
#include "mcts/levels.h"
#include "mcts/player.h"
#include "nn/human_head.h"

namespace kz::cli {

// What `kumalak play` was asked for, as its options give it (unchecked text).
struct PlayOptions {
  std::string game = "togyz";    // --game: togyz or kalah(m,n)
  std::string level = "medium";  // --level: a named level or a PlayOK rating
  std::string model;             // --model: the network of the MCTS levels ("" = shipped)
  std::string human_model;       // --human-model: the human policy of a rating level ("" = shipped)
  std::string human;             // --human: white|black|south|north|1|2
  std::string engine_plays;      // --engine-plays: the same, for the engine's side
  uint64_t seed = 1;             // --seed: the engine's and the hint's randomness
  double movetime = 0;           // --movetime: seconds per engine move, 0 = the level's own budget
  double hint_movetime = 0.5;    // --hint-movetime: seconds for hint and eval
  std::string position;          // --position: the start position string ("" = the usual start)
  std::string lang;   // --lang: the language of everything printed ("" = the environment's)
  std::string clock;  // --clock: a time control (core/clock_control.h), "" = no clock
};

// A game set up from checked options (make_play_settings).
struct PlaySettings {
  GameSpec spec = GameSpec::togyz();
  Position start = Position::start(GameSpec::togyz());
  int human = 0;                 // the person's side: 0 = White/South, 1 = Black/North
  Level level = Level::kMedium;  // the engine's named level (unused when rating > 0)
  // A rating level (tools/human_level.h): the human policy and its rating; null and 0
  // for a named level.
  std::shared_ptr<HumanHead> human_policy;
  int rating = 0;
  std::string model;                  // the network of the MCTS levels ("" = shipped)
  uint64_t seed = 1;                  // the engine's and the analyst's seed
  double movetime = 0;                // seconds per engine move, 0 = the level's own budget
  double hint_movetime = 0.5;         // seconds for hint and eval (0 = 0.5)
  std::optional<ClockControl> clock;  // the time control, nullopt: no clock
  // Said before the game, not an error: a named level that needs a network has none and
  // plays alpha-beta instead ("" = nothing to say).
  std::string warning;
};

// 0 for white/south/w/s/1, 1 for black/north/b/n/2 (any case); -1 when not a side.
int parse_play_side(const std::string& text);

// Checks `options` and loads what they name (a rating level's human policy). Throws
// ParseError, its message in the player's language, for what the command line got wrong:
// a bad game, position, level, clock or side, both --human and --engine-plays, or a
// start position that is already decided.
PlaySettings make_play_settings(const PlayOptions& options);

// Why a typed move is not played (TypedMove::refusal).
enum class MoveRefusal {
  kNone,          // it is a move: TypedMove::move
  kGameOver,      // the game is over
  kNoSuchHole,    // a number outside 1..m (TypedMove::number)
  kNotAPit,       // Kalah: not a pit number at all
  kBadNotation,   // Togyz: not a move in notation (TypedMove::error)
  kWrongLanding,  // Togyz: the notation's landing hole is not where the stones land
  kEmptyHole,     // the hole (pit) is empty (TypedMove::legal)
  kTuzdyk,        // Togyz: the hole is the opponent's tuzdyk (TypedMove::legal)
};

// What the person typed for a move, read against the position.
struct TypedMove {
  MoveRefusal refusal = MoveRefusal::kNone;
  int move = -1;         // the 0-based hole; set for kNone, kWrongLanding, kEmptyHole, kTuzdyk
  int number = 0;        // kNoSuchHole: the number typed
  int landing = 0;       // kWrongLanding: the 1-based hole the last stone lands on
  int given = 0;         // kWrongLanding: the landing hole the notation gave
  std::string notation;  // kWrongLanding: the move in notation
  std::string error;     // kBadNotation: the notation reader's message
  std::string legal;     // kEmptyHole, kTuzdyk: the holes one can move from, " 1 2 4"
};

// Reads `token` ("7", "76", "36x"; Kalah: "3") as a move of the side to move in `pos`.
TypedMove read_typed_move(const Position& pos, const std::string& token);

// One line the person typed, as a command (parse_play_command).
struct PlayCommand {
  enum Kind {
    kNone,      // an empty line
    kQuit,      // quit, exit, q
    kHelp,      // help, ?
    kHint,      // hint
    kEval,      // eval
    kUndo,      // undo
    kBoard,     // board
    kSave,      // save FILE (`rest` is FILE, empty when not given)
    kMove,      // a word starting with a digit: a move (`word`)
    kTwoMoves,  // a move and more after it on the line
    kUnknown,   // none of these (`word`)
  };
  Kind kind = kNone;
  std::string line;  // the line without surrounding blanks
  std::string word;  // its first word as typed
  std::string rest;  // what follows the first word, without surrounding blanks
};

// Reads a line of `kumalak play`'s input; command words in any case.
PlayCommand parse_play_command(const std::string& line);

// A move the session played, or tried to.
struct PlayedMove {
  Position before;      // the position it was played in
  int move = -1;        // 0-based hole
  bool in_time = true;  // false: the mover's flag had fallen first; not played, the game ended
};

// Why a save did not happen (SaveOutcome::failure).
enum class SaveFailure { kNone, kNoFile, kIsFolder, kNoFolder, kNotWritable, kOther };

struct SaveOutcome {
  SaveFailure failure = SaveFailure::kNone;
  size_t plies = 0;    // saved: the plies written
  std::string folder;  // kNoFolder, kNotWritable: the folder
  std::string error;   // kOther: the system's words
};

class PlaySession {
 public:
  // A game as `settings` say. `engine`: the engine's player (nullptr: the level's, or the
  // rating level's, as `kumalak play` makes it). Throws what making the engine throws.
  explicit PlaySession(const PlaySettings& settings, std::unique_ptr<Player> engine = nullptr);

  const PlaySettings& settings() const { return settings_; }
  const GameSession& game() const { return game_; }
  const Position& position() const { return game_.position(); }
  int human() const { return settings_.human; }
  // The engine's name as Player::name() gives it.
  std::string engine_name() const { return engine_->name(); }
  // The game is over: decided on the board or ended on time.
  bool finished() const;
  // The engine is to move in a game not over.
  bool engine_to_move() const { return !finished() && position().to_move != human(); }

  // --- The clock (nullptr without one) ---------------------------------------------
  const GameClock* clock() const { return clock_ ? &*clock_ : nullptr; }
  // Starts the side to move's clock, when there is a clock and the game is not over.
  void start_clock();
  // Ends the game on time when `side`'s flag has fallen (the clock pauses); true if so.
  bool flag_if_fallen(int side);

  // --- Moves --------------------------------------------------------------------------
  // The person's move as typed, when it is their turn: read_typed_move, and kGameOver
  // once the game is over.
  TypedMove read_move(const std::string& token) const;
  // Plays the side to move's legal `move` (its clock first: a move after the flag ends
  // the game instead). Throws ParseError when the move is not legal.
  PlayedMove play(int move);
  // The engine thinks (its budget, under the clock when there is one) and plays.
  // Throws std::logic_error when the engine answers an illegal move: a defect, never a
  // move to paper over with another.
  PlayedMove engine_move();

  // --- Help ---------------------------------------------------------------------------
  // The analyst's best 3 moves for the side to move; nullopt once the game is over.
  std::optional<Hint> hint();
  // The analyst's evaluation of the position; nullopt once the game is over.
  std::optional<ThinkResult> eval();

  // Takes back the person's last move and the engine's replies: the plies taken back (0:
  // the person has not moved); nullopt on a clock, where moves are not taken back.
  std::optional<size_t> undo();

  // --- The record ---------------------------------------------------------------------
  // The game as PGN, the person named "Human" and the engine "KumalakZero LEVEL".
  std::string record() const;
  // Writes record() to `file` (atomically), or says why not.
  SaveOutcome save(const std::string& file) const;

 private:
  // False when the mover's flag fell before `move` landed (the game then ended on time).
  bool clock_done(int move);
  Player& analyst();
  ThinkLimits hint_limits() const;

  PlaySettings settings_;
  GameSession game_;
  std::unique_ptr<Player> engine_;
  std::unique_ptr<Player> analyst_;  // made at the first hint or eval
  std::optional<GameClock> clock_;
};

}  // namespace kz::cli
