#!/usr/bin/env bash
# Measures what a machine gives this project, in one table:
#   - the network alone and the search feeding it (`kumalak bench`), with 1 and with T
#     search threads: evaluations/s and the busy ratio (search / network alone);
#   - self-play games per hour (`kumalak-selfplay`, the config's visits) with T threads;
#   - training samples per second (`kumalak-train` on the games just played).
# Every figure comes from the same network size and device, named in the table.
#
#   tools/bench-machine.sh [--device cpu|cuda] [--threads T] [--channels C] [--blocks B]
#                          [--batch N] [--games G] [--steps S] [--seconds S]
#                          [--config FILE] [--build DIR]
#
# Defaults: the device's usual figures: cpu -> 64x6 (configs/togyz.toml's network),
# batch 256, T = the core count; cuda -> 128x10, batch 1024, T = the core count. The
# script writes only into a temporary folder, removed at the end.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
device=cpu threads="" channels="" blocks="" batch="" games="" steps=200 seconds=12
config="$here/configs/togyz.toml" build="$here/build"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --device) device="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --channels) channels="$2"; shift 2 ;;
    --blocks) blocks="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --games) games="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --config) config="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench-machine: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cores="$(nproc)"
threads="${threads:-$cores}"
if [[ "$device" == cpu ]]; then
  channels="${channels:-64}" blocks="${blocks:-6}" batch="${batch:-256}" games="${games:-32}"
  in_parallel=96
else
  channels="${channels:-128}" blocks="${blocks:-10}" batch="${batch:-1024}" games="${games:-1024}"
  in_parallel=$((batch / 4 * 2))  # two halves, each filling a batch at 4 leaves per game
fi
bin="$build/tools"
for exe in kumalak kumalak-selfplay kumalak-train; do
  [[ -x "$bin/$exe" ]] || { echo "bench-machine: $bin/$exe not found; build first (or --build DIR)" >&2; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The run config: the given one with this network, device and batch (configs extend
# others: train/config.cpp).
cat > "$work/bench.toml" <<TOML
extends = "$config"
device = "$device"
[network]
channels = $channels
blocks = $blocks
[selfplay]
games_in_parallel = $in_parallel
max_batch = $batch
[train]
batch_size = $batch
TOML

json_field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])[sys.argv[1]])' "$1"; }

echo "bench-machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //') x $cores cores, device $device, network ${channels}x${blocks}, batch $batch" >&2
declare -A net evals ratio
for t in 1 "$threads"; do
  [[ -n "${ratio[$t]:-}" ]] && continue
  out="$("$bin/kumalak" bench --device "$device" --batch "$batch" --channels "$channels" \
    --blocks "$blocks" --seconds "$seconds" --search-threads "$t" 2>/dev/null)"
  net[$t]="$(json_field net_evals_per_s <<<"$out")"
  evals[$t]="$(json_field search_evals_per_s <<<"$out")"
  ratio[$t]="$(json_field busy_ratio <<<"$out")"
done

"$bin/kumalak-train" --config "$work/bench.toml" --init-only --out "$work/model.pt" >/dev/null
sp="$("$bin/kumalak-selfplay" --config "$work/bench.toml" --model "$work/model.pt" --out "$work/data" \
  --games "$games" --generation 1 --seed 1 --search-threads "$threads" 2>/dev/null | tail -1)"
sp_games="$(sed -E 's/^selfplay: ([0-9]+) games.*/\1/' <<<"$sp")"
sp_secs="$(sed -E 's/.* plies in ([0-9.e+]+) s;.*/\1/' <<<"$sp")"
games_h="$(python3 -c "print(round($sp_games / $sp_secs * 3600))")"

tr="$("$bin/kumalak-train" --config "$work/bench.toml" --data "$work/data" --init "$work/model.pt" \
  --out "$work/trained.pt" --steps "$steps" 2>/dev/null | tail -1)"
samples="$(sed -E 's/.* ([0-9.e+]+) samples\/s.*/\1/' <<<"$tr")"

printf '| figure (%s, %s, %sx%s, batch %s) | value |\n|---|---|\n' "$(hostname)" "$device" "$channels" "$blocks" "$batch"
printf '| network alone, positions/s | %s |\n' "${net[1]}"
printf '| search, 1 thread: evaluations/s (busy ratio) | %s (%s) |\n' "${evals[1]}" "${ratio[1]}"
[[ "$threads" != 1 ]] && printf '| search, %s threads: evaluations/s (busy ratio) | %s (%s) |\n' "$threads" "${evals[$threads]}" "${ratio[$threads]}"
printf '| self-play, %s threads: games/hour (%s games) | %s |\n' "$threads" "$sp_games" "$games_h"
printf '| training: samples/s (%s steps) | %.0f |\n' "$steps" "$samples"
