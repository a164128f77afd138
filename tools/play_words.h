// What `kumalak play` says, in whole sentences in the player's language (core/i18n.h):
// the greeting, each move and what it did, refusals of a typed move, the result, hints,
// evaluations, undo and save. Each function words one step of tools/play_session.h;
// tools/cmd_play.cpp prints them. Every text ends with its newline.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/game_clock.h"
#include "core/game_session.h"
#include "core/position.h"
#include "mcts/advice.h"
#include "mcts/player.h"
#include "tools/play_session.h"

namespace kz::cli {

// A clock's time as players read it: "4:58", "1:02:03", and tenths under ten seconds
// ("0:09.8"). Time past the flag shows as 0:00.
//   ms: the time left in milliseconds
std::string clock_text(int64_t ms);

// The lines before the board: who plays what at which level, who moves first, how to
// move, the clock, and an empty line.
//   session: the game as it starts
std::string play_greeting(const PlaySession& session);

// A move and what it did: "You play 76: captures 10 stones." when the person played it,
// "Black (engine) plays 76: ..." when the engine did; stones sown into a tuzdyk get a
// sentence of their own. No newline: the caller adds what follows.
//   before: the position the move was played in
//   move: the 0-based hole
//   by_engine: the engine played it
std::string move_announcement(const Position& before, int move, bool by_engine);

// Why a typed move was not played.
//   pos: the position it was typed in
//   token: what was typed
//   typed: read_typed_move's answer (refusal not kNone)
std::string move_refusal_text(const Position& pos, const std::string& token,
                              const TypedMove& typed);

// The result of a finished game for the person: the stores and who won, or how the
// game ended on time.
//   game: the finished game
//   human: the person's side
std::string game_result_text(const GameSession& game, int human);

// The hint's best moves with their numbers, reasons and lines (without the solved
// Kalah line, tools/exact_result_words.h, which comes before it).
//   pos: the position of the hint
//   hint: PlaySession::hint()'s answer
std::string hint_text(const Position& pos, const Hint& hint);

// What `hint` answers: "The game is over.", or the solved Kalah line when the solver
// proved the position (the same as `kumalak hint`'s) and then hint_text's moves.
//   pos: the game's position
//   hint: PlaySession::hint()'s answer (nullopt: the game is over)
std::string hint_answer_text(const Position& pos, const std::optional<Hint>& hint);

// The evaluation for the side to move: its chances, the margin and the engine's move.
//   pos: the position evaluated
//   r: PlaySession::eval()'s answer
std::string eval_text(const Position& pos, const ThinkResult& r);

// A line that is not a command: a move and more (kTwoMoves) or an unknown word (kUnknown).
//   pos: the game's position (its game and number of holes)
//   command: parse_play_command's answer
std::string not_a_command_text(const Position& pos, const PlayCommand& command);

// The sides' names on the board: "you" and the engine with its rating or level.
//   settings: the game's settings (the person's side, the level or rating)
std::array<std::string, 2> side_names(const PlaySettings& settings);

// The sides' labels above and below the board: their names, with the time left when
// there is a clock.
//   names: side_names' answer
//   clock: the game's clock (nullptr: none)
std::array<std::string, 2> board_labels(const std::array<std::string, 2>& names,
                                        const GameClock* clock);

// The prompt for the person's next line, whether the game is over or not.
//   finished: the game is over
std::string prompt_text(bool finished);

// The line said when the input ends, without its newlines.
//   finished: the game is over
std::string end_of_input_text(bool finished);

// That the mover moves again after their move, with its newline.
//   by_engine: the engine moved
std::string moves_again_text(bool by_engine);

// The list of commands.
//   pos: the game's position (its game and number of holes)
std::string play_help_text(const Position& pos);

// What undo did.
//   taken: PlaySession::undo()'s answer (nullopt: on a clock)
std::string undo_text(std::optional<size_t> taken);

// What save did.
//   file: the file asked for
//   saved: PlaySession::save()'s answer
std::string save_text(const std::string& file, const SaveOutcome& saved);

}  // namespace kz::cli
