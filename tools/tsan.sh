#!/usr/bin/env bash
# Runs the network-free threaded tests under ThreadSanitizer: the game runner's search
# threads and batching front (mcts/game_runner.h, mcts/batching_front.h), one search on
# several threads (mcts/mcts_player.h), the driver's pipeline and its task thread
# (mcts/task_thread.h), the match sides on two threads, and kumalak serve's engine
# queue, workers and watchdog in-process
# (tools/serve/, every serve_ test but the two that load a network). A build of its own,
# build-tsan (-DKZ_SANITIZE=thread); only kz_mcts_tests and kz_serve_tests are built,
# neither with LibTorch, which is not instrumented (a TSan binary linking it crashes as it
# starts). Fails on any data race report (TSan exits 66).
#
#   tools/tsan.sh                         # the threaded tests (a few minutes on 2 cores)
#   tools/tsan.sh --gtest_filter='*'      # every search test (slow under TSan); the
#                                         # serve tests always run whole
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_TSAN_BUILD_DIR:-build-tsan}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -DKZ_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j2 --target kz_mcts_tests kz_serve_tests
filter=--gtest_filter='GameRunner*:BatchingFront*:MctsBatching*:*MctsThreaded*:TaskThread*'
if (($#)); then filter=$1; fi
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
"$build/tests/kz_mcts_tests" "$filter"
"$build/tests/kz_serve_tests"
