// A pause for the search's host between two slices of a search. The searches poll their
// stop flag between batches (mcts/driver.cpp) or every few thousand nodes (the alpha-beta
// search, the Kalah solver); there they also call yield_search(), which does nothing
// unless a host installed a hook. The one host that does is the page's engine without
// threads (kumalak-web-1t, tools/wasm/worker_yield.cpp): its search runs on the Web
// Worker's only thread, and its hook lets the worker answer the page (a status call, a
// stop that sets the flag polled right after) before the search goes on. Native and
// threaded builds never set one: a search there is stopped from another thread.
#pragma once

namespace kz {

// Called at most once per poll, on the searching thread; it may return much later (the
// host's event loop ran meanwhile) and must not throw. It decides itself how often to
// pause: polls come every few microseconds to milliseconds.
using SearchYieldHook = void (*)();

// Installs `hook` for every search of the process (nullptr: none, the default).
void set_search_yield_hook(SearchYieldHook hook);
// Whether a hook is installed: a search in its caller can then be stopped while it runs.
bool search_yields();
// Where a search polls its stop flag, before it reads the flag.
void yield_search();

}  // namespace kz
