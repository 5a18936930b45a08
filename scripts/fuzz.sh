#!/usr/bin/env bash
# Builds the fuzz preset and runs libFuzzer harnesses (docs/fuzzing.md), one after another.
#
#   bash scripts/fuzz.sh                      every harness for 20 s (scripts/test.sh runs 10 s each)
#   bash scripts/fuzz.sh --seconds 3600 lower_fuzzer
#   bash scripts/fuzz.sh --runs 1000000 jinja_fuzzer ir_reader_fuzzer
#
# Harnesses: parse_check_fuzzer ir_reader_fuzzer lower_fuzzer jinja_fuzzer (default: all). Each
# starts from the seeds fuzz/make_corpus.py builds from the tests (build/fuzz/seeds/<name>) plus
# what earlier runs kept (build/fuzz/corpus/<name>); a finding is saved as
# build/fuzz/findings/<harness>/crash-*, leak-*, timeout-* or oom-*. Prints the executions and
# exec/s of each harness; exits non-zero on any finding. FUZZ_NICE (default 15) is the niceness.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(parse_check_fuzzer ir_reader_fuzzer lower_fuzzer jinja_fuzzer)
limit=(-max_total_time=20)
harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) limit=(-max_total_time="$2"); shift 2 ;;
  --runs) limit=(-runs="$2"); shift 2 ;;
  -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fuzz: unknown option '$1' (see --help)" >&2; exit 2 ;;
  *)
    [[ " ${all[*]} " == *" $1 "* ]] || { echo "fuzz: unknown harness '$1'; one of: ${all[*]}" >&2; exit 2; }
    harnesses+=("$1"); shift ;;
  esac
done
[ ${#harnesses[@]} -ne 0 ] || harnesses=("${all[@]}")

build=build/fuzz
mkdir -p "$build"
if ! bash scripts/build.sh fuzz >"$build/fuzz-build.log" 2>&1; then
  tail -n 40 "$build/fuzz-build.log"
  echo "fuzz: the build failed; see $build/fuzz-build.log" >&2
  exit 1
fi
tail -n 1 "$build/fuzz-build.log"
python3 fuzz/make_corpus.py "$build/seeds"

status=0
for h in "${harnesses[@]}"; do
  name="${h%_fuzzer}"
  # Per harness: its dictionary, the input size it accepts (fuzz/<harness>.cpp's kMaxInput, so
  # that inputs can grow to the product's limits) and the time one input may take (seconds).
  case "$name" in
  parse_check) dict=fuzz/tk.dict max_len=16384 timeout=10 ;;
  ir_reader) dict=fuzz/ir.dict max_len=32768 timeout=10 ;;
  lower) dict=fuzz/tk.dict max_len=4096 timeout=30 ;;
  jinja) dict=fuzz/jinja.dict max_len=65536 timeout=10 ;;
  esac
  corpus="$build/corpus/$name"
  findings="$build/findings/$name"
  log="$build/logs/$name.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  # -rss_limit_mb (and the malloc limit it implies): 2 GB. The first directory is where libFuzzer
  # keeps new inputs; the seeds are only read.
  set +e
  nice -n "${FUZZ_NICE:-15}" "$build/fuzz/$h" "${limit[@]}" -dict="$dict" -max_len=$max_len \
    -timeout=$timeout -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus" "$build/seeds/$name" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  if [ $rc -eq 0 ]; then
    printf 'fuzz: %-20s %10s executions %7s exec/s  no finding\n' "$h" "${runs:-?}" "${rate:-?}"
  else
    status=1
    grep -E '^(==[0-9]+==ERROR|SUMMARY|==== fuzz finding|artifact_prefix|Test unit written)' "$log" | head -n 8 || true
    printf 'fuzz: %-20s %10s executions %7s exec/s  FINDING (exit %d; log: %s)\n' "$h" \
      "${runs:-?}" "${rate:-?}" $rc "$log"
  fi
done
exit $status
