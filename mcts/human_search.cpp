#include "mcts/human_search.h"

#include "mcts/levels.h"

namespace kz {

namespace {
MctsPlayerOptions human_search_options(const GameSpec& spec, int64_t visits) {
  MctsPlayerOptions options = mcts_level_options(spec, Level::kExpert, 1.0, 1);
  options.visits = visits;
  options.reuse_tree = false;
  options.threads = 1;
  options.temperature = 0;
  options.label = "human-search";
  return options;
}
}  // namespace

HumanSearch::HumanSearch(const GameSpec& spec, std::shared_ptr<Evaluator> engine, int64_t visits)
    : visits_(visits), player_(std::move(engine), human_search_options(spec, visits)) {}

SearchAnswer HumanSearch::search(const Position& pos) {
  SearchAnswer answer;
  if (pos.is_over()) return answer;
  player_.new_game();
  ThinkLimits limits;
  limits.nodes = visits_;
  const ThinkResult r = player_.think(pos, limits);
  answer.best_move = r.best_move;
  int64_t total = 0;
  for (const MoveEval& e : r.moves) total += e.visits;
  if (total > 0) {
    for (const MoveEval& e : r.moves)
      if (e.move >= 0 && e.move < kMaxPits)
        answer.share[size_t(e.move)] = float(double(e.visits) / double(total));
  } else if (r.best_move >= 0) {
    answer.share[size_t(r.best_move)] = 1.f;
  }
  return answer;
}

}  // namespace kz
