#!/usr/bin/env bash
# The project's test command (README.md "Build and test"; .ci/run calls this):
# installs missing packages, configures a Release build and builds everything, builds
# the libFuzzer targets with clang (build-fuzz) and runs each for KZ_FUZZ_SECONDS
# (default 20; 0 skips the step), failing on any crash, hang or sanitizer report
# (tools/fuzz.sh, docs/fuzzing.md), builds the player's build without LibTorch
# (-DKZ_TORCH=OFF, in build-player) and runs its tests, the WebAssembly build (build-wasm)
# and its tests under Node, then runs the whole CTest suite of the full build. KZ_BUILD_DIR picks another build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_BUILD_DIR:-build}
# One command per line under `set -e`: any failing step stops the script (in an
# `a && b` list a failing `a` would not).
tools/install-deps.sh
# ccache where it is installed (not a dependency: it only makes a second build faster).
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKZ_BUILD_TESTS=ON "${launcher[@]}"
cmake --build "$build" -j2
fuzz_seconds=${KZ_FUZZ_SECONDS:-20}
if ((fuzz_seconds > 0)); then
  tools/fuzz.sh --seconds "$fuzz_seconds"
fi
# The player's build (tools/play.sh's): the same sources without LibTorch, and its tests.
# KZ_BUILD_TESTS=ON said, not assumed: tools/play.sh configures the same folder without
# tests, and a cached OFF would leave this step with no tests to run.
cmake -S . -B "$build-player" -DCMAKE_BUILD_TYPE=Release -DKZ_TORCH=OFF -DKZ_BUILD_TESTS=ON \
  "${launcher[@]}"
cmake --build "$build-player" -j2
ctest --test-dir "$build-player" --output-on-failure --no-tests=error -j2
# The WebAssembly build (docs/browser.md): its rules', search's and network's tests under
# Node, and the engine under Node beside the player's native build.
emcmake cmake -S . -B "$build-wasm" -DCMAKE_BUILD_TYPE=Release -DKZ_BUILD_TESTS=ON "${launcher[@]}" \
  -DKZ_NATIVE_KUMALAK="$PWD/$build-player/tools/kumalak"
cmake --build "$build-wasm" -j2
ctest --test-dir "$build-wasm" --output-on-failure --no-tests=error -j2
# CTest last, so that its summary ("100% tests passed, ...") closes the output.
ctest --test-dir "$build" --output-on-failure --no-tests=error -j2
