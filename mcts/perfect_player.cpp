#include "mcts/perfect_player.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

namespace kz {

namespace {

MoveEval exact_eval(int move, int margin) {
  MoveEval e;
  e.move = move;
  e.margin = float(margin);
  e.win = margin > 0;
  e.draw = margin == 0;
  e.loss = margin < 0;
  e.proven = true;
  e.margin_exact = true;
  return e;
}

}  // namespace

ThinkResult solve_to_think_result(const Position& pos, const SolveResult& r) {
  ThinkResult t;
  t.best_move = r.best_move;
  const MoveEval root = exact_eval(r.best_move, r.margin);
  t.win = root.win;
  t.draw = root.draw;
  t.loss = root.loss;
  t.margin = root.margin;
  t.proven = true;
  t.margin_exact = true;
  t.pv = r.pv;
  for (uint32_t mask = pos.legal_mask(); mask; mask &= mask - 1) {
    const int mv = __builtin_ctz(mask);
    if (r.move_margin[mv] != kUnknownMargin) t.moves.push_back(exact_eval(mv, r.move_margin[mv]));
  }
  // Best first; among equals the best move (the one the line follows) first.
  std::stable_sort(t.moves.begin(), t.moves.end(), [&](const MoveEval& a, const MoveEval& b) {
    if (a.margin != b.margin) return a.margin > b.margin;
    return a.move == r.best_move && b.move != r.best_move;
  });
  t.nodes = r.nodes;
  t.depth = int(r.pv.size());
  t.seconds = r.seconds;
  return t;
}

std::optional<ExactMargins> stones_given_away(const ThinkResult& r, int played) {
  // Exact margins only: a proven result alone (alpha-beta, or MCTS without score
  // bounds) says nothing about the stones.
  if (!r.margin_exact) return std::nullopt;
  const MoveEval* mine = nullptr;
  for (const MoveEval& e : r.moves)
    if (e.move == played && e.margin_exact) mine = &e;
  if (!mine) return std::nullopt;
  const int best = int(r.margin), got = int(mine->margin);
  if (got >= best) return std::nullopt;
  return ExactMargins{best, got};
}

PerfectPlayer::PerfectPlayer(const GameSpec& spec, std::unique_ptr<Player> fallback,
                             const PerfectPlayerOptions& options)
    : spec_(spec), fallback_(std::move(fallback)), opt_(options) {}

std::string PerfectPlayer::name() const {
  return fallback_ ? opt_.label + "+" + fallback_->name() : opt_.label;
}

void PerfectPlayer::new_game() {
  if (fallback_) fallback_->new_game();
}

void PerfectPlayer::set_progress_callback(ProgressCallback cb) {
  progress_ = cb;
  if (fallback_) fallback_->set_progress_callback(std::move(cb));
}

bool PerfectPlayer::ensure_solver(const std::atomic<bool>* stop) {
  if (solver_) return true;
  std::shared_ptr<const KalahEndgameDb> db;
  const std::string dir = opt_.egtb_dir.empty() ? default_egtb_dir() : opt_.egtb_dir;
  const int seeds =
      opt_.egtb_seeds < 0 ? cached_or_default_egtb_seeds(spec_, dir) : opt_.egtb_seeds;
  // Without build_egtb, only a table that is already there (building one takes seconds
  // to minutes), and a file that does not read is passed over without a word.
  const auto table_there = [&] {
    std::error_code ec;
    return std::filesystem::exists(dir + "/" + egtb_file_name(spec_.variant, spec_.pits, seeds),
                                   ec);
  };
  if (seeds > 0 && (opt_.build_egtb || table_there())) {
    try {
      db = load_or_build_egtb(spec_, seeds, dir, opt_.log, stop);
    } catch (const EgtbBuildStopped&) {
      return false;  // the next think() goes on with the build
    } catch (const std::exception& e) {
      if (opt_.build_egtb && opt_.log)
        *opt_.log << "endgame database unavailable: " << e.what() << "\n";
    }
  }
  solver_ = std::make_unique<KalahSolver>(opt_.tt_mib, db);
  return true;
}

ThinkLimits PerfectPlayer::budget() const {
  ThinkLimits l = fallback_ ? fallback_->budget() : ThinkLimits{};
  if (l.movetime_s > 0 || !fallback_) l.movetime_s += opt_.solve_s;
  return l;
}

ThinkResult PerfectPlayer::think(const Position& pos, const ThinkLimits& limits) {
  last_ = SolveResult{};
  if (pos.is_togyz() || pos.is_over()) {
    if (fallback_) return fallback_->think(pos, limits);
    return {};
  }
  const auto t0 = std::chrono::steady_clock::now();
  // Stopped while its table was being built, the move comes from the fallback (which
  // sees the stop too) and the build goes on at the next think().
  if (ensure_solver(limits.stop)) {
    SolveLimits sl;
    sl.stop = limits.stop;
    sl.movetime_s = limits.movetime_s > 0 ? limits.movetime_s * opt_.solve_share : opt_.solve_s;
    last_ = solver_->solve(pos, sl, opt_.all_moves);
    if (last_.solved) {
      ThinkResult r = solve_to_think_result(pos, last_);
      if (progress_) progress_(r);
      return r;
    }
  }
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!fallback_) {
    ThinkResult r;
    r.best_move = __builtin_ctz(pos.legal_mask());
    r.nodes = last_.nodes;
    r.seconds = spent;
    return r;
  }
  ThinkLimits rest = limits;
  if (limits.movetime_s > 0) rest.movetime_s = std::max(limits.movetime_s - spent, 0.05);
  ThinkResult r = fallback_->think(pos, rest);
  r.nodes += last_.nodes;
  r.seconds += spent;
  return r;
}

}  // namespace kz
