// kumalak play: a person against the engine in the terminal. Reads one command per
// line, so it can be driven through a pipe as well as typed; on end of input it leaves
// cleanly. See docs/play.md.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/atomic_file.h"
#include "core/clock_control.h"
#include "core/game_clock.h"
#include "core/game_session.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "core/numbers.h"
#include "mcts/advice.h"
#include "mcts/levels.h"
#include "mcts/time_manager.h"
#include "nn/model_evaluator.h"
#include "tools/board_view.h"
#include "tools/command_error.h"
#include "tools/command_input.h"
#include "tools/commands.h"
#include "tools/exact_result_words.h"
#include "tools/human_level.h"
#include "tools/move_words.h"

namespace kz::cli {

using i18n::tr;
using i18n::trn;

namespace {

struct PlayOptions {
  std::string game = "togyz";
  std::string level = "medium";
  std::string model;
  std::string human_model;   // --human-model: the human policy of a rating level ("" = shipped)
  std::string human;         // white|black|south|north|1|2
  std::string engine_plays;  // the same, for the engine's side
  uint64_t seed = 1;
  double movetime = 0;  // 0 = the level's own budget
  double hint_movetime = 0.5;
  std::string position;
  std::string lang;   // --lang: the language of everything printed ("" = the environment's)
  std::string clock;  // --clock: a time control (core/clock_control.h), "" = no clock
};

// Lines of standard input read on a thread of their own, so that under a clock the play
// loop waits for the next line only until the player's flag falls, and says so at once
// instead of when the player next presses Enter. The thread is left behind at the end
// (it may be blocked in a read that nothing will ever answer).
class LineReader {
 public:
  enum class Got { kLine, kEnd, kTimeout };

  LineReader() : state_(std::make_shared<State>()) {
    std::thread([state = state_] {
      std::string line;
      bool more = true;
      while (more) {
        more = bool(std::getline(command_input(), line));
        std::lock_guard<std::mutex> lock(state->mu);
        if (more)
          state->lines.push_back(line);
        else
          state->ended = true;
        state->ready.notify_all();
      }
    }).detach();
  }

  // The next line; waits at most `timeout_ms` when given (kTimeout when it passes).
  Got next(std::string& line, std::optional<int64_t> timeout_ms) {
    std::unique_lock<std::mutex> lock(state_->mu);
    auto have = [&] { return !state_->lines.empty() || state_->ended; };
    if (timeout_ms) {
      if (!state_->ready.wait_for(
              lock, std::chrono::milliseconds(std::max<int64_t>(*timeout_ms, 0)), have))
        return Got::kTimeout;
    } else {
      state_->ready.wait(lock, have);
    }
    if (state_->lines.empty()) return Got::kEnd;
    line = std::move(state_->lines.front());
    state_->lines.pop_front();
    return Got::kLine;
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable ready;
    std::deque<std::string> lines;
    bool ended = false;
  };
  std::shared_ptr<State> state_;
};

// A clock's time as players read it: "4:58", "1:02:03", and tenths under ten seconds
// ("0:09.8"). Time past the flag shows as 0:00.
std::string clock_text(int64_t ms) {
  ms = std::max<int64_t>(ms, 0);
  const int64_t s = ms / 1000;
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)(s / 3600),
                  (long long)(s / 60 % 60), (long long)(s % 60));
  else if (s >= 10)
    std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)(s / 60), (long long)(s % 60));
  else
    std::snprintf(buf, sizeof buf, "0:%02lld.%lld", (long long)s, (long long)(ms % 1000 / 100));
  return buf;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// 0 for white/south/1, 1 for black/north/2; -1 when not a side.
int parse_side(const std::string& s) {
  const std::string l = lower(s);
  if (l == "white" || l == "south" || l == "w" || l == "s" || l == "1") return 0;
  if (l == "black" || l == "north" || l == "b" || l == "n" || l == "2") return 1;
  return -1;
}

class PlaySession {
 public:
  // `human_policy` set: a rating level (tools/human_level.h) at `rating`; `level` is
  // then unused.
  // `clock`: the time control the game is played on (nullopt: none).
  PlaySession(const PlayOptions& opt, const GameSpec& spec, const Position& start, Level level,
              int human, std::shared_ptr<HumanHead> human_policy = nullptr, int rating = 0,
              std::optional<ClockControl> clock = std::nullopt)
      : opt_(opt), spec_(spec), game_(spec, start), level_(level), human_(human), rating_(rating) {
    if (clock) {
      clock_.emplace(*clock, GameClock::steady_now());
      reader_ = std::make_unique<LineReader>();
      // The time control in the record, in the PGN standard's form (as PlayOK's records).
      game_.set_tag("TimeControl", clock->pgn_text());
    }
    if (human_policy) {
      auto search = human_level_search(spec, *human_policy, MixUse::kPlay);
      engine_ = std::make_unique<HumanLevelPlayer>(std::move(human_policy), rating, opt.seed,
                                                   std::move(search));
    } else {
      LevelPlayerOptions lo;
      lo.seed = opt.seed;
      lo.network = load_model_evaluator;
      engine_ = make_level_player(spec, level, opt.model, lo);
    }
    color_ = stdout_wants_color();
    labels_[human_] = tr("you");
    // The level's name is one of the page's message ids ("medium", ...), said in the
    // player's language here too.
    labels_[human_ ^ 1] = rating_ > 0 ? tr("engine, rated {rating}", {{"rating", rating_}})
                                      : tr("engine, {level}", {{"level", tr(level_name(level))}});
    names_[0] = labels_[0];
    names_[1] = labels_[1];
  }

  int run() {
    const i18n::Arg you("you", side_name(pos(), human_));
    const i18n::Arg engine("engine", engine_->name());
    const i18n::Arg them("them", side_name(pos(), human_ ^ 1));
    const i18n::Arg level("level", tr(level_name(level_)));
    const i18n::Arg spec("spec", spec_.name());
    const i18n::Arg rating("rating", rating_);
    std::cout
        << (rating_ > 0 && spec_.is_togyz()
                ? tr("Togyz Kumalak ({spec}): you play {you}, the engine plays {them} like "
                     "a PlayOK player rated {rating}.",
                     {spec, you, them, rating})
            : rating_ > 0 ? tr("Kalah ({spec}): you play {you}, the engine plays {them} like a "
                               "PlayOK player rated {rating}.",
                               {spec, you, them, rating})
            : spec_.is_togyz()
                ? tr("Togyz Kumalak ({spec}): you play {you}, the engine ({engine}) plays "
                     "{them} at level {level}.",
                     {spec, you, engine, them, level})
                : tr("Kalah ({spec}): you play {you}, the engine ({engine}) plays {them} at "
                     "level {level}.",
                     {spec, you, engine, them, level}))
        << " "
        << (game_.start() == Position::start(spec_)
                ? tr("{side} moves first.", {{"side", side_name(pos(), pos().to_move)}})
                : tr("{side} is to move.", {{"side", side_name(pos(), pos().to_move)}}))
        << "\n"
        << (spec_.is_togyz()
                ? tr("Type a hole number (1-{m}) to move, or help.", {{"m", int(pos().npits)}})
                : tr("Type a pit number (1-{m}) to move, or help.", {{"m", int(pos().npits)}}))
        << "\n";
    if (clock_)
      std::cout << tr("On a clock of {control} each: your time runs while you think, hint and "
                      "eval included.",
                      {{"control", clock_->control().text()}})
                << "\n";
    std::cout << "\n";
    show_board();
    if (clock_ && !finished()) clock_->start(pos().to_move);
    for (;;) {
      if (finished()) {
        if (!announced_) announce_result();
        announced_ = true;
      } else {
        announced_ = false;
        if (pos().to_move != human_) {
          engine_move();
          continue;
        }
      }
      std::cout << (finished() ? tr("Game over (undo, save FILE, quit)> ") : tr("Your move> "))
                << std::flush;
      std::string line;
      if (!read_line(line)) {
        std::cout << "\n"
                  << (finished() ? tr("End of input: bye.")
                                 : tr("End of input: leaving the game unfinished."))
                  << "\n";
        return 0;
      }
      if (!handle(trim(line))) return 0;
    }
  }

 private:
  // The game is over: decided on the board or ended on time.
  bool finished() const { return pos().is_decided() || game_.flagged_side().has_value(); }

  // The next line of input; false at its end. Under a clock, while the person is to
  // move, the wait ends when their flag falls: the game is then over (ended_on_time).
  bool read_line(std::string& line) {
    if (!reader_) return bool(std::getline(command_input(), line));
    for (;;) {
      std::optional<int64_t> wait;
      if (clock_->running() == human_) wait = clock_->remaining_ms(human_) + 1;
      const LineReader::Got got = reader_->next(line, wait);
      if (got == LineReader::Got::kLine) return true;
      if (got == LineReader::Got::kEnd) return false;
      if (clock_->flagged(human_)) {
        std::cout << "\n";
        ended_on_time(human_);
        std::cout << (finished() ? tr("Game over (undo, save FILE, quit)> ") : tr("Your move> "))
                  << std::flush;
      }
    }
  }

  // `side`'s flag fell: the game ends by the flag rule (core/game_clock.h) and says so.
  void ended_on_time(int side) {
    clock_->pause();
    game_.flag(side);
    show_board();
    announce_result();
    announced_ = true;
  }

  void show_board() {
    if (clock_)
      for (int side = 0; side < 2; ++side)
        labels_[side] =
            tr("{player}, {time} left",
               {{"player", names_[side]}, {"time", clock_text(clock_->remaining_ms(side))}});
    LastMove lm;
    if (game_.plies() > 0) lm = last_move_of(game_.before_last(), game_.moves().back());
    std::cout << render_board(pos(), human_, lm, color_, labels_) << "\n";
  }

  // The position the game is in.
  const Position& pos() const { return game_.position(); }

  // The announcement of a move and what it did, in whole sentences: "You play 76:
  // captures 10 stones." when the person played it, "Black (engine) plays 76: ..." when
  // the engine did. A move makes a tuzdyk, captures or earns another turn (never two of
  // them: a Kalah capture ends in a pit, another turn in the store); stones sown into a
  // tuzdyk on the way each get a sentence of their own.
  std::string announcement(const Position& before, int move, bool by_engine) const {
    const MoveFacts f = move_facts(before, move);
    const int mover = before.to_move;
    const i18n::Arg side("side", side_name(before, mover)),
        played("move", format_move(before, move));
    const i18n::Arg owner("owner", side_name(before, mover ^ 1)), hole("hole", f.tuzdyk_hole + 1);
    std::string out;
    if (f.made_tuzdyk) {
      out = by_engine ? tr("{side} (engine) plays {move}: makes a tuzdyk on {owner}'s hole {hole}.",
                           {side, played, owner, hole})
                      : tr("You play {move}: makes a tuzdyk on {owner}'s hole {hole}.",
                           {played, owner, hole});
    } else if (f.captured > 0 && spec_.is_togyz()) {
      out = by_engine ? trn("{side} (engine) plays {move}: captures {n} stone.",
                            "{side} (engine) plays {move}: captures {n} stones.", f.captured,
                            {side, played})
                      : trn("You play {move}: captures {n} stone.",
                            "You play {move}: captures {n} stones.", f.captured, {played});
    } else if (f.captured > 0) {
      out = by_engine ? trn("{side} (engine) plays {move}: captures {n} seed.",
                            "{side} (engine) plays {move}: captures {n} seeds.", f.captured,
                            {side, played})
                      : trn("You play {move}: captures {n} seed.",
                            "You play {move}: captures {n} seeds.", f.captured, {played});
    } else if (f.extra_turn && !f.ends_game) {
      out = by_engine ? tr("{side} (engine) plays {move}: another turn.", {side, played})
                      : tr("You play {move}: another turn.", {played});
    } else {
      out = by_engine ? tr("{side} (engine) plays {move}.", {side, played})
                      : tr("You play {move}.", {played});
    }
    // Sown into a tuzdyk: those stones go to the kazan of the tuzdyk's owner.
    const std::pair<int, int> into_tuzdyk[] = {{f.to_own_tuzdyk, mover},
                                               {f.to_their_tuzdyk, mover ^ 1}};
    for (const auto& [stones, tuzdyk_owner] : into_tuzdyk)
      if (stones > 0)
        out += " " + trn("{n} stone goes into {owner}'s tuzdyk.",
                         "{n} stones go into {owner}'s tuzdyk.", stones,
                         {{"owner", side_name(before, tuzdyk_owner)}});
    return out;
  }

  void engine_move() {
    ThinkLimits limits;
    limits.movetime_s = opt_.movetime;
    if (clock_) {
      // The level's own budget (or --movetime) where the clock allows (mcts/time_manager.h).
      const ThinkLimits own = opt_.movetime > 0 ? limits : engine_->budget();
      const MoveClock mine{clock_->remaining_ms(pos().to_move), clock_->control().increment_ms, 0};
      limits = limits_under_clock(pos(), mine, own);
    }
    const ThinkResult r = engine_->think(pos(), limits);
    const int move = r.best_move;
    // A defect of the engine, never a move to paper over with another: the game stops
    // with what went wrong (run_play reports it), as the server answers it with a 500.
    if (!pos().is_legal(move))
      throw std::logic_error("internal error: the engine " + engine_->name() +
                             " returned the illegal move " + std::to_string(move + 1) + " in " +
                             pos().to_string());
    const Position before = pos();
    if (clock_ && !clock_done(move)) return;
    std::cout << announcement(before, move, /*by_engine=*/true) << "\n";
    game_.play(move);
    if (pos().to_move != human_ && !finished())
      std::cout << tr("The engine moves again.") << "\n";
    else
      show_board();
  }

  // The mover's clock at the move `move` (about to be played): stops it, adds the
  // increment and starts the next mover's, or stops both once the game is decided.
  // False when the flag had fallen first: the move is not played and the game has ended.
  bool clock_done(int move) {
    Position after = pos();
    after.play(move);
    const int mover = pos().to_move;
    const GameClock::MoveTiming t = clock_->move_done(after.is_decided() ? -1 : after.to_move);
    if (t.in_time) return true;
    ended_on_time(mover);
    return false;
  }

  // The result of a game ended on time, as the result line says it.
  void announce_time_result() {
    const int flagged = *game_.flagged_side();
    const Outcome o = flag_outcome(pos(), flagged);
    const i18n::Arg result("result", outcome_string(o));
    if (flagged == human_)
      std::cout << (o == Outcome::kDraw
                        ? tr("Your time ran out, but the engine could not win any more: {result}, "
                             "a draw.",
                             {result})
                        : tr("Your time ran out: {result}, the engine wins on time.", {result}))
                << "\n";
    else
      std::cout << (o == Outcome::kDraw
                        ? tr("The engine's time ran out, but you could not win any more: "
                             "{result}, a draw.",
                             {result})
                        : tr("The engine's time ran out: {result}, you win on time.", {result}))
                << "\n";
  }

  void announce_result() {
    if (game_.flagged_side() && !pos().is_decided()) {
      announce_time_result();
      return;
    }
    const i18n::Arg white("white", side_name(pos(), 0)), w("w", int(pos().store[0]));
    const i18n::Arg black("black", side_name(pos(), 1)), b("b", int(pos().store[1]));
    if (pos().is_over())
      std::cout << tr("Game over: {white} {w}, {black} {b}.", {white, w, black, b});
    else if (pos().is_togyz())
      std::cout << tr(
          "Game over: {white} {w}, {black} {b} (a kazan holds 82 or more: the result "
          "can no longer change).",
          {white, w, black, b});
    else
      std::cout << tr(
          "Game over: {white} {w}, {black} {b} (a store holds more than half: the "
          "result can no longer change).",
          {white, w, black, b});
    const Outcome o = pos().outcome();
    const i18n::Arg result("result", outcome_string(o));
    std::cout << " ";
    if (o == Outcome::kDraw)
      std::cout << tr("{result}: a draw.", {result}) << "\n";
    else if ((o == Outcome::kWhiteWins) == (human_ == 0))
      std::cout << tr("{result}: you win!", {result}) << "\n";
    else
      std::cout << tr("{result}: the engine wins.", {result}) << "\n";
  }

  void help() {
    const int m = pos().npits;
    // The command words stay English (they are what the player types); their
    // explanations are translated.
    std::cout << tr("Commands:") << "\n"
              << "  1-" << m << "        "
              << (spec_.is_togyz()
                      ? tr("move from that hole (your own numbering, left to right on your side)")
                      : tr("move from that pit (your own numbering, left to right on your side)"))
              << "\n";
    if (spec_.is_togyz())
      std::cout << "  76, 36x     "
                << tr("a move in notation also works (hole, landing hole, x = tuzdyk)") << "\n";
    std::cout << "  hint        " << tr("the engine's best 3 moves for you, with reasons") << "\n"
              << "  eval        " << tr("win/draw/loss chances and the expected margin for you")
              << "\n"
              << "  undo        " << tr("take back your last move and the engine's reply") << "\n"
              << "  board       " << tr("show the board again")
              << "\n"
              // The command stays `save`; its placeholder is a word of the reader's
              // (four letters in every catalog, so the column holds).
              << "  save " << tr("FILE") << "   " << tr("save the game as PGN") << "\n"
              << "  help        " << tr("this list") << "\n"
              << "  quit        " << tr("leave the game") << "\n";
  }

  Player& analyst() {
    if (!analyst_) {
      LevelPlayerOptions lo;
      lo.seed = opt_.seed;
      lo.network = load_model_evaluator;
      analyst_ = make_analysis_player(spec_, Level::kExpert, opt_.model, 3, lo);
    }
    return *analyst_;
  }

  ThinkLimits hint_limits() const {
    ThinkLimits l;
    l.movetime_s = opt_.hint_movetime > 0 ? opt_.hint_movetime : 0.5;
    return l;
  }

  void hint() {
    if (finished()) {
      std::cout << tr("The game is over.") << "\n";
      return;
    }
    const Hint h = make_hint(analyst(), pos(), hint_limits(), 3);
    // Kalah positions the solver proves get the same exact line as `kumalak hint`.
    if (h.solve.solved) std::cout << describe_exact_result(pos(), h.solve) << "\n";
    std::cout << tr("Best moves for you (depth {depth}, {nodes} nodes):",
                    {{"depth", h.result.depth}, {"nodes", h.result.nodes}})
              << "\n";
    int rank = 1;
    for (const auto& m : h.moves) {
      std::cout << "  " << rank++ << ". "
                << (spec_.is_togyz() ? tr("hole {hole} ({notation})",
                                          {{"hole", m.move + 1}, {"notation", m.notation}})
                                     : tr("pit {pit}", {{"pit", m.move + 1}}));
      std::cout << "  "
                << tr("win {win}, draw {draw}, margin {margin}",
                      {{"win", percent(m.eval.win)},
                       {"draw", percent(m.eval.draw)},
                       {"margin", signed_margin(m.eval.margin)}})
                << proven_note(m.eval.proven, m.eval.margin_exact, m.eval.margin) << "\n     "
                << explain_move(pos(), m.move) << "\n     "
                << tr("expected line: {line}", {{"line", m.line_text}}) << "\n";
    }
  }

  void eval() {
    if (finished()) {
      std::cout << tr("The game is over.") << "\n";
      return;
    }
    const ThinkResult r = analyst().think(pos(), hint_limits());
    const std::initializer_list<i18n::Arg> args = {
        {"win", percent(r.win)},
        {"draw", percent(r.draw)},
        {"loss", percent(r.loss)},
        {"margin", signed_margin(r.margin)},
        {"proven", proven_note(r.proven, r.margin_exact, r.margin)},
        {"move", format_move(pos(), r.best_move)},
        {"depth", r.depth}};
    std::cout << (spec_.is_togyz()
                      ? tr("For you: win {win}, draw {draw}, loss {loss}, expected margin {margin} "
                           "stones{proven}; the engine would play {move} (depth {depth}).",
                           args)
                      : tr("For you: win {win}, draw {draw}, loss {loss}, expected margin {margin} "
                           "seeds{proven}; the engine would play {move} (depth {depth}).",
                           args))
              << "\n";
  }

  void undo() {
    if (clock_) {
      std::cout << tr("On a clock there is no taking moves back.") << "\n";
      return;
    }
    const size_t taken = game_.undo_side(human_);
    if (taken == 0) {
      std::cout << tr("Nothing to undo: you have not moved yet.") << "\n";
      return;
    }
    std::cout << trn("Took back {n} ply.", "Took back {n} plies.", (long long)taken) << "\n";
    show_board();
  }

  void save(const std::string& file) {
    if (file.empty()) {
      std::cout << tr("Usage: save FILE") << "\n";
      return;
    }
    const std::string engine =
        std::string("KumalakZero ") + (rating_ > 0 ? engine_->name() : level_name(level_));
    const std::string text = game_.record({.site = "kumalak play",
                                           .white = human_ == 0 ? "Human" : engine,
                                           .black = human_ == 1 ? "Human" : engine,
                                           .annotator = ""});
    // The usual reasons, said in the player's language; the system's own words (English)
    // only for the rare others.
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::path(file).parent_path();
    if (std::filesystem::is_directory(file, ec)) {
      std::cout << tr("Could not save: '{file}' is a folder", {{"file", file}}) << "\n";
      return;
    }
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
      std::cout << tr("Could not save: there is no folder '{folder}'",
                      {{"folder", folder.string()}})
                << "\n";
      return;
    }
    if (access(folder.empty() ? "." : folder.c_str(), W_OK) != 0) {
      std::cout << tr("Could not save: the folder '{folder}' cannot be written to",
                      {{"folder", folder.empty() ? std::string(".") : folder.string()}})
                << "\n";
      return;
    }
    try {
      write_file_atomically(file, [&](std::ostream& out) { out << text; });
      std::cout << trn("Saved {n} ply to {file}.", "Saved {n} plies to {file}.",
                       (long long)game_.plies(), {{"file", file}})
                << "\n";
    } catch (const std::exception& e) {
      std::cout << tr("Could not save: {error}", {{"error", e.what()}}) << "\n";
    }
  }

  // Returns false to leave.
  bool handle(const std::string& line) {
    if (line.empty()) return true;
    std::istringstream ss(line);
    std::string word;
    ss >> word;
    const std::string cmd = lower(word);
    std::string rest;
    std::getline(ss, rest);
    rest = trim(rest);
    if (cmd == "quit" || cmd == "exit" || cmd == "q") {
      std::cout << tr("Bye.") << "\n";
      return false;
    }
    if (cmd == "help" || cmd == "?") {
      help();
    } else if (cmd == "hint") {
      hint();
    } else if (cmd == "eval") {
      eval();
    } else if (cmd == "undo") {
      undo();
    } else if (cmd == "board") {
      show_board();
    } else if (cmd == "save") {
      save(rest);
    } else if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0]))) {
      if (!rest.empty()) {
        std::cout << tr("One move at a time, please (got '{line}').", {{"line", line}}) << "\n";
        return true;
      }
      human_move(word);
    } else {
      std::cout << (spec_.is_togyz()
                        ? tr("'{word}' is not a command: type a hole number (1-{m}), hint, eval, "
                             "undo, save FILE, help or quit.",
                             {{"word", word}, {"m", int(pos().npits)}})
                        : tr("'{word}' is not a command: type a pit number (1-{m}), hint, eval, "
                             "undo, save FILE, help or quit.",
                             {{"word", word}, {"m", int(pos().npits)}}))
                << "\n";
    }
    return true;
  }

  void human_move(const std::string& token) {
    if (finished()) {
      std::cout << tr("The game is over: undo, save FILE or quit.") << "\n";
      return;
    }
    const int m = pos().npits;
    int move = -1;
    bool all_digits = std::all_of(token.begin(), token.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (all_digits && token.size() <= 2 && (token.size() == 1 || !spec_.is_togyz())) {
      const int v = std::stoi(token);
      if (v < 1 || v > m) {
        std::cout << (spec_.is_togyz() ? tr("There is no hole {v}: yours are numbered 1-{m}.",
                                            {{"v", v}, {"m", m}})
                                       : tr("There is no pit {v}: yours are numbered 1-{m}.",
                                            {{"v", v}, {"m", m}}))
                  << "\n";
        return;
      }
      move = v - 1;
    } else if (spec_.is_togyz()) {
      try {
        const MoveToken t = parse_move_token(token, spec_);
        move = t.from - 1;
        if (pos().is_legal(move)) {
          Position p = pos();
          const auto info = p.play(move);
          if (t.landing && *t.landing != info.landing_index + 1) {
            std::cout << tr("From hole {from} the last stone lands on hole {landing}, not "
                            "{given} (type {from} or {notation}).",
                            {{"from", t.from},
                             {"landing", info.landing_index + 1},
                             {"given", *t.landing},
                             {"notation", format_move(pos(), move)}})
                      << "\n";
            return;
          }
        }
      } catch (const ParseError& e) {
        std::cout << e.what() << ".\n";
        return;
      }
    } else {
      std::cout << tr("'{token}' is not a pit: yours are numbered 1-{m}.",
                      {{"token", token}, {"m", m}})
                << "\n";
      return;
    }
    if (!pos().is_legal(move)) {
      std::string legal;
      for (uint32_t mask = pos().legal_mask(); mask; mask &= mask - 1)
        legal += " " + std::to_string(__builtin_ctz(mask) + 1);
      const std::initializer_list<i18n::Arg> args = {{"hole", move + 1}, {"legal", legal}};
      std::cout << (!spec_.is_togyz()
                        ? tr("Your pit {hole} is empty; you can move from:{legal}.", args)
                    : pos().tuzdyk[human_ ^ 1] == move
                        ? tr("Your hole {hole} is a tuzdyk; you can move from:{legal}.", args)
                        : tr("Your hole {hole} is empty; you can move from:{legal}.", args))
                << "\n";
      return;
    }
    const Position before = pos();
    if (clock_ && !clock_done(move)) return;
    std::cout << announcement(before, move, /*by_engine=*/false) << "\n";
    game_.play(move);
    if (finished()) {
      show_board();
    } else if (pos().to_move == human_) {
      std::cout << tr("You move again.") << "\n";
      show_board();
    }
  }

  PlayOptions opt_;
  GameSpec spec_;
  GameSession game_;
  Level level_;
  int human_;
  int rating_ = 0;  // a rating level's rating, 0 for a named level
  std::unique_ptr<Player> engine_;
  std::unique_ptr<Player> analyst_;
  bool color_ = false;
  std::string labels_[2];
  std::string names_[2];                // the labels without the clocks
  std::optional<GameClock> clock_;      // --clock; nullopt: no clock
  std::unique_ptr<LineReader> reader_;  // input under a clock
  bool announced_ = false;              // the result of the finished game has been said
};

int run_play(const PlayOptions& opt) {
  apply_language(opt.lang);
  GameSpec spec;
  Position start;
  Level level = Level::kMedium;
  const std::optional<int> rating = parse_rating_level(opt.level);
  std::shared_ptr<HumanHead> human_policy;
  std::optional<ClockControl> clock;
  try {
    if (!opt.clock.empty()) clock = parse_clock_control(opt.clock);
    spec = GameSpec::parse(opt.game);
    start = opt.position.empty() ? Position::start(spec) : Position::parse(opt.position, spec);
    if (rating) {
      human_policy = load_human_level(spec, *rating, opt.human_model);
      // Refused here when its engine is missing.
      human_level_search(spec, *human_policy, MixUse::kPlay);
    } else {
      level = parse_level(opt.level);
    }
  } catch (const ParseError& e) {
    print_command_error("kumalak play", e);
    return 2;
  }
  int human = 0;
  if (!opt.human.empty() && !opt.engine_plays.empty()) {
    print_command_error("kumalak play", tr("give --human or --engine-plays, not both"));
    return 2;
  }
  if (!opt.human.empty()) human = parse_side(opt.human);
  if (!opt.engine_plays.empty()) {
    const int e = parse_side(opt.engine_plays);
    human = e < 0 ? -1 : e ^ 1;
  }
  if (human < 0) {
    print_command_error("kumalak play", tr("a side is white or black (Kalah: south or north)"));
    return 2;
  }
  if (start.is_decided()) {
    print_command_error("kumalak play", tr("the game in that position is already decided"));
    return 2;
  }
  if (!rating && level >= Level::kHard && opt.model.empty() && shipped_model_path(spec).empty())
    print_command_error(
        "kumalak play",
        tr("no network for {game} ({file}); level {level} uses the alpha-beta engine",
           {{"game", spec.name()},
            {"file", "models/" + model_file_stem(spec) + ".pt"},
            {"level", std::string(level_name(level))}}));
  try {
    PlaySession session(opt, spec, start, level, human, human_policy, rating.value_or(0), clock);
    return session.run();
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
