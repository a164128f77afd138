// The engine protocol (`kumalak engine`, started by tools/cmd_engine.cpp): a line
// protocol in the spirit of UCI, for GUIs, match runners and scripts (docs/protocol.md
// describes every command with a session). Kept out of cmd_engine.cpp so that the fuzz
// target runs it without the network (tests/fuzz/fuzz_protocol.cpp).
//
// Two parts, as in lc0: this file is the protocol loop (the main thread reads, parses
// and answers commands, and never does anything slow); tools/engine_control.h holds the
// game, the settings, the player and the search thread. So `isready`, `stop`, `d` and
// `quit` are answered at once at any moment, also while a search is still being set up.
// Every output line is written whole under one lock. The options are one table
// (kOptions) that both the `option` lines of the greeting and `setoption` read. The loop
// also takes one line at a time (EngineProtocol, tools/engine_protocol.h), for a host
// without threads that cannot wait for its input.
#include "tools/engine_protocol.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "core/notation.h"
#include "core/numbers.h"
#include "mcts/levels.h"
#include "mcts/time_manager.h"
#include "nn/model_header.h"
#include "tools/board_view.h"
#include "tools/commands.h"
#include "tools/engine_control.h"

namespace kz::cli {

namespace {

constexpr const char* kEngineName = "KumalakZero 0.1";

// One protocol option: what the greeting announces and how `setoption` applies it.
struct ProtocolOption {
  const char* name;
  const char* type;           // "string", "combo", "spin" or "check"
  const char* default_value;  // nullptr: the value at start (--game, --level)
  int64_t min = 0, max = 0;   // spin: the accepted range, checked before set() is called
  const char* vars = "";      // combo: the values announced, space-separated
  // Applies the value (`number` is the parsed value of a spin); throws ParseError.
  void (*set)(EngineControl& control, const std::string& value, int64_t number);
  // Only while the game has a human model (tools/rating_levels.h): announced then, with
  // the model's range as the spin's min and max and default_rating as the default.
  bool human_model = false;
};

// The rating levels a Level combo announces besides the named ones: the human model's
// range in steps of a hundred (any whole number in the range is accepted).
constexpr int kAnnouncedRatingStep = 100;

bool parse_check(const std::string& option, const std::string& value) {
  std::string v = value;
  for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true") return true;
  if (v == "false") return false;
  throw ParseError("option " + option + ": '" + value + "' (expected true or false)");
}

// Every option of `kumalak engine` (docs/protocol.md's Options table names each one;
// tests/cli_engine_options_test.cpp checks it against the greeting).
const ProtocolOption kOptions[] = {
    {"Game", "string", nullptr, 0, 0, "",
     [](EngineControl& c, const std::string& v, int64_t) { c.new_game(GameSpec::parse(v)); }},
    {"Level", "combo", nullptr, 0, 0, "beginner easy medium hard expert perfect",
     [](EngineControl& c, const std::string& v, int64_t) {
       if (const std::optional<int> rating = parse_rating_level(v))
         c.set_level_rating(*rating);
       else
         c.set_level(parse_level(v));
     }},
    {"Engine", "combo", "auto", 0, 0, "auto ab mcts",
     [](EngineControl& c, const std::string& v, int64_t) {
       using E = EngineControl::EngineChoice;
       if (v == "auto")
         c.set_engine(E::kAuto);
       else if (v == "ab" || v == "alphabeta")
         c.set_engine(E::kAlphaBeta);
       else if (v == "mcts")
         c.set_engine(E::kMcts);
       else
         throw ParseError("option Engine: '" + v + "' (expected auto, ab or mcts)");
     }},
    // A search budget only: the player stays.
    {"MoveTime", "spin", "0", 0, 3600000, "",
     [](EngineControl& c, const std::string&, int64_t n) { c.set_movetime_ms(n); }},
    // The time kept back from every move under a clock (go wtime ...), for what the
    // search does not see: mcts/time_manager.h.
    {"MoveOverhead", "spin", "50", 0, 10000, "",
     [](EngineControl& c, const std::string&, int64_t n) { c.set_move_overhead_ms(n); }},
    {"Hash", "spin", "0", 0, 16384, "",
     [](EngineControl& c, const std::string&, int64_t n) { c.set_hash_mib(int(n)); }},
    {"Threads", "spin", "1", 1, 256, "",
     [](EngineControl& c, const std::string&, int64_t n) { c.set_threads(int(n)); }},
    {"Model", "string", "<empty>", 0, 0, "",
     [](EngineControl& c, const std::string& v, int64_t) {
       // Checked now (header, checksum, metadata, sizes: nn/model_header.h), not at the
       // next go; the weights are loaded by the search thread.
       if (v != "<empty>" && !v.empty()) {
         std::string bytes;
         try {
           read_checked_model(v, bytes);
         } catch (const ModelError& e) {
           throw ParseError("option Model: " + std::string(e.what()));
         }
       }
       c.set_model(v == "<empty>" ? "" : v);
     }},
    // UCI's UCI_LimitStrength and UCI_Elo, in this protocol's naming: play like a PlayOK
    // player of Rating (tools/human_level.h) while LimitStrength is true.
    {"LimitStrength", "check", "false", 0, 0, "",
     [](EngineControl& c, const std::string& v, int64_t) {
       c.set_limit_strength(parse_check("LimitStrength", v));
     },
     true},
    {"Rating", "spin", nullptr, 0, 0, "",
     [](EngineControl& c, const std::string&, int64_t n) { c.set_rating(int(n)); }, true},
};

std::string lowercase(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

class ProtocolLoop {
 public:
  ProtocolLoop(const EngineProtocolSettings& args, EngineProtocol::Output output)
      : output_(std::move(output)) {
    GameSpec spec = GameSpec::togyz();
    Level level = Level::kExpert;
    const std::optional<int> rating = parse_rating_level(args.level);
    try {
      spec = GameSpec::parse(args.game);
      if (!rating) level = parse_level(args.level);
    } catch (const ParseError& e) {
      spec = GameSpec::togyz();
      level = Level::kExpert;
      emit("error " + std::string(e.what()));
    }
    control_ = std::make_unique<EngineControl>(
        spec, level, args.network, [this](const std::string& l) { emit(l); }, args.ratings,
        args.threads);
    if (rating) {
      try {
        control_->set_level_rating(*rating);
      } catch (const ParseError& e) {
        emit("error " + std::string(e.what()));
      }
    }
  }

  // Reads commands until quit or the end of input. A search still being set up then
  // (a large Hash being cleared) is not waited for: the process leaves at once.
  int run(std::istream& in) {
    std::string line;
    while (std::getline(in, line))
      if (!answer(line)) break;
    control_->stop();
    for (int i = 0; i < 200 && control_->searching(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (control_->searching()) {
      std::cout << std::flush;
      std::_Exit(0);
    }
    control_->finish();
    return 0;
  }

  // One line of input; false on quit.
  bool answer(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return dispatch(line);
  }

  // At quit: ends a search (stop() writes an infinite search's held bestmove).
  void stop() { control_->stop(); }

 private:
  void emit(const std::string& line) {
    std::lock_guard<std::mutex> lock(out_mu_);
    output_(line);
  }
  void error(const std::string& why) { emit("error " + why); }

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
    control_->reap();

    if (cmd == "quit") return false;
    if (cmd == "stop") {
      control_->stop();  // the search thread answers with bestmove
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
    if (control_->searching()) {
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
    const std::optional<RatingRange> ratings = control_->rating_range();
    for (const ProtocolOption& o : kOptions) {
      if (o.human_model && !ratings) continue;
      const std::string name = o.name;
      std::string line = "option name " + name + " type " + o.type + " default ";
      if (o.default_value)
        line += o.default_value;
      else if (name == "Game")
        line += control_->spec().name();
      else if (name == "Rating")
        line += std::to_string(EngineControl::default_rating(*ratings));
      else
        line += control_->level_text();
      if (std::string(o.type) == "spin") {
        const auto [lo, hi] = spin_range(o);
        line += " min " + std::to_string(lo) + " max " + std::to_string(hi);
      }
      std::istringstream vars(o.vars);
      for (std::string v; vars >> v;) line += " var " + v;
      // Level takes any rating of the range; a GUI's menu gets them a hundred apart.
      if (name == "Level" && ratings) {
        for (int r = ratings->min; r < ratings->max; r += kAnnouncedRatingStep)
          line += " var " + std::to_string(r);
        line += " var " + std::to_string(ratings->max);
      }
      emit(line);
    }
    emit(ack);
  }

  // A spin's accepted range: the table's, or the human model's for Rating (any number
  // when the game has none: set_rating then says that the model is missing), or 1..1 for
  // Threads without a search thread.
  std::pair<int64_t, int64_t> spin_range(const ProtocolOption& o) const {
    // An engine without a search thread has no threads for the search either.
    if (std::string(o.name) == "Threads" && !control_->search_thread()) return {1, 1};
    if (!o.human_model) return {o.min, o.max};
    if (const auto r = control_->rating_range()) return {r->min, r->max};
    return {0, 1000000};
  }

  void show() {
    const Position& pos = control_->position();
    const std::string labels[2] = {"", ""};
    LastMove lm;
    const GameSession& game = control_->game();
    if (game.plies() > 0) lm = last_move_of(game.before_last(), game.moves().back());
    std::istringstream board(render_board(pos, 0, lm, false, labels));
    std::lock_guard<std::mutex> lock(out_mu_);  // the lines together
    for (std::string l; std::getline(board, l);) output_(l);
    output_("position " + pos.to_string());
    std::string legal;
    for (uint32_t m = pos.legal_mask(); m; m &= m - 1)
      legal += " " + std::to_string(__builtin_ctz(m) + 1);
    output_("legal" + (legal.empty() ? std::string(" none") : legal));
    if (pos.is_decided()) output_("result " + std::string(outcome_string(pos.outcome())));
  }

  void newgame(const std::vector<std::string>& args) {
    if (args.size() > 1) throw ParseError("newgame takes at most one argument, the game");
    control_->new_game(args.empty() ? control_->spec() : GameSpec::parse(args[0]));
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
    for (const ProtocolOption& o : kOptions) {
      if (lowercase(o.name) != lowercase(name)) continue;
      int64_t number = 0;
      if (std::string(o.type) == "spin") {
        // Threads is read in the table's range, so that an engine without threads says
        // so (EngineControl::set_threads) rather than that 2 is not in 1..1.
        const auto [lo, hi] =
            std::string(o.name) == "Threads" ? std::pair{o.min, o.max} : spin_range(o);
        number = parse_integer(value, lo, hi, "option " + name);
      }
      o.set(*control_, value, number);
      return;
    }
    throw ParseError("unknown option '" + name + "'");
  }

  // position startpos|fen <4 fields> [moves m1 m2 ...]
  void position(const std::vector<std::string>& args) {
    if (args.empty()) throw ParseError("expected: position startpos|fen <position> [moves ...]");
    Position start;
    size_t i = 1;
    if (args[0] == "startpos") {
      start = Position::start(control_->spec());
    } else if (args[0] == "fen") {
      std::string text;
      while (i < args.size() && args[i] != "moves") text += (text.empty() ? "" : " ") + args[i++];
      start = Position::parse(text, control_->spec());
    } else {
      throw ParseError("position: expected startpos or fen, got '" + args[0] + "'");
    }
    GameSession game(control_->spec(), start);
    if (i < args.size()) {
      if (args[i] != "moves") throw ParseError("position: unexpected '" + args[i] + "'");
      for (++i; i < args.size(); ++i) {
        // A bare pit number 1..m in every game; Togyz notation ("76", "36x") too.
        MoveToken t;
        if (args[i].size() == 1 && args[i][0] >= '0' && args[i][0] <= '9')
          t.from = args[i][0] - '0';
        else
          t = parse_move_token(args[i],
                               GameSpec{control_->spec().variant, control_->spec().pits, 0});
        if (t.from < 1 || t.from > control_->spec().pits)
          throw ParseError("move '" + args[i] + "': pits are numbered 1.." +
                           std::to_string(control_->spec().pits));
        const int m = t.from - 1;
        const Position& pos = game.position();
        if (pos.is_over()) throw ParseError("move '" + args[i] + "': the game is already over");
        if (!pos.is_legal(m))
          throw ParseError("move '" + args[i] + "' is illegal: pit " + std::to_string(t.from) +
                           " is empty in " + pos.to_string());
        const int mover = pos.to_move;
        const auto info = game.play(m);
        // The same checks as `kumalak replay` (core/notation.h).
        if (const std::string why = move_token_disagreement(t, game.position(), mover, info);
            !why.empty())
          throw ParseError("move '" + args[i] + "' " + why);
      }
    }
    control_->set_game(std::move(game));
  }

  // go [depth D] [nodes N] [movetime MS] [infinite] [wtime W btime B [winc I] [binc J]
  //    [movestogo N]]: the clock words as in UCI, in milliseconds.
  void go(const std::vector<std::string>& args) {
    ThinkLimits limits;
    bool infinite = false;
    // The clock: each side's time and increment as given (nullopt: not given).
    std::optional<int64_t> time[2], increment[2];
    int moves_to_go = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "infinite") {
        infinite = true;
        continue;
      }
      const bool clock_word =
          a == "wtime" || a == "btime" || a == "winc" || a == "binc" || a == "movestogo";
      if (a != "nodes" && a != "movetime" && a != "depth" && !clock_word)
        throw ParseError(
            "go: unknown limit '" + a +
            "' (nodes, movetime, depth, infinite, wtime, btime, winc, binc, movestogo)");
      if (i + 1 >= args.size()) throw ParseError("go: '" + a + "' needs a value");
      const std::string& text = args[++i];
      // Times on the clock, in ms, at most kMaxMoveTimeSeconds; a time may be negative
      // (a GUI that lets the flag fall says so): the engine then answers at once.
      const int64_t max_ms = int64_t(kMaxMoveTimeSeconds) * 1000;
      if (a == "nodes")
        limits.nodes = parse_integer(text, 0, int64_t(1) << 62, "go: nodes");
      else if (a == "movetime")  // milliseconds, at most kMaxMoveTimeSeconds
        limits.movetime_s = double(parse_integer(text, 0, max_ms, "go: movetime")) / 1000.0;
      else if (a == "depth")  // depths beyond the deepest iteration are that iteration
        limits.depth =
            int(std::min<int64_t>(parse_integer(text, 0, 1000000, "go: depth"), kMaxSearchDepth));
      else if (a == "wtime" || a == "btime")
        time[a[0] == 'b'] = parse_integer(text, -max_ms, max_ms, "go: " + a);
      else if (a == "winc" || a == "binc")
        increment[a[0] == 'b'] = parse_integer(text, 0, max_ms, "go: " + a);
      else
        moves_to_go = int(parse_integer(text, 1, 100000, "go: movestogo"));
    }
    std::optional<MoveClock> clock;
    const bool any_clock = time[0] || time[1] || increment[0] || increment[1] || moves_to_go > 0;
    if (any_clock && !infinite) {
      // Only the side to move's clock matters; it must be there.
      const int side = control_->position().to_move;
      const char* word = side == 0 ? "wtime" : "btime";
      if (!time[side])
        throw ParseError(std::string("go: the side to move has no time: give ") + word +
                         " (milliseconds)");
      clock = MoveClock{*time[side], increment[side].value_or(0), moves_to_go};
    }
    control_->go(limits, infinite, clock);
  }

  EngineProtocol::Output output_;
  std::mutex out_mu_;  // before control_: its search thread writes through emit()
  std::unique_ptr<EngineControl> control_;
};

EngineProtocol::EngineProtocol(const EngineProtocolSettings& settings, Output output)
    : loop_(std::make_unique<ProtocolLoop>(settings, std::move(output))) {}

EngineProtocol::~EngineProtocol() = default;

bool EngineProtocol::line(const std::string& text) {
  if (quit_) return false;
  if (!loop_->answer(text)) {
    quit_ = true;
    loop_->stop();
  }
  return !quit_;
}

int run_engine_protocol(std::istream& in, const std::string& game, const std::string& level,
                        const EvaluatorFactory& network, std::shared_ptr<RatingLevels> ratings) {
  ProtocolLoop loop(EngineProtocolSettings{game, level, network, std::move(ratings), true},
                    [](const std::string& line) { std::cout << line << "\n"
                                                            << std::flush; });
  return loop.run(in);
}

int run_engine_protocol(std::istream& in, const std::string& game, const std::string& level,
                        const EvaluatorFactory& network) {
  return run_engine_protocol(in, game, level, network, nullptr);
}

}  // namespace kz::cli
