#!/usr/bin/env bash
# Every speed goal of the inference work, two builds side by side on this machine, the
# two taking turns so that a change in the machine's load falls on both
# (docs/performance.md, "Side by side with the main of the day the inference work began"):
#   - `kumalak bench` of the shipped Togyz model, batch 256, one thread, ROUNDS rounds;
#   - `kumalak bench --peak` of the new build (the core's fp32 and bf16 peaks, and every
#     forward against them in the same rounds), twice;
#   - level expert's nodes per move at 1 s (tools/engine_nodes_ab.py, 8 positions);
#   - `kumalak serve` with 32 sessions asking for a hint at hard (tools/serve_bench.py);
#   - self-play games/hour and the rest of tools/bench-machine.sh, old, new, new, old.
# Each step prints the load average first; the whole log goes to stdout.
#
#   tools/inference_ab.sh OLD_BUILD NEW_BUILD [ROUNDS]
#
# OLD_BUILD and NEW_BUILD are build folders holding tools/kumalak, tools/kumalak-selfplay
# and tools/kumalak-train (e.g. main before a change, built in a `git worktree`). Models
# come from this checkout's models/ (KZ_MODELS_DIR). ROUNDS: bench rounds, default 3.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [[ $# -lt 2 || ! -x "$1/tools/kumalak" || ! -x "$2/tools/kumalak" ]]; then
  sed -n '2,17p' "$0" >&2
  exit 2
fi
old="$(cd "$1" && pwd)" new="$(cd "$2" && pwd)" rounds="${3:-3}"
export KZ_MODELS_DIR="$here/models"
cd "$here"
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "start $(date -u +%H:%M:%S) load $(load)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores," \
  "avx512_bf16: $(grep -q avx512_bf16 /proc/cpuinfo && echo yes || echo no)"
bench=(bench --game togyz --model models/togyz.pt --batch 256 --seconds 5)
for r in $(seq "$rounds"); do
  for b in "$old" "$new"; do
    echo "== bench round $r $b load $(load)"
    "$b/tools/kumalak" "${bench[@]}"
  done
done
for r in 1 2; do
  echo "== peak $new load $(load)"
  "$new/tools/kumalak" bench --game togyz --model models/togyz.pt --batch 256 --seconds 8 --peak
done
echo "== nodes load $(load)"
python3 tools/engine_nodes_ab.py --old "$old/tools/kumalak" --new "$new/tools/kumalak" \
  --positions 8
echo "== serve load $(load)"
python3 tools/serve_bench.py --kumalak "$old/tools/kumalak" --kumalak "$new/tools/kumalak" \
  --rounds 3 --sessions 32 --level hard
for b in "$old" "$new" "$new" "$old"; do
  echo "== bench-machine $b load $(load) $(date -u +%H:%M:%S)"
  tools/bench-machine.sh --build "$b" --steps 50
done
echo "end $(date -u +%H:%M:%S) load $(load)"
