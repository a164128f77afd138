#!/usr/bin/env bash
# Installs the Debian 12 packages KumalakZero needs to build and test (README.md,
# "Dependencies"). Only missing packages are installed; when all are present, apt is
# not touched at all. Uses sudo only when not run as root.
#   tools/install-deps.sh            everything: the full build and every test
#   tools/install-deps.sh --player   what the player's build needs (-DKZ_TORCH=OFF, no
#                                    tests): no LibTorch, no browser, no Slurm
#   tools/install-deps.sh --wasm     what the WebAssembly build needs (docs/browser.md)
set -euo pipefail

packages=(
  build-essential      # g++ 12, make
  cmake                # the build
  libtorch-dev         # the network (LibTorch, CPU)
  libdnnl-dev          # oneDNN's headers: play's network through oneDNN (nn/onednn_network.h)
  libgloo-dev          # Gloo's headers: data-parallel kumalak-train (c10d Gloo, in libtorch_cpu)
  libspdlog-dev        # logging
  libcli11-dev         # command lines
  libgtest-dev         # the test suite
  nlohmann-json3-dev   # JSON output and metadata
  libtomlplusplus-dev  # TOML configs
  gnuplot-nox          # training plots
  clang-format         # code formatting (.clang-format)
  gettext              # the translations: xgettext, msgmerge, msgfmt (tools/po/)
  pkg-config           # finds cpp-httplib
  libcpp-httplib-dev   # kumalak serve: the HTTP server (and the API tests' client)
  chromium             # the browser test of kumalak serve's page (headless)
  chromium-driver      # ... driven through WebDriver
  python3-selenium     # ... from tools/web_test.py
  clang                # the fuzz build (tools/fuzz.sh): libFuzzer needs clang
  libclang-rt-14-dev   # libFuzzer and the sanitizer runtimes for clang 14
  slurmctld            # the Slurm test (tests/slurm_test.sh): a one-node cluster on localhost
  slurmd               # ... its node daemon
  slurm-client         # ... sbatch, srun, squeue, scancel, sacct
  python3-torch        # torchrun (/usr/bin/torchrun): tests/train_distributed_test.cpp
  emscripten           # the WebAssembly build (docs/browser.md): em++, with clang 14 and lld
  nodejs               # ... which runs under Node (its tests, the engine protocol)
  googletest           # ... GoogleTest's sources, compiled for WebAssembly
)

# The player's build: `kumalak` without LibTorch (tools/play.sh).
player_packages=(
  build-essential cmake libdnnl-dev libspdlog-dev libcli11-dev nlohmann-json3-dev
  libtomlplusplus-dev gettext pkg-config libcpp-httplib-dev
)
# The WebAssembly build: emscripten compiles the same sources; Debian's header-only
# libraries and gettext (the catalogs) from the host (tools/wasm/dependencies.cmake).
wasm_packages=(
  cmake emscripten nodejs googletest libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libtomlplusplus-dev gettext python3
)
if [[ "${1-}" == "--player" ]]; then
  packages=("${player_packages[@]}")
elif [[ "${1-}" == "--wasm" ]]; then
  packages=("${wasm_packages[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  sudo=(sudo)
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  "${missing[@]}"
