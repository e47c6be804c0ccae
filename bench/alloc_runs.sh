#!/usr/bin/env bash
# bench/alloc_runs.sh FL_BENCH OUT_DIR [FILTER] [REPS]: runs the alloc/ section
# (bench/alloc_bench.cpp) of fl_bench, one process per row and repetition,
# into OUT_DIR/<n>.json, for report.py --merge.
#
# Why one process per row: peak_rss_mb is the process's resident set, and a
# heap keeps memory that earlier benchmarks freed; in a process of its own each
# row starts from the same fresh heap. Why LD_PRELOAD: std::string's
# allocations go to whichever malloc the process uses, so each allocator peer
# (std_mimalloc, std_jemalloc, std_tcmalloc) is the same binary and the same
# std::string code with another malloc underneath. The fl and std rows run
# without a preload (fl's pool then sits on glibc malloc, as in a default
# build). An allocator that is not installed is skipped with a note; one that
# is listed but fails to load is an error row (alloc_bench.cpp checks).
set -euo pipefail

bin=${1:?usage: alloc_runs.sh FL_BENCH OUT_DIR [FILTER] [REPS]}
out=${2:?usage: alloc_runs.sh FL_BENCH OUT_DIR [FILTER] [REPS]}
filter=${3:-.}
reps=${4:-5}
mkdir -p "$out"
rm -f "$out"/*.json

# peer:shared object:Debian package
peers=(
  "std_mimalloc:libmimalloc.so.2:libmimalloc2.0"
  "std_jemalloc:libjemalloc.so.2:libjemalloc2"
  "std_tcmalloc:libtcmalloc_minimal.so.4:libtcmalloc-minimal4"
)

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }

# Libraries as "peer|preload|version": fl and std first (no preload), then
# each installed allocator.
libs=("||glibc $(pkg_version libc6)")
for p in "${peers[@]}"; do
  IFS=: read -r peer so pkg <<<"$p"
  path=$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true) | awk -v so="$so" '$1 == so { print $NF; exit }')
  if [ -z "$path" ]; then
    echo "alloc_runs: $so not installed ($pkg): $peer rows skipped" >&2
    continue
  fi
  libs+=("$peer|$path|$pkg $(pkg_version "$pkg")")
done

# Each library's rows matching the filter (alloc/<case...>/<library>, without
# Google Benchmark's suffixes such as /process_time), listed once; the cases
# (the row without its library) in order, from the first.
rows=()
for ((k = 0; k < ${#libs[@]}; ++k)); do
  IFS='|' read -r peer _ _ <<<"${libs[k]}"
  rows[k]=$(FL_BENCH_ALLOC_PEER=$peer "$bin" --benchmark_list_tests --benchmark_filter="$filter" |
            grep '^alloc/' |
            sed -E 's,(/(iterations:[0-9]+|repeats:[0-9]+|min_time:[^/]*|process_time|real_time|manual_time|threads:[0-9]+))+$,,' |
            awk '!seen[$0]++' || true)
done
cases=$(sed 's,/[^/]*$,,' <<<"${rows[0]}" | awk 'NF && !seen[$0]++')

# Why interleaved: the machine's speed drifts over seconds (other jobs, the
# disk), so REPS processes of one library in a row and then REPS of the next
# would compare different moments. Instead each round runs every case once
# for every library, one repetition per process, the libraries in a new
# order each round; report.py pools a row's repetitions from all its files
# (no per-file aggregates exist with one repetition) and takes their median.
n=0
count=${#libs[@]}
for ((round = 0; round < reps; ++round)); do
  for c in $cases; do
    for ((j = 0; j < count; ++j)); do
      k=$(((j + round) % count))
      IFS='|' read -r peer preload version <<<"${libs[k]}"
      for row in ${rows[k]}; do
        [[ ${row%/*} == "$c" ]] || continue
        n=$((n + 1))
        echo "alloc_runs: round $((round + 1))/$reps $row${preload:+ (LD_PRELOAD=$preload)}"
        env ${preload:+LD_PRELOAD=$preload} FL_BENCH_ALLOC_PEER="$peer" FL_BENCH_ALLOC_VERSION="$version" \
          "$bin" --benchmark_filter="^$row(/|\$)" --benchmark_repetitions=1 \
          --benchmark_out="$out/$n.json" --benchmark_out_format=json >/dev/null
      done
    done
  done
done
echo "alloc_runs: $n processes, results in $out"
