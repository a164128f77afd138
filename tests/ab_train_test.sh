#!/usr/bin/env bash
# End to end test of tools/ab_train.py on the tiny config: two arms (one changing a
# training key) from one model, two generations each, then their match; a rerun resumes
# without redoing anything; bad arms are refused with a message.
set -euo pipefail
src=$1 bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$bin/kumalak-train" --config "$src/configs/tiny.toml" --init-only --out init.pt >/dev/null
printf '[train]\nlearning_rate = 0.005\n' >lr.toml
ab() { python3 "$src/tools/ab_train.py" --config "$src/configs/tiny.toml" --init init.pt --out ab \
  --bin "$bin" --games 4 --generations 2 --steps 4 --match-games 4 --match-visits 4 "$@"; }
ab --arm base --arm lr=lr.toml >first.log
grep -q '^lr vs base: +[0-9]* =[0-9]* -[0-9]*' first.log || { cat first.log; exit 1; }
python3 - <<'PY'
import json
r = json.load(open("ab/result.json"))["results"][0]
assert (r["arm"], r["baseline"]) == ("lr", "base"), r
assert r["wins"] + r["draws"] + r["losses"] == 4, r
PY
# Equal self-play settings: generation 1's games are played once and shared.
cmp <(ls ab/base/data/gen1) <(ls ab/lr/data/gen1)
[[ "$(stat -c %h ab/lr/data/gen1/$(ls ab/lr/data/gen1 | head -1))" == 2 ]]
# Different trainer settings: different models.
! cmp -s ab/base/gen2.pt ab/lr/gen2.pt
# A rerun finds every step done.
ab --arm base --arm lr=lr.toml >second.log
! grep -q '^+ ' second.log
# More generations: gen3 is trained on and a new match is played, not the old one reported.
ab --generations 3 --arm base --arm lr=lr.toml >third.log
[[ -f ab/lr/gen3.pt && -f ab/match-lr-vs-base-gen3-4g-4v.json && -f ab/match-lr-vs-base-gen2-4g-4v.json ]]
grep -q '^lr vs base: +[0-9]* =[0-9]* -[0-9]*' third.log || { cat third.log; exit 1; }
# Refusals.
! ab --arm base >one.log 2>&1 && grep -q 'at least two' one.log
! ab --arm base --arm x=missing.toml >missing.log 2>&1 && grep -q "snippet 'missing.toml'" missing.log
echo ok
