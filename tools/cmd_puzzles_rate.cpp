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
#include <sstream>

#include "core/atomic_file.h"
#include "core/notation.h"
#include "core/puzzle_calibration.h"
#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "core/rated_games.h"
#include "nn/human_rating.h"
#include "nn/puzzle_human_rating.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_level.h"
#include "tools/json_text.h"

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

// One file's attempts as the JSON object `--json` prints (and the table reads).
nlohmann::json file_summary(const std::string& file, const FileAttempts& fa, bool fit_scale) {
  nlohmann::json j = {{"file", file}, {"attempts", fa.attempts.size()}, {"skipped", fa.skipped}};
  if (fa.attempts.empty()) return j;
  const AttemptSummary s = summarize_attempts(fa.attempts, fit_scale);
  j["found"] = s.found;
  j["log_loss"] = s.log_loss;
  j["brier"] = s.brier;
  j["constant_rating"] = s.constant_rating;
  j["constant_log_loss"] = s.constant_log_loss;
  j["ordering_auc"] = s.ordering_auc;
  nlohmann::json bins = nlohmann::json::array();
  for (const MarginBin& b : s.by_margin)
    bins.push_back({{"from", b.from},
                    {"to", b.to},
                    {"attempts", b.attempts},
                    {"predicted", b.predicted},
                    {"found", b.found}});
  j["by_margin"] = bins;
  if (s.fitted_scale)
    j["fitted_scale"] = {{"centre", s.fitted_scale->centre},
                         {"spread", s.fitted_scale->spread},
                         {"log_loss", s.fitted_log_loss}};
  return j;
}

int run_puzzles_calibrate(const CalibrateOptions& opt) {
  try {
    const FoldSelection fold = parse_fold_selection(opt.fold);
    const GameIndex games = read_recorded_games(opt.games_dirs);
    std::vector<FileAttempts> per_file;
    nlohmann::json out = {{"games", games.size()}, {"fold", opt.fold}};
    for (const auto& file : opt.puzzle_files) {
      per_file.push_back(real_attempts(read_puzzle_file(file), games, fold));
      out["files"].push_back(file_summary(file, per_file.back(), opt.fit_scale));
    }
    // The files compared on the attempts they share (the same puzzle, rated two ways):
    // the mean log-loss difference of each file from the first, with a 95 % interval.
    for (size_t f = 1; f < per_file.size(); ++f) {
      const PairedLogLoss paired = compare_log_loss(per_file[0].attempts, per_file[f].attempts);
      nlohmann::json c = {{"file", opt.puzzle_files[f]},
                          {"against", opt.puzzle_files[0]},
                          {"shared_attempts", paired.shared_attempts}};
      if (paired.difference) {
        c["log_loss_difference"] = *paired.difference;
        c["interval"] = {paired.low, paired.high};
      }
      out["paired"].push_back(c);
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
      std::cout << json_text(out, 2) << "\n";
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
