#!/usr/bin/env bash
# The project's main command (README, "The two commands"): installs what the player's
# build needs, builds the engine without LibTorch (-DKZ_TORCH=OFF, in build-player) and
# starts a game against it with the shipped model.
#   tools/play.sh                       Togyz Kumalak, level expert, you play White
#   tools/play.sh --game kalah --level medium --human black
# Any arguments go to `kumalak play` (see `build/tools/kumalak play --help`).
#
#   tools/play.sh --browser [serve options]
# The board in a browser instead: also installs emscripten (tools/install-deps.sh --wasm),
# builds the WebAssembly site (build-wasm/web-site: the page whose engine runs in the
# browser, installable and offline; docs/browser.md) and starts `kumalak serve`, which
# sends that site; the options after --browser go to `kumalak serve` (--host 0.0.0.0 for
# a phone on the same network, --port N).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KZ_BUILD_DIR:-build-player}
browser=false
if [[ "${1-}" == "--browser" ]]; then
  browser=true
  shift
fi
tools/install-deps.sh --player
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKZ_TORCH=OFF -DKZ_BUILD_TESTS=OFF \
  "${launcher[@]}" >/dev/null
cmake --build "$build" -j2 --target kumalak
if $browser; then
  tools/install-deps.sh --wasm
  # build-wasm: where `kumalak serve`, run from here, finds the site.
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release -DKZ_BUILD_TESTS=OFF \
    "${launcher[@]}" >/dev/null
  cmake --build build-wasm -j2 --target web-site
  exec "$build/tools/kumalak" serve "$@"
fi
args=("$@")
[[ " ${args[*]-} " == *" --game "* ]] || args=(--game togyz "${args[@]}")
[[ " ${args[*]-} " == *" --level "* ]] || args+=(--level expert)
exec "$build/tools/kumalak" play "${args[@]}"
