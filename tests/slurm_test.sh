#!/usr/bin/env bash
# Continuous mode under a real Slurm (Debian's slurm-wlm 22.05): starts a one-node cluster
# on localhost (slurmctld + slurmd, a private slurm.conf in a temporary folder,
# auth/none: no munge key), submits tools/slurm/submit.sh on configs/tiny.toml (the
# trainer, the gatekeeper and a self-play job array of 2), lets it run, ends it with
# scancel, and checks: a promotion, every shard a worker reported present and readable,
# the games add up, every job ended and none failed, no error in the Slurm logs. Then a
# 2-rank kumalak-train through `srun -n 2` must give the weights of one process computing
# the same batches in 2 slices. The daemons are stopped however the test ends.
#
#   tests/slurm_test.sh SOURCE_DIR BIN_DIR     (exit 77 = skipped: not root or no Slurm)
# KZ_SLURM_SECONDS: how long the run goes before scancel (default 60).
# KZ_KEEP=1 keeps the temporary folder (its path is printed).
set -euo pipefail
src=$(cd "$1" && pwd) bin=$(cd "$2" && pwd)
seconds=${KZ_SLURM_SECONDS:-60}
export PATH="$PATH:/usr/sbin:/sbin"

skip() {
  echo "slurm_test: SKIPPED: $*"
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "the test starts slurmctld and slurmd, which needs root"
for c in slurmctld slurmd sbatch srun squeue scancel scontrol; do
  command -v "$c" >/dev/null ||
    skip "no $c: apt-get install slurmctld slurmd slurm-client (tools/install-deps.sh)"
done

tmp=$(mktemp -d /tmp/kz-slurm.XXXXXX)
export SLURM_CONF="$tmp/etc/slurm.conf"
ctld_pid="" slurmd_pid=""
fail() {
  echo "slurm_test: FAILED: $*" >&2
  exit 1
}
cleanup() {
  local rc=$?
  set +e
  if [[ -n "$ctld_pid" ]]; then scancel --full --quiet --user "$(id -un)" 2>/dev/null; fi
  for p in $slurmd_pid $ctld_pid; do kill -TERM "$p" 2>/dev/null; done
  for p in $slurmd_pid $ctld_pid; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
  done
  # Job processes outlive a killed slurmd; those of this test name its folder.
  for p in $(pgrep -f "kumalak-.*$tmp"); do kill -KILL "$p" 2>/dev/null; done
  if ((rc != 0)); then
    for f in "$tmp"/log/*.log; do
      echo "--- $f (last 15 lines)"
      tail -n 15 "$f"
    done
  fi
  if [[ "${KZ_KEEP:-0}" == 1 ]]; then echo "slurm_test: kept $tmp"; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Ports nobody listens on (the kernel picks them).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$tmp/etc" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/jobs" "$tmp/srun" "$tmp/slices"
node=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
# A one-node cluster for tests/slurm_test.sh: no munge, no cgroups, no accounting.
ClusterName=kztest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$tmp/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
MailProg=/bin/true
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ReturnToService=2
KillWait=20
MinJobAge=600
# The sbatch scripts ask for 2 x 8 (the trainer's 2 ranks) + 4 + 2 x 4 cores: declared
# here whatever the machine has (config_overrides), and each process is told to use one
# thread (THREADS=1).
SlurmdParameters=config_overrides
NodeName=$node NodeAddr=127.0.0.1 CPUs=32 State=UNKNOWN
PartitionName=kz Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -c >"$tmp/log/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D >"$tmp/log/slurmd.out" 2>&1 &
slurmd_pid=$!
ready=0
for _ in $(seq 150); do
  if sinfo -h -n "$node" -o '%t' 2>/dev/null | grep -qx 'idle'; then
    ready=1
    break
  fi
  kill -0 "$ctld_pid" 2>/dev/null || fail "slurmctld exited: $(tail -n 5 "$tmp/log/slurmctld.out" "$tmp/log/slurmctld.log")"
  kill -0 "$slurmd_pid" 2>/dev/null || fail "slurmd exited: $(tail -n 5 "$tmp/log/slurmd.out" "$tmp/log/slurmd.log")"
  sleep 0.2
done
((ready)) || fail "node $node not idle within 30 s: $(sinfo 2>&1)"
echo "slurm_test: cluster up ($(sinfo -h -o '%P %D %t %c' | head -n 1))"

# configs/tiny-follow.toml: candidates every few steps and a gate that always promotes
# (the plumbing is tested, not learning), polling less often than the local test does.
cfg="$tmp/follow.toml"
cat >"$cfg" <<EOF
extends = "$src/configs/tiny-follow.toml"
[follow]
poll_seconds = 0.5
EOF
run="$tmp/run"
cd "$tmp/jobs" # the jobs' logs (%x-%j.log) land here
# The trainer as 2 data-parallel ranks (srun --ntasks 2 in tools/slurm/train.sbatch).
TASKS=2 THREADS=1 "$src/tools/slurm/submit.sh" "$run" "$bin" "$cfg" 2 >"$tmp/log/submit.out"
cat "$tmp/log/submit.out"
start=$(date +%s)
for _ in $(seq $((seconds * 5))); do
  (($(date +%s) - start < seconds)) || break
  # Stop early once two candidates were gated and a promotion happened.
  if (($(ls "$run/gates" 2>/dev/null | grep -c '\.json$' || true) >= 2)); then break; fi
  sleep 0.2
done
echo "slurm_test: ran $(($(date +%s) - start)) s; jobs: $(squeue -h -o '%i:%j:%T' | tr '\n' ' ')"
scancel --quiet --user "$(id -un)"
ended=0
for _ in $(seq 300); do
  if [[ -z "$(squeue -h)" ]]; then
    ended=1
    break
  fi
  sleep 0.2
done
((ended)) || fail "jobs still there 60 s after scancel: $(squeue)"

# Every job ended: cancelled by the test or completed, none failed, timed out or lost
# with its node.
states=$(grep -o 'JobState=[A-Z_]*' "$tmp/log/jobcomp.txt" | sort | uniq -c | tr '\n' ' ')
echo "slurm_test: job states: $states"
if grep -Eo 'JobState=[A-Z_]*' "$tmp/log/jobcomp.txt" | grep -Evq 'JobState=(CANCELLED|COMPLETED)$'; then
  fail "a job ended badly: $(grep -Ev 'JobState=(CANCELLED|COMPLETED) ' "$tmp/log/jobcomp.txt")"
fi
(($(grep -c 'JobState=' "$tmp/log/jobcomp.txt") >= 4)) || fail "fewer than 4 jobs recorded: $states"
# The processes saw SIGTERM and stopped cleanly: no error line in any job's log.
if grep -H 'kumalak-[a-z]*: \|error' "$tmp"/jobs/*.log | grep -v 'CANCELLED AT'; then
  fail "an error in a job's log"
fi
# Errors that every start of a fresh cluster logs, and harmless here: no state saved yet
# (a new StateSaveLocation), no PMIx library (Debian's slurm-wlm loads its MPI plugins
# at start; no job here uses MPI), and the notice of each job scancel ended.
benign='Could not open (job|reservation) state file|Trying backup state save file|pmix|MPI: Cannot create context|CANCELLED AT'
if grep -i 'error' "$tmp/log/slurmctld.log" "$tmp/log/slurmd.log" | grep -Evi "$benign"; then
  fail "an error in the Slurm logs"
fi

# Every shard a worker reported is there and reads; the games add up.
reported_shards=0 reported_games=0
while read -r path games; do
  [[ -f "$path" ]] || fail "reported shard $path is missing"
  reported_shards=$((reported_shards + 1))
  reported_games=$((reported_games + games))
done < <(sed -n 's/.*selfplay-follow: wrote \([^ ]*\) games=\([0-9]*\) .*/\1 \2/p' "$tmp"/jobs/kz-selfplay-*.log)
summary=$("$bin/kumalak-selfplay" --follow "$run" --summary)
echo "slurm_test: workers reported $reported_shards shards, $reported_games games; $summary"
[[ "$summary" =~ shards=([0-9]+)\ games=([0-9]+)\ rows=[0-9]+\ unreadable=([0-9]+) ]] ||
  fail "unexpected summary: $summary"
((BASH_REMATCH[3] == 0)) || fail "unreadable shards"
# SIGTERM let every worker write its games in flight: nothing unreported.
((BASH_REMATCH[1] == reported_shards)) || fail "shards on disk != shards reported"
((BASH_REMATCH[2] == reported_games)) || fail "games on disk != games reported"
((reported_games > 0)) || fail "no game played"

# A promotion, and best.pt is the newest passing candidate.
newest_pass=""
for f in $(ls "$run/gates"/gen*.json 2>/dev/null | sort); do
  grep -q '"pass":true' "$f" && newest_pass=$(basename "$f" .json)
done
[[ -n "$newest_pass" ]] || fail "no promotion"
grep -q "gate-follow: .* promoted" "$tmp"/jobs/kz-gate-*.log || fail "the gatekeeper's log names no promotion"
cmp -s "$run/models/best.pt" "$run/models/$newest_pass.pt" || fail "best.pt is not $newest_pass.pt"
echo "slurm_test: promoted up to $newest_pass"

# The trainer ran as 2 ranks: rank 0 wrote each candidate once, rank 1 followed and wrote
# nothing (its lines name no file).
train_log=$(ls "$tmp"/jobs/kz-train-*.log)
grep -q "train-follow: started, holding .* (rank 0 of 2)" $train_log || fail "the trainer did not run as 2 ranks: $(cat $train_log)"
grep -q "train-follow: rank 1 of 2 started, following rank 0" $train_log || fail "no rank 1 in the trainer's log"
written=$(sed -n 's/.*train-follow: wrote \([^ ]*\) .*/\1/p' $train_log)
[[ -n "$written" ]] || fail "the 2-rank trainer wrote no candidate"
[[ -z "$(sort <<<"$written" | uniq -d)" ]] || fail "a candidate was written twice: $written"
for f in $written; do [[ -f "$f" ]] || fail "candidate $f is missing"; done
echo "slurm_test: the trainer ran as 2 ranks and wrote $(wc -l <<<"$written") candidates once each"

# kumalak-train as 2 ranks through srun (SLURM_PROCID / SLURM_NTASKS) equals 1 process
# computing each step in 2 slices. Each writes into a folder of its own: the two run at
# once, and a models folder has one trainer (its lock).
train_args=(--config "$src/configs/tiny.toml" --data "$run/data" --init "$run/models/gen0000.pt"
  --steps 30 --threads 1)
job=$(sbatch --parsable --job-name=kz-srun2 --ntasks 2 --cpus-per-task 1 --output "$tmp/jobs/%x-%j.log" \
  --wrap "export MASTER_ADDR=127.0.0.1 MASTER_PORT=$(free_port); srun $bin/kumalak-train ${train_args[*]} --out $tmp/srun/two-ranks.pt")
"$bin/kumalak-train" "${train_args[@]}" --batch-slices 2 --out "$tmp/slices/two-slices.pt" >/dev/null 2>&1
for _ in $(seq 600); do
  [[ -z "$(squeue -h -j "$job" 2>/dev/null)" ]] && break
  sleep 0.2
done
grep -q "JobId=$job .*JobState=COMPLETED" "$tmp/log/jobcomp.txt" ||
  fail "the srun job did not complete: $(cat "$tmp"/jobs/kz-srun2-*.log)"
grep -q "train: 2 ranks" "$tmp"/jobs/kz-srun2-*.log || fail "srun did not start 2 ranks"
checksum() { "$bin/kumalak" model-info "$1" | sed -n 's/.*"weights_checksum":"\([0-9]*\)".*/\1/p'; }
[[ "$(checksum "$tmp/srun/two-ranks.pt")" == "$(checksum "$tmp/slices/two-slices.pt")" ]] ||
  fail "srun's 2 ranks and 1 process in 2 slices differ"
echo "slurm_test: srun -n 2 trained the weights of 1 process in 2 slices ($(checksum "$tmp/srun/two-ranks.pt"))"
echo "slurm_test: PASSED in $(($(date +%s) - start)) s after the cluster started"
