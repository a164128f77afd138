#!/bin/bash
# tools/engine_match.py end to end: two engines over paired openings at level beginner
# (fast), the record, a resumed match that plays only the missing games, and records it
# refuses (a line that does not parse, another match's record) with the line named.
#   tests/engine_match_test.sh SOURCE_DIR KUMALAK
set -euo pipefail
src=$1 kumalak=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
match=(python3 "$src/tools/engine_match.py" --a "$kumalak" --b "$kumalak" --level beginner
       --movetime 20 --seed 3)
fail() { echo "FAIL: $*"; exit 1; }

"${match[@]}" --games 4 --record "$dir/m.jsonl" > "$dir/out1" || fail "the match failed: $(cat "$dir/out1")"
grep -q '^game 4/4: ' "$dir/out1" || fail "no fourth game: $(cat "$dir/out1")"
grep -Eq 'in 2 pairs, score [0-9.]+ %, Elo .*\(95 %, pentanomial\)$' "$dir/out1" ||
  fail "no summary: $(cat "$dir/out1")"
[[ $(wc -l < "$dir/m.jsonl") == 4 ]] || fail "the record has not 4 games"
python3 - "$dir/m.jsonl" <<'PY' || fail "a recorded game is not a finished game"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [(r["pair"], r["a_white"]) for r in rows] == [(0, True), (0, False), (1, True), (1, False)]
assert all(r["result"] in ("1-0", "0-1", "1/2-1/2") and r["moves"] for r in rows)
assert rows[0]["opening"] == rows[1]["opening"] and len(rows[0]["opening"]) == 4
assert rows[0]["opening"] != rows[2]["opening"]
PY

# Resumed to 6 games: the 4 recorded are read, 2 are played.
"${match[@]}" --games 6 --record "$dir/m.jsonl" > "$dir/out2" || fail "the resumed match failed"
[[ $(wc -l < "$dir/m.jsonl") == 6 ]] || fail "the resumed record has not 6 games"
grep -q 'in 3 pairs' "$dir/out2" || fail "the resumed summary is not over 3 pairs: $(cat "$dir/out2")"

# Refused records: the line is named, nothing is played, the file is left as it was.
cp "$dir/m.jsonl" "$dir/bad.jsonl"
echo '{"pair": 9, "a_white": true, "result": "1-0"' >> "$dir/bad.jsonl"
if "${match[@]}" --games 8 --record "$dir/bad.jsonl" > "$dir/out3" 2>&1; then fail "a broken line was accepted"; fi
grep -q "bad.jsonl:7: " "$dir/out3" || fail "the broken line is not named: $(cat "$dir/out3")"
if python3 "$src/tools/engine_match.py" --a "$kumalak" --b "$kumalak" --level beginner \
    --movetime 20 --seed 4 --games 8 --record "$dir/m.jsonl" > "$dir/out5" 2>&1; then
  fail "another seed's record was accepted"
fi
grep -q "m.jsonl:1: 'seed' is 3, this match's is 4" "$dir/out5" || fail "no reason: $(cat "$dir/out5")"
[[ $(wc -l < "$dir/m.jsonl") == 6 ]] || fail "a refused record was written to"
# Two shards sharing one record play a match of 8 games between them: each plays its own
# pairs (2 and 0 here, pairs 0-2 being recorded), and a last run plays nothing.
cp "$dir/m.jsonl" "$dir/s.jsonl"
"${match[@]}" --games 8 --record "$dir/s.jsonl" --shard 0/2 > "$dir/sh0" &
"${match[@]}" --games 8 --record "$dir/s.jsonl" --shard 1/2 > "$dir/sh1" || fail "shard 1 failed"
wait $! || fail "shard 0 failed: $(cat "$dir/sh0")"
[[ $(wc -l < "$dir/s.jsonl") == 8 ]] || fail "the shards' record has not 8 games"
python3 - "$dir/s.jsonl" <<'PY' || fail "the shards' record is not the match's 8 games"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert sorted((r["pair"], r["a_white"]) for r in rows) == [(p, w) for p in range(4) for w in (False, True)]
PY
"${match[@]}" --games 8 --record "$dir/s.jsonl" > "$dir/sh2" || fail "the whole match's summary failed"
grep -q 'in 4 pairs' "$dir/sh2" || fail "the summary is not over 4 pairs: $(cat "$dir/sh2")"
[[ $(wc -l < "$dir/s.jsonl") == 8 ]] || fail "a finished match played again"
if "${match[@]}" --games 8 --shard 2/2 > "$dir/sh3" 2>&1; then fail "shard 2/2 was accepted"; fi
grep -q "expected I/N with 0 <= I < N" "$dir/sh3" || fail "no reason: $(cat "$dir/sh3")"
if "${match[@]}" --games 8 --shard 1/2 > "$dir/sh4" 2>&1; then fail "a shard without a record was accepted"; fi
grep -q -- "--shard needs --record" "$dir/sh4" || fail "no reason: $(cat "$dir/sh4")"
# On a clock the match keeps (--clock): each game records the time each engine used and
# no flag at level beginner, whose moves take a blink; on a clock of 1 ms the pipe alone
# takes about that long, so flags fall: each such game ends there, by the flag rule
# (here always a loss: nobody has half the stones yet), and the summary counts it.
"${match[@]}" --games 2 --clock 5s+0.05 --record "$dir/c.jsonl" > "$dir/c1" ||
  fail "the match on a clock failed: $(cat "$dir/c1")"
grep -q "on a clock of 5s+0.05" "$dir/c1" || fail "no clock in the summary: $(cat "$dir/c1")"
grep -q "^A: lost on time 0 of 2 games; used " "$dir/c1" || fail "no time summary: $(cat "$dir/c1")"
python3 - "$dir/c.jsonl" <<'PY' || fail "a game on a clock is not recorded with its times"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2 and all(r["clock"] == "5s+0.05" and r["flag"] is None for r in rows)
assert all(r["a_moves"] + r["b_moves"] == len(r["moves"]) for r in rows)
assert all(0 <= r["a_ms"] < 5000 + 50 * r["a_moves"] and 0 <= r["b_ms"] for r in rows)
PY
"${match[@]}" --games 4 --clock 1ms --record "$dir/f.jsonl" > "$dir/f1" ||
  fail "the match that flags failed: $(cat "$dir/f1")"
python3 - "$dir/f.jsonl" "$dir/f1" <<'PY' || fail "flags are not recorded: $(cat "$dir/f.jsonl" "$dir/f1")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
summary = open(sys.argv[2]).read()
flagged = [r for r in rows if r["flag"]]
assert flagged, "no flag fell on a clock of 1 ms"
for r in flagged:  # the side to move after the 4 opening plies and the moves flagged
    white_flagged = len(r["moves"]) % 2 == 0
    assert ((r["flag"] == "A") == r["a_white"]) == white_flagged, r
    assert r["result"] == ("0-1" if white_flagged else "1-0"), r
for side in "AB":
    n = sum(r["flag"] == side for r in rows)
    assert f"{side}: lost on time {n} of 4 games" in summary, (side, n, summary)
PY
for bad in 0+1 5+x -5; do
  if "${match[@]}" --games 2 --clock "$bad" > "$dir/cb" 2>&1; then fail "--clock $bad was accepted"; fi
  grep -q -- "--clock" "$dir/cb" || fail "no reason for --clock $bad: $(cat "$dir/cb")"
done
# Equal visits (--nodes): each move a `go nodes` search, the record marked with them (so a
# match by time does not resume it), and no clock beside them.
nodes=(python3 "$src/tools/engine_match.py" --a "$kumalak" --b "$kumalak" --level beginner
       --nodes 30 --seed 3 --games 2)
"${nodes[@]}" --record "$dir/n.jsonl" > "$dir/n1" || fail "the match by nodes failed: $(cat "$dir/n1")"
grep -q 'beginner at 30 visits' "$dir/n1" || fail "the summary does not name the visits: $(cat "$dir/n1")"
grep -q '"nodes": 30' "$dir/n.jsonl" || fail "the record does not keep the visits"
if "${match[@]}" --games 2 --record "$dir/n.jsonl" > "$dir/n2" 2>&1; then
  fail "a match by time resumed one by nodes"
fi
grep -q "n.jsonl:1: 'nodes' is 30" "$dir/n2" || fail "no reason: $(cat "$dir/n2")"
if "${nodes[@]}" --clock 1+0 > "$dir/n3" 2>&1; then fail "--nodes on a --clock was accepted"; fi
grep -q -- "--nodes" "$dir/n3" || fail "no reason for --nodes with --clock: $(cat "$dir/n3")"
echo "engine_match: all checks passed"
