#include "tools/puzzle_build.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <set>
#include <unordered_set>

#include "core/i18n.h"
#include "core/notation.h"
#include "core/puzzle_title.h"
#include "nn/puzzle_human_rating.h"
#include "tools/human_level.h"

namespace kz::cli {

using i18n::tr;

namespace {

// The *.pgn files of `dir`, in name order.
std::vector<std::string> pgn_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".pgn") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

void add_recorded_positions(const std::string& dir, const GameSpec& spec, int min_ply,
                            FoldSelection fold, std::vector<PuzzleCandidate>& out, int& game_number,
                            std::ostream& log) {
  for (const auto& file : pgn_files(dir)) {
    const std::string name = std::filesystem::path(file).filename().string();
    int skipped = 0, used = 0, other_fold = 0;
    for (const GameRecord& g : read_pgn_file(file)) {
      if (!fold_selected(fold, read_rated_game(g).fold)) {
        ++other_fold;
        continue;
      }
      ReplayResult rr;
      Position start;
      try {
        start = record_start(g, spec);
        rr = replay_record(g, start);
      } catch (const ParseError&) {
        ++skipped;
        continue;
      }
      ++used;
      ++game_number;
      Position p = start;
      const std::string date = g.tag("Date", "no date");
      for (size_t ply = 0; ply < rr.moves.size(); ++ply) {
        if (int(ply) >= min_ply && !p.is_decided())
          out.push_back({p,
                         name + " game " + std::to_string(g.index) + " (" + date + ") ply " +
                             std::to_string(ply),
                         game_number});
        p.play(rr.moves[ply]);
      }
    }
    log << "kumalak puzzles build: " << name << ": " << used << " games";
    if (skipped) log << " (" << skipped << " refused by the rules, skipped)";
    if (other_fold) log << " (" << other_fold << " of the other fold left out)";
    log << "\n";
  }
}

void add_selfplay_positions(Evaluator& evaluator, const GameSpec& spec, int games, int min_ply,
                            uint64_t seed, std::vector<PuzzleCandidate>& out, int& game_number) {
  constexpr int kMaxPlies = 400;
  std::mt19937_64 rng(seed);
  std::vector<Position> pos(games, Position::start(spec));
  std::vector<int> number(games);
  for (int g = 0; g < games; ++g) number[g] = ++game_number;
  for (int ply = 0; ply < kMaxPlies; ++ply) {
    std::vector<int> live;
    std::vector<Position> batch;
    for (int g = 0; g < games; ++g)
      if (!pos[g].is_over() && !pos[g].is_decided()) {
        live.push_back(g);
        batch.push_back(pos[g]);
      }
    if (live.empty()) break;
    std::vector<EvalOutput> ev(batch.size());
    evaluator.evaluate(batch, ev);
    for (size_t i = 0; i < live.size(); ++i) {
      const int g = live[i];
      if (ply >= min_ply)
        out.push_back({pos[g],
                       "self-play seed " + std::to_string(seed) + " game " + std::to_string(g + 1) +
                           " ply " + std::to_string(ply),
                       number[g]});
      // A tenth of the moves uniformly at random, the rest by the policy: variety
      // without many absurd positions.
      int move = -1;
      if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.1) {
        move = random_legal_move(pos[g], rng);
      } else {
        std::discrete_distribution<int> d(ev[i].policy.begin(), ev[i].policy.begin() + spec.pits);
        move = d(rng);
        if (!pos[g].is_legal(move)) move = random_legal_move(pos[g], rng);
      }
      pos[g].play(move);
    }
  }
}

MinedPuzzles mine_puzzles(PuzzleMiner& miner, const std::vector<PuzzleCandidate>& positions,
                          const PuzzleMiningLimits& limits,
                          const std::function<void(const PuzzleMiningProgress&)>& progress) {
  MinedPuzzles out;
  std::vector<Puzzle>& puzzles = out.puzzles;
  PuzzleMiningProgress& counts = out.progress;
  counts.positions = positions.size();
  std::map<int, int> per_game;
  std::set<std::string> ids;
  std::unordered_set<uint64_t> seen;
  const size_t batch = size_t(limits.batch);
  for (size_t start = 0; start < positions.size() && int(puzzles.size()) < limits.count;
       start += batch) {
    const size_t end = std::min(positions.size(), start + batch);
    std::vector<PuzzleCandidate> chunk;
    for (size_t i = start; i < end; ++i)
      if (per_game[positions[i].game] < limits.max_per_game &&
          seen.insert(positions[i].position.hash()).second)
        chunk.push_back(positions[i]);
    counts.filtered += end - start;
    for (size_t i : miner.filter(chunk)) {
      if (int(puzzles.size()) >= limits.count) break;
      if (per_game[chunk[i].game] >= limits.max_per_game) continue;
      ++counts.candidates;
      auto z = miner.confirm(chunk[i]);
      if (z && ids.insert(z->id).second) {
        ++per_game[chunk[i].game];
        puzzles.push_back(std::move(*z));
      }
      counts.puzzles = puzzles.size();
      if (progress) progress(counts);
    }
  }
  return out;
}

void rate_and_sort_puzzles(std::vector<Puzzle>& puzzles, HumanHead* human) {
  if (human) {
    const std::vector<int> ratings = human_puzzle_ratings(*human, puzzles);
    for (size_t i = 0; i < ratings.size(); ++i) puzzles[i].rating = ratings[i];
  }
  std::stable_sort(puzzles.begin(), puzzles.end(),
                   [](const Puzzle& a, const Puzzle& b) { return a.rating < b.rating; });
}

std::map<std::string, int> puzzle_theme_counts(const std::vector<Puzzle>& puzzles) {
  std::map<std::string, int> themes;
  for (const auto& z : puzzles) ++themes[puzzle_theme_name(z.theme)];
  return themes;
}

std::string minutes_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  return buf;
}

bool rates_by_human(const std::string& rated_by, const std::string& human_model,
                    const GameSpec& spec) {
  return rated_by == "human" ||
         (rated_by == "auto" && (!human_model.empty() || !shipped_human_model_path(spec).empty()));
}

std::string mining_line(const PuzzleMiningProgress& p, int count, double mining_s, double total_s,
                        bool final) {
  const double rate = mining_s > 0 ? p.puzzles / mining_s : 0;
  std::string eta = "unknown";
  if (rate > 0 && int(p.puzzles) < count) eta = minutes_text((count - int(p.puzzles)) / rate);
  char line[512];
  std::snprintf(line, sizeof line,
                "kumalak puzzles build: %zu/%zu positions filtered, %zu candidates, %zu puzzles, "
                "%.2f puzzles/s, %s%s\n",
                p.filtered, p.positions, p.candidates, p.puzzles, rate, final ? "done in " : "ETA ",
                final ? minutes_text(total_s).c_str() : eta.c_str());
  return line;
}

std::string written_puzzles_text(const PuzzleSet& set, const std::string& path) {
  std::string out = "wrote " + std::to_string(set.puzzles.size()) + " puzzles to " + path + " (";
  bool first = true;
  for (const auto& [name, n] : puzzle_theme_counts(set.puzzles)) {
    out += (first ? "" : ", ") + name + " " + std::to_string(n);
    first = false;
  }
  return out + ")\n";
}

void write_puzzle_set(const std::string& path, const PuzzleSet& set) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_puzzle_file(path, set);
}

size_t choose_puzzle(const PuzzleSet& set, const PuzzleChoice& choice) {
  if (!choice.id.empty()) {
    auto it = std::find_if(set.puzzles.begin(), set.puzzles.end(),
                           [&](const Puzzle& z) { return z.id == choice.id; });
    if (it == set.puzzles.end())
      throw ParseError(tr("no puzzle '{id}' in the file", {{"id", choice.id}}));
    return size_t(it - set.puzzles.begin());
  }
  if (choice.random) {
    const uint64_t seed = choice.seed ? choice.seed : uint64_t(std::time(nullptr));
    return size_t(std::mt19937_64(seed)() % set.puzzles.size());
  }
  return daily_puzzle_index(choice.date.empty() ? utc_date_today() : choice.date,
                            set.puzzles.size());
}

std::optional<int> read_puzzle_answer(const GameSpec& spec, const Position& pos,
                                      const std::string& token) {
  try {
    const MoveToken t =
        parse_move_token(pos.is_togyz() && token.size() == 1 ? token + token : token, spec);
    if (pos.is_legal(t.from - 1)) return t.from - 1;
  } catch (const ParseError&) {
  }
  return std::nullopt;
}

PuzzleAttempt record_puzzle_attempt(PuzzleRatings& ratings, const PuzzleSet& set,
                                    const Puzzle& puzzle, bool solved) {
  const std::string game = set.spec.name();
  // A player new to this game starts at the middle of its puzzles (core/puzzle_rating.h).
  if (!ratings.rating.count(game)) ratings.rating[game] = new_puzzle_player(set);
  Glicko2Rating& mine = ratings.rating[game];
  PuzzleAttempt attempt;
  attempt.before = attempt.after = mine;
  if (ratings.tried[game].count(puzzle.id)) {
    attempt.tried_before = true;
    return attempt;
  }
  mine = rate_puzzle_attempt(attempt.before, puzzle.rating, solved);
  attempt.after = mine;
  ratings.tried[game][puzzle.id] = solved ? 1 : 0;
  return attempt;
}

}  // namespace kz::cli
