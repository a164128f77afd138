#include "tools/human_train_options.h"

#include "tools/cli_options.h"

namespace kz::cli {

void add_human_train_options(CLI::App* cmd, HumanTrainCliOptions& opt) {
  cmd->add_option("files", opt.files,
                  "PGN files of rated games (WhiteElo/BlackElo tags); none needed for "
                  "--play-mix or --play-filter alone");
  add_game_option(cmd, opt.game);
  cmd->add_option("--init", opt.init,
                  "model to start from (default: the game's shipped model); its policy head "
                  "is the human head's start");
  cmd->add_option("--out", opt.out, "model file to write after every epoch")->required();
  cmd->add_option("--epochs", opt.epochs,
                  "passes over the train fold (default 3; 0: only write the train fold's "
                  "rating prior into the model)")
      ->check(in_range(0, 1000));
  cmd->add_option("--batch", opt.batch, "positions per optimizer step (default 256)")
      ->check(in_range(2, 65536));
  cmd->add_option("--lr", opt.learning_rate,
                  "Adam's learning rate at the start, decayed to a tenth (default 1e-3)")
      ->check(in_range(1e-6, 1.0));
  cmd->add_option("--threads", opt.threads, "LibTorch threads (default 1)")
      ->check(in_range(1, 256));
  cmd->add_option("--seed", opt.seed, "order of the training positions (default 1)");
  cmd->add_option("--positions-per-epoch", opt.positions_per_epoch,
                  "train on this many positions an epoch, a new random draw each epoch "
                  "(default 0: all of the train fold)")
      ->check(in_range(int64_t(0), int64_t(1) << 40));
  cmd->add_flag("--fine-tune", opt.fine_tune,
                "fine-tune the whole network with the head (default: the head alone, on the "
                "tower's output computed once, which keeps the model's own policy and value)");
  cmd->add_flag("--rating-temperature", opt.rating_temperature,
                "let the rating also set the head's temperature (how sure a player's choice "
                "is; a model without it gets it, started at 1)");
  cmd->add_flag("--fit-value-weights", opt.fit_value_weights,
                "fit the rating-dependent value term (how much a player of each rating "
                "prefers the moves the model's value head rates higher) on the train fold "
                "after training; with --epochs 0, to the --init model's head as it is");
  cmd->add_option("--fit-search-mix", opt.search_mix_visits,
                  "fit how often a player of each rating plays what a search of this many "
                  "visits of the engine's network plays (with --epochs 0)")
      ->check(in_range(int64_t(1), int64_t(100000)));
  cmd->add_option("--search-every", opt.search_every,
                  "fit the search mixture on every K-th train position (default 5)")
      ->check(in_range(1, 1000000));
  cmd->add_option("--engine-model", opt.engine_model,
                  "the network the search mixture searches with (default: the game's shipped "
                  "model)");
  cmd->add_option("--play-mix", opt.play_mix,
                  "the lambda the rating levels play with at knots of the rating range, "
                  "RATING:LAMBDA,... (with --epochs 0; knots not named keep theirs; "
                  "calibrated by tools/calibrate_rating_levels.py)");
  cmd->add_option("--play-filter", opt.play_filter,
                  "the search filter's tau the rating levels play with at knots of the "
                  "rating range, RATING:TAU,... (with --epochs 0; knots not named keep "
                  "theirs, 0 at first; where set, the levels play it instead of the mixture: "
                  "docs/levels.md)");
  cmd->add_flag("!--no-pair-prior", opt.pair_prior,
                "leave out the two-sided prior over a game's two ratings (by default the "
                "train fold's games of two rated players are counted into the model, and "
                "the rating estimate uses both sides' moves for each)");
  cmd->add_option("--held-out", opt.held_out,
                  "J/K: train without the J-th of K equal slices of the games and validate on "
                  "it, for a K-fold cross-validation by game (default 0/10, the validation "
                  "fold of the shipped models)");
  cmd->add_flag("!--no-titled", opt.titled,
                "leave out titled over-the-board players (unrated sides of games without a "
                "TimeControl tag); by default they are a class of their own");
}

}  // namespace kz::cli
