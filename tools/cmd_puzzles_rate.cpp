// kumalak puzzles rate: a puzzle file's ratings from a human model's policy (the rating
// at which a player finds the key move half the time, nn/puzzle_human_rating.h).
//
// kumalak puzzles calibrate: how well a puzzle file's ratings predict what rated players
// did. Every puzzle mined from a rated game (its source names the game and the ply) was
// once a real position in front of a real player of a known rating, who played the key
// move or did not: that is a puzzle attempt the ratings can be judged on, with the
// expected score the players' rating updates use (core/glicko2.h). docs/puzzles.md,
// "Rating", has the figures that chose the shipped ratings.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/atomic_file.h"
#include "core/notation.h"
#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/rated_games.h"
#include "nn/human_rating.h"
#include "nn/puzzle_human_rating.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_level.h"

namespace kz::cli {

namespace {

struct RateOptions {
  std::string game = "togyz";
  std::string human_model;  // "" = the shipped one
  std::string in, out;      // "" = the shipped puzzle file
  bool raw = false;         // the model's own ratings, without kHumanPuzzleRatingScale
};

int run_puzzles_rate(const RateOptions& opt) {
  try {
    const GameSpec spec = GameSpec::parse(opt.game);
    const std::string in = opt.in.empty() ? shipped_puzzle_path(spec) : opt.in;
    const std::string out = opt.out.empty() ? in : opt.out;
    PuzzleSet set = read_puzzle_file(in);
    if (!(set.spec == spec))
      throw ParseError(in + ": holds " + set.spec.name() + " puzzles, not " + spec.name());
    auto policy = load_human_policy(spec, opt.human_model);
    const std::vector<int> ratings = human_puzzle_ratings(
        *policy, set.puzzles, opt.raw ? PuzzleRatingScale{} : kHumanPuzzleRatingScale);
    std::vector<double> before, after;
    for (size_t i = 0; i < set.puzzles.size(); ++i) {
      before.push_back(set.puzzles[i].rating);
      after.push_back(ratings[i]);
      set.puzzles[i].rating = ratings[i];
    }
    std::stable_sort(set.puzzles.begin(), set.puzzles.end(),
                     [](const Puzzle& a, const Puzzle& b) { return a.rating < b.rating; });
    write_puzzle_file(out, set);
    std::vector<double> sorted = after;
    std::sort(sorted.begin(), sorted.end());
    auto quantile = [&](double q) { return int(sorted[size_t(q * double(sorted.size() - 1))]); };
    std::cout << "rated " << set.puzzles.size() << " puzzles into " << out << ": min "
              << quantile(0) << ", quartiles " << quantile(0.25) << " / " << quantile(0.5) << " / "
              << quantile(0.75) << ", max " << quantile(1)
              << "; rank correlation with the ratings they had: ";
    std::printf("%.3f\n", spearman_correlation(before, after));
    return 0;
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzles rate", e);
    return 2;
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzles rate", e);
    return 1;
  }
}

struct CalibrateOptions {
  std::vector<std::string> puzzle_files;
  std::vector<std::string> games_dirs;
  std::string fold = "all";
  bool json = false;
  bool fit_scale = false;    // also fit a PuzzleRatingScale to each file's attempts
  std::string attempts_csv;  // "" = none: every attempt of every file, for plots and fits
};

// One real attempt: the player of `rating` to move in the puzzle's position in its game,
// and whether they played the key move.
struct Attempt {
  std::string id;
  int player_rating = 0;
  int puzzle_rating = 0;
  bool found = false;
};

// The recorded games of the folders, by (file name, index in the file).
using GameIndex = std::map<std::pair<std::string, int>, GameRecord>;

GameIndex read_games(const std::vector<std::string>& dirs) {
  GameIndex games;
  for (const auto& dir : dirs)
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".pgn")
        for (GameRecord& g : read_pgn_file(e.path().string()))
          games[{e.path().filename().string(), g.index}] = std::move(g);
  return games;
}

// What happened to the puzzles of one file: the attempts, and the puzzles that gave none
// by reason.
struct FileAttempts {
  std::vector<Attempt> attempts;
  std::map<std::string, int> skipped;
};

FileAttempts real_attempts(const PuzzleSet& set, const GameIndex& games, FoldSelection fold) {
  static const std::regex kSource(R"(^(.+\.pgn) game (\d+) \(.*\) ply (\d+)$)");
  FileAttempts out;
  for (const Puzzle& z : set.puzzles) {
    std::smatch m;
    if (!std::regex_match(z.source, m, kSource)) {
      ++out.skipped["not_from_a_recorded_game"];
      continue;
    }
    const auto it = games.find({m[1].str(), std::stoi(m[2].str())});
    if (it == games.end()) {
      ++out.skipped["game_not_found"];
      continue;
    }
    const GameRecord& record = it->second;
    const RatedGame rated = read_rated_game(record);
    if (!fold_selected(fold, rated.fold)) {
      ++out.skipped["other_fold"];
      continue;
    }
    ReplayResult rr;
    Position pos;
    try {
      pos = record_start(record, set.spec);
      rr = replay_record(record, pos);
    } catch (const ParseError&) {
      ++out.skipped["record_refused_by_the_rules"];
      continue;
    }
    const size_t ply = std::stoul(m[3].str());
    if (ply >= rr.moves.size()) {
      ++out.skipped["position_differs_from_the_record"];
      continue;
    }
    for (size_t i = 0; i < ply; ++i) pos.play(rr.moves[i]);
    if (pos.hash() != z.position.hash()) {
      ++out.skipped["position_differs_from_the_record"];
      continue;
    }
    const SideRating side = rated.sides[pos.to_move];
    if (!side.rated()) {
      ++out.skipped["player_unrated"];
      continue;
    }
    out.attempts.push_back({z.id, side.rating, z.rating, rr.moves[ply] == z.key_move()});
  }
  return out;
}

double attempt_chance(int player_rating, double puzzle_rating) {
  return std::clamp(glicko2_expected_score(player_rating, puzzle_rating, kPuzzleDeviation), 1e-6,
                    1 - 1e-6);
}

PuzzleAttempt as_puzzle_attempt(const Attempt& a, int puzzle_rating) {
  return {a.player_rating, puzzle_rating, a.found};
}

double log_loss(const Attempt& a, int puzzle_rating) {
  const PuzzleAttempt one = as_puzzle_attempt(a, puzzle_rating);
  return attempts_log_loss(std::span(&one, 1));
}

// The share of (found, missed) pairs in which the found puzzle's rating lies further
// below its player's rating than the missed one's (ties half): how well the ratings
// order the attempts, whatever their scale.
double ordering_auc(const std::vector<Attempt>& attempts) {
  double good = 0, pairs = 0;
  for (const Attempt& f : attempts)
    if (f.found)
      for (const Attempt& x : attempts)
        if (!x.found) {
          const int margin_f = f.player_rating - f.puzzle_rating;
          const int margin_x = x.player_rating - x.puzzle_rating;
          good += margin_f > margin_x ? 1 : margin_f == margin_x ? 0.5 : 0;
          ++pairs;
        }
  return pairs > 0 ? good / pairs : 0;
}

nlohmann::json file_summary(const std::string& file, const FileAttempts& fa, bool fit_scale) {
  const auto& at = fa.attempts;
  nlohmann::json j = {{"file", file}, {"attempts", at.size()}, {"skipped", fa.skipped}};
  if (at.empty()) return j;
  double found = 0, loss = 0, brier = 0;
  std::vector<int> players;
  std::vector<double> outcomes;
  for (const Attempt& a : at) {
    found += a.found;
    loss += log_loss(a, a.puzzle_rating);
    const double p = attempt_chance(a.player_rating, a.puzzle_rating);
    brier += (p - a.found) * (p - a.found);
    players.push_back(a.player_rating);
    outcomes.push_back(a.found ? 1 : 0);
  }
  // The best single rating for every puzzle, fitted to these very attempts: a baseline
  // that the ratings must beat to say anything about one puzzle against another.
  const int constant = puzzle_rating_from_chances(players, outcomes);
  double constant_loss = 0;
  for (const Attempt& a : at) constant_loss += log_loss(a, constant);
  const double n = double(at.size());
  j["found"] = found / n;
  j["log_loss"] = loss / n;
  j["brier"] = brier / n;
  j["constant_rating"] = constant;
  j["constant_log_loss"] = constant_loss / n;
  j["ordering_auc"] = ordering_auc(at);
  // Calibration: the attempts by how far the player stood above the puzzle.
  nlohmann::json bins = nlohmann::json::array();
  const int edges[] = {-100000, -400, -200, 0, 200, 400, 100000};
  for (int b = 0; b + 1 < int(std::size(edges)); ++b) {
    double count = 0, predicted = 0, actual = 0;
    for (const Attempt& a : at) {
      const int margin = a.player_rating - a.puzzle_rating;
      if (margin < edges[b] || margin >= edges[b + 1]) continue;
      ++count;
      predicted += attempt_chance(a.player_rating, a.puzzle_rating);
      actual += a.found;
    }
    bins.push_back({{"from", edges[b]},
                    {"to", edges[b + 1]},
                    {"attempts", int(count)},
                    {"predicted", count > 0 ? predicted / count : 0},
                    {"found", count > 0 ? actual / count : 0}});
  }
  j["by_margin"] = bins;
  if (fit_scale) {
    std::vector<PuzzleAttempt> all;
    for (const Attempt& a : at) all.push_back(as_puzzle_attempt(a, a.puzzle_rating));
    const PuzzleRatingScale scale = fit_puzzle_rating_scale(all);
    j["fitted_scale"] = {{"centre", scale.centre},
                         {"spread", scale.spread},
                         {"log_loss", attempts_log_loss(all, scale)}};
  }
  return j;
}

int run_puzzles_calibrate(const CalibrateOptions& opt) {
  try {
    const FoldSelection fold = parse_fold_selection(opt.fold);
    const GameIndex games = read_games(opt.games_dirs);
    std::vector<FileAttempts> per_file;
    nlohmann::json out = {{"games", games.size()}, {"fold", opt.fold}};
    for (const auto& file : opt.puzzle_files) {
      per_file.push_back(real_attempts(read_puzzle_file(file), games, fold));
      out["files"].push_back(file_summary(file, per_file.back(), opt.fit_scale));
    }
    // The files compared on the attempts they share (the same puzzle, rated two ways):
    // the mean log-loss difference of each file from the first, with a 95 % interval.
    if (per_file.size() > 1) {
      std::map<std::string, const Attempt*> first_by_id;
      for (const Attempt& a : per_file[0].attempts) first_by_id[a.id] = &a;
      for (size_t f = 1; f < per_file.size(); ++f) {
        std::vector<double> diffs;
        for (const Attempt& a : per_file[f].attempts)
          if (const auto it = first_by_id.find(a.id); it != first_by_id.end())
            diffs.push_back(log_loss(a, a.puzzle_rating) -
                            log_loss(*it->second, it->second->puzzle_rating));
        nlohmann::json c = {{"file", opt.puzzle_files[f]},
                            {"against", opt.puzzle_files[0]},
                            {"shared_attempts", diffs.size()}};
        if (diffs.size() > 1) {
          double mean = 0, var = 0;
          for (double d : diffs) mean += d;
          mean /= double(diffs.size());
          for (double d : diffs) var += (d - mean) * (d - mean);
          var /= double(diffs.size() - 1);
          const double half = 1.96 * std::sqrt(var / double(diffs.size()));
          c["log_loss_difference"] = mean;
          c["interval"] = {mean - half, mean + half};
        }
        out["paired"].push_back(c);
      }
    }
    if (!opt.attempts_csv.empty()) {
      write_file_atomically(opt.attempts_csv, [&](std::ostream& csv) {
        csv << "file,id,player_rating,puzzle_rating,found\n";
        for (size_t f = 0; f < per_file.size(); ++f)
          for (const Attempt& a : per_file[f].attempts)
            csv << opt.puzzle_files[f] << "," << a.id << "," << a.player_rating << ","
                << a.puzzle_rating << "," << int(a.found) << "\n";
      });
    }
    if (opt.json) {
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::printf("%zu recorded games, fold %s\n", games.size(), opt.fold.c_str());
    for (const auto& f : out["files"]) {
      std::printf("%s: %d attempts", f["file"].get<std::string>().c_str(),
                  f["attempts"].get<int>());
      for (const auto& [why, n] : f["skipped"].items())
        std::printf(", %d skipped (%s)", n.get<int>(), why.c_str());
      std::printf("\n");
      if (f["attempts"].get<int>() == 0) continue;
      std::printf(
          "  found %.1f %%, log-loss %.4f (one rating %d for all: %.4f), Brier %.4f, "
          "ordering AUC %.3f\n",
          100 * f["found"].get<double>(), f["log_loss"].get<double>(),
          f["constant_rating"].get<int>(), f["constant_log_loss"].get<double>(),
          f["brier"].get<double>(), f["ordering_auc"].get<double>());
      if (f.contains("fitted_scale"))
        std::printf("  fitted scale: %.0f + %.2f x (rating - 1500), log-loss %.4f\n",
                    f["fitted_scale"]["centre"].get<double>(),
                    f["fitted_scale"]["spread"].get<double>(),
                    f["fitted_scale"]["log_loss"].get<double>());
      for (const auto& b : f["by_margin"])
        if (b["attempts"].get<int>() > 0)
          std::printf(
              "  player - puzzle in [%d, %d): %d attempts, predicted %.1f %%, found %.1f %%\n",
              b["from"].get<int>(), b["to"].get<int>(), b["attempts"].get<int>(),
              100 * b["predicted"].get<double>(), 100 * b["found"].get<double>());
    }
    if (out.contains("paired"))
      for (const auto& c : out["paired"]) {
        std::printf("%s against %s: %d shared attempts", c["file"].get<std::string>().c_str(),
                    c["against"].get<std::string>().c_str(), c["shared_attempts"].get<int>());
        if (c.contains("log_loss_difference"))
          std::printf(", log-loss difference %+.4f [%+.4f, %+.4f]",
                      c["log_loss_difference"].get<double>(), c["interval"][0].get<double>(),
                      c["interval"][1].get<double>());
        std::printf("\n");
      }
    return 0;
  } catch (const ParseError& e) {
    print_command_error("kumalak puzzles calibrate", e);
    return 2;
  } catch (const std::exception& e) {
    print_command_error("kumalak puzzles calibrate", e);
    return 1;
  }
}

}  // namespace

void register_puzzles_rating(CLI::App* puzzles, int& exit_code) {
  auto ropt = std::make_shared<RateOptions>();
  auto* rate = puzzles->add_subcommand(
      "rate",
      "Rate a puzzle file by a human model: the rating that finds the key move half the "
      "time (docs/puzzles.md)");
  add_game_option(rate, ropt->game);
  rate->add_option("--human-model", ropt->human_model,
                   "the human model whose policy rates the puzzles (default: the shipped one)");
  rate->add_option("--in", ropt->in, "the puzzle file to rate (default: the shipped one)")
      ->check(CLI::ExistingFile);
  rate->add_option("--out,-o", ropt->out, "where the rated file goes (default: --in)");
  rate->add_flag("--raw", ropt->raw,
                 "the model's own ratings, without the scale fitted to what players did "
                 "(to fit it again: puzzles calibrate --fit-scale)");
  rate->callback([ropt, &exit_code] { exit_code = run_puzzles_rate(*ropt); });

  auto copt = std::make_shared<CalibrateOptions>();
  auto* calibrate = puzzles->add_subcommand(
      "calibrate",
      "How well puzzle ratings predict whether the rated players of the source games found "
      "the key move");
  calibrate->add_option("--puzzles", copt->puzzle_files, "a puzzle file (repeatable: compared)")
      ->required()
      ->check(CLI::ExistingFile);
  calibrate
      ->add_option("--games-dir", copt->games_dirs,
                   "a folder of the *.pgn records the puzzles came from (repeatable)")
      ->required()
      ->check(CLI::ExistingDirectory);
  calibrate->add_option("--fold", copt->fold,
                        "the games whose puzzles count: train, validation or all (the held-out "
                        "split of core/rated_games.h)");
  calibrate->add_flag("--json", copt->json, "one JSON object instead of text");
  calibrate->add_flag("--fit-scale", copt->fit_scale,
                      "also fit centre + spread x (rating - 1500) to each file's attempts by "
                      "maximum likelihood");
  calibrate->add_option("--attempts-csv", copt->attempts_csv,
                        "also write every attempt to this CSV file (file, id, player_rating, "
                        "puzzle_rating, found)");
  calibrate->callback([copt, &exit_code] { exit_code = run_puzzles_calibrate(*copt); });
}

}  // namespace kz::cli
