#include "tools/play_session.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/time_manager.h"
#include "nn/model_evaluator.h"
#include "tools/human_level.h"

namespace kz::cli {

using i18n::tr;

namespace {

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

// The holes the side to move can move from, as the refusals list them: " 1 2 4".
std::string legal_holes(const Position& pos) {
  std::string legal;
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
    legal += ' ';
    legal += std::to_string(__builtin_ctz(mask) + 1);
  }
  return legal;
}

// The person's side from --human or --engine-plays (at most one of them given).
int chosen_side(const PlayOptions& options) {
  if (!options.human.empty() && !options.engine_plays.empty())
    throw ParseError(tr("give --human or --engine-plays, not both"));
  int human = 0;
  if (!options.human.empty()) human = parse_play_side(options.human);
  if (!options.engine_plays.empty()) {
    const int engine = parse_play_side(options.engine_plays);
    human = engine < 0 ? -1 : engine ^ 1;
  }
  if (human < 0) throw ParseError(tr("a side is white or black (Kalah: south or north)"));
  return human;
}

}  // namespace

int parse_play_side(const std::string& text) {
  const std::string l = lower(text);
  if (l == "white" || l == "south" || l == "w" || l == "s" || l == "1") return 0;
  if (l == "black" || l == "north" || l == "b" || l == "n" || l == "2") return 1;
  return -1;
}

PlaySettings make_play_settings(const PlayOptions& options) {
  PlaySettings s;
  if (!options.clock.empty()) s.clock = parse_clock_control(options.clock);
  s.spec = GameSpec::parse(options.game);
  s.start = options.position.empty() ? Position::start(s.spec)
                                     : Position::parse(options.position, s.spec);
  const std::optional<int> rating = parse_rating_level(options.level);
  if (rating) {
    s.rating = *rating;
    s.human_policy = load_human_level(s.spec, *rating, options.human_model);
    // Refused here when its engine is missing.
    human_level_search(s.spec, *s.human_policy, MixUse::kPlay);
  } else {
    s.level = parse_level(options.level);
  }
  s.human = chosen_side(options);
  if (s.start.is_decided()) throw ParseError(tr("the game in that position is already decided"));
  if (!rating && s.level >= Level::kHard && options.model.empty() &&
      shipped_model_path(s.spec).empty())
    s.warning = tr("no network for {game} ({file}); level {level} uses the alpha-beta engine",
                   {{"game", s.spec.name()},
                    {"file", "models/" + model_file_stem(s.spec) + ".pt"},
                    {"level", std::string(level_name(s.level))}});
  s.model = options.model;
  s.seed = options.seed;
  s.movetime = options.movetime;
  s.hint_movetime = options.hint_movetime;
  return s;
}

PlayCommand parse_play_command(const std::string& text) {
  PlayCommand c;
  c.line = trim(text);
  if (c.line.empty()) return c;
  std::istringstream ss(c.line);
  ss >> c.word;
  std::getline(ss, c.rest);
  c.rest = trim(c.rest);
  const std::string w = lower(c.word);
  if (w == "quit" || w == "exit" || w == "q")
    c.kind = PlayCommand::kQuit;
  else if (w == "help" || w == "?")
    c.kind = PlayCommand::kHelp;
  else if (w == "hint")
    c.kind = PlayCommand::kHint;
  else if (w == "eval")
    c.kind = PlayCommand::kEval;
  else if (w == "undo")
    c.kind = PlayCommand::kUndo;
  else if (w == "board")
    c.kind = PlayCommand::kBoard;
  else if (w == "save")
    c.kind = PlayCommand::kSave;
  else if (std::isdigit(static_cast<unsigned char>(w[0])))
    c.kind = c.rest.empty() ? PlayCommand::kMove : PlayCommand::kTwoMoves;
  else
    c.kind = PlayCommand::kUnknown;
  return c;
}

TypedMove read_typed_move(const Position& pos, const std::string& token) {
  TypedMove t;
  const bool togyz = pos.is_togyz();
  const int m = pos.npits;
  const bool all_digits = !token.empty() && std::all_of(token.begin(), token.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (all_digits && token.size() <= 2 && (token.size() == 1 || !togyz)) {
    const int v = std::stoi(token);
    if (v < 1 || v > m) {
      t.refusal = MoveRefusal::kNoSuchHole;
      t.number = v;
      return t;
    }
    t.move = v - 1;
  } else if (togyz) {
    try {
      const MoveToken parsed = parse_move_token(token, GameSpec::togyz());
      t.move = parsed.from - 1;
      if (pos.is_legal(t.move)) {
        Position after = pos;
        const auto info = after.play(t.move);
        if (parsed.landing && *parsed.landing != info.landing_index + 1) {
          t.refusal = MoveRefusal::kWrongLanding;
          t.landing = info.landing_index + 1;
          t.given = *parsed.landing;
          t.notation = format_move(pos, t.move);
          return t;
        }
      }
    } catch (const ParseError& e) {
      t.refusal = MoveRefusal::kBadNotation;
      t.move = -1;
      t.error = e.what();
      return t;
    }
  } else {
    t.refusal = MoveRefusal::kNotAPit;
    return t;
  }
  if (!pos.is_legal(t.move)) {
    t.refusal = togyz && pos.tuzdyk[pos.to_move ^ 1] == t.move ? MoveRefusal::kTuzdyk
                                                               : MoveRefusal::kEmptyHole;
    t.legal = legal_holes(pos);
  }
  return t;
}

PlaySession::PlaySession(const PlaySettings& settings, std::unique_ptr<Player> engine)
    : settings_(settings), game_(settings.spec, settings.start), engine_(std::move(engine)) {
  if (settings_.clock) {
    clock_.emplace(*settings_.clock, GameClock::steady_now());
    // The time control in the record, in the PGN standard's form (as PlayOK's records).
    game_.set_tag("TimeControl", settings_.clock->pgn_text());
  }
  if (engine_) return;
  if (settings_.human_policy) {
    auto search = human_level_search(settings_.spec, *settings_.human_policy, MixUse::kPlay);
    engine_ = std::make_unique<HumanLevelPlayer>(settings_.human_policy, settings_.rating,
                                                 settings_.seed, std::move(search));
  } else {
    LevelPlayerOptions lo;
    lo.seed = settings_.seed;
    lo.network = load_model_evaluator;
    engine_ = make_level_player(settings_.spec, settings_.level, settings_.model, lo);
  }
}

bool PlaySession::finished() const {
  return position().is_decided() || game_.flagged_side().has_value();
}

void PlaySession::start_clock() {
  if (clock_ && !finished()) clock_->start(position().to_move);
}

bool PlaySession::flag_if_fallen(int side) {
  if (!clock_ || !clock_->flagged(side)) return false;
  clock_->pause();
  game_.flag(side);
  return true;
}

TypedMove PlaySession::read_move(const std::string& token) const {
  if (finished()) {
    TypedMove over;
    over.refusal = MoveRefusal::kGameOver;
    return over;
  }
  return read_typed_move(position(), token);
}

PlayedMove PlaySession::play(int move) {
  PlayedMove played{position(), move};
  if (!position().is_legal(move))
    throw ParseError("illegal move " + std::to_string(move + 1) + " in " + position().to_string());
  if (clock_ && !clock_done(move)) {
    played.in_time = false;
    return played;
  }
  game_.play(move);
  return played;
}

bool PlaySession::clock_done(int move) {
  Position after = position();
  after.play(move);
  const int mover = position().to_move;
  const GameClock::MoveTiming t = clock_->move_done(after.is_decided() ? -1 : after.to_move);
  if (t.in_time) return true;
  clock_->pause();
  game_.flag(mover);
  return false;
}

PlayedMove PlaySession::engine_move() {
  ThinkLimits limits;
  limits.movetime_s = settings_.movetime;
  if (clock_) {
    // The level's own budget (or --movetime) where the clock allows (mcts/time_manager.h).
    const ThinkLimits own = settings_.movetime > 0 ? limits : engine_->budget();
    const MoveClock mine{clock_->remaining_ms(position().to_move), clock_->control().increment_ms,
                         0};
    limits = limits_under_clock(position(), mine, own);
  }
  const int move = engine_->think(position(), limits).best_move;
  // The server answers the same defect with a 500.
  if (!position().is_legal(move))
    throw std::logic_error("internal error: the engine " + engine_->name() +
                           " returned the illegal move " + std::to_string(move + 1) + " in " +
                           position().to_string());
  return play(move);
}

Player& PlaySession::analyst() {
  if (!analyst_) {
    LevelPlayerOptions lo;
    lo.seed = settings_.seed;
    lo.network = load_model_evaluator;
    analyst_ = make_analysis_player(settings_.spec, Level::kExpert, settings_.model, 3, lo);
  }
  return *analyst_;
}

ThinkLimits PlaySession::hint_limits() const {
  ThinkLimits l;
  l.movetime_s = settings_.hint_movetime > 0 ? settings_.hint_movetime : 0.5;
  return l;
}

std::optional<Hint> PlaySession::hint() {
  if (finished()) return std::nullopt;
  return make_hint(analyst(), position(), hint_limits(), 3);
}

std::optional<ThinkResult> PlaySession::eval() {
  if (finished()) return std::nullopt;
  return analyst().think(position(), hint_limits());
}

std::optional<size_t> PlaySession::undo() {
  if (clock_) return std::nullopt;
  return game_.undo_side(human());
}

std::string PlaySession::record() const {
  const std::string engine = std::string("KumalakZero ") +
                             (settings_.rating > 0 ? engine_->name() : level_name(settings_.level));
  return game_.record({.site = "kumalak play",
                       .white = human() == 0 ? "Human" : engine,
                       .black = human() == 1 ? "Human" : engine,
                       .annotator = ""});
}

SaveOutcome PlaySession::save(const std::string& file) const {
  SaveOutcome out;
  // The first failure found, when one is.
  auto failed = [&](SaveFailure failure, std::string folder = "") {
    out.failure = failure;
    out.folder = std::move(folder);
    return out;
  };
  if (file.empty()) return failed(SaveFailure::kNoFile);
  const std::string text = record();
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  if (std::filesystem::is_directory(file, ec)) return failed(SaveFailure::kIsFolder);
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    return failed(SaveFailure::kNoFolder, folder.string());
  const std::string writable = folder.empty() ? std::string(".") : folder.string();
  if (access(writable.c_str(), W_OK) != 0) return failed(SaveFailure::kNotWritable, writable);
  try {
    write_file_atomically(file, [&](std::ostream& stream) { stream << text; });
    out.plies = game_.plies();
  } catch (const std::exception& e) {
    out.failure = SaveFailure::kOther;
    out.error = e.what();
  }
  return out;
}

}  // namespace kz::cli
