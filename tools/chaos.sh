#!/usr/bin/env bash
# Chaos benchmark of continuous mode (train/follow.h) on one machine, loopback only: two
# self-play workers, the trainer and the gatekeeper follow one run folder, and every few
# seconds one of them, picked at random, is killed with SIGKILL and started again. At the
# end everything gets SIGTERM, and the run folder is checked for losses:
#   - every shard a worker reported written exists and reads whole (checksums);
#   - the games in the shards are those the workers reported, plus at most one shard per
#     worker kill (written, not yet reported, when the kill came);
#   - every gate record and candidate reads; every promotion the gatekeeper reported has
#     its passing record; best.pt loads and is, byte for byte, the newest passing candidate.
# Prints the counts (kills, shards, games, promotions, unreadable files, losses) on one
# line and exits 1 when anything was lost or unreadable, or a process failed by itself.
#
#   tools/chaos.sh --minutes N [--bin build/tools] [--interval S] [--seed S] [--dir DIR]
#                  [--config C]
#
# --minutes: how long the kills go on (a decimal is fine); --interval: mean seconds
# between kills (default 3; each wait is uniform in [S/2, 3S/2]); --seed: picks the
# victims and waits (default 1); --dir: the run's folder (default: a new temporary one,
# removed when nothing was lost); --config: the run config (default: configs/tiny.toml
# with candidates every 10 steps and a gate that always promotes, so that promotions
# happen often: the plumbing is tested, not learning).
set -euo pipefail

minutes="" bin="" interval=3 seed=1 dir="" config=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --interval) interval="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --config) config="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "chaos.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$minutes" ]] || { echo "chaos.sh: --minutes N is required" >&2; exit 2; }
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(cd "${bin:-$here/build/tools}" && pwd)"
ms() { awk -v s="$1" 'BEGIN { printf "%d", s * 1000 }'; }
duration_ms=$(ms "$(awk -v m="$minutes" 'BEGIN { print m * 60 }')")
interval_ms=$(ms "$interval")
((duration_ms > 0 && interval_ms > 0)) || { echo "chaos.sh: --minutes and --interval must be > 0" >&2; exit 2; }
RANDOM=$seed
now_ms() { echo $(($(date +%s%N) / 1000000)); }

keep_dir=1
if [[ -z "$dir" ]]; then
  dir=$(mktemp -d /tmp/kz-chaos.XXXXXX)
  keep_dir=0
fi
mkdir -p "$dir/logs"
run="$dir/run"
if [[ -z "$config" ]]; then
  config="$dir/chaos.toml"
  cat >"$config" <<EOF
extends = "$here/configs/tiny-follow.toml"
# tiny's 4 games a shard make some 2,000 shard files a second on 2 workers, and reading
# them all back dominates the check; 200 a shard keeps many writes in flight to kill.
[selfplay]
games_per_shard = 200
EOF
fi

names=(w1 w2 train gate)
commands=(
  "$bin/kumalak-selfplay --follow $run --config $config --worker w1 --threads 1"
  "$bin/kumalak-selfplay --follow $run --config $config --worker w2 --threads 1"
  "$bin/kumalak-train --follow $run --config $config --threads 1"
  "$bin/kumalak-gate --follow $run --config $config --threads 1"
)
pids=(0 0 0 0)
kills=(0 0 0 0)
log_at=(0 0 0 0) # the size of each log when its process was last started
failures=0 # exits nobody asked for
start_process() {
  # A restart appends to the same log: the log holds every line of every incarnation.
  log_at[$1]=$(stat -c %s "$dir/logs/${names[$1]}.log" 2>/dev/null || echo 0)
  ${commands[$1]} >>"$dir/logs/${names[$1]}.log" 2>&1 &
  pids[$1]=$!
}
stop_all() {
  for i in "${!pids[@]}"; do
    ((pids[i] > 0)) && kill -KILL "${pids[i]}" 2>/dev/null || true
  done
}
trap stop_all EXIT
trap 'exit 1' INT TERM

# The first process creates the run (config, gen0000.pt, best.pt); the others follow.
for i in "${!names[@]}"; do start_process "$i"; done
end=$(($(now_ms) + duration_ms))
while (($(now_ms) < end)); do
  wait_ms=$((interval_ms / 2 + (RANDOM * 32768 + RANDOM) % (interval_ms + 1)))
  sleep "$(awk -v m="$wait_ms" 'BEGIN { print m / 1000 }')"
  (($(now_ms) < end)) || break
  # A process that ended by itself failed (they run until stopped): count it, restart it.
  for i in "${!pids[@]}"; do
    if ! kill -0 "${pids[i]}" 2>/dev/null; then
      rc=0
      wait "${pids[i]}" || rc=$?
      echo "chaos: ${names[i]} ended by itself with status $rc" >&2
      failures=$((failures + 1))
      start_process "$i"
    fi
  done
  victim=$((RANDOM % ${#names[@]}))
  kill -KILL "${pids[victim]}" 2>/dev/null || true
  wait "${pids[victim]}" 2>/dev/null || true
  kills[victim]=$((kills[victim] + 1))
  start_process "$victim"
done

# SIGTERM: workers write their games in flight, the trainer and the gatekeeper finish
# their candidate and match. Each must exit 0 within 120 s. A process is first given
# time to start (to say "started"): before its main() installs its handler, SIGTERM
# ends it as the default action does, which is not what is tested here.
for i in "${!pids[@]}"; do
  for _ in $(seq 600); do
    tail -c +$((log_at[i] + 1)) "$dir/logs/${names[i]}.log" | grep -q ' started' && break
    sleep 0.1
  done
done
for i in "${!pids[@]}"; do kill -TERM "${pids[i]}" 2>/dev/null || true; done
for i in "${!pids[@]}"; do
  for _ in $(seq 1200); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.1; done
  rc=0
  if kill -0 "${pids[i]}" 2>/dev/null; then
    echo "chaos: ${names[i]} still running 120 s after SIGTERM" >&2
    kill -KILL "${pids[i]}" 2>/dev/null || true
    rc=1
  fi
  wait "${pids[i]}" || rc=$?
  pids[i]=0
  if ((rc != 0)); then
    echo "chaos: ${names[i]} ended with status $rc after SIGTERM" >&2
    failures=$((failures + 1))
  fi
done
trap - EXIT

# Shards: reported ones present and readable; the games add up.
lost_shards=0 reported_shards=0 reported_games=0
while read -r path games; do
  reported_shards=$((reported_shards + 1))
  reported_games=$((reported_games + games))
  [[ -f "$path" ]] || { echo "chaos: lost shard $path" >&2; lost_shards=$((lost_shards + 1)); }
done < <(sed -n 's/^selfplay-follow: wrote \([^ ]*\) games=\([0-9]*\) .*/\1 \2/p' "$dir"/logs/w[12].log)
summary=$("$bin/kumalak-selfplay" --follow "$run" --summary 2>"$dir/logs/summary.err" || true)
if [[ ! "$summary" =~ shards=([0-9]+)\ games=([0-9]+)\ rows=[0-9]+\ unreadable=([0-9]+) ]]; then
  echo "chaos: no summary: $summary $(cat "$dir/logs/summary.err")" >&2
  exit 1
fi
shards=${BASH_REMATCH[1]} games=${BASH_REMATCH[2]} unreadable=${BASH_REMATCH[3]}
worker_kills=$((kills[0] + kills[1]))
games_per_shard=$("$bin/kumalak-train" --config "$run/config.toml" --get selfplay.games_per_shard)
lost_games=0
if ((games < reported_games)); then lost_games=$((reported_games - games)); fi
unreported_shards=$((shards - reported_shards + lost_shards))
if ((unreported_shards < 0 || unreported_shards > worker_kills ||
  games > reported_games + games_per_shard * unreported_shards)); then
  echo "chaos: shards/games do not add up: $summary; reported $reported_shards shards," \
    "$reported_games games; $worker_kills worker kills" >&2
  failures=$((failures + 1))
fi

# Models and gate records: each reads; every reported promotion has its passing record;
# best.pt is the newest passing candidate.
# One model-info for all models (one start of LibTorch): a line per readable model, an
# error per unreadable one.
models=("$run"/models/gen*.pt "$run/models/best.pt")
readable=$("$bin/kumalak" model-info "${models[@]}" 2>"$dir/logs/model-info.err" |
  grep -c '"weights_checksum"' || true)
if ((readable < ${#models[@]})); then
  cat "$dir/logs/model-info.err" >&2
  unreadable=$((unreadable + ${#models[@]} - readable))
fi
# Every gate record parsed by one python3 (a start per file is seconds on a loaded
# machine): a line "NAME ok pass|fail" or "NAME bad", in name order.
gate_records=0 newest_pass=""
while read -r name state verdict; do
  gate_records=$((gate_records + 1))
  if [[ "$state" != ok ]]; then
    echo "chaos: unreadable gate record $run/gates/$name.json" >&2
    unreadable=$((unreadable + 1))
  elif [[ "$verdict" == pass ]]; then
    newest_pass=$name
  fi
done < <(python3 - "$run/gates" <<'PY'
import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).glob("gen*.json")):
    try:
        record = json.loads(f.read_text())
        print(f.stem, "ok", "pass" if record.get("pass") is True else "fail")
    except (OSError, ValueError, AttributeError):
        print(f.stem, "bad", "-")
PY
)
lost_records=0 promotions=0
for g in $(sed -n 's/^gate-follow: \(gen[0-9]*\) vs best: .* -> PASS, promoted.*/\1/p' "$dir/logs/gate.log" | sort -u); do
  promotions=$((promotions + 1))
  grep -qs '"pass":true' "$run/gates/$g.json" || {
    echo "chaos: promotion of $g has no passing record" >&2
    lost_records=$((lost_records + 1))
  }
done
lost_promotions=0
if [[ -n "$newest_pass" ]] && ! cmp -s "$run/models/best.pt" "$run/models/$newest_pass.pt"; then
  echo "chaos: best.pt is not $newest_pass.pt, the newest passing candidate" >&2
  lost_promotions=1
fi
candidates=$(($(ls "$run"/models/gen*.pt | wc -l) - 1))
leftovers=$(find "$run" -name '*.tmp*' | wc -l)

echo "chaos: $minutes min, kills=$((kills[0] + kills[1] + kills[2] + kills[3])) (w1 ${kills[0]}," \
  "w2 ${kills[1]}, train ${kills[2]}, gate ${kills[3]}); shards=$shards (reported" \
  "$reported_shards) games=$games (reported $reported_games) candidates=$candidates" \
  "gate_records=$gate_records promotions=$promotions best=${newest_pass:-gen0000};" \
  "lost_shards=$lost_shards lost_games=$lost_games unreadable=$unreadable" \
  "lost_gate_records=$lost_records lost_promotions=$lost_promotions failures=$failures" \
  "temporaries_left=$leftovers"
if ((lost_shards + lost_games + unreadable + lost_records + lost_promotions + failures > 0)) ||
  ((promotions == 0)); then
  echo "chaos: FAILED (run folder and logs kept in $dir)" >&2
  exit 1
fi
((keep_dir)) || rm -rf "$dir"
