#!/usr/bin/env bash
# K-fold cross-validation by game of the rating estimate over many games (docs/human.md,
# "Cross-validated"): for each fold j of K, the human model is made again without the
# fold's games, by the same steps as models/togyz-human.pt (docs/runs.md: the whole
# network fine-tuned from models/togyz.pt, the value term, the 1,024-visit search
# mixture), and `kumalak analyze --by-player --held-out j/K` measures it on the fold.
# Then `kumalak analyze --pool-by-player` pools the K folds' players into one table, so
# every rated game is measured once, by a model that never saw it.
#
#   tools/rating_cross_validation.sh [--folds K] [--lanes N] [--data DIR] [--work DIR]
#                                    [--build DIR] [--only train|evaluate|pool]
#
# --folds K (default 5): the folds; --lanes N (default 2): folds made at once, one thread
# each; --data: the folder of the three PGN files (default ../shared/data/togyz);
# --work: where the models, logs and per-fold JSON go (default cross-validation/);
# --build: the full build (default build). Every step writes its file under a temporary
# name and renames it, and a step whose file exists is not run again: after a stop the
# same command goes on where it was. The pooled table: WORK/pooled.json and .txt.
set -euo pipefail

folds=5
lanes=2
data=../shared/data/togyz
work=cross-validation
build=build
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --folds) folds="$2"; shift 2 ;;
    --lanes) lanes="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "rating_cross_validation.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
case "$folds" in ''|*[!0-9]*) folds=0 ;; esac
if [ "$folds" -lt 2 ] || [ "$folds" -gt 100 ]; then
  echo "--folds: a whole number from 2 to 100" >&2
  exit 2
fi
case "$lanes" in ''|*[!0-9]*|0) echo "--lanes: a whole number from 1" >&2; exit 2 ;; esac
case "$only" in ''|train|evaluate|pool) ;; *) echo "--only: train, evaluate or pool" >&2; exit 2 ;; esac
kumalak="$build/tools/kumalak"
[ -x "$kumalak" ] || { echo "no $kumalak: build the full build first (tools/test.sh or cmake)" >&2; exit 2; }
files=("$data/playok-2025.pgn" "$data/playok-2024-25.pgn" "$data/tournament-2018.pgn")
for f in "${files[@]}"; do [ -r "$f" ] || { echo "cannot read $f" >&2; exit 2; }; done
mkdir -p "$work"

# Runs "$@", which writes the model ${out%.pt}.part.pt, and renames that to $out once the
# command has ended well (human-train writes its model after every epoch: a model from a
# stopped run must not pass for a finished one); nothing when $out exists. The command's
# stderr goes to $log.
step() {
  local out="$1" log="$2"
  shift 2
  [ -e "$out" ] && return 0
  echo "$(date -u +%H:%M:%S) start $out" >&2
  "$@" 2>"$log"
  mv "${out%.pt}.part.pt" "$out"
  echo "$(date -u +%H:%M:%S) done  $out" >&2
}

# One fold's model: the same three steps as the shipped human model's (docs/runs.md).
make_fold() {
  local j="$1" h="$1/$folds" m="$work/fold-$1"
  step "$m-tuned.pt" "$m-tuned.log" \
    nice -n 5 "$kumalak" human-train --init models/togyz.pt --fine-tune --epochs 3 --threads 1 \
    --held-out "$h" --out "$m-tuned.part.pt" "${files[@]}"
  step "$m-value.pt" "$m-value.log" \
    nice -n 5 "$kumalak" human-train --init "$m-tuned.pt" --epochs 0 --fit-value-weights \
    --threads 1 --held-out "$h" --out "$m-value.part.pt" "${files[@]}"
  step "$m.pt" "$m-mix.log" \
    nice -n 5 "$kumalak" human-train --init "$m-value.pt" --epochs 0 --threads 1 \
    --fit-search-mix 1024 --search-every 10 --held-out "$h" --out "$m.part.pt" "${files[@]}"
}

evaluate_fold() {
  local j="$1" m="$work/fold-$1"
  [ -e "$m.json" ] && return 0
  echo "$(date -u +%H:%M:%S) start $m.json" >&2
  nice -n 5 "$kumalak" analyze --by-player --held-out "$j/$folds" --human-model "$m.pt" \
    --threads 1 --json "${files[@]}" >"$m.json.tmp" 2>"$m-by-player.log"
  mv "$m.json.tmp" "$m.json"
  echo "$(date -u +%H:%M:%S) done  $m.json" >&2
}

# The folds in `lanes` lanes: lane i makes folds i, i + lanes, ...
in_lanes() {
  local what="$1" pids=() lane j
  for ((lane = 0; lane < lanes; ++lane)); do
    (for ((j = lane; j < folds; j += lanes)); do "$what" "$j"; done) &
    pids+=($!)
  done
  local status=0
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  return $status
}

if [ -z "$only" ] || [ "$only" = train ]; then in_lanes make_fold; fi
if [ -z "$only" ] || [ "$only" = evaluate ]; then in_lanes evaluate_fold; fi
if [ -z "$only" ] || [ "$only" = pool ]; then
  jsons=()
  for ((j = 0; j < folds; ++j)); do jsons+=("$work/fold-$j.json"); done
  "$kumalak" analyze --pool-by-player --json "${jsons[@]}" >"$work/pooled.json.tmp"
  mv "$work/pooled.json.tmp" "$work/pooled.json"
  "$kumalak" analyze --pool-by-player "${jsons[@]}" | tee "$work/pooled.txt.tmp"
  mv "$work/pooled.txt.tmp" "$work/pooled.txt"
fi
