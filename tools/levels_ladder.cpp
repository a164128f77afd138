#include "tools/levels_ladder.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "tools/human_level.h"
#include "tools/json_text.h"

namespace kz {

namespace {

// One pair off the ladder: --a against --b.
LevelPair named_pair(const LevelPairsChoice& choice, const GameSpec& spec) {
  if (choice.a.empty() || choice.b.empty()) throw ParseError("--a and --b go together");
  if (!choice.only.empty() || choice.same_level)
    throw ParseError("--a/--b name one pair: no --only or --same-level with them");
  LevelPair pair{parse_match_side(choice.a), parse_match_side(choice.b)};
  // A rating level is refused here, before any game, when the human model is missing or
  // the rating outside its range (or its search mixture's engine network missing).
  for (const MatchSide* side : {&pair.upper, &pair.lower})
    if (side->rating)
      human_level_search(spec, *load_human_level(spec, *side->rating, choice.human_model),
                         MixUse::kPlay);
  if (pair.upper.rating || pair.lower.rating) {
    pair.step_score = kRatingStepScore;
    pair.sprt = kRatingStepSprt;
  }
  return pair;
}

}  // namespace

std::vector<LevelPair> level_pairs_of(const LevelPairsChoice& choice, const GameSpec& spec) {
  std::vector<LevelPair> pairs;
  if (!choice.a.empty() || !choice.b.empty()) {
    pairs.push_back(named_pair(choice, spec));
  } else if (!choice.only.empty()) {
    try {
      const Level l = parse_level(choice.only);
      if (l == Level::kBeginner && !choice.same_level)
        throw ParseError("beginner has no level below it");
      pairs.push_back({{l}, {choice.same_level ? l : Level(int(l) - 1)}});
    } catch (const ParseError& e) {
      throw ParseError(std::string("--only: ") + e.what());
    }
  } else {
    for (int l = 1; l < kLevelCount; ++l)
      pairs.push_back({{Level(l)}, {choice.same_level ? Level(l) : Level(l - 1)}});
  }
  return pairs;
}

std::vector<Position> paired_openings(const GameSpec& spec, int games, int plies, uint64_t seed) {
  const Position start = Position::start(spec);
  std::mt19937_64 rng(seed);
  const int n = (games + 1) / 2;
  std::vector<Position> openings;
  for (int i = 0; i < n; ++i) openings.push_back(random_opening(start, plies, rng, 100));
  return openings;
}

ResumedRecord resume_record(const std::string& path, const nlohmann::ordered_json& settings,
                            int openings, const std::vector<LevelPair>& pairs,
                            std::vector<PairStats>& stats) {
  ResumedRecord out;
  out.kept = cli::json_text(settings) + "\n";
  out.opening_done.assign(pairs.size(), std::vector<bool>(size_t(openings), false));
  if (!std::filesystem::exists(path)) return out;
  const std::vector<RecordedGame> games = read_record(path, settings, openings);
  std::map<std::pair<size_t, int>, std::vector<const RecordedGame*>> by_opening;
  for (const auto& g : games)
    for (size_t p = 0; p < pairs.size(); ++p)
      if (g.upper == pairs[p].upper.name()) by_opening[{p, g.opening}].push_back(&g);
  for (const auto& [key, list] : by_opening) {
    const RecordedGame* colour[2] = {nullptr, nullptr};
    for (const RecordedGame* g : list) colour[g->game] = g;
    if (!colour[0] || !colour[1]) continue;
    out.opening_done[key.first][size_t(key.second)] = true;
    for (const RecordedGame* g : colour) {
      stats[key.first].add(*g);
      out.kept += cli::json_text(record_line(*g)) + "\n";
      ++out.games;
    }
  }
  return out;
}

namespace {

// printf into a string.
template <typename... Args>
std::string printed(const char* format, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// One pair's row; counts a pair under its step in `failures`.
std::string pair_row(const LevelPair& pair, const PairStats& s, int& failures) {
  const int n = s.wins + s.draws + s.losses;
  Pentanomial pairs;
  for (int points : s.opening_points) pairs.counts[size_t(points)]++;
  const EloEstimate elo = estimate_elo(pairs);
  const SprtResult verdict = sprt(pairs, pair.sprt);
  const double score = pairs.score();
  const std::string names = pair.upper.name() + " vs " + pair.lower.name();
  const std::string wdl =
      std::to_string(s.wins) + "-" + std::to_string(s.draws) + "-" + std::to_string(s.losses);
  const std::string interval = printed("%+.0f [%+.0f, %+.0f]", elo.elo, elo.elo_lo, elo.elo_hi);
  if (score < pair.step_score) ++failures;
  return printed("%-20s %6d %13s %6.1f%% %18s %5s %11.4f %11.4f %9.1f\n", names.c_str(), n,
                 wdl.c_str(), 100 * score, interval.c_str(), sprt_decision_string(verdict.decision),
                 s.upper_moves ? s.upper_seconds / s.upper_moves : 0.0,
                 s.lower_moves ? s.lower_seconds / s.lower_moves : 0.0,
                 n ? double(s.plies) / n : 0.0);
}

// What resign adjudication did in a pair ("" when it judged no game).
std::string adjudication_line(const LevelPair& pair, const PairStats& s, bool verify) {
  if (s.verdicts == 0) return "";
  const int n = s.wins + s.draws + s.losses;
  std::string line =
      printed("%s: resign adjudication judged %d of %d games, at ply %.1f on average",
              pair.upper.name().c_str(), s.verdicts, n, double(s.verdict_plies) / s.verdicts);
  if (verify)
    return line + printed("; played on, they lasted %.1f plies and %d verdicts were wrong\n",
                          double(s.verdict_game_plies) / s.verdicts, s.wrong_verdicts);
  return line + " (the games ended there)\n";
}

}  // namespace

LevelsTable levels_table(const LevelsTableSetup& setup, const std::vector<LevelPair>& pairs,
                         const std::vector<PairStats>& stats) {
  LevelsTable t;
  t.text = printed(
      "game %s, %d games per pair (%d openings x 2 colours, %d random plies), "
      "time scale %g, seed %llu\n",
      setup.game.c_str(), 2 * setup.openings, setup.openings, setup.opening_plies, setup.time_scale,
      static_cast<unsigned long long>(setup.seed));
  t.text += printed("%-20s %6s %13s %7s %18s %5s %11s %11s %9s\n", "upper vs lower", "games",
                    "W-D-L", "score", "elo [95%]", "sprt", "upper s/mv", "lower s/mv", "plies/g");
  for (size_t p = 0; p < pairs.size(); ++p) t.text += pair_row(pairs[p], stats[p], t.failures);
  const SprtParams& shown = pairs.front().sprt;
  t.text += printed(
      "sprt: H1 = the step is worth %.0f Elo (%.0f %%), H0 = %.0f Elo (%.0f %%): "
      "H1 accepted, H0 accepted, or continue (more games needed)\n",
      shown.elo1, 100 * score_from_elo(shown.elo1), shown.elo0, 100 * score_from_elo(shown.elo0));
  if (setup.resign)
    for (size_t p = 0; p < pairs.size(); ++p)
      t.text += adjudication_line(pairs[p], stats[p], setup.resign_verify);
  for (size_t p = 0; p < pairs.size(); ++p)
    t.text +=
        pairs[p].upper.name() + ": " + stats[p].upper_name + " vs " + stats[p].lower_name + "\n";
  t.text += printed("wall time %.0f s with %d threads%s\n", setup.seconds, setup.threads,
                    setup.recorded_games > 0 ? " (this sitting; earlier games from --record)" : "");
  return t;
}

nlohmann::ordered_json levels_record_settings(const GameSpec& spec, int games, int opening_plies,
                                              const LevelPairsChoice& choice,
                                              const LevelsMatchPlay& play) {
  nlohmann::ordered_json j = {{"levels_match_record", 1},
                              {"game", spec.name()},
                              {"games", games},
                              {"opening_plies", opening_plies},
                              {"seed", play.seed},
                              {"time_scale", play.time_scale},
                              {"only", choice.only},
                              {"max_plies", play.max_plies},
                              {"alphabeta", play.alphabeta_only},
                              {"model", play.model},
                              {"same_level", choice.same_level},
                              {"lower_alphabeta", play.lower_alphabeta},
                              {"lower_no_score_bounds", play.lower_no_score_bounds},
                              {"lower_model", play.lower_model}};
  if (!choice.a.empty()) {
    j["a"] = choice.a;
    j["b"] = choice.b;
    j["human_model"] = choice.human_model;
  }
  if (play.resign_score > 0) {
    j["resign_score"] = play.resign_score;
    j["resign_moves"] = play.resign_moves;
    j["resign_verify"] = play.resign_verify;
  }
  return j;
}

std::vector<int> openings_to_play(const ResumedRecord& resumed, size_t pair) {
  std::vector<int> todo;
  const std::vector<bool>& done = resumed.opening_done[pair];
  for (size_t i = 0; i < done.size(); ++i)
    if (!done[i]) todo.push_back(int(i));
  return todo;
}

std::string pair_score_text(const PairStats& s) {
  const int played = s.wins + s.draws + s.losses;
  char score[32];
  std::snprintf(score, sizeof score, "%.1f%%",
                100.0 * (s.wins + 0.5 * s.draws) / std::max(1, played));
  return score;
}

std::string levels_game_line(const MatchSide& upper, const MatchSide& lower,
                             const RecordedGame& recorded, const RunnerGame& game,
                             bool resign_verify) {
  const int points = recorded.points;
  const std::string verdict =
      game.verdict_ply < 0 ? ""
      : resign_verify      ? " (adjudication's verdict at ply " + std::to_string(game.verdict_ply) +
                            ": " + (recorded.verdict_points == points ? "right)" : "wrong)")
                      : " (adjudicated)";
  return upper.name() + (recorded.game == 0 ? " (white)" : " (black)") + " vs " + lower.name() +
         ", opening " + std::to_string(recorded.opening + 1) + ": " +
         (points == 2   ? "win"
          : points == 0 ? "loss"
                        : "draw") +
         " " + std::to_string(int(game.pos.store[0])) + "-" +
         std::to_string(int(game.pos.store[1])) + ", " + std::to_string(game.plies) + " plies" +
         verdict;
}

}  // namespace kz
