#!/usr/bin/env bash
# The project's main command (README, "The two commands"): installs what the player's
# build needs, builds the engine without LibTorch (-DKZ_TORCH=OFF, in build-player) and
# starts a game against it with the shipped model.
#   tools/play.sh                       Togyz Kumalak, level expert, you play White
#   tools/play.sh --game kalah --level medium --human black
# Any arguments go to `kumalak play` (see `build/tools/kumalak play --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_BUILD_DIR:-build-player}
tools/install-deps.sh --player
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKZ_TORCH=OFF -DKZ_BUILD_TESTS=OFF \
  "${launcher[@]}" >/dev/null
cmake --build "$build" -j2 --target kumalak
args=("$@")
[[ " ${args[*]-} " == *" --game "* ]] || args=(--game togyz "${args[@]}")
[[ " ${args[*]-} " == *" --level "* ]] || args+=(--level expert)
exec "$build/tools/kumalak" play "${args[@]}"
