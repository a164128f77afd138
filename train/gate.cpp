#include "train/gate.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "train/config_schema.h"

namespace kz {

GateDecision decide_gate(const MatchResult& result, const GateConfig& gate, bool use_sprt) {
  GateDecision d;
  d.sprt_pass = use_sprt && result.sprt.decision == SprtDecision::kAcceptH1;
  d.sprt_fail = use_sprt && result.sprt.decision == SprtDecision::kAcceptH0;
  d.pass = d.sprt_pass || (!d.sprt_fail && result.elo.score >= gate.promote_min_score);
  return d;
}

GateRecord make_gate_record(const std::string& candidate, const std::string& baseline,
                            const MatchResult& r, const GateDecision& decision) {
  GateRecord g;
  g.candidate = candidate;
  g.baseline = baseline;
  g.wins = r.wdl.wins;
  g.draws = r.wdl.draws;
  g.losses = r.wdl.losses;
  g.score = r.elo.score;
  g.elo = r.elo.elo;
  g.elo_lo = r.elo.elo_lo;
  g.elo_hi = r.elo.elo_hi;
  g.los = r.elo.los;
  g.llr = r.sprt.llr;
  g.sprt = sprt_decision_string(r.sprt.decision);
  g.pass = decision.pass;
  g.seconds = r.seconds;
  return g;
}

nlohmann::ordered_json gate_record_json(const GateRecord& g) {
  return {
      {"candidate", g.candidate}, {"baseline", g.baseline}, {"wins", g.wins}, {"draws", g.draws},
      {"losses", g.losses},       {"score", g.score},       {"elo", g.elo},   {"elo_lo", g.elo_lo},
      {"elo_hi", g.elo_hi},       {"los", g.los},           {"llr", g.llr},   {"sprt", g.sprt},
      {"pass", g.pass},           {"seconds", g.seconds}};
}

namespace {

// JSON has no infinity: nlohmann writes an infinite Elo or interval end (a 40-0 match)
// as null, so null reads back as the infinity it stood for.
double number_or_infinity(const nlohmann::json& j, const char* key, double if_null) {
  const auto& v = j.at(key);
  return v.is_null() ? if_null : v.get<double>();
}

}  // namespace

GateRecord parse_gate_record(const nlohmann::json& j, const std::string& where) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  try {
    GateRecord g;
    g.candidate = j.at("candidate").get<std::string>();
    g.baseline = j.at("baseline").get<std::string>();
    g.wins = j.at("wins").get<int64_t>();
    g.draws = j.at("draws").get<int64_t>();
    g.losses = j.at("losses").get<int64_t>();
    if (g.wins < 0 || g.draws < 0 || g.losses < 0)
      throw std::runtime_error(where + ": negative game counts");
    g.score = j.at("score").get<double>();
    g.elo = number_or_infinity(j, "elo", g.score >= 0.5 ? kInf : -kInf);
    g.elo_lo = number_or_infinity(j, "elo_lo", -kInf);
    g.elo_hi = number_or_infinity(j, "elo_hi", kInf);
    g.los = j.at("los").get<double>();
    g.llr = j.at("llr").get<double>();
    g.sprt = j.at("sprt").get<std::string>();
    g.pass = j.at("pass").get<bool>();
    g.seconds = j.at("seconds").get<double>();
    return g;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(where + ": not a gate record: " + e.what());
  }
}

void write_gate_record(const std::string& path, const GateRecord& record) {
  const std::string text = gate_record_json(record).dump() + "\n";
  write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

GateRecord read_gate_record(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not a gate record: " + e.what());
  }
  return parse_gate_record(j, path);
}

std::vector<GateHistoryEntry> read_gate_history(const std::string& gates_dir,
                                                const std::string& first_best) {
  std::error_code ec;
  if (!std::filesystem::is_directory(gates_dir, ec))
    throw std::runtime_error(gates_dir + ": not a folder of gate records");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(gates_dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<GateHistoryEntry> history;
  std::string best = first_best;
  for (const auto& f : files) {
    const GateRecord g = read_gate_record(f.string());
    // The file name, not the recorded path, names the generation: runs move between
    // folders and machines.
    const std::string candidate = f.stem().string();
    history.push_back({{candidate, best, g.wins, g.draws, g.losses}, g.pass});
    if (g.pass) best = candidate;
  }
  return history;
}

std::vector<std::pair<std::string, std::string>> ladder_schedule(
    const std::vector<std::string>& models, int reach, int anchor_ab) {
  std::vector<std::pair<std::string, std::string>> schedule;
  for (size_t i = 0; i < models.size(); ++i) {
    for (int k = 1; k <= reach && i + k < models.size(); ++k)
      schedule.emplace_back(models[i + k], models[i]);
    if (i >= size_t(reach) + 1) schedule.emplace_back(models[i], models[0]);
    if (anchor_ab > 0) schedule.emplace_back(models[i], "ab:" + std::to_string(anchor_ab));
  }
  return schedule;
}

std::vector<PairResult> read_ladder_matches(const std::string& path, std::string* raw_lines) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<PairResult> matches;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(line);
      matches.push_back({j.at("a").get<std::string>(), j.at("b").get<std::string>(),
                         j.at("wins").get<int64_t>(), j.at("draws").get<int64_t>(),
                         j.at("losses").get<int64_t>(), j.value("settings", std::string())});
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(line_no) +
                               ": not a ladder match: " + e.what());
    }
    if (raw_lines) *raw_lines += line + "\n";
  }
  return matches;
}

std::string ladder_match_line(const PairResult& m, double elo) {
  nlohmann::ordered_json j = {{"a", m.a},         {"b", m.b},           {"wins", m.wins},
                              {"draws", m.draws}, {"losses", m.losses}, {"elo", elo}};
  if (!m.settings.empty()) j["settings"] = m.settings;
  return j.dump();
}

std::string ladder_settings(const RunConfig& config, int games, int visits) {
  const std::string text = config_as_toml(config) + "\ngames=" + std::to_string(games) +
                           "\nvisits=" + std::to_string(visits) + "\n";
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(fnv1a64(text)));
  return hex;
}

std::string player_display_name(const std::string& spec) {
  if (spec.rfind("ab:", 0) == 0 || spec == "init" || spec == "rollout") return spec;
  return std::filesystem::path(spec).stem().string();
}

void promote_model(const std::string& from, const std::string& to) {
  const std::string temp = temp_name_for(to);
  std::filesystem::copy_file(from, temp, std::filesystem::copy_options::overwrite_existing);
  commit_temp_file(temp, to);
}

}  // namespace kz
