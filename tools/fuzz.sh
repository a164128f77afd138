#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (a build of its own, build-fuzz,
# with AddressSanitizer and UndefinedBehaviorSanitizer) and runs each for a given time.
# Fails (exit 1) on any crash, hang (a single input running over 30 seconds),
# leak or sanitizer report; the input that caused it is kept under
# build-fuzz/artifacts/<target>/ (docs/fuzzing.md says how to make it a regression).
#
#   tools/fuzz.sh                      # every target, 20 s each (tools/test.sh runs this)
#   tools/fuzz.sh --seconds 600        # a long run: ten minutes per target
#   tools/fuzz.sh --seconds 60 pgn     # one target (fuzz_pgn)
#
# Before fuzzing, every target replays the inputs in tests/fuzz/regressions/<target>/
# (inputs that once failed) and its seed corpus. KZ_FUZZ_BUILD_DIR picks another build
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=20
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) targets+=("fuzz_${1#fuzz_}"); shift ;;
  esac
done
build=${KZ_FUZZ_BUILD_DIR:-build-fuzz}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DKZ_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j2
if ((${#targets[@]} == 0)); then
  for src in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi

# Seed corpora: small hand-written inputs, and the project's own files of each kind.
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
seed_dir() {  # seed_dir TARGET -> folder of seeds for it
  local d="$seeds/$1"
  mkdir -p "$d"
  case "$1" in
    fuzz_position)
      printf '\x00%s' "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w" >"$d/start"
      printf '\x00%s' "0,0,0,0,0,0,0,0,10/10,0,0,0,0,0,0,0,0 71 71 b x3 -" >"$d/tuzdyk"
      printf '\x01%s' "4,4,4,4,4,4/4,4,4,4,4,4 0 0 s" >"$d/kalah"
      printf '\x03%s' "1/1 0 0 n" >"$d/kalah11"
      printf '\x00%s' "kalah:6,4,empty" >"$d/name" ;;
    fuzz_move_token)
      printf '\x01%s' "76(10)" >"$d/kazan"; printf '\x01%s' "36x" >"$d/tuzdyk"
      printf '\x01%s' "7 6 1 9 9" >"$d/list"; printf '\x00%s' "3 1 6 6" >"$d/kalah" ;;
    fuzz_pgn)
      cp tests/fuzz/seeds/*.pgn "$d/" 2>/dev/null || true
      for f in ../shared/data/togyz/*.pgn; do  # large files: their first games
        [[ -f "$f" ]] && head -c 4000 "$f" >"$d/$(basename "$f")"
      done ;;
    fuzz_protocol)
      cp tests/fuzz/seeds/*.protocol "$d/" 2>/dev/null || true ;;
    fuzz_config)
      cp configs/*.toml "$d/" ;;
    fuzz_model_header)
      for f in models/*.pt; do [[ -f "$f" ]] && head -c 4096 "$f" >"$d/$(basename "$f")"; done ;;
    fuzz_shard)
      "$build/tests/fuzz/kz_fuzz_make_seeds" "$d" ;;
    fuzz_openings)
      "$build/tests/fuzz/kz_fuzz_make_seeds" --openings "$d" ;;
  esac
  echo "$d"
}

status=0
for t in "${targets[@]}"; do
  exe="$build/tests/fuzz/$t"
  [[ -x "$exe" ]] || { echo "fuzz: no target $t" >&2; exit 2; }
  corpus="$build/corpus/$t"  # grows run by run; the seeds stay read-only
  artifacts="$build/artifacts/$t/"
  mkdir -p "$corpus" "$artifacts"
  seed=$(seed_dir "$t")
  regressions=tests/fuzz/regressions/$t
  if [[ -d "$regressions" ]] && compgen -G "$regressions/*" >/dev/null; then
    if ! "$exe" -runs=1 "$regressions"/* >"$build/$t.regressions.log" 2>&1; then
      echo "fuzz: $t fails on a regression input (see $build/$t.regressions.log)" >&2
      status=1
      continue
    fi
  fi
  echo "fuzz: $t for ${seconds} s"
  if ! "$exe" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "$seed" \
    >"$build/$t.log" 2>&1; then
    echo "fuzz: $t FAILED; the input is in $artifacts, the report in $build/$t.log:" >&2
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$build/$t.log" | head -20 >&2 || true
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$build/$t.log" | tail -2 | tr '\n' ' '
    echo
  fi
done
exit $status
