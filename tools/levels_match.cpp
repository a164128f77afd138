#include "tools/levels_match.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>

#include "nn/model_evaluator.h"
#include "tools/human_level.h"

namespace kz {

MatchSide parse_match_side(const std::string& text) {
  MatchSide side;
  side.rating = parse_rating_level(text);
  if (!side.rating) side.level = parse_level(text);
  return side;
}

nlohmann::ordered_json record_line(const RecordedGame& g) {
  return {{"upper", g.upper},
          {"opening", g.opening},
          {"game", g.game},
          {"points", g.points},
          {"plies", g.plies},
          {"upper_nodes", g.upper_nodes},
          {"lower_nodes", g.lower_nodes},
          {"upper_moves", g.upper_moves},
          {"lower_moves", g.lower_moves},
          {"upper_seconds", g.upper_seconds},
          {"lower_seconds", g.lower_seconds},
          {"upper_engine", g.upper_name},
          {"lower_engine", g.lower_name},
          {"verdict_points", g.verdict_points},
          {"verdict_ply", g.verdict_ply}};
}

std::vector<RecordedGame> read_record(const std::string& path,
                                      const nlohmann::ordered_json& settings, int n_openings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the record");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<RecordedGame> games;
  size_t start = 0;
  for (int line_no = 1; start < text.size(); ++line_no) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? end : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      if (end == std::string::npos) {
        std::cerr << where << "an unfinished last line (the match was stopped); dropped\n";
        break;
      }
      throw std::runtime_error(where + "not a JSON line");
    }
    if (line_no == 1) {
      if (!j.is_object() || !j.contains("levels_match_record"))
        throw std::runtime_error(where + "not a levels-match record (no settings line)");
      for (const auto& [key, value] : settings.items())
        if (!j.contains(key) || j[key] != nlohmann::json(value))
          throw std::runtime_error(path + " was recorded with " + key + " = " +
                                   (j.contains(key) ? j[key].dump() : "(none)") + ", not " +
                                   value.dump() + ": use another --record file");
      // A setting this run does not have (a record made with resign adjudication, resumed
      // without it) would mix two kinds of games just the same.
      for (const auto& [key, value] : j.items())
        if (!settings.contains(key))
          throw std::runtime_error(path + " was recorded with " + key + " = " + value.dump() +
                                   ", which this run does not set: use another --record file");
      continue;
    }
    try {
      RecordedGame g;
      g.upper = j.at("upper").get<std::string>();
      g.opening = j.at("opening").get<int>();
      g.game = j.at("game").get<int>();
      g.points = j.at("points").get<int>();
      g.plies = j.at("plies").get<int>();
      g.upper_nodes = j.at("upper_nodes").get<int64_t>();
      g.lower_nodes = j.at("lower_nodes").get<int64_t>();
      g.upper_moves = j.at("upper_moves").get<int>();
      g.lower_moves = j.at("lower_moves").get<int>();
      g.upper_seconds = j.at("upper_seconds").get<double>();
      g.lower_seconds = j.at("lower_seconds").get<double>();
      g.upper_name = j.at("upper_engine").get<std::string>();
      g.lower_name = j.at("lower_engine").get<std::string>();
      // Absent from records made before resign adjudication existed: no verdict.
      g.verdict_points = j.value("verdict_points", -1);
      g.verdict_ply = j.value("verdict_ply", -1);
      if (g.opening < 0 || g.opening >= n_openings || (g.game != 0 && g.game != 1) ||
          g.points < 0 || g.points > 2 || g.plies < 0)
        throw std::out_of_range("opening, game, points or plies out of range");
      if ((g.verdict_points != -1 && g.verdict_points != 0 && g.verdict_points != 2) ||
          (g.verdict_points == -1) != (g.verdict_ply == -1) || g.verdict_ply > g.plies)
        throw std::out_of_range("verdict_points or verdict_ply out of range");
      games.push_back(g);
    } catch (const std::exception& e) {
      throw std::runtime_error(where + "not a recorded game: " + e.what());
    }
  }
  return games;
}

void PairStats::add(const RecordedGame& g) {
  (g.points == 2 ? wins : g.points == 0 ? losses : draws) += 1;
  opening_points[size_t(g.opening)] += g.points;
  plies += g.plies;
  upper_nodes += g.upper_nodes;
  lower_nodes += g.lower_nodes;
  upper_moves += g.upper_moves;
  lower_moves += g.lower_moves;
  upper_seconds += g.upper_seconds;
  lower_seconds += g.lower_seconds;
  upper_name = g.upper_name;
  lower_name = g.lower_name;
  if (g.verdict_points >= 0) {
    ++verdicts;
    verdict_plies += g.verdict_ply;
    verdict_game_plies += g.plies;
    if (g.verdict_points != g.points) ++wrong_verdicts;
  }
}

void play_level_pair(const GameSpec& spec, const MatchSide& upper, const MatchSide& lower,
                     int first_game, const std::vector<Position>& openings,
                     const std::vector<int>& todo, const LevelsMatchPlay& play,
                     const std::function<void(const RecordedGame&, const RunnerGame&)>& on_game) {
  // The runner's game `index` is game `index % 2` of opening todo[index / 2].
  auto original_game = [&](int index) {
    return 2 * todo[size_t(PairedMatch::pair_of(index))] + PairedMatch::game_in_pair(index);
  };
  // Per runner game: the moves' statistics, for the record.
  std::vector<RecordedGame> game_stats(2 * todo.size());
  GameSide sides[2];
  sides[0].name = upper.name();
  sides[1].name = lower.name();
  for (int side = 0; side < 2; ++side) {
    sides[side].make_player = [&, side, match_side = side == 0 ? upper : lower](
                                  int index, int) -> std::unique_ptr<Player> {
      // Distinct noise per game and side, reproducible from --seed.
      const uint64_t seed = play.seed * 1000003 + uint64_t(first_game + original_game(index)) * 2 +
                            uint64_t(side) + 1;
      // A policy of its own per game (a small file read once a game): games run on
      // several threads at once.
      if (match_side.rating) {
        auto policy = load_human_level(spec, *match_side.rating, play.human_model);
        auto search = human_level_search(spec, *policy, MixUse::kPlay);
        return std::make_unique<HumanLevelPlayer>(std::move(policy), *match_side.rating, seed,
                                                  std::move(search));
      }
      const Level level = match_side.level;
      LevelPlayerOptions po;
      po.time_scale = play.time_scale;
      po.force_alphabeta = play.alphabeta_only || (side == 1 && play.lower_alphabeta);
      po.score_bounds = !(side == 1 && play.lower_no_score_bounds);
      po.threads = 1;  // one core per game: --threads games run at once
      po.network = load_model_evaluator;
      po.seed = seed;
      const std::string& model =
          side == 1 && !play.lower_model.empty() ? play.lower_model : play.model;
      return make_level_player(spec, level, model, po);
    };
  }
  PairedMatch::Options mo;
  mo.pairs = int(todo.size());
  mo.resign_score = float(play.resign_score);
  mo.resign_moves = play.resign_moves;
  mo.resign_verify = play.resign_verify;
  mo.opening = [&](int pair) { return openings[size_t(todo[size_t(pair)])]; };
  mo.on_player_move = [&](const RunnerGame& g, int side, const ThinkResult& r) {
    RecordedGame& rg = game_stats[size_t(g.index)];
    (side == 0 ? rg.upper_nodes : rg.lower_nodes) += r.nodes;
    (side == 0 ? rg.upper_moves : rg.lower_moves) += 1;
    (side == 0 ? rg.upper_seconds : rg.lower_seconds) += r.seconds;
  };
  mo.on_game = [&](int pair, int game, int upper_points, const RunnerGame& g, const GameEnd&) {
    const int opening = todo[size_t(pair)];
    RecordedGame& rg = game_stats[size_t(g.index)];
    rg.upper = upper.name();
    rg.opening = opening;
    rg.game = game;
    rg.points = upper_points;
    rg.plies = g.plies;
    rg.upper_name = g.player[0]->name();
    rg.lower_name = g.player[1]->name();
    // The upper level plays colour `game`.
    rg.verdict_points = g.verdict_loser < 0 ? -1 : g.verdict_loser == game ? 0 : 2;
    rg.verdict_ply = g.verdict_ply;
    on_game(rg, g);
  };
  PairedMatch match(std::move(mo));
  GameRunnerOptions ro;
  ro.threads = play.threads;
  ro.slots = 2 * play.threads;    // each thread plays the two games of one pair in turn
  ro.max_plies = play.max_plies;  // a game that hits it (none has so far): the stores judge
  GameRunner(sides, match, ro).run();
}

}  // namespace kz
