#!/usr/bin/env bash
# scripts/fuzz.sh BUILD_DIR SECONDS: runs every libFuzzer target built in
# BUILD_DIR/tests/fuzz for SECONDS each (one after the other), starting from
# the corpus in the tree (tests/fuzz/corpus/<name>/, read only) plus what
# earlier runs found (BUILD_DIR/tests/fuzz/<name>-corpus, where new inputs
# go). Prints and writes BUILD_DIR/fuzz-summary.md: executions, rate, corpus
# size and coverage per target. Exits non-zero if any target found a crash,
# a leak or a timeout (its log and the reproducer stay in BUILD_DIR/fuzz-logs).
set -euo pipefail

build=$(cd "${1:?usage: $0 BUILD_DIR SECONDS}" && pwd)
seconds=${2:?usage: $0 BUILD_DIR SECONDS}
root=$(cd "$(dirname "$0")/.." && pwd)
logs="$build/fuzz-logs"
mkdir -p "$logs"
summary="$build/fuzz-summary.md"

shopt -s nullglob
targets=("$build"/tests/fuzz/*_fuzz)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fl: no fuzz targets in $build/tests/fuzz" >&2
  exit 1
fi

{
  echo "| target | seconds | executions | exec/s | corpus files | coverage (edges) | result |"
  echo "|---|---:|---:|---:|---:|---:|---|"
} > "$summary"

failed=0
for bin in "${targets[@]}"; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  work="$build/tests/fuzz/$name-corpus"
  mkdir -p "$work"
  seeds=()
  [ -d "$root/tests/fuzz/corpus/$name" ] && seeds=("$root/tests/fuzz/corpus/$name")
  echo "fl: fuzzing $name for ${seconds}s"
  log="$logs/$name.log"
  result=ok
  if ! (cd "$logs" && "$bin" -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 \
          -artifact_prefix="$logs/$name-" "$work" "${seeds[@]}") > "$log" 2>&1; then
    result="FAILED (see $log)"
    failed=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  files=$(find "$work" -type f | wc -l)
  echo "| $name | $seconds | ${execs:-?} | ${rate:-?} | $files | ${cov:-?} | $result |" >> "$summary"
done

cat "$summary"
exit $failed
