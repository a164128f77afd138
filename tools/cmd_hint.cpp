// kumalak hint: the engine's best moves in a position, with win chances, the expected
// margin, the expected line and a plain-language reason for each. --json prints one
// object for programs (docs/play.md shows both).
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/i18n.h"
#include "core/notation.h"
#include "core/numbers.h"
#include "mcts/advice.h"
#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/exact_result_words.h"
#include "tools/hint_json.h"
#include "tools/human_level.h"
#include "tools/json_text.h"
#include "tools/move_words.h"

namespace kz::cli {

namespace {

struct HintOptions {
  std::string game = "togyz";
  std::string position;
  std::string moves;
  bool moves_given = false;
  bool json = false;
  std::string level = "expert";
  std::string model;
  std::string human_model;  // --human-model: the human policy of a rating level ("" = shipped)
  double movetime = 0;
  int depth = 0;
  int count = 3;
  std::string lang;  // --lang: the language of the text (and --json's reasons)
  int rating = 0;    // --rating: also say what most players of this rating play here
};

// A hint at a rating level: the human policy's most likely moves at that rating with
// their probabilities, and the engine's (expert's) best move beside them.
int run_rating_hint(const HintOptions& opt, const GameSpec& spec, const Position& pos,
                    HumanHead& policy, int rating) {
  using i18n::tr;
  std::vector<HumanMove> moves;
  try {
    moves =
        human_moves(policy, pos, rating, human_level_search(spec, policy, MixUse::kDescribe).get());
  } catch (const ParseError& e) {
    print_command_error("kumalak hint", e);
    return 2;
  }
  if (int(moves.size()) > opt.count) moves.resize(size_t(opt.count));
  std::unique_ptr<Player> engine;
  try {
    LevelPlayerOptions lo;
    lo.force_alphabeta = opt.depth > 0;
    lo.network = load_model_evaluator;
    engine = make_analysis_player(spec, Level::kExpert, opt.model, 1, lo);
  } catch (const std::exception& e) {
    print_command_error("kumalak hint", e);
    return 2;
  }
  ThinkLimits limits;
  limits.movetime_s = opt.movetime;
  limits.depth = opt.depth;
  const int best = engine->think(pos, limits).best_move;
  if (opt.json) {
    nlohmann::ordered_json j;
    j["position"] = pos.to_string();
    j["rating"] = rating;
    j["moves"] = nlohmann::ordered_json::array();
    for (const HumanMove& m : moves)
      j["moves"].push_back({{"move", m.move + 1},
                            {"notation", format_move(pos, m.move)},
                            {"probability", m.probability}});
    j["engine"] = engine->name();
    j["engine_best"] = {{"move", best + 1}, {"notation", format_move(pos, best)}};
    std::cout << json_text(j) << "\n";
    return 0;
  }
  const bool white = pos.to_move == 0;
  std::cout << (white ? tr("Position {position} (white to move)", {{"position", pos.to_string()}})
                      : tr("Position {position} (black to move)", {{"position", pos.to_string()}}))
            << "\n"
            << tr("The moves players rated {rating} make here, most likely first:",
                  {{"rating", rating}})
            << "\n";
  int rank = 1;
  for (const HumanMove& m : moves)
    std::cout << rank++ << ". "
              << tr("hole {hole} ({notation})",
                    {{"hole", m.move + 1}, {"notation", format_move(pos, m.move)}})
              << "  " << tr("probability {probability}", {{"probability", percent(m.probability)}})
              << "\n";
  std::cout << tr("Most players at {rating} play {move} here; the engine's best is {best}.",
                  {{"rating", rating},
                   {"move", format_move(pos, moves.front().move)},
                   {"best", format_move(pos, best)}})
            << "\n";
  return 0;
}

int run_hint(const HintOptions& opt) {
  using i18n::tr;
  apply_language(opt.lang);
  GameSpec spec;
  Position pos;
  Level level = Level::kExpert;
  const std::optional<int> rating = parse_rating_level(opt.level);
  std::shared_ptr<HumanHead> human_policy;
  try {
    spec = GameSpec::parse(opt.game);
    if (rating && opt.rating > 0 && opt.rating != *rating)
      throw ParseError(tr("--rating {rating} and --level {level} name two ratings: give one",
                          {{"rating", opt.rating}, {"level", opt.level}}));
    if (rating)
      human_policy = load_human_level(spec, *rating, opt.human_model);
    else
      level = parse_level(opt.level);
    if (!rating && opt.rating > 0)
      human_policy = load_human_level(spec, opt.rating, opt.human_model);
    if (!opt.position.empty() && opt.moves_given)
      throw ParseError(tr("give --position or --moves (moves from the start), not both"));
    if (opt.moves_given)
      pos = replay_moves(parse_move_list(opt.moves), Position::start(spec)).final_position;
    else if (!opt.position.empty())
      pos = Position::parse(opt.position, spec);
    else
      throw ParseError(tr("give --position \"...\" or --moves \"...\""));
  } catch (const ParseError& e) {
    print_command_error("kumalak hint", e);
    return 2;
  }
  if (pos.is_over()) {
    print_command_error("kumalak hint",
                        tr("the game is over in {position}", {{"position", pos.to_string()}}));
    return 1;
  }
  if (human_policy && rating) return run_rating_hint(opt, spec, pos, *human_policy, *rating);
  std::unique_ptr<Player> player;
  try {
    LevelPlayerOptions lo;
    lo.force_alphabeta = opt.depth > 0;  // a depth in plies is an alpha-beta budget
    lo.network = load_model_evaluator;
    player = make_analysis_player(spec, level, opt.model, opt.count, lo);
  } catch (const std::exception& e) {
    print_command_error("kumalak hint", e);
    return 2;
  }
  ThinkLimits limits;
  limits.movetime_s = opt.movetime;
  limits.depth = opt.depth;
  const Hint h = make_hint(*player, pos, limits, opt.count);

  // --rating: the likeliest move of players of that rating, beside the engine's best.
  std::vector<HumanMove> human;
  if (human_policy) {
    try {
      human = human_moves(*human_policy, pos, opt.rating,
                          human_level_search(spec, *human_policy, MixUse::kDescribe).get());
    } catch (const ParseError& e) {
      print_command_error("kumalak hint", e);
      return 2;
    }
  }
  if (opt.json) {
    nlohmann::ordered_json j = hint_json(spec, pos, h, player->name(), level);
    if (!human.empty()) {
      j["human"] = {{"rating", opt.rating}, {"moves", nlohmann::ordered_json::array()}};
      for (size_t i = 0; i < human.size() && i < size_t(opt.count); ++i)
        j["human"]["moves"].push_back({{"move", human[i].move + 1},
                                       {"notation", format_move(pos, human[i].move)},
                                       {"probability", human[i].probability}});
    }
    std::cout << json_text(j) << "\n";
    return 0;
  }
  std::ostringstream seconds;
  seconds << h.result.seconds;
  const bool white = pos.to_move == 0;
  std::cout
      << (pos.is_togyz()
              ? white ? tr("Position {position} (white to move)", {{"position", pos.to_string()}})
                      : tr("Position {position} (black to move)", {{"position", pos.to_string()}})
          : white ? tr("Position {position} (south to move)", {{"position", pos.to_string()}})
                  : tr("Position {position} (north to move)", {{"position", pos.to_string()}}))
      << "\n"
      << tr("Engine {engine}: depth {depth}, {nodes} nodes, {seconds} s",
            {{"engine", player->name()},
             {"depth", h.result.depth},
             {"nodes", h.result.nodes},
             {"seconds", seconds.str()}})
      << "\n";
  if (h.solve.solved) std::cout << describe_exact_result(pos, h.solve) << "\n";
  int rank = 1;
  for (const auto& m : h.moves) {
    std::cout << rank++ << ". "
              << (pos.is_togyz() ? tr("hole {hole} ({notation})",
                                      {{"hole", m.move + 1}, {"notation", m.notation}})
                                 : tr("pit {pit}", {{"pit", m.move + 1}}))
              << "  "
              << tr("win {win}, draw {draw}, loss {loss}, margin {margin}",
                    {{"win", percent(m.eval.win)},
                     {"draw", percent(m.eval.draw)},
                     {"loss", percent(m.eval.loss)},
                     {"margin", signed_margin(m.eval.margin)}})
              << proven_note(m.eval.proven, m.eval.margin_exact, m.eval.margin) << "\n   "
              << explain_move(pos, m.move) << "\n   "
              << tr("expected line: {line}", {{"line", m.line_text}}) << "\n";
  }
  if (!human.empty() && !h.moves.empty())
    std::cout << tr("Most players at {rating} play {move} here; the engine's best is {best}.",
                    {{"rating", opt.rating},
                     {"move", format_move(pos, human.front().move)},
                     {"best", h.moves.front().notation}})
              << "\n";
  return 0;
}

}  // namespace

void register_hint(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<HintOptions>();
  auto* cmd = app.add_subcommand("hint", tr_noop("The best moves in a position, with reasons"));
  add_game_option(cmd, opt->game);
  cmd->add_option("--position", opt->position, tr_noop("the position string"));
  cmd->add_option("--moves", opt->moves, tr_noop("moves from the start: the mover's pit numbers"))
      ->each([opt](const std::string&) { opt->moves_given = true; });
  cmd->add_flag("--json", opt->json, tr_noop("print one JSON object"));
  add_level_option(cmd, opt->level, /*ratings=*/true);
  add_model_option(cmd, opt->model);
  add_human_model_option(cmd, opt->human_model);
  add_movetime_option(cmd, opt->movetime);
  add_depth_option(cmd, opt->depth);
  add_lang_option(cmd, opt->lang);
  cmd->add_option("--rating", opt->rating,
                  tr_noop("also say what most players of this PlayOK rating play here (Togyz, with "
                          "the human model)"))
      ->check(in_range(1, 100000));
  cmd->add_option("--count", opt->count, tr_noop("how many moves to show"))
      ->check(in_range(1, 1000000));
  cmd->callback([opt, &exit_code] { exit_code = run_hint(*opt); });
}

}  // namespace kz::cli
