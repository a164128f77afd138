#include "tools/play_words.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/game_clock.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "tools/board_view.h"
#include "tools/exact_result_words.h"
#include "tools/move_words.h"

namespace kz::cli {

using i18n::tr;
using i18n::trn;

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

namespace {

// Who plays what at which level: the greeting's first sentence.
std::string sides_sentence(const PlaySession& session) {
  const Position& pos = session.position();
  const PlaySettings& s = session.settings();
  const int human = session.human();
  const i18n::Arg you("you", side_name(pos, human));
  const i18n::Arg engine("engine", session.engine_name());
  const i18n::Arg them("them", side_name(pos, human ^ 1));
  const i18n::Arg level("level", tr(level_name(s.level)));
  const i18n::Arg spec("spec", s.spec.name());
  const i18n::Arg rating("rating", s.rating);
  if (s.rating > 0)
    return s.spec.is_togyz()
               ? tr("Togyz Kumalak ({spec}): you play {you}, the engine plays {them} like "
                    "a PlayOK player rated {rating}.",
                    {spec, you, them, rating})
               : tr("Kalah ({spec}): you play {you}, the engine plays {them} like a "
                    "PlayOK player rated {rating}.",
                    {spec, you, them, rating});
  return s.spec.is_togyz()
             ? tr("Togyz Kumalak ({spec}): you play {you}, the engine ({engine}) plays "
                  "{them} at level {level}.",
                  {spec, you, engine, them, level})
             : tr("Kalah ({spec}): you play {you}, the engine ({engine}) plays {them} at "
                  "level {level}.",
                  {spec, you, engine, them, level});
}

// The result of a game ended on time, as the result line says it.
std::string time_result_text(const GameSession& game, int human) {
  const int flagged = *game.flagged_side();
  const Outcome o = flag_outcome(game.position(), flagged);
  const i18n::Arg result("result", outcome_string(o));
  if (flagged == human)
    return o == Outcome::kDraw
               ? tr("Your time ran out, but the engine could not win any more: {result}, "
                    "a draw.",
                    {result})
               : tr("Your time ran out: {result}, the engine wins on time.", {result});
  return o == Outcome::kDraw
             ? tr("The engine's time ran out, but you could not win any more: "
                  "{result}, a draw.",
                  {result})
             : tr("The engine's time ran out: {result}, you win on time.", {result});
}

}  // namespace

std::string play_greeting(const PlaySession& session) {
  const Position& pos = session.position();
  const GameSession& game = session.game();
  const i18n::Arg side("side", side_name(pos, pos.to_move));
  std::string out =
      sides_sentence(session) + " " +
      (game.start() == Position::start(game.spec()) ? tr("{side} moves first.", {side})
                                                    : tr("{side} is to move.", {side})) +
      "\n" +
      (pos.is_togyz()
           ? tr("Type a hole number (1-{m}) to move, or help.", {{"m", int(pos.npits)}})
           : tr("Type a pit number (1-{m}) to move, or help.", {{"m", int(pos.npits)}})) +
      "\n";
  if (const GameClock* clock = session.clock())
    out += tr("On a clock of {control} each: your time runs while you think, hint and "
              "eval included.",
              {{"control", clock->control().text()}}) +
           "\n";
  return out + "\n";
}

// A move makes a tuzdyk, captures or earns another turn (never two of them: a Kalah
// capture ends in a pit, another turn in the store).
std::string move_announcement(const Position& before, int move, bool by_engine) {
  const MoveFacts f = move_facts(before, move);
  const int mover = before.to_move;
  const i18n::Arg side("side", side_name(before, mover)), played("move", format_move(before, move));
  const i18n::Arg owner("owner", side_name(before, mover ^ 1)), hole("hole", f.tuzdyk_hole + 1);
  std::string out;
  if (f.made_tuzdyk) {
    out = by_engine ? tr("{side} (engine) plays {move}: makes a tuzdyk on {owner}'s hole {hole}.",
                         {side, played, owner, hole})
                    : tr("You play {move}: makes a tuzdyk on {owner}'s hole {hole}.",
                         {played, owner, hole});
  } else if (f.captured > 0 && before.is_togyz()) {
    out = by_engine ? trn("{side} (engine) plays {move}: captures {n} stone.",
                          "{side} (engine) plays {move}: captures {n} stones.", f.captured,
                          {side, played})
                    : trn("You play {move}: captures {n} stone.",
                          "You play {move}: captures {n} stones.", f.captured, {played});
  } else if (f.captured > 0) {
    out = by_engine
              ? trn("{side} (engine) plays {move}: captures {n} seed.",
                    "{side} (engine) plays {move}: captures {n} seeds.", f.captured, {side, played})
              : trn("You play {move}: captures {n} seed.", "You play {move}: captures {n} seeds.",
                    f.captured, {played});
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
  for (const auto& [stones, tuzdyk_owner] : into_tuzdyk) {
    if (stones == 0) continue;
    out += ' ';
    out += trn("{n} stone goes into {owner}'s tuzdyk.", "{n} stones go into {owner}'s tuzdyk.",
               stones, {{"owner", side_name(before, tuzdyk_owner)}});
  }
  return out;
}

std::string move_refusal_text(const Position& pos, const std::string& token,
                              const TypedMove& typed) {
  const bool togyz = pos.is_togyz();
  const int m = pos.npits;
  const std::initializer_list<i18n::Arg> args = {{"hole", typed.move + 1}, {"legal", typed.legal}};
  switch (typed.refusal) {
    case MoveRefusal::kNone:
      return "";
    case MoveRefusal::kGameOver:
      return tr("The game is over: undo, save FILE or quit.") + "\n";
    case MoveRefusal::kNoSuchHole:
      return (togyz ? tr("There is no hole {v}: yours are numbered 1-{m}.",
                         {{"v", typed.number}, {"m", m}})
                    : tr("There is no pit {v}: yours are numbered 1-{m}.",
                         {{"v", typed.number}, {"m", m}})) +
             "\n";
    case MoveRefusal::kNotAPit:
      return tr("'{token}' is not a pit: yours are numbered 1-{m}.", {{"token", token}, {"m", m}}) +
             "\n";
    case MoveRefusal::kBadNotation:
      return typed.error + ".\n";
    case MoveRefusal::kWrongLanding:
      return tr("From hole {from} the last stone lands on hole {landing}, not "
                "{given} (type {from} or {notation}).",
                {{"from", typed.move + 1},
                 {"landing", typed.landing},
                 {"given", typed.given},
                 {"notation", typed.notation}}) +
             "\n";
    case MoveRefusal::kTuzdyk:
      return tr("Your hole {hole} is a tuzdyk; you can move from:{legal}.", args) + "\n";
    case MoveRefusal::kEmptyHole:
      return (togyz ? tr("Your hole {hole} is empty; you can move from:{legal}.", args)
                    : tr("Your pit {hole} is empty; you can move from:{legal}.", args)) +
             "\n";
  }
  return "";
}

std::string game_result_text(const GameSession& game, int human) {
  const Position& pos = game.position();
  if (game.flagged_side() && !pos.is_decided()) return time_result_text(game, human) + "\n";
  const i18n::Arg white("white", side_name(pos, 0)), w("w", int(pos.store[0]));
  const i18n::Arg black("black", side_name(pos, 1)), b("b", int(pos.store[1]));
  std::string out;
  if (pos.is_over())
    out = tr("Game over: {white} {w}, {black} {b}.", {white, w, black, b});
  else if (pos.is_togyz())
    out =
        tr("Game over: {white} {w}, {black} {b} (a kazan holds 82 or more: the result "
           "can no longer change).",
           {white, w, black, b});
  else
    out =
        tr("Game over: {white} {w}, {black} {b} (a store holds more than half: the "
           "result can no longer change).",
           {white, w, black, b});
  const Outcome o = pos.outcome();
  const i18n::Arg result("result", outcome_string(o));
  out += " ";
  if (o == Outcome::kDraw)
    out += tr("{result}: a draw.", {result});
  else if ((o == Outcome::kWhiteWins) == (human == 0))
    out += tr("{result}: you win!", {result});
  else
    out += tr("{result}: the engine wins.", {result});
  return out + "\n";
}

std::string hint_text(const Position& pos, const Hint& hint) {
  std::string out = tr("Best moves for you (depth {depth}, {nodes} nodes):",
                       {{"depth", hint.result.depth}, {"nodes", hint.result.nodes}}) +
                    "\n";
  int rank = 1;
  for (const auto& m : hint.moves) {
    out += "  " + std::to_string(rank++) + ". " +
           (pos.is_togyz()
                ? tr("hole {hole} ({notation})", {{"hole", m.move + 1}, {"notation", m.notation}})
                : tr("pit {pit}", {{"pit", m.move + 1}}));
    out +=
        "  " +
        tr("win {win}, draw {draw}, margin {margin}", {{"win", percent(m.eval.win)},
                                                       {"draw", percent(m.eval.draw)},
                                                       {"margin", signed_margin(m.eval.margin)}}) +
        proven_note(m.eval.proven, m.eval.margin_exact, m.eval.margin) + "\n     " +
        explain_move(pos, m.move) + "\n     " +
        tr("expected line: {line}", {{"line", m.line_text}}) + "\n";
  }
  return out;
}

std::string eval_text(const Position& pos, const ThinkResult& r) {
  const std::initializer_list<i18n::Arg> args = {
      {"win", percent(r.win)},
      {"draw", percent(r.draw)},
      {"loss", percent(r.loss)},
      {"margin", signed_margin(r.margin)},
      {"proven", proven_note(r.proven, r.margin_exact, r.margin)},
      {"move", format_move(pos, r.best_move)},
      {"depth", r.depth}};
  return (pos.is_togyz()
              ? tr("For you: win {win}, draw {draw}, loss {loss}, expected margin {margin} "
                   "stones{proven}; the engine would play {move} (depth {depth}).",
                   args)
              : tr("For you: win {win}, draw {draw}, loss {loss}, expected margin {margin} "
                   "seeds{proven}; the engine would play {move} (depth {depth}).",
                   args)) +
         "\n";
}

std::string not_a_command_text(const Position& pos, const PlayCommand& command) {
  if (command.kind == PlayCommand::kTwoMoves)
    return tr("One move at a time, please (got '{line}').", {{"line", command.line}}) + "\n";
  const std::initializer_list<i18n::Arg> args = {{"word", command.word}, {"m", int(pos.npits)}};
  return (pos.is_togyz() ? tr("'{word}' is not a command: type a hole number (1-{m}), hint, "
                              "eval, undo, save FILE, help or quit.",
                              args)
                         : tr("'{word}' is not a command: type a pit number (1-{m}), hint, eval, "
                              "undo, save FILE, help or quit.",
                              args)) +
         "\n";
}

std::string play_help_text(const Position& pos) {
  const int m = pos.npits;
  // The command words stay English (they are what the player types); their
  // explanations are translated.
  std::string out =
      tr("Commands:") + "\n" + "  1-" + std::to_string(m) + "        " +
      (pos.is_togyz() ? tr("move from that hole (your own numbering, left to right on your side)")
                      : tr("move from that pit (your own numbering, left to right on your side)")) +
      "\n";
  if (pos.is_togyz())
    out += "  76, 36x     " + tr("a move in notation also works (hole, landing hole, x = tuzdyk)") +
           "\n";
  out += "  hint        " + tr("the engine's best 3 moves for you, with reasons") + "\n" +
         "  eval        " + tr("win/draw/loss chances and the expected margin for you") + "\n" +
         "  undo        " + tr("take back your last move and the engine's reply") + "\n" +
         "  board       " + tr("show the board again") + "\n" +
         // The command stays `save`; its placeholder is a word of the reader's (four
         // letters in every catalog, so the column holds).
         "  save " + tr("FILE") + "   " + tr("save the game as PGN") + "\n" + "  help        " +
         tr("this list") + "\n" + "  quit        " + tr("leave the game") + "\n";
  return out;
}

std::string undo_text(std::optional<size_t> taken) {
  if (!taken) return tr("On a clock there is no taking moves back.") + "\n";
  if (*taken == 0) return tr("Nothing to undo: you have not moved yet.") + "\n";
  return trn("Took back {n} ply.", "Took back {n} plies.", (long long)*taken) + "\n";
}

// The usual reasons are said in the player's language; the system's own words
// (English) only for the rare others.
std::string save_text(const std::string& file, const SaveOutcome& saved) {
  switch (saved.failure) {
    case SaveFailure::kNone:
      return trn("Saved {n} ply to {file}.", "Saved {n} plies to {file}.", (long long)saved.plies,
                 {{"file", file}}) +
             "\n";
    case SaveFailure::kNoFile:
      return tr("Usage: save FILE") + "\n";
    case SaveFailure::kIsFolder:
      return tr("Could not save: '{file}' is a folder", {{"file", file}}) + "\n";
    case SaveFailure::kNoFolder:
      return tr("Could not save: there is no folder '{folder}'", {{"folder", saved.folder}}) + "\n";
    case SaveFailure::kNotWritable:
      return tr("Could not save: the folder '{folder}' cannot be written to",
                {{"folder", saved.folder}}) +
             "\n";
    case SaveFailure::kOther:
      return tr("Could not save: {error}", {{"error", saved.error}}) + "\n";
  }
  return "";
}

std::string hint_answer_text(const Position& pos, const std::optional<Hint>& hint) {
  if (!hint) return tr("The game is over.") + "\n";
  std::string out;
  if (hint->solve.solved) out = describe_exact_result(pos, hint->solve) + "\n";
  return out + hint_text(pos, *hint);
}

std::array<std::string, 2> side_names(const PlaySettings& settings) {
  std::array<std::string, 2> names;
  names[settings.human] = tr("you");
  // The level's name is one of the page's message ids ("medium", ...), said in the
  // player's language here too.
  names[settings.human ^ 1] =
      settings.rating > 0 ? tr("engine, rated {rating}", {{"rating", settings.rating}})
                          : tr("engine, {level}", {{"level", tr(level_name(settings.level))}});
  return names;
}

std::array<std::string, 2> board_labels(const std::array<std::string, 2>& names,
                                        const GameClock* clock) {
  if (!clock) return names;
  std::array<std::string, 2> labels;
  for (int side = 0; side < 2; ++side)
    labels[side] = tr("{player}, {time} left",
                      {{"player", names[side]}, {"time", clock_text(clock->remaining_ms(side))}});
  return labels;
}

std::string prompt_text(bool finished) {
  return finished ? tr("Game over (undo, save FILE, quit)> ") : tr("Your move> ");
}

std::string end_of_input_text(bool finished) {
  return finished ? tr("End of input: bye.") : tr("End of input: leaving the game unfinished.");
}

std::string moves_again_text(bool by_engine) {
  return (by_engine ? tr("The engine moves again.") : tr("You move again.")) + "\n";
}

}  // namespace kz::cli
