#include "tools/solver_tables.h"

#include <sys/resource.h>

#include <chrono>
#include <filesystem>

#include "core/notation.h"

namespace kz::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string folder_or_default(const std::string& dir) {
  return dir.empty() ? default_egtb_dir() : dir;
}

int seeds_or_default(const GameSpec& spec, int seeds) {
  return seeds < 0 ? default_egtb_seeds(spec) : seeds;
}

}  // namespace

Position position_to_solve(const GameSpec& spec, const std::string& moves,
                           const std::string& position) {
  if (!position.empty() && !moves.empty()) throw ParseError("give --position or --moves, not both");
  if (!moves.empty())
    return replay_moves(parse_move_list(moves), Position::start(spec)).final_position;
  return !position.empty() ? Position::parse(position, spec) : Position::start(spec);
}

CommandEgtb command_egtb(const GameSpec& spec, int seeds, const std::string& dir,
                         std::ostream* log) {
  const auto t0 = std::chrono::steady_clock::now();
  CommandEgtb out;
  const std::string folder = folder_or_default(dir);
  if (seeds < 0) seeds = cached_or_default_egtb_seeds(spec, folder);
  if (seeds > 0) out.db = load_or_build_egtb(spec, seeds, folder, log);
  out.seconds = seconds_since(t0);
  return out;
}

std::string egtb_file_path(const GameSpec& spec, int seeds, const std::string& dir) {
  return (std::filesystem::path(folder_or_default(dir)) /
          egtb_file_name(spec.variant, spec.pits, seeds_or_default(spec, seeds)))
      .string();
}

EgtbFile build_egtb_file(const GameSpec& spec, int seeds, const std::string& dir,
                         const std::function<void(int level, double seconds)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  EgtbFile out{
      egtb_file_path(spec, seeds, dir),
      KalahEndgameDb::build(spec.variant, spec.pits, seeds_or_default(spec, seeds), progress)};
  out.seconds = seconds_since(t0);
  std::filesystem::create_directories(folder_or_default(dir));
  out.db.save(out.path);
  return out;
}

EgtbFile read_egtb_file(const GameSpec& spec, int seeds, const std::string& dir) {
  const std::string path = egtb_file_path(spec, seeds, dir);
  return {path, KalahEndgameDb::load(path, spec.variant, spec.pits, seeds_or_default(spec, seeds))};
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // Linux: KiB
}

}  // namespace kz::cli
