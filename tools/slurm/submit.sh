#!/usr/bin/env bash
# Submits a whole continuous run: the trainer, the gatekeeper and an array of self-play
# workers; the workers start after the trainer has begun (it creates the run folder).
#   tools/slurm/submit.sh RUN BIN CONFIG [WORKERS]
set -euo pipefail
run="$1" bin="$2" config="$3" workers="${4:-16}"
here="$(cd "$(dirname "$0")" && pwd)"
export RUN="$run" BIN="$bin" CONFIG="$config"
# TASKS (default 1): the trainer's data-parallel ranks (tools/slurm/train.sbatch).
train=$(sbatch --parsable --ntasks "${TASKS:-1}" "$here/train.sbatch")
sbatch --dependency="after:$train" "$here/gate.sbatch"
sbatch --dependency="after:$train" --array="0-$((workers - 1))" "$here/selfplay.sbatch"
