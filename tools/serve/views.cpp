#include "tools/serve/views.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/accuracy.h"
#include "mcts/advice.h"
#include "tools/analysis_words.h"
#include "tools/board_view.h"
#include "tools/exact_result_words.h"
#include "tools/move_words.h"

namespace kz::cli::serve {

json board_json(const Position& p) {
  json rows = json::array();
  for (int player = 0; player < 2; ++player) {
    json row = json::array();
    for (int i = 0; i < p.npits; ++i) row.push_back(p.pit(player, i));
    rows.push_back(row);
  }
  json legal = json::array();
  for (uint32_t m = p.legal_mask(); m; m &= m - 1) legal.push_back(__builtin_ctz(m) + 1);
  return {{"position", p.to_string()},
          {"pits", rows},
          {"stores", {p.store[0], p.store[1]}},
          // tuzdyk[p]: 1-based hole in the other player's row that belongs to p (0 = none)
          {"tuzdyk", {p.tuzdyk[0] + 1, p.tuzdyk[1] + 1}},
          {"to_move", p.to_move},
          {"legal", legal},
          {"over", p.is_over()},
          {"decided", p.is_decided()},
          {"result", p.is_decided() ? outcome_string(p.outcome()) : "*"}};
}

json progress_json(const Position& pos, const ThinkResult& r) {
  json pv = json::array();
  std::istringstream ss(line_notation(pos, r.pv));
  for (std::string w; ss >> w;) pv.push_back(w);
  return {{"depth", r.depth},
          {"nodes", r.nodes},
          {"seconds", r.seconds},
          {"win", r.win},
          {"draw", r.draw},
          {"loss", r.loss},
          {"margin", r.margin},
          {"proven", r.proven},
          {"margin_exact", r.margin_exact},
          {"pv", pv},
          {"best", r.best_move >= 0 ? r.best_move + 1 : 0}};
}

json move_json(const Position& before, int move, size_t ply) {
  Position after = before;
  const auto info = after.play(move);
  return {{"ply", ply},
          {"pit", move + 1},
          {"mover", before.to_move},
          {"notation", format_move(before, move)},
          {"captured", info.captured},
          {"tuzdyk", info.made_tuzdyk},
          {"extra_turn", info.extra_turn && !info.ended_game},
          {"landing", {info.landing_player, info.landing_index + 1}}};
}

json human_hint_json(const Position& pos, int rating, const std::vector<HumanMove>& moves) {
  json list = json::array();
  for (size_t i = 0; i < moves.size() && i < 3; ++i)
    list.push_back({{"move", moves[i].move + 1},
                    {"notation", format_move(pos, moves[i].move)},
                    {"probability", moves[i].probability}});
  return {{"rating", rating}, {"moves", list}};
}

json played_like_json(const PlayedLike& like) {
  json moves = json::array();
  for (const PlayedLike::Move& m : like.moves)
    moves.push_back({{"ply", m.ply}, {"probability", m.probability}});
  return {{"rating", like.rating}, {"low", like.low}, {"high", like.high}, {"moves", moves}};
}

namespace {

json analysis_json(const Session& s) {
  json plies = json::array();
  AnalysisStats side[2];
  std::vector<double> drops[2];  // each side's judged moves, for its accuracy
  for (size_t i = 0; i < s.judged.size(); ++i) {
    const MoveJudgement& j = s.judged[i];
    const Position& q = s.game.position_at(i);
    side[j.mover].add(j);
    if (j.judged) drops[j.mover].push_back(j.drop);
    plies.push_back({{"ply", i + 1},
                     {"notation", format_move(q, j.move)},
                     {"mover", j.mover},
                     {"judged", j.judged},
                     {"white_score", j.white_score()},
                     {"white_margin", j.white_margin()},
                     {"drop", j.drop},
                     {"mark", move_mark_name(j.mark)},
                     {"best", j.agrees || j.best_move < 0 ? "" : format_move(q, j.best_move)},
                     // In the language of the request, which may not be the one the
                     // engine's thread judged the move in.
                     {"comment", judgement_comment(j, q)}});
  }
  const bool complete = s.judged.size() == s.game.plies();
  json played_like = json::array();
  for (const auto& like : s.played_like)
    played_like.push_back(complete && like ? played_like_json(*like) : json());
  json accuracy = json::array();
  for (const auto& d : drops) {
    const std::optional<double> a = complete ? game_accuracy(d) : std::nullopt;
    accuracy.push_back(a ? json(*a) : json());
  }
  return {{"level", level_name(s.analysis_level)},
          {"engine", s.analysis_engine},
          {"played_like", played_like},
          {"accuracy", accuracy},
          {"done", s.judged.size()},
          {"total", s.game.plies()},
          {"complete", s.judged.size() == s.game.plies()},
          {"plies", plies},
          {"summary", {analysis_stats_line(side[0]), analysis_stats_line(side[1])}},
          {"thresholds", analysis_thresholds_text()}};
}

// Why the game ended on time, in the request's language: the flag rule's result
// (core/game_clock.h) said to the person who lost or won it.
std::string time_reason(const Session& s) {
  const i18n::Arg result("result", outcome_string(s.time_outcome));
  const bool draw = s.time_outcome == Outcome::kDraw;
  if (s.human == kHumanBoth) {
    const i18n::Arg side("side", side_name(s.pos(), s.flagged));
    const i18n::Arg other("other", side_name(s.pos(), 1 - s.flagged));
    return draw ? i18n::tr(
                      "{side}'s time ran out, but {other} could not win any more: {result}, "
                      "a draw.",
                      {side, other, result})
                : i18n::tr("{side}'s time ran out: {result}, {other} wins on time.",
                           {side, other, result});
  }
  if (s.flagged == s.human)
    return draw ? i18n::tr(
                      "Your time ran out, but the engine could not win any more: {result}, "
                      "a draw.",
                      {result})
                : i18n::tr("Your time ran out: {result}, the engine wins on time.", {result});
  return draw ? i18n::tr(
                    "The engine's time ran out, but you could not win any more: {result}, "
                    "a draw.",
                    {result})
              : i18n::tr("The engine's time ran out: {result}, you win on time.", {result});
}

// The game's clock: the control, each side's time left now (never below 0: the page
// shows 0:00.0 once a flag fell), whose clock runs, and the flag's fall.
json clock_json(const Session& s) {
  if (!s.clock) return json();
  const GameClock& c = *s.clock;
  json out = {{"control", c.control().text()},
              {"base_ms", c.control().base_ms},
              {"increment_ms", c.control().increment_ms},
              {"remaining_ms",
               {std::max<int64_t>(0, c.remaining_ms(0)), std::max<int64_t>(0, c.remaining_ms(1))}},
              {"running", c.running()},
              {"flagged", s.flagged}};
  if (s.flagged >= 0) {
    out["result"] = outcome_string(s.time_outcome);
    out["reason"] = time_reason(s);
  }
  return out;
}

}  // namespace

json state_json(const Session& s, std::optional<size_t> queue_ahead) {
  json moves = json::array();
  for (size_t i = 0; i < s.game.plies(); ++i)
    moves.push_back(move_json(s.game.position_at(i), s.game.moves()[i], i + 1));
  json engine = {{"task", task_name(s.task)},
                 {"running", s.running},
                 {"name", s.engine_name},
                 {"progress", s.progress ? progress_json(s.pos(), *s.progress) : json()}};
  if (s.task != Task::kNone && !s.running) engine["queue_ahead"] = queue_ahead.value_or(0);
  const GameSpec& spec = s.spec();
  // Until another message replaces it, the failure is said in this request's language
  // (its error itself is the engine's, for a developer: English).
  const bool engine_failed =
      !s.engine_failure.empty() && s.message == "the engine failed: " + s.engine_failure;
  json out = {{"session", s.id},
              {"version", s.version},
              {"game", spec.name()},
              {"togyz", spec.is_togyz()},
              {"npits", spec.pits},
              {"seeds", spec.seeds},
              {"empty_capture", spec.variant == Variant::kKalahEmpty},
              {"level", s.rating > 0 ? std::to_string(s.rating) : std::string(level_name(s.level))},
              {"human", s.human == kHumanBoth ? "both" : side_word(spec, s.human)},
              {"sides", {side_word(spec, 0), side_word(spec, 1)}},
              {"names", {s.game.tag("White"), s.game.tag("Black")}},
              {"start", s.game.start().to_string()},
              {"board", board_json(s.pos())},
              {"moves", moves},
              {"engine", engine},
              {"message",
               engine_failed ? i18n::tr("the engine failed: {error}", {{"error", s.engine_failure}})
                             : s.message},
              {"engine_failed", engine_failed},
              {"hint", s.hint.is_null() || s.hint_ply != s.game.plies() ? json() : s.hint}};
  // The worker wrote the reasons and the exact line in English; they are said again in
  // this request's language (core/i18n.h ScopedLanguage), from the position the hint is
  // about.
  if (out["hint"].is_object() && out["hint"].contains("moves"))
    for (json& m : out["hint"]["moves"])
      if (m.contains("move") && m["move"].is_number_integer() &&
          s.pos().is_legal(m["move"].get<int>() - 1))
        m["reason"] = explain_move(s.pos(), m["move"].get<int>() - 1);
  if (out["hint"].is_object() && s.hint_solve.solved)
    out["hint"]["exact"] = describe_exact_result(s.pos(), s.hint_solve);
  out["clock"] = clock_json(s);
  out["over"] = s.over();
  // An undo or a loaded record switched the game's clock off: said until the next new game.
  out["clock_note"] = s.clock_dropped ? i18n::tr(
                                            "The clock is off: a game with moves taken back "
                                            "or loaded from a record is not played on time.")
                                      : std::string();
  out["analysis"] = !s.judged.empty() || s.analysis_active ? analysis_json(s) : json();
  return out;
}

}  // namespace kz::cli::serve
