// kumalak replay: replays games (from --moves or PGN files) and prints one JSON object
// per game. A game that cannot be replayed prints nothing on stdout, a message naming
// the game, ply and reason on stderr, and makes the exit status 1; the other games are
// still replayed.
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/notation.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/json_text.h"

namespace kz::cli {

namespace {

struct ReplayOptions {
  std::string game = "togyz";
  std::string moves;
  bool moves_given = false;
  std::string position;
  std::vector<std::string> files;
};

void print_game(const ReplayResult& r, const std::string& game, const GameRecord* record) {
  nlohmann::ordered_json j;
  if (record) {
    j["game"] = record->index;
    j["source"] = record->source;
  }
  j["variant"] = game;
  j["position"] = r.final_position.to_string();
  j["over"] = r.final_position.is_over();
  j["result"] = r.final_position.is_over() ? outcome_string(r.final_position.outcome()) : "*";
  j["decided"] = r.final_position.is_decided();
  j["plies"] = r.plies;
  j["kazans"] = {r.final_position.store[0], r.final_position.store[1]};
  if (record) j["recorded_result"] = record->result;
  std::cout << json_text(j) << "\n";
}

int run_replay(const ReplayOptions& opt) {
  GameSpec spec;
  Position start;
  try {
    spec = GameSpec::parse(opt.game);
    start = opt.position.empty() ? Position::start(spec) : Position::parse(opt.position, spec);
  } catch (const ParseError& e) {
    print_command_error("kumalak replay", e);
    return 2;
  }
  if (opt.moves_given == !opt.files.empty()) {
    print_command_error("kumalak replay", "give either --moves or PGN files, not both or neither");
    return 2;
  }
  int status = 0;
  if (opt.moves_given) {
    try {
      print_game(replay_moves(parse_move_list(opt.moves), start), spec.name(), nullptr);
    } catch (const ParseError& e) {
      print_command_error("kumalak replay", e, "--moves");
      status = 1;
    }
    return status;
  }
  for (const auto& file : opt.files) {
    std::vector<GameRecord> games;
    try {
      games = read_pgn_file(file);
    } catch (const ParseError& e) {
      print_command_error("kumalak replay", e);
      status = 1;
      continue;
    }
    if (games.empty()) {  // an empty file is not a successful replay
      print_command_error("kumalak replay", "'" + file + "' holds no game");
      status = 1;
    }
    for (const auto& g : games) {
      try {
        print_game(replay_record(g, record_start(g, spec, start)), spec.name(), &g);
      } catch (const ParseError& e) {
        print_command_error("kumalak replay", e);
        status = 1;
      }
    }
  }
  return status;
}

}  // namespace

void register_replay(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ReplayOptions>();
  auto* cmd = app.add_subcommand("replay", "Replay games and print one JSON line per game");
  add_game_option(cmd, opt->game);
  cmd->add_option("--moves", opt->moves, "the mover's pit numbers, 1-based, separated by spaces")
      ->each([opt](const std::string&) { opt->moves_given = true; });
  cmd->add_option("--position", opt->position,
                  "start from this position string instead of the start");
  cmd->add_option("files", opt->files, "PGN files (many games each)");
  cmd->callback([opt, &exit_code] { exit_code = run_replay(*opt); });
}

}  // namespace kz::cli
