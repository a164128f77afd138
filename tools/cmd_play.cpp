// kumalak play: a person against the engine in the terminal. Reads one command per
// line, so it can be driven through a pipe as well as typed; on end of input it leaves
// cleanly. The game itself is tools/play_session.h, its sentences tools/play_words.h;
// this file reads the lines and prints. See docs/play.md.
#include <array>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/i18n.h"
#include "core/notation.h"
#include "core/numbers.h"
#include "tools/board_view.h"
#include "tools/command_error.h"
#include "tools/command_input.h"
#include "tools/commands.h"
#include "tools/line_reader.h"
#include "tools/play_session.h"
#include "tools/play_words.h"

namespace kz::cli {

using i18n::tr;

namespace {

// The terminal around a PlaySession: reads the person's lines, has the session act on
// them and prints what it did.
class PlayTerminal {
 public:
  explicit PlayTerminal(const PlaySettings& settings)
      : session_(settings), names_(side_names(settings)) {
    if (session_.clock()) reader_ = std::make_unique<LineReader>();
    color_ = stdout_wants_color();
  }

  int run() {
    std::cout << play_greeting(session_);
    show_board();
    session_.start_clock();
    for (;;) {
      if (session_.finished()) {
        if (!announced_) std::cout << game_result_text(session_.game(), session_.human());
        announced_ = true;
      } else {
        announced_ = false;
        if (session_.engine_to_move()) {
          engine_move();
          continue;
        }
      }
      prompt();
      std::string line;
      if (!read_line(line)) {
        std::cout << "\n" << end_of_input_text(session_.finished()) << "\n";
        return 0;
      }
      if (!handle(line)) return 0;
    }
  }

 private:
  void prompt() { std::cout << prompt_text(session_.finished()) << std::flush; }

  // The next line of input; false at its end. Under a clock, while the person is to
  // move, the wait ends when their flag falls: the game is then over.
  bool read_line(std::string& line) {
    if (!reader_) return bool(std::getline(command_input(), line));
    const int human = session_.human();
    for (;;) {
      std::optional<int64_t> wait;
      if (session_.clock()->running() == human) wait = session_.clock()->remaining_ms(human) + 1;
      const LineReader::Got got = reader_->next(line, wait);
      if (got == LineReader::Got::kLine) return true;
      if (got == LineReader::Got::kEnd) return false;
      if (session_.flag_if_fallen(human)) {
        std::cout << "\n";
        ended_on_time();
        prompt();
      }
    }
  }

  // A flag fell: the board and the result.
  void ended_on_time() {
    show_board();
    std::cout << game_result_text(session_.game(), session_.human());
    announced_ = true;
  }

  void show_board() {
    const std::array<std::string, 2> labels = board_labels(names_, session_.clock());
    const GameSession& game = session_.game();
    LastMove lm;
    if (game.plies() > 0) lm = last_move_of(game.before_last(), game.moves().back());
    std::cout << render_board(session_.position(), session_.human(), lm, color_, labels.data())
              << "\n";
  }

  // After the person's move or the engine's: the board, or that the mover moves again.
  void played(const PlayedMove& p, bool by_engine) {
    if (!p.in_time) {
      ended_on_time();
      return;
    }
    std::cout << move_announcement(p.before, p.move, by_engine) << "\n";
    const bool again = !session_.finished() && session_.position().to_move == p.before.to_move;
    if (again) std::cout << moves_again_text(by_engine);
    // The engine's move shows the board unless it moves again; the person's only when they
    // move again or the game is over (else the engine's reply shows it).
    if (by_engine ? !again : again || session_.finished()) show_board();
  }

  void engine_move() { played(session_.engine_move(), /*by_engine=*/true); }

  void human_move(const std::string& token) {
    const TypedMove typed = session_.read_move(token);
    if (typed.refusal != MoveRefusal::kNone) {
      std::cout << move_refusal_text(session_.position(), token, typed);
      return;
    }
    played(session_.play(typed.move), /*by_engine=*/false);
  }

  void eval() {
    const std::optional<ThinkResult> r = session_.eval();
    std::cout << (r ? eval_text(session_.position(), *r) : tr("The game is over.") + "\n");
  }

  void undo() {
    const std::optional<size_t> taken = session_.undo();
    std::cout << undo_text(taken);
    if (taken && *taken > 0) show_board();
  }

  // Returns false to leave.
  bool handle(const std::string& line) {
    const PlayCommand command = parse_play_command(line);
    switch (command.kind) {
      case PlayCommand::kNone:
        break;
      case PlayCommand::kQuit:
        std::cout << tr("Bye.") << "\n";
        return false;
      case PlayCommand::kHelp:
        std::cout << play_help_text(session_.position());
        break;
      case PlayCommand::kHint:
        std::cout << hint_answer_text(session_.position(), session_.hint());
        break;
      case PlayCommand::kEval:
        eval();
        break;
      case PlayCommand::kUndo:
        undo();
        break;
      case PlayCommand::kBoard:
        show_board();
        break;
      case PlayCommand::kSave:
        std::cout << save_text(command.rest, session_.save(command.rest));
        break;
      case PlayCommand::kMove:
        human_move(command.word);
        break;
      case PlayCommand::kTwoMoves:
      case PlayCommand::kUnknown:
        std::cout << not_a_command_text(session_.position(), command);
        break;
    }
    return true;
  }

  PlaySession session_;
  bool color_ = false;
  std::array<std::string, 2> names_;    // the sides' board labels, without the clocks
  std::unique_ptr<LineReader> reader_;  // input under a clock
  bool announced_ = false;              // the result of the finished game has been said
};

int run_play(const PlayOptions& opt) {
  apply_language(opt.lang);
  PlaySettings settings;
  try {
    settings = make_play_settings(opt);
  } catch (const ParseError& e) {
    print_command_error("kumalak play", e);
    return 2;
  }
  if (!settings.warning.empty()) print_command_error("kumalak play", settings.warning);
  try {
    PlayTerminal terminal(settings);
    return terminal.run();
  } catch (const std::exception& e) {
    print_command_error("kumalak play", e);
    return 1;
  }
}

}  // namespace

void register_play(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<PlayOptions>();
  auto* cmd = app.add_subcommand("play", tr_noop("Play against the engine in the terminal"));
  add_game_option(cmd, opt->game);
  add_level_option(cmd, opt->level, /*ratings=*/true);
  add_model_option(cmd, opt->model);
  add_human_model_option(cmd, opt->human_model);
  cmd->add_option("--human", opt->human,
                  tr_noop("your side: white or black (Kalah: south or north)"));
  cmd->add_option("--engine-plays", opt->engine_plays,
                  tr_noop("the engine's side, instead of --human"));
  add_seed_option(cmd, opt->seed);
  add_movetime_option(cmd, opt->movetime);
  cmd->add_option("--hint-movetime", opt->hint_movetime, tr_noop("seconds for hint and eval"))
      ->check(in_range(0.0, kMaxMoveTimeSeconds));
  cmd->add_option("--position", opt->position, tr_noop("start from this position string"));
  add_lang_option(cmd, opt->lang);
  cmd->add_option("--clock", opt->clock,
                  tr_noop("play on a clock: minutes for the game, + seconds added after each "
                          "move (5+3, 90s+1, 10s+0.1, 3h), or a PlayOK preset (playok-1, "
                          "playok-2, playok-3, playok-5, playok-7, playok-10, playok-15, "
                          "playok-40)"));
  cmd->callback([opt, &exit_code] { exit_code = run_play(*opt); });
}

}  // namespace kz::cli
