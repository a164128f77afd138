#!/usr/bin/env bash
# The project's test command (README.md "Build and test"; .ci/run calls this):
# installs missing packages, configures a Release build, builds everything and runs
# the whole CTest suite, then builds the libFuzzer targets with clang (build-fuzz) and
# runs each for KZ_FUZZ_SECONDS (default 20; 0 skips the step), failing on any crash,
# hang or sanitizer report (tools/fuzz.sh, docs/fuzzing.md). KZ_BUILD_DIR picks another
# build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_BUILD_DIR:-build}
tools/install-deps.sh &&
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$build" -j2 &&
  ctest --test-dir "$build" --output-on-failure -j2
fuzz_seconds=${KZ_FUZZ_SECONDS:-20}
if ((fuzz_seconds > 0)); then
  tools/fuzz.sh --seconds "$fuzz_seconds"
fi
