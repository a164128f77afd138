#include "mcts/search_yield.h"

namespace kz {

namespace {
// Set once by the host before any search starts; read by the searching thread only.
SearchYieldHook hook = nullptr;
}  // namespace

void set_search_yield_hook(SearchYieldHook h) {
  hook = h;
}

bool search_yields() {
  return hook != nullptr;
}

void yield_search() {
  if (hook) hook();
}

}  // namespace kz
