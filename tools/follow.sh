#!/usr/bin/env bash
# Continuous mode on one machine with a plain process launcher: N self-play workers, the
# trainer and the gatekeeper, all following one run folder (train/follow.h). The same
# programs run under Slurm (tools/slurm/*.sbatch); nothing in them depends on the launcher.
#
#   tools/follow.sh --config configs/togyz.toml --run runs/togyz [--workers 2] [--bin build/tools]
#                   [--seconds S]
#
# Ctrl-C (or SIGTERM to this script) stops every process: workers finish their games in
# flight and write them; every file is written atomically, so kill -9 loses nothing
# written either. Restart with the same command to continue; logs go to RUN/logs/.
set -euo pipefail

config="" run="" workers=2 bin="" seconds=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --config) config="$2"; shift 2 ;;
    --run) run="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "follow.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$run" ]] || { echo "follow.sh: --run DIR is required" >&2; exit 2; }
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${bin:-$here/build/tools}"
cfg=()
[[ -n "$config" ]] && cfg=(--config "$config")
mkdir -p "$run/logs"
bound=()
[[ "$seconds" != 0 ]] && bound=(--max-seconds "$seconds")

pids=()
stop_all() { kill -TERM "${pids[@]}" 2>/dev/null || true; wait; }
trap stop_all INT TERM

# The first process creates config.toml, gen0000.pt and best.pt; the others find them
# (creating them at once is safe too: each file is created once, atomically).
"$bin/kumalak-train" --follow "$run" "${cfg[@]}" "${bound[@]}" >>"$run/logs/train.log" 2>&1 &
pids+=($!)
"$bin/kumalak-gate" --follow "$run" "${cfg[@]}" "${bound[@]}" >>"$run/logs/gate.log" 2>&1 &
pids+=($!)
for ((w = 1; w <= workers; w++)); do
  "$bin/kumalak-selfplay" --follow "$run" "${cfg[@]}" --worker "$(hostname -s)-w$w" "${bound[@]}" \
    >>"$run/logs/selfplay-w$w.log" 2>&1 &
  pids+=($!)
done
echo "follow.sh: ${#pids[@]} processes on $run (logs in $run/logs); Ctrl-C stops them"
wait
