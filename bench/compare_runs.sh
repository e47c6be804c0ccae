#!/usr/bin/env bash
# bench/compare_runs.sh BEFORE_BENCH AFTER_BENCH OUT_DIR [GROUPS] [REPS] [ROUNDS] [ALLOC_ROUNDS]
# Runs two fl_bench programs (two commits' Release builds) over the same rows
# for bench/report/compare.py. GROUPS is "." (the whole suite: one group per
# section, the first name component) or a space-separated list of filters,
# each a group (e.g. "^find/ ^rope/", or one regex naming the flagged rows of
# a rerun). Each group runs once per round in each program, REPS repetitions
# per run, into OUT_DIR/{before,after}/<group>.<round>.json (the group's
# regex reduced to a file name). The alloc/ rows run through
# bench/alloc_runs.sh instead, one round per call (processes of their own,
# as in `make bench`), into OUT_DIR/{before,after}/<group>.alloc.<round>/.
#
# Why alternate: the machine's speed drifts over minutes (other jobs, the
# disk), so a whole suite of one program and then of the other would compare
# two moments. Here the two programs take turns section by section, and the
# one that goes first changes from section to section and from round to
# round, so each is as often first as second.
#
# The environment passes through (FL_JSON_DATA, FL_TRACE_DATA,
# FL_BENCH_MIN_TIME): both programs read the same data.
set -euo pipefail

usage="usage: compare_runs.sh BEFORE_BENCH AFTER_BENCH OUT_DIR [GROUPS] [REPS] [ROUNDS] [ALLOC_ROUNDS]"
before=${1:?$usage}
after=${2:?$usage}
out=${3:?$usage}
filter=${4:-.}
reps=${5:-5}
rounds=${6:-1}
alloc_rounds=${7:-$rounds}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/before" "$out/after"

# With "." the groups are the sections of either program, in the order of
# the first program that has them (a section only one program has still
# runs, and is reported as new or gone).
if [ "$filter" = . ]; then
  groups=$( { "$before" --benchmark_list_tests; "$after" --benchmark_list_tests; } |
            cut -d/ -f1 | awk 'NF && !seen[$0]++' | sed 's|.*|^&/|')
else
  groups=$filter
fi

# A file name for a group: its regex in letters, digits and '_', cut to 60
# characters plus a checksum of the whole (a rerun's regex of many rows is
# longer than a file name may be).
stem_of() {
  printf '%s_%s' "$(tr -c 'A-Za-z0-9_\n' '_' <<<"$1" | sed 's/__*/_/g; s/^_//; s/_$//' | cut -c1-60)" \
    "$(cksum <<<"$1" | cut -d' ' -f1)"
}

run_group() {  # side binary group round
  local side=$1 bin=$2 group=$3 round=$4
  local stem
  stem=$(stem_of "$group")
  # A group of alloc/ rows alone has nothing here (alloc_runs.sh runs them).
  # (The list is read whole: grep -q would stop the program mid-list.)
  [ -n "$(FL_BENCH_SKIP_ALLOC=1 "$bin" --benchmark_list_tests --benchmark_filter="$group")" ] || return 0
  echo "compare_runs: round $round $group $side" >&2
  FL_BENCH_SKIP_ALLOC=1 "$bin" --benchmark_filter="$group" \
    --benchmark_repetitions="$reps" --benchmark_out="$out/$side/$stem.$round.json" \
    --benchmark_out_format=json >/dev/null
}

run_alloc() {  # side binary group round
  local side=$1 bin=$2 group=$3 round=$4
  echo "compare_runs: alloc round $round $group $side" >&2
  "$here/alloc_runs.sh" "$bin" "$out/$side/$(stem_of "$group").alloc.$round" "$group" 1 >/dev/null
}

# Runs `fn` for both sides; which goes first alternates from group to group
# (g) and round to round.
take_turns() {  # fn group round g
  local fn=$1 group=$2 round=$3 g=$4
  if (((g + round) % 2)); then
    "$fn" before "$before" "$group" "$round"
    "$fn" after "$after" "$group" "$round"
  else
    "$fn" after "$after" "$group" "$round"
    "$fn" before "$before" "$group" "$round"
  fi
}

for ((round = 1; round <= rounds; ++round)); do
  g=0
  for group in $groups; do
    g=$((g + 1))
    take_turns run_group "$group" "$round" "$g"
  done
done

for ((round = 1; round <= alloc_rounds; ++round)); do
  g=0
  for group in $groups; do
    g=$((g + 1))
    n=$( { "$before" --benchmark_list_tests --benchmark_filter="$group"
           "$after" --benchmark_list_tests --benchmark_filter="$group"; } | grep -c '^alloc/' || true)
    if [ "$n" -gt 0 ]; then take_turns run_alloc "$group" "$round" "$g"; fi
  done
done
echo "compare_runs: results in $out/before and $out/after" >&2
