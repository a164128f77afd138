#include "tools/serve/session.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>

#include "core/i18n.h"
#include "core/notation.h"
#include "tools/analysis_words.h"
#include "tools/command_error.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {

namespace {

std::string random_id() {
  static std::mutex m;
  static std::mt19937_64 rng{std::random_device{}() ^
                             uint64_t(Clock::now().time_since_epoch().count())};
  std::lock_guard<std::mutex> lock(m);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)rng(),
                (unsigned long long)rng());
  return buf;
}

}  // namespace

const char* task_name(Task t) {
  switch (t) {
    case Task::kNone:
      return "";
    case Task::kMove:
      return "move";
    case Task::kHint:
      return "hint";
    case Task::kAnalysis:
      return "analysis";
    case Task::kEvidence:
      return "evidence";
  }
  return "";
}

const char* side_word(const GameSpec& spec, int player) {
  if (spec.is_togyz()) return player == 0 ? "white" : "black";
  return player == 0 ? "south" : "north";
}

void Session::changed() {
  ++generation;
  ++version;
  if (stop) stop->store(true);
  stop.reset();
  task = Task::kNone;
  running = false;
  progress.reset();
  hint = nullptr;
  analysis_active = false;
  judged.clear();
  played_like = {};
  evidence.reset();
  internal_error.clear();
}

bool Session::check_flag() {
  if (flagged >= 0) return true;
  if (!clock || pos().is_decided()) return false;
  const int side = clock->running();
  if (side < 0 || !clock->flagged(side)) return false;
  flagged = side;
  time_outcome = flag_outcome(pos(), side);
  game.flag(side);  // the record says the result and "time forfeit"
  clock->pause();
  if (task == Task::kMove) {  // the engine's flag fell while it thought
    if (stop) stop->store(true);
    stop.reset();
    ++generation;
    task = Task::kNone;
    running = false;
    progress.reset();
  }
  ++version;
  return true;
}

bool Session::stop_mover_clock() {
  if (!clock) return true;
  const int mover = clock->running();
  if (mover < 0) return true;
  if (clock->move_done(-1).in_time) return true;
  flagged = mover;
  time_outcome = flag_outcome(pos(), mover);
  game.flag(mover);
  ++version;
  return false;
}

void Session::start_turn_clock() {
  if (!clock) return;
  if (over() || engine_to_move())
    clock->pause();
  else
    clock->start(pos().to_move);
}

void Session::drop_clock() {
  if (!clock && flagged < 0) return;
  clock_dropped = clock.has_value() || clock_dropped;
  if (clock) {  // the record no longer claims the game's time control
    RecordTags tags = game.tags();
    std::erase_if(tags, [](const auto& tag) { return tag.first == "TimeControl"; });
    game.set_tags(std::move(tags));
  }
  clock.reset();
  flagged = -1;
}

void Session::check_healthy() const {
  if (!internal_error.empty()) throw ApiError(500, "internal error: " + internal_error);
}

bool Session::play_engine_move(int move, const std::string& engine) {
  const Position& p = pos();
  if (!p.is_legal(move)) {
    internal_error = "the engine (" + engine + ") answered " +
                     (move >= 0 ? "pit " + std::to_string(move + 1) : std::string("no move")) +
                     ", not a legal move in " + p.to_string() + "; undo or start a new game";
    cli::print_command_error("kumalak serve",
                             "internal error in session " + id + ": " + internal_error);
    message = "internal error";
    ++version;
    return false;
  }
  if (!stop_mover_clock()) {  // the answer came after the engine's flag fell
    message.clear();
    return false;
  }
  message = "engine played " + format_move(p, move);
  ++generation;  // results for the position before the move are stale
  hint = nullptr;
  judged.clear();
  played_like = {};
  analysis_active = false;
  stop.reset();
  game.play(move);
  start_turn_clock();
  ++version;
  return true;
}

size_t Session::undo_target(std::optional<long> ply) const {
  if (ply) {
    if (*ply < 0 || size_t(*ply) > game.plies())
      throw ApiError(400, i18n::tr("'ply' must be 0..{count}", {{"count", game.plies()}}));
    return size_t(*ply);
  }
  if (human == kHumanBoth) {
    if (game.plies() == 0) throw ApiError(409, i18n::tr("nothing to undo"));
    return game.plies() - 1;
  }
  // Back to before the person's last move (with the engine's replies after it).
  const std::optional<size_t> last = game.last_move_of(human);
  if (!last) throw ApiError(409, i18n::tr("nothing to undo: you have not moved yet"));
  return *last;
}

std::string Session::record() const {
  const std::string engine = std::string("KumalakZero ") +
                             (rating > 0 ? "human-" + std::to_string(rating) : level_name(level));
  RecordHeader header{.site = "kumalak serve",
                      .white = human == 0 || human == kHumanBoth ? "Human" : engine,
                      .black = human == 1 || human == kHumanBoth ? "Human" : engine,
                      .annotator = ""};
  std::vector<std::string> comments;
  if (judged.size() == game.plies() && game.plies() > 0) {
    // In the language of the request that asks for the record.
    for (size_t i = 0; i < judged.size(); ++i)
      comments.push_back(judgement_comment(judged[i], game.position_at(i)));
    header.annotator = "KumalakZero " + analysis_engine;
  }
  return game.record(header, comments);
}

Session* SessionTable::find(const std::string& id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second.get();
}

Session& SessionTable::get(const std::string& id) {
  if (id.empty()) throw ApiError(400, i18n::tr("'session' is missing"));
  Session* s = find(id);
  if (!s)
    throw ApiError(
        404, i18n::tr("no session '{id}' (it may have expired: start a new game)", {{"id", id}}));
  s->last_seen = Clock::now();
  return *s;
}

Session& SessionTable::open() {
  if (int(sessions_.size()) >= max_sessions_)
    throw ApiError(503, i18n::tr("the server has its maximum of {n} games open; try again when "
                                 "one has ended or expired",
                                 {{"n", max_sessions_}}));
  auto made = std::make_unique<Session>();
  made->id = random_id();
  Session& s = *made;
  sessions_[made->id] = std::move(made);
  return s;
}

bool SessionTable::close(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  it->second->changed();
  sessions_.erase(it);
  return true;
}

void SessionTable::close_idle(Clock::time_point now, Clock::duration idle,
                              Clock::duration evidence_idle) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const Clock::duration limit = it->second->evidence ? std::min(idle, evidence_idle) : idle;
    if (now - it->second->last_seen > limit) {
      it->second->changed();
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

void SessionTable::stop_all() {
  for (auto& [id, s] : sessions_)
    if (s->stop) s->stop->store(true);
}

}  // namespace kz::cli::serve
