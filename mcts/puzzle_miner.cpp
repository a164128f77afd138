#include "mcts/puzzle_miner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mcts/advice.h"
#include "mcts/mcts_player.h"
#include "mcts/rollout_evaluator.h"
#include "mcts/search.h"

namespace kz {

namespace {

// The exact score of a finished or decided position for `side`.
double exact_score(const Position& pos, int side) {
  const Outcome o = pos.outcome();
  if (o == Outcome::kDraw) return 0.5;
  const bool white_wins = o == Outcome::kWhiteWins;
  return (side == 0) == white_wins ? 1.0 : 0.0;
}

bool settled(const Position& pos) {
  return pos.is_over() || pos.is_decided();
}

}  // namespace

int puzzle_rating_for_visits(int64_t visits) {
  const double r = 600.0 + 200.0 * std::log2(double(std::max<int64_t>(visits, 1)));
  return std::clamp(int(std::lround(r)), kMinPuzzleRating, kMaxPuzzleRating);
}

double mover_score(const Position& parent, const Position& child, const EvalOutput* out) {
  const int mover = parent.to_move;
  if (settled(child) || out == nullptr) return exact_score(child, mover);
  const double own = out->win + 0.5 * out->draw;  // for the side to move in the child
  return child.to_move == mover ? own : out->loss + 0.5 * out->draw;
}

PuzzleMiner::PuzzleMiner(const GameSpec& spec, std::shared_ptr<Evaluator> evaluator,
                         const PuzzleMinerOptions& options, KalahSolver* solver,
                         std::shared_ptr<Evaluator> rating_evaluator)
    : spec_(spec),
      evaluator_(std::move(evaluator)),
      rating_evaluator_(rating_evaluator ? std::move(rating_evaluator)
                                         : std::make_shared<RolloutEvaluator>(8)),
      options_(options),
      solver_(solver) {}

std::vector<size_t> PuzzleMiner::filter(std::span<const PuzzleCandidate> positions) {
  // Every child that needs the evaluator, in one batch.
  std::vector<Position> children;
  struct Slot {
    size_t child = 0;  // index into children, or SIZE_MAX when settled
    Position pos;
  };
  std::vector<std::vector<Slot>> slots(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& p = positions[i].position;
    if (settled(p) || p.legal_count() < 2) continue;
    for (uint32_t mask = p.legal_mask(); mask; mask &= mask - 1) {
      Slot s;
      s.pos = p;
      s.pos.play(__builtin_ctz(mask));
      s.child = SIZE_MAX;
      if (!settled(s.pos)) {
        s.child = children.size();
        children.push_back(s.pos);
      }
      slots[i].push_back(s);
    }
  }
  std::vector<EvalOutput> out(children.size());
  if (!children.empty()) evaluator_->evaluate(children, out);
  evaluations_ += int64_t(children.size());
  std::vector<size_t> keep;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (slots[i].size() < 2) continue;
    double best = -1, second = -1;
    for (const Slot& s : slots[i]) {
      const double v =
          mover_score(positions[i].position, s.pos, s.child == SIZE_MAX ? nullptr : &out[s.child]);
      if (v > best) {
        second = best;
        best = v;
      } else if (v > second) {
        second = v;
      }
    }
    if (best >= options_.min_best && best - second >= options_.filter_gap) keep.push_back(i);
  }
  return keep;
}

namespace {

MctsPlayerOptions search_options(const GameSpec& spec, uint64_t seed) {
  MctsPlayerOptions o;
  o.params = game_search_params(spec);
  o.reuse_tree = false;
  o.threads = 1;
  o.seed = seed;
  o.label = "puzzle-miner";
  return o;
}

}  // namespace

int64_t PuzzleMiner::visits_to_find(const Position& pos, int key_move) {
  MctsPlayer player(rating_evaluator_, search_options(spec_, options_.seed));
  int64_t first_kept = 0;  // the smallest ladder step from which every larger one finds it
  for (int64_t v = 1; v <= options_.max_rating_visits; v *= 2) {
    player.new_game();
    ThinkLimits limits;
    limits.nodes = v;
    const bool found = player.think(pos, limits).best_move == key_move;
    if (found && first_kept == 0) first_kept = v;
    if (!found) first_kept = 0;
  }
  return first_kept == 0 ? options_.max_rating_visits * 2 : first_kept;
}

std::optional<Puzzle> PuzzleMiner::confirm(const PuzzleCandidate& candidate) {
  const Position& pos = candidate.position;
  if (settled(pos) || pos.legal_count() < 2) return std::nullopt;
  MctsPlayer player(evaluator_, search_options(spec_, options_.seed));
  struct Scored {
    int move = -1;
    double score = 0;
    bool proven_win = false;
    std::vector<int> line;
  };
  std::vector<Scored> scored;
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
    Scored s;
    s.move = __builtin_ctz(mask);
    Position child = pos;
    child.play(s.move);
    s.line = {s.move};
    if (settled(child)) {
      s.score = exact_score(child, pos.to_move);
      s.proven_win = s.score == 1.0;
    } else {
      player.new_game();
      ThinkLimits limits;
      limits.nodes = options_.confirm_visits;
      const ThinkResult r = player.think(child, limits);
      const bool same = child.to_move == pos.to_move;
      s.score = same ? r.win + 0.5 * r.draw : r.loss + 0.5 * r.draw;
      s.proven_win = r.proven && (same ? r.win : r.loss) >= 1.0f;
      for (int m : r.pv) s.line.push_back(m);
    }
    scored.push_back(std::move(s));
  }
  std::sort(scored.begin(), scored.end(),
            [](const Scored& a, const Scored& b) { return a.score > b.score; });
  const Scored& key = scored[0];
  const double gap = key.score - scored[1].score;
  if (key.score < options_.min_best || gap < options_.min_gap) return std::nullopt;

  bool winning_line = key.proven_win;
  for (size_t i = 1; i < scored.size(); ++i)
    if (scored[i].proven_win) winning_line = false;
  if (!pos.is_togyz()) {
    if (solver_ == nullptr) return std::nullopt;
    SolveLimits limits;
    limits.movetime_s = options_.solver_seconds;
    const SolveResult r = solver_->solve(pos, limits, /*all_moves=*/true);
    if (!r.solved) return std::nullopt;
    const int key_margin = r.move_margin[key.move];
    bool others_lose_stones = true, others_win = false;
    for (size_t i = 1; i < scored.size(); ++i) {
      const int m = r.move_margin[scored[i].move];
      if (m == kUnknownMargin || m >= key_margin) others_lose_stones = false;
      if (m > 0) others_win = true;
    }
    if (key_margin == kUnknownMargin || !others_lose_stones) return std::nullopt;
    winning_line = key_margin > 0 && !others_win;
  }

  Puzzle z;
  z.position = pos;
  z.solution = key.line;
  // The line stops where it can no longer be played (a pv past the end) or is too long.
  {
    Position p = pos;
    size_t legal = 0;
    while (legal < z.solution.size() && legal < size_t(options_.max_line) &&
           p.is_legal(z.solution[legal]) && !(legal > 0 && settled(p))) {
      p.play(z.solution[legal]);
      ++legal;
    }
    z.solution.resize(std::max<size_t>(legal, 1));
  }
  const MoveFacts facts = move_facts(pos, key.move);
  z.theme = winning_line         ? PuzzleTheme::kWinningLine
            : facts.made_tuzdyk  ? PuzzleTheme::kTuzdyk
            : facts.captured > 0 ? PuzzleTheme::kCapture
                                 : PuzzleTheme::kOnlyMove;
  z.gap = std::min(1.0, std::round(gap * 1000) / 1000);
  if (z.gap <= 0) return std::nullopt;
  if (options_.rate_by_search) z.rating = puzzle_rating_for_visits(visits_to_find(pos, key.move));
  char id[32];
  std::snprintf(id, sizeof id, "%c-%08llx", pos.is_togyz() ? 't' : 'k',
                (unsigned long long)(pos.hash() & 0xffffffffull));
  z.id = id;
  z.source = candidate.source;
  return z;
}

}  // namespace kz
