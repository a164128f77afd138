#include "tools/serve/run_api.h"

#include <filesystem>
#include <map>

#include "core/i18n.h"
#include "tools/serve/request.h"

namespace kz::cli::serve {

std::vector<WatchedRun> name_runs(const std::vector<std::string>& dirs) {
  std::vector<WatchedRun> runs;
  std::map<std::string, int> uses;
  for (const std::string& dir : dirs) {
    std::string base = std::filesystem::path(dir).lexically_normal().filename().string();
    if (base.empty() || base == ".")
      base = std::filesystem::path(dir).lexically_normal().parent_path().filename().string();
    if (base.empty()) base = "run";
    const int n = ++uses[base];
    runs.push_back({n == 1 ? base : base + "-" + std::to_string(n), dir});
  }
  return runs;
}

json RunApi::list() const {
  json runs = json::array();
  for (size_t i = 0; i < runs_.size(); ++i) runs.push_back({{"index", i}, {"name", runs_[i].name}});
  return {{"runs", runs}};
}

const WatchedRun& RunApi::find(const json& request, size_t& index) const {
  const std::string wanted = str_field(request, "run", "");
  if (wanted.empty()) throw ApiError(400, i18n::tr("'run' is missing: give a run's index or name"));
  if (runs_.empty())
    throw ApiError(404, i18n::tr("this server watches no training run (start it with --run DIR)"));
  for (size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i].name == wanted || std::to_string(i) == wanted) {
      index = i;
      return runs_[i];
    }
  std::string names;
  for (const WatchedRun& r : runs_) names += (names.empty() ? "" : ", ") + r.name;
  throw ApiError(404, i18n::tr("no run '{run}': give an index 0..{last} or a name ({names})",
                               {{"run", wanted}, {"last", runs_.size() - 1}, {"names", names}}));
}

json RunApi::run(const json& request) const {
  size_t index = 0;
  const WatchedRun& r = find(request, index);
  json status = reader_(r.dir);
  status["index"] = index;
  status["name"] = r.name;
  return status;
}

void RunApi::routes(ApiRouter& router) {
  router.add("GET", "/api/runs", [this](const json&) { return list(); });
  router.add("GET", "/api/run", [this](const json& b) { return run(b); });
}

}  // namespace kz::cli::serve
