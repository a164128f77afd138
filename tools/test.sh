#!/usr/bin/env bash
# The project's test command (README.md "Build and test"; .ci/run calls this):
# installs missing packages, configures a Release build and builds everything, builds
# the libFuzzer targets with clang (build-fuzz) and runs each for KZ_FUZZ_SECONDS
# (default 20; 0 skips the step), failing on any crash, hang or sanitizer report
# (tools/fuzz.sh, docs/fuzzing.md), then runs the whole CTest suite. KZ_BUILD_DIR picks another
# build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_BUILD_DIR:-build}
# One command per line under `set -e`: any failing step stops the script (in an
# `a && b` list a failing `a` would not).
tools/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j2
fuzz_seconds=${KZ_FUZZ_SECONDS:-20}
if ((fuzz_seconds > 0)); then
  tools/fuzz.sh --seconds "$fuzz_seconds"
fi
# CTest last, so that its summary ("100% tests passed, ...") closes the output.
ctest --test-dir "$build" --output-on-failure -j2
