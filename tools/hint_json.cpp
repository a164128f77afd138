#include "tools/hint_json.h"

#include <sstream>
#include <vector>

#include "tools/exact_result_words.h"
#include "tools/move_words.h"

namespace kz::cli {

namespace {

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream ss(s);
  for (std::string w; ss >> w;) out.push_back(w);
  return out;
}

}  // namespace

const char* side_to_move_word(const Position& pos) {
  if (pos.is_togyz()) return pos.to_move == 0 ? "white" : "black";
  return pos.to_move == 0 ? "south" : "north";
}

nlohmann::ordered_json hint_json(const GameSpec& spec, const Position& pos, const Hint& hint,
                                 const std::string& engine, Level level) {
  nlohmann::ordered_json j;
  j["game"] = spec.name();
  j["position"] = pos.to_string();
  j["side"] = side_to_move_word(pos);
  j["engine"] = engine;
  j["level"] = level_name(level);
  j["depth"] = hint.result.depth;
  j["nodes"] = hint.result.nodes;
  j["seconds"] = hint.result.seconds;
  const ThinkResult& r = hint.result;
  j["value"] = {{"win", r.win},       {"draw", r.draw},     {"loss", r.loss},
                {"margin", r.margin}, {"proven", r.proven}, {"margin_exact", r.margin_exact}};
  j["exact"] = hint.solve.solved ? describe_exact_result(pos, hint.solve) : "";
  j["moves"] = nlohmann::ordered_json::array();
  for (const auto& m : hint.moves) {
    nlohmann::ordered_json mj;
    mj["move"] = m.move + 1;
    mj["notation"] = m.notation;
    mj["win"] = m.eval.win;
    mj["draw"] = m.eval.draw;
    mj["loss"] = m.eval.loss;
    mj["margin"] = m.eval.margin;
    mj["proven"] = m.eval.proven;
    mj["margin_exact"] = m.eval.margin_exact;
    mj["reason"] = explain_move(pos, m.move);
    mj["line"] = words(m.line_text);
    std::vector<int> pits;
    for (int x : m.line) pits.push_back(x + 1);
    mj["line_pits"] = pits;
    j["moves"].push_back(mj);
  }
  return j;
}

}  // namespace kz::cli
