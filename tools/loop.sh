#!/usr/bin/env bash
# The generation loop: self-play with the best model -> train -> gate -> promote,
# in a run folder, resumable after a kill at any point.
#
#   tools/loop.sh --config configs/togyz.toml --run runs/togyz [--hours 2] [--bin build/tools]
#
# Run folder (every step writes atomically, so a kill leaves no half file):
#   config.toml           the config the run started with, its bases resolved and every
#                         key written (kumalak-train --dump-config); restarts use it
#   models/gen0000.pt     the fresh network; models/genNNNN.pt one per generation
#   models/best.pt        the current best (self-play uses it)
#   data/genNNNN/         self-play shards of generation NNNN
#   gates/genNNNN.json    the gating match of generation NNNN (its existence = done)
#   logs/train.jsonl      training metrics; logs/losses.png the loss plot
#   logs/loop.log         what happened, with times
#   retrain.toml          with [loop] retrain_every = N: the config of every Nth
#                         generation, trained from scratch (config.toml with the
#                         retrain_* window, steps and rate schedule)
# Resuming: generation g is done when gates/gen<g>.json exists; otherwise self-play
# continues from the shards it already wrote, training from its checkpoint, and the
# match is replayed.
set -euo pipefail

config="" run="" hours=0 bin="" generations=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --config) config="$2"; shift 2 ;;
    --run) run="$2"; shift 2 ;;
    --hours) hours="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --generations) generations="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "loop.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$run" ]] || { echo "loop.sh: --run DIR is required" >&2; exit 2; }
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${bin:-$here/build/tools}"
for exe in kumalak-selfplay kumalak-train kumalak-gate; do
  [[ -x "$bin/$exe" ]] || { echo "loop.sh: $bin/$exe not found (build first, or pass --bin)" >&2; exit 2; }
done

mkdir -p "$run"/{models,data,gates,logs}
if [[ ! -f "$run/config.toml" ]]; then
  [[ -n "$config" ]] || { echo "loop.sh: new run needs --config" >&2; exit 2; }
  # Written whole, bases included, so that the run folder alone restarts the run.
  "$bin/kumalak-train" --config "$config" --dump-config >"$run/config.toml.tmp"
  mv "$run/config.toml.tmp" "$run/config.toml"
fi
cfg="$run/config.toml"
log() { echo "$(date -u +%FT%TZ) $*" | tee -a "$run/logs/loop.log"; }

# A value of the run's config ("seed", "loop.generations"), as the tools will read it:
# the C++ reader answers (train/config_schema.cpp), with the key's default when unset.
cfg_value() { "$bin/kumalak-train" --config "$cfg" --get "$1"; }
games_per_gen="$(cfg_value loop.games_per_generation)"
max_gens="${generations:-$(cfg_value loop.generations)}"
seed="$(cfg_value seed)"
retrain_every="$(cfg_value loop.retrain_every)"

# The config of a from-scratch generation: the run's, with [loop]'s retrain_* values as
# the training window, steps and rate schedule where they are set (> 0).
write_retrain_config() {
  local rows steps decay
  rows="$(cfg_value loop.retrain_window_rows)"
  steps="$(cfg_value loop.retrain_steps)"
  decay="$(cfg_value loop.retrain_lr_decay_steps)"
  {
    echo "# Written by tools/loop.sh: the config of the generations trained from scratch."
    echo 'extends = "config.toml"'
    echo "[train]"
    [[ "$rows" == 0 ]] || echo "window_rows = $rows"
    [[ "$steps" == 0 ]] || echo "steps_per_generation = $steps"
    [[ "$decay" == 0 ]] || echo "lr_decay_steps = $decay"
  } >"$run/retrain.toml.tmp"
  mv "$run/retrain.toml.tmp" "$run/retrain.toml"
}

start=$(date +%s)
gen_name() { printf 'gen%04d' "$1"; }

if [[ ! -f "$run/models/gen0000.pt" ]]; then
  log "generation 0: a fresh network"
  "$bin/kumalak-train" --config "$cfg" --init-only --out "$run/models/gen0000.pt" >/dev/null
fi
[[ -f "$run/models/best.pt" ]] || { cp "$run/models/gen0000.pt" "$run/models/best.tmp" && mv "$run/models/best.tmp" "$run/models/best.pt"; }

for ((g = 1; g <= max_gens; g++)); do
  name="$(gen_name "$g")"
  [[ -f "$run/gates/$name.json" ]] && continue
  elapsed=$(( $(date +%s) - start ))
  if awk -v h="$hours" -v e="$elapsed" 'BEGIN { exit !(h > 0 && e >= h * 3600) }'; then
    log "time budget of $hours h used; stopping before $name"
    break
  fi
  prev="$run/models/$(gen_name $((g - 1))).pt"
  log "$name: self-play ($games_per_gen games with best.pt)"
  "$bin/kumalak-selfplay" --config "$cfg" --model "$run/models/best.pt" --out "$run/data/$name" \
    --games "$games_per_gen" --generation "$g" --worker "loop-$name" --seed $((seed + 1000 * g)) \
    2>>"$run/logs/selfplay.err" | tee -a "$run/logs/loop.log"
  if [[ ! -f "$run/models/$name.pt" ]]; then
    # A chained generation starts from the one before; a retrain, from a fresh network.
    train_from=(--config "$cfg" --init "$prev")
    if [[ "$retrain_every" -gt 0 ]] && (( g % retrain_every == 0 )); then
      log "$name: training from scratch (retrain_every = $retrain_every)"
      write_retrain_config
      train_from=(--config "$run/retrain.toml")
    else
      log "$name: training from $(basename "$prev")"
    fi
    "$bin/kumalak-train" "${train_from[@]}" --data "$run/data" --out "$run/models/$name.pt" \
      --generation "$g" --resume --metrics "$run/logs/train.jsonl" --plot "$run/logs/losses.png" \
      2>>"$run/logs/train.err" | tee -a "$run/logs/loop.log"
  fi
  log "$name: gating against best.pt"
  "$bin/kumalak-gate" --config "$cfg" match --candidate "$run/models/$name.pt" --baseline "$run/models/best.pt" \
    --sprt --promote "$run/models/best.pt" --json "$run/gates/$name.json.tmp" \
    2>>"$run/logs/gate.err" | tee -a "$run/logs/loop.log"
  mv "$run/gates/$name.json.tmp" "$run/gates/$name.json"
done
log "loop finished"
