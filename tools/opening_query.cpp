#include "tools/opening_query.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/advice.h"
#include "mcts/levels.h"
#include "nn/model_evaluator.h"
#include "tools/hint_json.h"
#include "tools/human_level.h"

namespace kz::cli {

using i18n::tr;
using json = nlohmann::ordered_json;

Position opening_query_position(const GameSpec& spec, bool moves_given, const std::string& moves,
                                const std::string& position) {
  if (!position.empty() && moves_given)
    throw ParseError(tr("give --position or --moves (moves from the start), not both"));
  if (moves_given)
    return replay_moves(parse_move_list(moves), Position::start(spec)).final_position;
  if (!position.empty()) return Position::parse(position, spec);
  return Position::start(spec);
}

LoadedExplorer load_explorer(const std::string& path) {
  LoadedExplorer l;
  l.path = path;
  l.explorer = OpeningExplorer::read(path);
  l.meta = json::parse(l.explorer.metadata_json());
  return l;
}

OpeningAnswer explorer_answer(const OpeningExplorer& explorer, const Position& pos,
                              ExplorerBuckets selection) {
  OpeningAnswer a;
  a.position = pos;
  a.selection = selection;
  if (const ExplorerPosition* entry = explorer.find(pos)) {
    for (const ExplorerMove* m : entry->moves_by_games(selection)) a.moves.push_back(*m);
    a.games = entry->games(selection);
  }
  return a;
}

void add_engine_evaluations(OpeningAnswer& answer, const GameSpec& spec, const std::string& level,
                            const std::string& model, double movetime) {
  const Position& pos = answer.position;
  if (pos.is_over()) return;
  LevelPlayerOptions lo;
  lo.network = load_model_evaluator;
  const int count = pos.legal_count();
  auto player = make_analysis_player(spec, parse_level(level), model, count, lo);
  ThinkLimits limits;
  limits.movetime_s = movetime;
  const Hint h = make_hint(*player, pos, limits, count);
  for (const HintMove& m : h.moves) answer.engine[m.move] = m.eval;
  answer.engine_name = player->name();
}

void add_human_probabilities(OpeningAnswer& answer, const GameSpec& spec, int rating,
                             const std::string& human_model) {
  const Position& pos = answer.position;
  if (pos.is_over()) return;
  auto policy = load_human_level(spec, rating, human_model);
  for (const HumanMove& m : human_moves(*policy, pos, rating,
                                        human_level_search(spec, *policy, MixUse::kDescribe).get()))
    answer.human[m.move] = m.probability;
  answer.rating = rating;
}

namespace {

// A bar of `width` characters: wins, draws and losses of the mover in proportion.
std::string result_bar(const ExplorerCounts& c, int width = 20) {
  const double decided = double(c.wins) + c.draws + c.losses;
  if (decided <= 0) return std::string(size_t(width), ' ');
  const int w = int(std::lround(width * c.wins / decided));
  const int d = std::min(width - w, int(std::lround(width * c.draws / decided)));
  std::string bar;
  for (int i = 0; i < width; ++i) bar += i < w ? "█" : i < w + d ? "▒" : "░";
  return bar;
}

std::string pad(const std::string& text, size_t width, bool right = false) {
  // Display width: count UTF-8 code points, not bytes (the headings are translated).
  size_t shown = 0;
  for (unsigned char c : text) shown += (c & 0xC0) != 0x80;
  if (shown >= width) return text;
  const std::string fill(width - shown, ' ');
  return right ? fill + text : text + fill;
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "Position ... (white to move)" in the game's words for the sides.
std::string position_heading(const Position& pos) {
  const bool white = pos.to_move == 0;
  const i18n::Arg position("position", pos.to_string());
  if (pos.is_togyz())
    return white ? tr("Position {position} (white to move)", {position})
                 : tr("Position {position} (black to move)", {position});
  return white ? tr("Position {position} (south to move)", {position})
               : tr("Position {position} (north to move)", {position});
}

std::string table_heading(const OpeningAnswer& a) {
  std::string head = pad(tr("move"), 6) + pad(tr("games"), 14, true) + "  " +
                     pad(tr("score"), 6, true) + "  " + pad(tr("win/draw/loss"), 16) + " " +
                     pad(tr("rating"), 6, true);
  if (!a.engine.empty()) head += "  " + pad("", 20) + "  " + pad(tr("engine"), 5, true);
  if (!a.human.empty())
    head += (a.engine.empty() ? "  " + pad("", 20) : "") + "  " +
            tr("players at {rating}", {{"rating", a.rating}});
  return head + "\n";
}

std::string table_line(const OpeningAnswer& a, const ExplorerMove& m) {
  const ExplorerCounts c = m.total(a.selection);
  const bool decided = c.wins + c.draws + c.losses > 0;
  std::string line =
      pad(format_move(a.position, m.move), 6) +
      pad(std::to_string(c.games()) + " (" + percent(float(double(c.games()) / double(a.games))) +
              ")",
          14, true) +
      "  " + pad(decided ? fixed(100 * c.score(), 1) + "%" : "-", 6, true) + "  " +
      pad(std::to_string(c.wins) + "/" + std::to_string(c.draws) + "/" + std::to_string(c.losses),
          16) +
      " " + pad(c.rated ? std::to_string(std::lround(c.mean_rating())) : "-", 6, true) + "  " +
      result_bar(c);
  if (!a.engine.empty()) {
    auto it = a.engine.find(m.move);
    line += "  " + pad(it == a.engine.end() ? "-" : percent(it->second.win + it->second.draw / 2),
                       5, true);
  }
  if (!a.human.empty()) {
    auto it = a.human.find(m.move);
    line += "  " + pad(it == a.human.end() ? "-" : percent(it->second), 5, true);
  }
  return line + "\n";
}

// A number when `present`, else null.
template <typename T>
json number_or_null(bool present, T value) {
  return present ? json(value) : json();
}

// One bucket's counts of a move.
json bucket_json(const ExplorerCounts& bc) {
  return {{"games", bc.games()},
          {"wins", bc.wins},
          {"draws", bc.draws},
          {"losses", bc.losses},
          {"no_result", bc.no_result},
          {"mean_rating", number_or_null(bc.rated != 0, std::lround(bc.mean_rating()))}};
}

json eval_json(const MoveEval& e) {
  return {{"win", e.win}, {"draw", e.draw}, {"loss", e.loss}, {"margin", e.margin}};
}

json move_json(const OpeningAnswer& a, const ExplorerMove& m) {
  const ExplorerCounts c = m.total(a.selection);
  json jm;
  jm["move"] = m.move + 1;
  jm["notation"] = format_move(a.position, m.move);
  jm["games"] = c.games();
  jm["share"] = a.games ? double(c.games()) / double(a.games) : 0.0;
  jm["wins"] = c.wins;
  jm["draws"] = c.draws;
  jm["losses"] = c.losses;
  jm["no_result"] = c.no_result;
  jm["score"] = number_or_null(c.wins + c.draws + c.losses != 0, c.score());
  jm["mean_rating"] = number_or_null(c.rated != 0, std::lround(c.mean_rating()));
  jm["rated_games"] = c.rated;
  json by = json::object();
  for (int b = 0; b < kExplorerBuckets; ++b) {
    const ExplorerCounts& bc = m.by_bucket[size_t(b)];
    if (!(a.selection & (1u << b)) || bc.games() == 0) continue;
    by[explorer_bucket_name(ExplorerBucket(b))] = bucket_json(bc);
  }
  jm["by_source"] = by;
  if (auto it = a.engine.find(m.move); it != a.engine.end()) jm["engine"] = eval_json(it->second);
  if (auto it = a.human.find(m.move); it != a.human.end()) jm["human_probability"] = it->second;
  return jm;
}

}  // namespace

std::string opening_answer_text(const OpeningAnswer& a, const std::string& selection_words) {
  std::string out = position_heading(a.position) + "\n";
  if (a.moves.empty())
    return out +
           tr("No game in the explorer reaches this position (source: {source}).",
              {{"source", selection_words}}) +
           "\n";
  out += i18n::trn("{n} game goes through this position (source: {source}).",
                   "{n} games go through this position (source: {source}).", (long long)a.games,
                   {{"source", selection_words}}) +
         "\n";
  out += table_heading(a);
  for (const ExplorerMove& m : a.moves) out += table_line(a, m);
  return out;
}

json opening_answer_json(const OpeningAnswer& a, const LoadedExplorer& loaded,
                         const std::string& source, const std::string& band) {
  const Position& pos = a.position;
  json j;
  j["position"] = pos.to_string();
  j["to_move"] = side_to_move_word(pos);
  j["explorer"] = {{"file", loaded.path},
                   {"min_games", loaded.explorer.min_games()},
                   {"max_plies", loaded.explorer.max_plies()},
                   {"created_utc", loaded.meta.value("created_utc", "")},
                   {"sources", loaded.meta.value("sources", json::array())}};
  j["selection"] = {{"source", source}, {"rating_band", band.empty() ? json() : json(band)}};
  j["games"] = a.games;
  j["moves"] = json::array();
  for (const ExplorerMove& m : a.moves) j["moves"].push_back(move_json(a, m));
  if (!a.engine_name.empty()) {
    j["engine"] = {{"name", a.engine_name}, {"moves", json::array()}};
    for (const auto& [move, ev] : a.engine) {
      json e = {{"move", move + 1}, {"notation", format_move(pos, move)}};
      e.update(eval_json(ev));
      j["engine"]["moves"].push_back(e);
    }
  }
  if (!a.human.empty()) {
    j["human"] = {{"rating", a.rating}, {"moves", json::array()}};
    for (const auto& [move, p] : a.human)
      j["human"]["moves"].push_back(
          {{"move", move + 1}, {"notation", format_move(pos, move)}, {"probability", p}});
  }
  return j;
}

}  // namespace kz::cli
