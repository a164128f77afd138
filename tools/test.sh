#!/usr/bin/env bash
# The project's test command (README.md "Build and test"; .ci/run calls this):
# installs missing packages, configures a Release build, builds everything and runs
# the whole CTest suite. KZ_BUILD_DIR picks another build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_BUILD_DIR:-build}
tools/install-deps.sh &&
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$build" -j2 &&
  ctest --test-dir "$build" --output-on-failure -j2
