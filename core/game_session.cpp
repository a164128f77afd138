#include "core/game_session.h"

#include <ctime>

#include "core/game_clock.h"
#include "core/i18n.h"
#include "core/notation.h"

namespace kz {

std::string record_date_today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y.%m.%d", &tm);
  return buf;
}

GameSession::GameSession(const GameSpec& spec) : GameSession(spec, Position::start(spec)) {}

GameSession::GameSession(const GameSpec& spec, const Position& start)
    : spec_(spec), positions_{start}, date_(record_date_today()) {}

std::string GameSession::result() const {
  if (flagged_ && !decided()) return outcome_string(flag_outcome(position(), *flagged_));
  return decided() ? outcome_string(position().outcome()) : "*";
}

Position::MoveInfo GameSession::play(int move) {
  const Position& pos = position();
  if (!pos.is_legal(move)) {
    if (pos.is_over())
      throw ParseError(i18n::tr("the game is over in {position}", {{"position", pos.to_string()}}));
    throw ParseError(i18n::tr("pit {pit} is not a legal move in {position}",
                              {{"pit", move + 1}, {"position", pos.to_string()}}));
  }
  Position next = pos;
  const Position::MoveInfo info = next.play(move);
  positions_.push_back(next);
  moves_.push_back(move);
  flagged_.reset();
  return info;
}

bool GameSession::undo_to(size_t ply) {
  if (ply > moves_.size()) return false;
  flagged_.reset();
  moves_.resize(ply);
  positions_.resize(ply + 1);
  return true;
}

bool GameSession::undo() {
  return !moves_.empty() && undo_to(moves_.size() - 1);
}

std::optional<size_t> GameSession::last_move_of(int side) const {
  for (size_t k = moves_.size(); k > 0; --k)
    if (mover(k - 1) == side) return k - 1;
  return std::nullopt;
}

size_t GameSession::undo_side(int side) {
  const std::optional<size_t> last = last_move_of(side);
  if (!last) return 0;
  const size_t taken = moves_.size() - *last;
  undo_to(*last);
  return taken;
}

std::string GameSession::tag(const std::string& name, const std::string& fallback) const {
  return tag_value(tags_, name, fallback);
}

void GameSession::set_tag(const std::string& name, const std::string& value) {
  set_tag_value(tags_, name, value);
}

RecordTags GameSession::record_tags(const RecordHeader& header) const {
  RecordTags tags = tags_;
  auto set = [&](const std::string& name, const std::string& value, bool keep_existing) {
    for (auto& [k, v] : tags)
      if (k == name) {
        if (!keep_existing) v = value;
        return;
      }
    tags.emplace_back(name, value);
  };
  set("Event", "KumalakZero game", true);
  set("Site", header.site, true);
  set("Date", date_, true);
  set("White", header.white, true);
  set("Black", header.black, true);
  set("Result", result(), false);
  // The PGN standard's word for a game lost on time (a draw by the flag rule too).
  if (flagged_ && !decided()) set("Termination", "time forfeit", false);
  set("Variant", spec_.name(), false);
  if (!(start() == Position::start(spec_))) set("FEN", start().to_string(), false);
  if (!header.annotator.empty()) set("Annotator", header.annotator, false);
  return tags;
}

std::string GameSession::record(const RecordHeader& header,
                                const std::vector<std::string>& comments_after_move) const {
  return write_pgn(record_tags(header), start(), moves_, comments_after_move);
}

}  // namespace kz
