// kumalak analyze: replays recorded games, evaluates every position with the engine and
// writes the games back as PGN with a comment after each move (White's win chance and
// expected margin after the move, and the engine's move where it preferred another),
// marking inaccuracies, mistakes and blunders, then prints a summary per player.
//
// How a move is judged: the engine searches the position before the move and scores
// every legal move (expected score = win + draw/2 for the mover). The move loses
// E(engine's move) - E(played move), both from that one search, so horizon effects hit
// both alike; the engine's own move loses nothing. Thresholds on that drop
// (docs/play.md): inaccuracy >= 0.10, mistake >= 0.20, blunder >= 0.35.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "core/atomic_file.h"
#include "core/notation.h"
#include "mcts/advice.h"
#include "mcts/levels.h"
#include "mcts/perfect_player.h"
#include "tools/commands.h"

namespace kz::cli {

namespace {

constexpr double kInaccuracy = 0.10, kMistake = 0.20, kBlunder = 0.35;

struct AnalyzeOptions {
  std::string game = "togyz";
  std::vector<std::string> files;
  std::string level = "hard";
  std::string model;
  double movetime = 0;
  int depth = 0;
  std::string output;
  std::string games;  // "1-3", "2", "1,4,7-9"; empty = all
};

struct PlayerStats {
  int moves = 0, inaccuracies = 0, mistakes = 0, blunders = 0, agree = 0;
  double loss = 0;  // sum of drops
  void add(const PlayerStats& o) {
    moves += o.moves;
    inaccuracies += o.inaccuracies;
    mistakes += o.mistakes;
    blunders += o.blunders;
    agree += o.agree;
    loss += o.loss;
  }
  std::string line() const {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%3d moves: inaccuracies %d, mistakes %d, blunders %d, average loss "
                  "%4.1f%%, engine's move %3.0f%%",
                  moves, inaccuracies, mistakes, blunders, moves ? 100.0 * loss / moves : 0.0,
                  moves ? 100.0 * agree / moves : 0.0);
    return buf;
  }
};

// Parses "1-3,5" into a predicate on 1-based game numbers; throws ParseError.
std::vector<std::pair<int, int>> parse_ranges(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    int a = 0, b = 0;
    char dash = 0;
    std::istringstream ps(part);
    if (part.find('-') != std::string::npos) {
      if (!(ps >> a >> dash >> b) || dash != '-' || !ps.eof())
        throw ParseError("--games: '" + part + "' is not a range like 1-3");
    } else {
      if (!(ps >> a) || !ps.eof()) throw ParseError("--games: '" + part + "' is not a number");
      b = a;
    }
    if (a < 1 || b < a) throw ParseError("--games: '" + part + "' is not a valid range");
    out.emplace_back(a, b);
  }
  if (out.empty()) throw ParseError("--games: empty");
  return out;
}

struct Eval {
  double e = 0.5;  // expected score (win + draw / 2) of `mover`
  float margin = 0;
};

// The exact value of a decided position for `mover`.
Eval exact_eval(const Position& q, int mover) {
  const int d = int(q.store[mover]) - int(q.store[mover ^ 1]);
  return {d > 0 ? 1.0 : d < 0 ? 0.0 : 0.5, float(d)};
}

// "W 62% +4.1": White's expected score and margin, from a value seen by `mover`.
std::string white_view(int mover, const Eval& ev) {
  const double e = mover == 0 ? ev.e : 1.0 - ev.e;
  const float m = mover == 0 ? ev.margin : -ev.margin;
  char buf[64];
  std::snprintf(buf, sizeof buf, "W %.0f%% %+.1f", 100.0 * e, double(m));
  return buf;
}

int run_analyze(const AnalyzeOptions& opt) {
  GameSpec spec;
  Level level;
  std::vector<std::pair<int, int>> ranges;
  try {
    spec = GameSpec::parse(opt.game);
    level = parse_level(opt.level);
    if (!opt.games.empty()) ranges = parse_ranges(opt.games);
  } catch (const ParseError& e) {
    std::cerr << "kumalak analyze: " << e.what() << "\n";
    return 2;
  }
  if (opt.files.empty()) {
    std::cerr << "kumalak analyze: give a PGN file\n";
    return 2;
  }
  auto wanted = [&](int n) {
    if (ranges.empty()) return true;
    for (auto [a, b] : ranges)
      if (n >= a && n <= b) return true;
    return false;
  };
  if (!opt.model.empty() && !has_mcts_player_factory())
    std::cerr << "kumalak analyze: this build has no MCTS engine; --model is ignored\n";
  std::unique_ptr<Player> engine;
  try {
    LevelPlayerOptions lo;
    lo.force_alphabeta = opt.depth > 0;  // a depth in plies is an alpha-beta budget
    engine = make_analysis_player(spec, level, opt.model, 0, lo);  // every move scored
  } catch (const std::exception& e) {
    std::cerr << "kumalak analyze: " << e.what() << "\n";
    return 2;
  }
  ThinkLimits limits;
  limits.movetime_s = opt.movetime;
  limits.depth = opt.depth;

  std::string pgn_out, summary;
  std::map<std::string, PlayerStats> by_player;
  std::vector<std::string> player_order;
  int status = 0, analysed = 0;
  for (const auto& file : opt.files) {
    std::vector<GameRecord> games;
    try {
      games = read_pgn_file(file);
    } catch (const ParseError& e) {
      std::cerr << "kumalak analyze: " << e.what() << "\n";
      status = 1;
      continue;
    }
    for (const auto& g : games) {
      if (!wanted(g.index)) continue;
      Position start;
      ReplayResult rr;
      try {
        start = Position::start(spec);
        if (auto fen = g.tag("FEN"); !fen.empty()) start = Position::parse(fen, spec);
        rr = replay_record(g, start);
      } catch (const ParseError& e) {
        std::cerr << "kumalak analyze: " << e.what() << "\n";
        status = 1;
        continue;
      }
      engine->new_game();
      PlayerStats side[2];
      std::vector<std::string> comments;
      Position p = start;
      for (size_t i = 0; i < rr.moves.size(); ++i) {
        const int played = rr.moves[i];
        const int mover = p.to_move;
        Position q = p;
        q.play(played);
        if (p.is_decided()) {  // the result was already fixed: nothing to judge
          comments.push_back(white_view(mover, exact_eval(q, mover)));
          p = q;
          continue;
        }
        const ThinkResult r = engine->think(p, limits);
        // Both values come from the same search, so that the depth and the side to move
        // at its horizon are the same for the played and the preferred move.
        Eval best{r.win + 0.5 * r.draw, r.margin}, mine = best;
        bool found = false;
        for (const MoveEval& e : r.moves) {
          if (e.move == r.best_move) best = {expected_score(e), e.margin};
          if (e.move == played) {
            mine = {expected_score(e), e.margin};
            found = true;
          }
        }
        if (!found) {  // an engine that did not score every move: search the reply
          const ThinkResult rq = q.is_decided() ? ThinkResult{} : engine->think(q, limits);
          mine = q.is_decided()       ? exact_eval(q, mover)
                 : q.to_move == mover ? Eval{rq.win + 0.5 * rq.draw, rq.margin}
                                      : Eval{rq.loss + 0.5 * rq.draw, -rq.margin};
        }
        const bool agrees = played == r.best_move;
        const double drop = agrees ? 0.0 : std::max(0.0, best.e - mine.e);
        std::string c = white_view(mover, agrees ? best : mine);
        PlayerStats& s = side[mover];
        s.moves++;
        s.loss += drop;
        s.agree += agrees;
        char mark[96] = "";
        if (drop >= kBlunder) {
          s.blunders++;
          std::snprintf(mark, sizeof mark, "; ?? blunder (-%.0f%%)", 100 * drop);
        } else if (drop >= kMistake) {
          s.mistakes++;
          std::snprintf(mark, sizeof mark, "; ? mistake (-%.0f%%)", 100 * drop);
        } else if (drop >= kInaccuracy) {
          s.inaccuracies++;
          std::snprintf(mark, sizeof mark, "; ?! inaccuracy (-%.0f%%)", 100 * drop);
        }
        c += mark;
        // Kalah positions the engine solved: stones given away against perfect play.
        if (const std::string lost = stones_lost_note(r, played); !lost.empty()) c += "; " + lost;
        if (!agrees && r.best_move >= 0)
          c += "; engine: " + format_move(p, r.best_move) + " (" + white_view(mover, best) + ")";
        comments.push_back(c);
        p = q;
      }
      GameRecord out = g;
      out.set_tag("Annotator", "KumalakZero " + engine->name());
      pgn_out += write_pgn(out.tags, start, rr.moves, comments) + "\n";
      ++analysed;
      const std::string names[2] = {g.tag("White", "White"), g.tag("Black", "Black")};
      summary += "Game " + std::to_string(g.index) + " (" + file + "): " + names[0] + " vs " +
                 names[1] + ", " + g.result + ", " + std::to_string(rr.plies) + " plies\n";
      for (int p = 0; p < 2; ++p) {
        summary +=
            std::string(p == 0 ? "  White " : "  Black ") + names[p] + ": " + side[p].line() + "\n";
        if (!by_player.count(names[p])) player_order.push_back(names[p]);
        by_player[names[p]].add(side[p]);
      }
    }
  }
  if (analysed > 1) {
    summary += "All games, per player:\n";
    for (const auto& name : player_order)
      summary += "  " + name + ": " + by_player[name].line() + "\n";
  }
  summary +=
      "Thresholds (drop of the mover's expected score): inaccuracy >= 10%, mistake >= "
      "20%, blunder >= 35%.\n";
  if (!opt.output.empty()) {
    try {
      write_file_atomically(opt.output, [&](std::ostream& o) { o << pgn_out; });
    } catch (const std::exception& e) {
      std::cerr << "kumalak analyze: " << e.what() << "\n";
      return 1;
    }
    std::cout << summary;
  } else {
    // Standard output stays one PGN file: the summary goes into ';' comment lines.
    std::cout << pgn_out;
    std::istringstream ss(summary);
    for (std::string line; std::getline(ss, line);) std::cout << "; " << line << "\n";
  }
  if (analysed == 0 && status == 0) {
    std::cerr << "kumalak analyze: no game selected\n";
    return 1;
  }
  return status;
}

}  // namespace

void register_analyze(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<AnalyzeOptions>();
  auto* cmd = app.add_subcommand("analyze", "Annotate recorded games with the engine's judgement");
  cmd->add_option("files", opt->files, "PGN files")->required();
  cmd->add_option("--game", opt->game, "togyz, kalah, bantumi, kalah:M,N or kalah:M,N,empty");
  cmd->add_option("--level", opt->level, "engine budget per position (default hard)");
  cmd->add_option("--model", opt->model, "network model for the MCTS engine");
  cmd->add_option("--movetime", opt->movetime, "seconds per position (replaces the level's)");
  cmd->add_option("--depth", opt->depth,
                  "search every position with the alpha-beta engine to this depth");
  cmd->add_option("--output,-o", opt->output, "write the annotated PGN here");
  cmd->add_option("--games", opt->games, "which games of each file, e.g. 1-3 or 2,5");
  cmd->callback([opt, &exit_code] { exit_code = run_analyze(*opt); });
}

}  // namespace kz::cli
