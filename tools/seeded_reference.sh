#!/usr/bin/env bash
# The seeded outputs a refactor must leave bit for bit, written to a folder so that two
# builds can be compared with `diff -r`: the rows of seeded self-play shards (tiny config,
# Kalah(3,3)), the weights checksums of a fresh seeded network and of a short seeded
# training run on those shards, a gate match between the two, and two levels-match
# tables (Kalah(4,3) every level, Togyz medium against easy). Takes about a minute.
#
#   tools/seeded_reference.sh . build-old /tmp/ref-old
#   tools/seeded_reference.sh . build /tmp/ref-new && diff -r /tmp/ref-old /tmp/ref-new
#
# usage: seeded_reference.sh SRC_ROOT BUILD_DIR OUT_DIR
set -euo pipefail
# The network's default precision is auto: bf16 on CPUs with avx512_bf16, fp32 elsewhere,
# so the defaults' outputs depend on the machine. The reference runs fp32 unless the
# caller sets KUMALAK_PRECISION: the same on every machine, and comparable with builds
# from before auto was the default.
export KUMALAK_PRECISION="${KUMALAK_PRECISION:-fp32}"
src=$(realpath "$1"); b=$(realpath "$2"); out=$3
rm -rf "$out"; mkdir -p "$out"; out=$(realpath "$out")
cd "$out"
cfg=$src/configs/tiny.toml
# 1. a fresh seeded network, seeded self-play shards from it (Kalah(3,3) tiny config)
"$b/tools/kumalak-train" --config "$cfg" --init-only --out m0.pt > train0.log 2>&1
"$b/tools/kumalak-selfplay" --config "$cfg" --model m0.pt --out data --games 8 --generation 0 --seed 11 --threads 1 > sp.log 2>&1
# shard names carry host, pid and a random part, which the validation split hashes, and
# the window orders by mtime: give them names and one mtime from their contents
python3 - data <<'PY'
import hashlib, struct, sys, pathlib
for p in pathlib.Path(sys.argv[1]).rglob('*.kzshard'):
    b = p.read_bytes(); hb = struct.unpack_from('<I', b, 12)[0]; n = struct.unpack_from('<Q', b, 24)[0]
    p.rename(p.with_name('selfplay-gen000000-ref-' + hashlib.sha256(b[hb:hb + 96 * n]).hexdigest()[:8] + '-000000.kzshard'))
PY
find data -name '*.kzshard' -exec touch -d '2026-01-01 00:00:00' {} +
# 2. a short seeded training run on those shards
"$b/tools/kumalak-train" --config "$cfg" --data data --init m0.pt --out m1.pt --steps 20 --threads 1 > train1.log 2>&1
# 3. a gate match between the two
"$b/tools/kumalak-gate" --config "$cfg" --threads 1 match --candidate m1.pt --baseline m0.pt > gate.txt 2>&1 || true
# 4. levels-match tables (network-free and with the shipped Kalah model)
"$b/tools/kumalak" levels-match --game kalah:4,3 --games 6 --seed 3 --threads 1 > levels_ab.txt 2>&1 || true
"$b/tools/kumalak" levels-match --game togyz --only medium --games 4 --seed 5 --threads 1 --max-plies 60 > levels_togyz.txt 2>&1 || true
# shards by checksum, models by checksum
# shard names carry host and pid: hash the contents, in sorted order
python3 - data > data.sha256 <<'PY'
import hashlib, struct, sys, pathlib
for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.kzshard')):
    b = p.read_bytes(); hb = struct.unpack_from('<I', b, 12)[0]; n = struct.unpack_from('<Q', b, 24)[0]
    print(hashlib.sha256(b[hb:hb + 96 * n]).hexdigest(), n)  # the rows only: the header has time and host
PY
sort -o data.sha256 data.sha256
for m in m0.pt m1.pt; do echo "$m $("$b/tools/kumalak" model-info "$m" | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d[0] if isinstance(d,list) else d; print(d.get("weights_checksum"))')"; done > models.sha256
rm -rf data .trainer.lock m0.pt m1.pt m1.pt.ckpt 2>/dev/null || true
# time stamps and speeds differ between runs: keep only lines without them
# the results without times: the gate's W-D-L line, each levels row's games, W-D-L, score
grep -E '^m1 vs m0' gate.txt > gate.txt.stable || true
for f in levels_*.txt; do grep -E ' vs .* [0-9]+-[0-9]+-[0-9]+ ' "$f" | awk '{print $1, $2, $3, $4, $5, $6}' > "$f.stable" || true; done
rm -f *.log gate.txt levels_*.txt
