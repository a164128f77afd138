// The engine protocol (`kumalak engine`, tools/cmd_engine.cpp): a line protocol in the
// spirit of UCI, for GUIs, match runners and scripts (docs/protocol.md describes every
// command with a session). Kept out of cmd_engine.cpp so that the fuzz target can run it
// without the network (tests/fuzz/fuzz_protocol.cpp).
//
// Two threads, as in lc0: the reader (the main thread) reads and answers commands and
// never does anything slow; a `go` hands everything slow to a search thread, the
// setting up of the engine included (building the player, clearing a Hash of 16 GiB,
// loading a model, starting 256 threads). So `isready`, `stop`, `d` and `quit` are
// answered at once at any moment, also while a search is still being set up; `stop`
// only raises a flag, and the search thread prints `bestmove` when it has one. Every
// output line is written whole under one lock.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/notation.h"
#include "core/numbers.h"
#include "mcts/alphabeta.h"
#include "mcts/levels.h"
#include "nn/model_header.h"
#include "tools/board_view.h"
#include "tools/commands.h"

namespace kz::cli {

namespace {

constexpr const char* kEngineName = "KumalakZero 0.1";

struct EngineArgs {
  std::string game = "togyz";
  std::string level = "expert";
  EvaluatorFactory network;  // nullptr: every level alpha-beta, Engine mcts refused at go
};

class EngineSession {
 public:
  explicit EngineSession(const EngineArgs& args) : network_(args.network) {
    try {
      spec_ = GameSpec::parse(args.game);
      level_ = parse_level(args.level);
    } catch (const ParseError& e) {
      spec_ = GameSpec::togyz();
      level_ = Level::kExpert;
      emit("error " + std::string(e.what()));
    }
    start_ = pos_ = Position::start(spec_);
  }

  ~EngineSession() { finish_search(); }

  // Reads commands until quit or the end of input. A search still being set up then
  // (a large Hash being cleared) is not waited for: the process leaves at once.
  int run(std::istream& in) {
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!dispatch(line)) break;
    }
    stop_.store(true);
    for (int i = 0; i < 200 && searching(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (searching()) {
      std::cout << std::flush;
      std::_Exit(0);
    }
    finish_search();
    return 0;
  }

 private:
  void emit(const std::string& line) {
    std::lock_guard<std::mutex> lock(out_mu_);
    std::cout << line << "\n" << std::flush;
  }
  void error(const std::string& why) { emit("error " + why); }

  bool searching() const { return worker_.joinable() && !search_done_.load(); }

  // Stops a running search (its bestmove is printed by the worker) and joins it. Only
  // at the end: `stop` itself never waits.
  void finish_search() {
    if (!worker_.joinable()) return;
    stop_.store(true);
    worker_.join();
  }

  static bool known_command(const std::string& cmd) {
    static const char* const kCommands[] = {"quit",       "stop",      "isready",  "kumalak",
                                            "uci",        "d",         "board",    "newgame",
                                            "ucinewgame", "setoption", "position", "go"};
    for (const char* c : kCommands)
      if (cmd == c) return true;
    return false;
  }

  // Returns false on quit.
  bool dispatch(const std::string& line) {
    std::istringstream ss(line);
    std::string cmd;
    if (!(ss >> cmd)) return true;  // blank lines are ignored
    std::vector<std::string> args;
    for (std::string w; ss >> w;) args.push_back(w);
    // A finished search leaves a joinable thread; reap it before anything else.
    if (worker_.joinable() && search_done_.load()) worker_.join();

    if (cmd == "quit") return false;
    if (cmd == "stop") {
      stop_.store(true);  // the search thread answers with bestmove
      return true;
    }
    if (cmd == "isready") {
      emit("readyok");
      return true;
    }
    if (cmd == "kumalak" || cmd == "uci") {
      hello(cmd == "uci" ? "uciok" : "kumalakok");
      return true;
    }
    if (cmd == "d" || cmd == "board") {
      show();
      return true;
    }
    if (!known_command(cmd)) {
      error("unknown command '" + cmd + "'");
      return true;
    }
    if (searching()) {
      error("'" + cmd + "' during a search: send stop first");
      return true;
    }
    try {
      if (cmd == "newgame" || cmd == "ucinewgame")
        newgame(args);
      else if (cmd == "setoption")
        setoption(line);
      else if (cmd == "position")
        position(args);
      else if (cmd == "go")
        go(args);
      else
        error("unknown command '" + cmd + "'");
    } catch (const ParseError& e) {
      error(e.what());
    } catch (const std::exception& e) {
      error(e.what());
    }
    return true;
  }

  void hello(const char* ack) {
    emit(std::string("id name ") + kEngineName);
    emit("id author the KumalakZero authors");
    emit("option name Game type string default " + spec_.name());
    emit("option name Level type combo default " + std::string(level_name(level_)) +
         " var beginner var easy var medium var hard var expert var perfect");
    emit("option name Engine type combo default auto var auto var ab var mcts");
    emit("option name MoveTime type spin default 0 min 0 max 3600000");
    emit("option name Hash type spin default 0 min 0 max 16384");
    emit("option name Threads type spin default 1 min 1 max 256");
    emit("option name Model type string default <empty>");
    emit(ack);
  }

  void show() {
    const std::string labels[2] = {"", ""};
    LastMove lm;
    if (!moves_.empty()) lm = last_move_of(before_last_, moves_.back());
    std::istringstream board(render_board(pos_, 0, lm, false, labels));
    std::lock_guard<std::mutex> lock(out_mu_);
    for (std::string l; std::getline(board, l);) std::cout << l << "\n";
    std::cout << "position " << pos_.to_string() << "\n";
    std::string legal;
    for (uint32_t m = pos_.legal_mask(); m; m &= m - 1)
      legal += " " + std::to_string(__builtin_ctz(m) + 1);
    std::cout << "legal" << (legal.empty() ? " none" : legal) << "\n";
    if (pos_.is_decided()) std::cout << "result " << outcome_string(pos_.outcome()) << "\n";
    std::cout << std::flush;
  }

  void newgame(const std::vector<std::string>& args) {
    if (args.size() > 1) throw ParseError("newgame takes at most one argument, the game");
    if (!args.empty()) {
      const GameSpec s = GameSpec::parse(args[0]);
      if (!(s == spec_)) player_.reset();
      spec_ = s;
    }
    start_ = pos_ = before_last_ = Position::start(spec_);
    moves_.clear();
    if (player_) player_->new_game();
  }

  // setoption name <Name...> value <Value...>
  void setoption(const std::string& line) {
    const size_t n = line.find(" name ");
    if (n == std::string::npos) throw ParseError("expected: setoption name N value V");
    const size_t v = line.find(" value ", n);
    std::string name = line.substr(n + 6, v == std::string::npos ? std::string::npos : v - n - 6);
    std::string value = v == std::string::npos ? "" : line.substr(v + 7);
    auto trim = [](std::string s) {
      while (!s.empty() && s.back() == ' ') s.pop_back();
      while (!s.empty() && s.front() == ' ') s.erase(s.begin());
      return s;
    };
    name = trim(name);
    value = trim(value);
    std::string key = name;
    for (char& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
    auto number = [&](int64_t lo, int64_t hi) {
      return parse_integer(value, lo, hi, "option " + name);
    };
    if (key == "level") {
      level_ = parse_level(value);
    } else if (key == "game") {
      newgame({value});
      return;
    } else if (key == "engine") {
      if (value == "auto") {
        engine_ = EngineChoice::kAuto;
      } else if (value == "ab" || value == "alphabeta") {
        engine_ = EngineChoice::kAlphaBeta;
      } else if (value == "mcts") {
        engine_ = EngineChoice::kMcts;
      } else {
        throw ParseError("option Engine: '" + value + "' (expected auto, ab or mcts)");
      }
    } else if (key == "movetime") {
      movetime_ms_ = number(0, 3600000);
      return;  // a search budget only: the player stays
    } else if (key == "hash") {
      hash_mib_ = int(number(0, 16384));
    } else if (key == "threads") {
      threads_ = int(number(1, 256));
    } else if (key == "model") {
      // Checked now (header, checksum, metadata, sizes: nn/model_header.h), not at the
      // next go; the weights are loaded by the search thread.
      if (value != "<empty>" && !value.empty()) {
        std::string bytes;
        try {
          read_checked_model(value, bytes);
        } catch (const ModelError& e) {
          throw ParseError("option Model: " + std::string(e.what()));
        }
      }
      model_ = value == "<empty>" ? "" : value;
    } else {
      throw ParseError("unknown option '" + name + "'");
    }
    player_.reset();
  }

  // position startpos|fen <4 fields> [moves m1 m2 ...]
  void position(const std::vector<std::string>& args) {
    if (args.empty()) throw ParseError("expected: position startpos|fen <position> [moves ...]");
    Position start;
    size_t i = 1;
    if (args[0] == "startpos") {
      start = Position::start(spec_);
    } else if (args[0] == "fen") {
      std::string text;
      while (i < args.size() && args[i] != "moves") text += (text.empty() ? "" : " ") + args[i++];
      start = Position::parse(text, spec_);
    } else {
      throw ParseError("position: expected startpos or fen, got '" + args[0] + "'");
    }
    std::vector<int> moves;
    Position pos = start, before = start;
    if (i < args.size()) {
      if (args[i] != "moves") throw ParseError("position: unexpected '" + args[i] + "'");
      for (++i; i < args.size(); ++i) {
        // A bare pit number 1..m in every game; Togyz notation ("76", "36x") too.
        MoveToken t;
        if (args[i].size() == 1 && args[i][0] >= '0' && args[i][0] <= '9')
          t.from = args[i][0] - '0';
        else
          t = parse_move_token(args[i], GameSpec{spec_.variant, spec_.pits, 0});
        if (t.from < 1 || t.from > spec_.pits)
          throw ParseError("move '" + args[i] + "': pits are numbered 1.." +
                           std::to_string(spec_.pits));
        const int m = t.from - 1;
        if (pos.is_over()) throw ParseError("move '" + args[i] + "': the game is already over");
        if (!pos.is_legal(m))
          throw ParseError("move '" + args[i] + "' is illegal: pit " + std::to_string(t.from) +
                           " is empty in " + pos.to_string());
        before = pos;
        const int mover = pos.to_move;
        const auto info = pos.play(m);
        // The same checks as `kumalak replay` (core/notation.h).
        if (const std::string why = move_token_disagreement(t, pos, mover, info); !why.empty())
          throw ParseError("move '" + args[i] + "' " + why);
        moves.push_back(m);
      }
    }
    start_ = start;
    pos_ = pos;
    before_last_ = before;
    moves_ = moves;
  }

  Player& player() {
    if (!player_) {
      LevelPlayerOptions lo;
      lo.threads = threads_;
      lo.force_alphabeta = engine_ == EngineChoice::kAlphaBeta;
      lo.network = network_;
      if (engine_ == EngineChoice::kMcts) {
        const std::string model = model_.empty() ? shipped_model_path(spec_) : model_;
        if (model.empty()) throw ParseError("Engine mcts needs a Model (none is shipped)");
        player_ = make_mcts_level_player(spec_, level_, model, lo);
      } else {
        player_ = make_level_player(spec_, level_, model_, lo);
      }
      if (auto* ab = dynamic_cast<AlphaBetaPlayer*>(player_.get()); ab && hash_mib_ > 0) {
        AlphaBetaOptions o = ab->options();
        o.tt_mib = hash_mib_;
        ab->set_options(o);
      }
    }
    return *player_;
  }

  std::string info_line(const ThinkResult& r, const Position& pos) {
    std::ostringstream s;
    const double secs = std::max(r.seconds, 1e-6);
    s << "info depth " << r.depth << " nodes " << r.nodes << " nps " << int64_t(r.nodes / secs)
      << " time " << int64_t(std::lround(r.seconds * 1000)) << " wdl " << std::lround(r.win * 1000)
      << " " << std::lround(r.draw * 1000) << " " << std::lround(r.loss * 1000) << " margin "
      << std::lround(r.margin * 10) / 10.0;
    if (r.proven) s << " proven";
    if (!r.pv.empty()) {
      s << " pv";
      Position p = pos;
      for (int m : r.pv) {
        if (p.is_over() || !p.is_legal(m)) break;
        s << " " << m + 1;
        p.play(m);
      }
    }
    return s.str();
  }

  void go(const std::vector<std::string>& args) {
    ThinkLimits limits;
    bool infinite = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "infinite") {
        infinite = true;
        continue;
      }
      if (a != "nodes" && a != "movetime" && a != "depth")
        throw ParseError("go: unknown limit '" + a + "' (nodes, movetime, depth, infinite)");
      if (i + 1 >= args.size()) throw ParseError("go: '" + a + "' needs a value");
      const std::string& text = args[++i];
      if (a == "nodes")
        limits.nodes = parse_integer(text, 0, int64_t(1) << 62, "go: nodes");
      else if (a == "movetime")  // milliseconds, at most kMaxMoveTimeSeconds
        limits.movetime_s =
            double(parse_integer(text, 0, int64_t(kMaxMoveTimeSeconds) * 1000, "go: movetime")) /
            1000.0;
      else  // depths beyond the deepest iteration are that iteration
        limits.depth =
            int(std::min<int64_t>(parse_integer(text, 0, 1000000, "go: depth"), kMaxSearchDepth));
    }
    if (infinite) {
      limits = ThinkLimits{};
      limits.depth = kMaxSearchDepth;   // alpha-beta: until stopped
      limits.nodes = int64_t(1) << 62;  // MCTS: until stopped
    } else if (limits.nodes == 0 && limits.depth == 0 && limits.movetime_s == 0 &&
               movetime_ms_ > 0) {
      limits.movetime_s = movetime_ms_ / 1000.0;
    }
    if (pos_.legal_mask() == 0) {
      emit("info string the game is over: " + std::string(outcome_string(pos_.outcome())));
      emit("bestmove none");
      return;
    }
    const Position pos = pos_;
    // The last search may have marked itself done after this command's reap at the top of
    // dispatch() (it marks done, then prints bestmove): join it here, never assign over a
    // joinable thread (std::terminate; found by tests/fuzz/fuzz_protocol).
    if (worker_.joinable()) worker_.join();
    stop_.store(false);
    search_done_.store(false);
    limits.stop = &stop_;
    // Everything from here on may be slow, so it runs on the search thread. The reader
    // refuses every command that changes the session while it runs, so the player and
    // the settings are the search thread's alone until search_done_.
    worker_ = std::thread([this, pos, limits, infinite] {
      ThinkResult r;
      std::string failure;
      try {
        Player& p = player();  // built on first use: tables, model, threads
        last_info_depth_ = -1;
        last_info_nodes_ = -1;
        p.set_progress_callback([this, pos](const ThinkResult& progress) {
          last_info_depth_ = progress.depth;
          last_info_nodes_ = progress.nodes;
          emit(info_line(progress, pos));
        });
        ThinkLimits l = limits;
        if (stop_.load()) {
          // `stop` came while the engine was being set up: the shortest search that still
          // answers with a considered legal move.
          l = ThinkLimits{};
          l.depth = 1;
          l.nodes = 1;
        }
        r = p.think(pos, l);
        // The last iteration was already reported unless the search was cut short.
        if (r.depth != last_info_depth_ || r.nodes != last_info_nodes_) emit(info_line(r, pos));
      } catch (const std::exception& e) {
        failure = e.what();
        player_.reset();  // half built: the next go builds it again
      }
      if (!failure.empty()) emit("error " + failure);
      // UCI's rule: an infinite search answers only after stop.
      while (infinite && failure.empty() && !stop_.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      // Marked done before the last line, so that a command sent right after bestmove
      // is never refused as "during a search" (the reader then joins this thread).
      search_done_.store(true);
      // A bestmove always ends a go, so that a GUI never waits forever.
      emit(r.best_move >= 0 ? "bestmove " + std::to_string(r.best_move + 1) : "bestmove none");
    });
  }

  std::mutex out_mu_;
  GameSpec spec_;
  Level level_ = Level::kExpert;
  Position start_, pos_, before_last_;
  std::vector<int> moves_;
  std::unique_ptr<Player> player_;
  // auto: the engine `kumalak play` uses at this level (make_level_player); ab and
  // mcts force one.
  enum class EngineChoice { kAuto, kAlphaBeta, kMcts };
  EngineChoice engine_ = EngineChoice::kAuto;
  int64_t movetime_ms_ = 0;
  int hash_mib_ = 0;
  int threads_ = 1;
  std::string model_;
  EvaluatorFactory network_;
  std::thread worker_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> search_done_{true};
  // What the last `info` line of the running search reported (worker thread only).
  int last_info_depth_ = -1;
  int64_t last_info_nodes_ = -1;
};

}  // namespace

int run_engine_protocol(std::istream& in, const std::string& game, const std::string& level,
                        const EvaluatorFactory& network) {
  EngineSession session(EngineArgs{game, level, network});
  return session.run(in);
}

}  // namespace kz::cli
