#!/usr/bin/env bash
# The project's main command (README "Quick start"): installs what is missing, builds
# the engine and starts a game against it with the shipped model.
#   tools/play.sh                       Togyz Kumalak, level expert, you play White
#   tools/play.sh --game kalah --level medium --human black
# Any arguments go to `kumalak play` (see `build/tools/kumalak play --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_BUILD_DIR:-build}
tools/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target kumalak
args=("$@")
[[ " ${args[*]-} " == *" --game "* ]] || args=(--game togyz "${args[@]}")
[[ " ${args[*]-} " == *" --level "* ]] || args+=(--level expert)
exec "$build/tools/kumalak" play "${args[@]}"
