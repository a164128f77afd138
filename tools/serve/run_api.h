// The Run view's calls of `kumalak serve --run DIR` (docs/serve.md): the training runs
// given at start, each read on request into one JSON object by a RunReader (in the
// executable: train/run_status.h, which brings LibTorch's library along and so stays out
// of this library). A request chooses a run by its index or name among those given; it
// can name no path, so the server reads only inside the run folders it was started with.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/serve/api_router.h"

namespace kz::cli::serve {

// A run folder given at start and the name the page shows for it: the folder's own name,
// with "-2", "-3", ... after it when two folders share one.
struct WatchedRun {
  std::string name;
  std::string dir;
};

// The runs' names for `dirs`, in the same order.
std::vector<WatchedRun> name_runs(const std::vector<std::string>& dirs);

// Reads the run folder `dir` now; whatever it holds, it answers a JSON object (damaged
// files are the reader's to count), so a throw is an internal error.
using RunReader = std::function<json(const std::string& dir)>;

class RunApi {
 public:
  RunApi(std::vector<WatchedRun> runs, RunReader reader)
      : runs_(std::move(runs)), reader_(std::move(reader)) {}

  size_t size() const { return runs_.size(); }
  // GET /api/runs: {"runs": [{"index": 0, "name": "..."}, ...]}.
  json list() const;
  // GET /api/run?run=INDEX_OR_NAME: the reader's object with "index" and "name" set.
  // 400 without `run`, 404 for a run that was not given.
  json run(const json& request) const;
  // Adds both calls to `router`.
  void routes(ApiRouter& router);

 private:
  const WatchedRun& find(const json& request, size_t& index) const;

  std::vector<WatchedRun> runs_;
  RunReader reader_;
};

}  // namespace kz::cli::serve
