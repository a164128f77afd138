// kumalak puzzle: one puzzle in the terminal (the day's, one by id or a random one), the
// player's answer judged with the engine's reasons, the line played out and the
// player's puzzle rating (Glicko-2, core/puzzle_rating.h) updated. The choice, the answer
// and the rating are tools/puzzle_build.h's; this file reads and prints.
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "core/i18n.h"
#include "core/notation.h"
#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/puzzle_title.h"
#include "mcts/advice.h"
#include "tools/board_view.h"
#include "tools/command_error.h"
#include "tools/command_input.h"
#include "tools/commands.h"
#include "tools/move_words.h"
#include "tools/puzzle_build.h"

namespace kz::cli {

namespace {

struct PuzzleOptions {
  std::string game = "togyz";
  std::string file;     // "" = the shipped puzzle file of the game
  std::string id;       // a puzzle by id
  bool random = false;  // a random puzzle instead of the day's
  uint64_t seed = 0;    // --random's seed (0 = from the clock)
  std::string date;     // the day of the daily puzzle ("" = today, UTC)
  std::string ratings;  // the rating file ("" = default_puzzle_ratings_path())
  std::string lang;     // --lang: the language of what the player reads
};

// The move as a person names it: "hole 9 (99)" in Togyz, "pit 3" in Kalah.
std::string move_name(const Position& pos, int move) {
  using i18n::tr;
  if (pos.is_togyz())
    return tr("hole {hole} ({notation})",
              {{"hole", move + 1}, {"notation", format_move(pos, move)}});
  return tr("pit {pit}", {{"pit", move + 1}});
}

int run_puzzle(const PuzzleOptions& opt) {
  using i18n::tr;
  apply_language(opt.lang);
  GameSpec spec;
  try {
    spec = GameSpec::parse(opt.game);
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzle", e);
    return 2;
  }
  if (!opt.id.empty() && (opt.random || !opt.date.empty())) {
    print_command_error("kumalak puzzle", tr("give --id, --random or --date, one of them"));
    return 2;
  }
  PuzzleSet set;
  PuzzleRatings ratings;
  const std::string ratings_path =
      opt.ratings.empty() ? default_puzzle_ratings_path() : opt.ratings;
  try {
    set = read_puzzle_file(opt.file.empty() ? shipped_puzzle_path(spec) : opt.file);
    if (!(set.spec == spec))
      throw ParseError(tr("the puzzle file holds {file_game} puzzles, not {game}",
                          {{"file_game", set.spec.name()}, {"game", spec.name()}}));
    if (set.puzzles.empty()) throw ParseError(tr("the puzzle file holds no puzzle"));
    ratings = read_puzzle_ratings(ratings_path);
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzle", e);
    return 2;
  }
  size_t index = 0;
  try {
    index = choose_puzzle(set, {opt.id, opt.random, opt.seed, opt.date});
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzle", e);
    return 2;
  }
  const Puzzle& z = set.puzzles[index];
  const Position& pos = z.position;
  const bool color = stdout_wants_color();
  const std::string labels[2] = {"", ""};
  std::cout << puzzle_title(z) << "\n"
            << render_board(pos, pos.to_move, LastMove{}, color, labels)
            << tr("{side} to move: find the best move.", {{"side", side_name(pos, pos.to_move)}})
            << "\n";
  int played = -1;
  for (std::string line;;) {
    std::cout << (pos.is_togyz() ? tr("Your move (a hole number, or quit): ")
                                 : tr("Your move (a pit number, or quit): "))
              << std::flush;
    if (!std::getline(command_input(), line) || line == "quit" || line == "q") {
      std::cout << "\n" << tr("No answer: the puzzle is not rated.") << "\n";
      return 0;
    }
    std::istringstream ss(line);
    std::string token;
    if (!(ss >> token)) continue;
    if (const std::optional<int> move = read_puzzle_answer(spec, pos, token)) {
      played = *move;
      break;
    }
    std::cout << tr("'{move}' is not a legal move here.", {{"move", token}}) << "\n";
  }
  const int key = z.key_move();
  const bool solved = played == key;
  if (solved)
    std::cout << tr("Correct: {move} is the best move; it {reason}.",
                    {{"move", move_name(pos, key)}, {"reason", explain_move(pos, key)}})
              << "\n";
  else
    std::cout << tr("Not the best move: {played} {played_reason}. The solution is {move}: it "
                    "{reason}.",
                    {{"played", move_name(pos, played)},
                     {"played_reason", explain_move(pos, played)},
                     {"move", move_name(pos, key)},
                     {"reason", explain_move(pos, key)}})
              << "\n";
  std::cout << tr("The line: {line}.", {{"line", line_notation(pos, z.solution)}}) << "\n";
  Position end = pos;
  for (size_t i = 0; i + 1 < z.solution.size(); ++i) end.play(z.solution[i]);
  const LastMove last = last_move_of(end, z.solution.back());
  end.play(z.solution.back());
  std::cout << render_board(end, pos.to_move, last, color, labels);

  const PuzzleAttempt attempt = record_puzzle_attempt(ratings, set, z, solved);
  if (attempt.tried_before) {
    std::cout << tr("You have tried this puzzle before, so your puzzle rating stays {rating}.",
                    {{"rating", int(std::lround(attempt.before.rating))}})
              << "\n";
    return 0;
  }
  try {
    write_puzzle_ratings(ratings_path, ratings);
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzle", e);
    return 1;
  }
  std::cout << tr("Your puzzle rating: {before} -> {after} (give or take {deviation}).",
                  {{"before", int(std::lround(attempt.before.rating))},
                   {"after", int(std::lround(attempt.after.rating))},
                   {"deviation", int(std::lround(2 * attempt.after.deviation))}})
            << "\n";
  return 0;
}

}  // namespace

void register_puzzle(CLI::App& app, int& exit_code) {
  auto popt = std::make_shared<PuzzleOptions>();
  auto* puzzle = app.add_subcommand(
      "puzzle",
      tr_noop("Solve a puzzle: the day's by default; your rating kept (docs/puzzles.md)"));
  add_game_option(puzzle, popt->game);
  puzzle->add_option("--file", popt->file, tr_noop("the puzzle file (default: the shipped one)"));
  puzzle->add_option("--id", popt->id, tr_noop("the puzzle of this id"));
  puzzle->add_flag("--random", popt->random, tr_noop("a random puzzle instead of the day's"));
  puzzle->add_option("--seed", popt->seed, tr_noop("--random's seed (default: the clock)"))
      ->check(in_range(uint64_t(0), std::numeric_limits<uint64_t>::max()));
  puzzle->add_option("--date", popt->date,
                     tr_noop("the daily puzzle of this date (YYYY-MM-DD; default today, UTC)"));
  puzzle->add_option(
      "--ratings", popt->ratings,
      tr_noop("the rating file (default: $XDG_CONFIG_HOME/kumalak/puzzle-rating.txt)"));
  add_lang_option(puzzle, popt->lang);
  puzzle->callback([popt, &exit_code] { exit_code = run_puzzle(*popt); });
}

}  // namespace kz::cli
