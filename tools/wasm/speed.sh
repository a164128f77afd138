#!/usr/bin/env bash
# The WebAssembly engine's speed under Node beside the native one, measured side by side in
# one run (this VM drifts), rounds alternating (docs/browser.md):
#   - perft from the start of Togyz to depth 8: nodes/s, the best of each build's rounds;
#   - level expert's visits in 1 s (the protocol's `go movetime 1000`, one thread) from three
#     positions: the native build at its default precision and in fp32, the WebAssembly
#     build in fp32 and with its integer path (KUMALAK_PRECISION=int8, the portable
#     forward's i16 dot products);
#   - the network's positions per second through play's evaluator, one thread, batches of
#     64 (kz-forward-speed, beside each kumalak): native fp32 and default, WebAssembly fp32
#     and int8; each fp32 forward against its own build's measured fp32 peak, the integer
#     one against SIMD128's i16 dot product peak (nn/cpu_peak.h).
# Usage: tools/wasm/speed.sh NATIVE_KUMALAK WASM_KUMALAK_JS [ROUNDS]
set -euo pipefail
native=$1
wasm=$2
rounds=${3:-3}
cd "$(dirname "$0")/../.."
export KZ_MODELS_DIR=$PWD/models LANGUAGE=en

best() { sort -n | tail -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
perft_rate() { "$@" perft --depth 8 | awk '/^depth 8/ {print $8}'; }
# The nodes of the last info line of a 1 s search after the moves given.
visits() {
  local moves=$1 precision=$2
  shift 2
  { printf 'uci\nposition startpos%s\ngo movetime 1000\n' "${moves:+ moves $moves}"
    sleep 3; printf 'quit\n'; } |
    env ${precision:+KUMALAK_PRECISION=$precision} "$@" engine 2>/dev/null |
    awk '/^info/ {for (i = 1; i < NF; ++i) if ($i == "nodes") n = $(i + 1)} END {print n}'
}

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); Node $(node --version)"
native_perft=() wasm_perft=()
for ((r = 0; r < rounds; ++r)); do
  native_perft+=("$(perft_rate "$native")")
  wasm_perft+=("$(perft_rate node "$wasm")")
done
n=$(printf '%s\n' "${native_perft[@]}" | best)
w=$(printf '%s\n' "${wasm_perft[@]}" | best)
echo "perft(8) nodes/s: native ${native_perft[*]}; wasm ${wasm_perft[*]}"
echo "perft(8) best: native $n, wasm $w, ratio $(awk -v a="$w" -v b="$n" 'BEGIN {printf "%.2f", a / b}')"

positions=("" "76 98 66 87 12 76 25 78 48 36x" "76 98 66 87 12 76 25 78 48 36x 94 16 84 82 91x 97 18 26 91 23")
for moves in "${positions[@]}"; do
  nd=() nf=() wa=() wi=()
  for ((r = 0; r < rounds; ++r)); do
    nd+=("$(visits "$moves" "" "$native")")
    nf+=("$(visits "$moves" fp32 "$native")")
    wa+=("$(visits "$moves" fp32 node "$wasm")")
    wi+=("$(visits "$moves" int8 node "$wasm")")
  done
  d=$(printf '%s\n' "${nd[@]}" | best)
  f=$(printf '%s\n' "${nf[@]}" | best)
  x=$(printf '%s\n' "${wa[@]}" | best)
  i=$(printf '%s\n' "${wi[@]}" | best)
  echo "expert 1 s after '${moves:-the start}': native default ${nd[*]}; native fp32 ${nf[*]}; wasm fp32 ${wa[*]}; wasm int8 ${wi[*]}"
  echo "  best: native default $d, native fp32 $f, wasm fp32 $x, wasm int8 $i; wasm fp32/default $(ratio "$x" "$d"), wasm int8/default $(ratio "$i" "$d"), wasm int8/fp32 $(ratio "$i" "$x")"
done

# One forward run: "<positions/s> <fraction of its build's fp32 peak> <that peak, GFLOP/s>".
forward() {
  "$@" models/togyz.pt 3 64 |
    awk '{for (i = 2; i < NF; ++i) if ($i == "of" && $(i + 1) == "the") print $1, $(i - 1), $(i + 4)}'
}
# The highest peak among "rate fraction peak" lines (`best` picks the fastest line).
best_peak() { awk '{print $3}' | sort -n | tail -1; }
fd=() ff=() fw=() fq=()
for ((r = 0; r < rounds; ++r)); do
  ff+=("$(KUMALAK_PRECISION=fp32 forward "$(dirname "$native")/kz-forward-speed")")
  fd+=("$(forward "$(dirname "$native")/kz-forward-speed")")
  fw+=("$(KUMALAK_PRECISION=fp32 forward node "$(dirname "$wasm")/kz-forward-speed.js")")
  fq+=("$(KUMALAK_PRECISION=int8 forward node "$(dirname "$wasm")/kz-forward-speed.js")")
done
read -r d _ _ <<<"$(printf '%s\n' "${fd[@]}" | best)"
read -r f f_of_peak _ <<<"$(printf '%s\n' "${ff[@]}" | best)"
read -r x x_of_peak _ <<<"$(printf '%s\n' "${fw[@]}" | best)"
read -r i i_of_peak _ <<<"$(printf '%s\n' "${fq[@]}" | best)"
native_peak=$(printf '%s\n' "${ff[@]}" "${fd[@]}" | best_peak)
wasm_peak=$(printf '%s\n' "${fw[@]}" | best_peak)
int_peak=$(printf '%s\n' "${fq[@]}" | best_peak)
rates() { local line; for line in "$@"; do printf '%s ' "${line%% *}"; done; }
echo "forward positions/s, batch 64: native default $(rates "${fd[@]}"); native fp32 $(rates "${ff[@]}"); wasm fp32 $(rates "${fw[@]}"); wasm int8 $(rates "${fq[@]}")"
echo "  best: native default $d, native fp32 $f, wasm fp32 $x, wasm int8 $i; wasm fp32/native fp32 $(ratio "$x" "$f"), wasm int8/native fp32 $(ratio "$i" "$f"), wasm int8/native default $(ratio "$i" "$d"), wasm int8/fp32 $(ratio "$i" "$x")"
# Each forward against its own build's peak (nn/cpu_peak.h), measured in the same process
# after it: how far each is from what its instructions allow, and the ratio of the peaks,
# the most the WebAssembly forward could reach against the native one.
echo "fp32 peak GFLOP/s (best): native $native_peak, wasm $wasm_peak; wasm/native $(ratio "$wasm_peak" "$native_peak")"
echo "i16 dot peak GOP/s (best), wasm: $int_peak; wasm i16 dot/native fp32 $(ratio "$int_peak" "$native_peak")"
echo "  the best rounds' forwards of their own peak: native fp32 $f_of_peak, wasm fp32 $x_of_peak, wasm int8 $i_of_peak"
