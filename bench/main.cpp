// bench/main.cpp: the entry point of fl_bench, the one benchmark program that
// holds every bench/*_bench.cpp. It records what a reader of the report needs
// to trust a number (CPU model, compiler, flags, commit, which optional peers
// were compiled in) as Google Benchmark custom context, so that it lands in
// results.json next to the timings, then runs the registered benchmarks.
//
// Defaults: when the command line does not give --benchmark_min_time, a short
// one (fl_bench::min_time() seconds, bench/common.hpp) is passed to Google
// Benchmark as if it had been given, so the whole suite fits its 10-minute
// budget on 2 cores; a --benchmark_min_time on the command line wins, for
// every benchmark (no benchmark sets its own MinTime). The time in effect is
// recorded as "min_time_s". Google Benchmark 1.7.1 takes --benchmark_min_time
// as a plain number of seconds (no "s" suffix).
//
// Heap: glibc's mmap and trim thresholds are fixed at startup (see main), so
// no peer's time depends on which benchmarks ran before it.
//
// Threads: single-threaded; benchmarks run one after the other.

#include <benchmark/benchmark.h>

#include "common.hpp"
#include "peers.hpp"

#include <cstring>
#include <malloc.h>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#ifndef FL_BENCH_COMPILER
#define FL_BENCH_COMPILER "unknown"
#endif
#ifndef FL_BENCH_FLAGS
#define FL_BENCH_FLAGS "unknown"
#endif
#ifndef FL_BENCH_COMMIT
#define FL_BENCH_COMMIT "unknown"
#endif

namespace {

// The "model name" line of /proc/cpuinfo, trimmed; "unknown" when the file
// is missing (non-Linux) or has no such line (some ARM kernels).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto first = line.find_first_not_of(" \t", colon + 1);
    if (first == std::string::npos) continue;
    auto last = line.find_last_not_of(" \t\r");
    return line.substr(first, last - first + 1);
  }
  return "unknown";
}

// The value of the last `--name=value` on the command line ("" for a bare
// `--name`), or nullopt when the flag is absent; Google Benchmark, too, lets
// a later flag override an earlier one.
std::optional<std::string_view> flag_value(int argc, char** argv, std::string_view name) {
  std::optional<std::string_view> value;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (!a.starts_with(name)) continue;
    if (a.size() == name.size())
      value = std::string_view();
    else if (a[name.size()] == '=')
      value = a.substr(name.size() + 1);
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  // Every peer runs on a steady-state glibc heap. By default glibc starts
  // with a 128 KiB trim threshold and raises its thresholds only after the
  // first large mapped block is freed, so whether a 100-200 KiB buffer is
  // faulted in afresh on every iteration would depend on which benchmarks
  // ran earlier in the process. Fixing them at the values glibc's own
  // adaptation reaches (mmap 32 MiB, trim twice that) removes that order
  // dependence; blocks of 32 MiB and more are still mapped and unmapped
  // each time, for every peer.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  // Copy argv so a default can be appended; the strings outlive Initialize,
  // which keeps pointers into them for flag parsing only.
  std::vector<char*> args(argv, argv + argc);
  // Seconds per benchmark: the command line's, else fl_bench::min_time().
  std::string min_time = std::to_string(fl_bench::min_time());
  std::string min_time_arg = "--benchmark_min_time=" + min_time;
  if (const auto given = flag_value(argc, argv, "--benchmark_min_time"))
    min_time = *given;
  else
    args.push_back(min_time_arg.data());
  args.push_back(nullptr);
  int n = static_cast<int>(args.size()) - 1;

  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("compiler", FL_BENCH_COMPILER);
  benchmark::AddCustomContext("flags", FL_BENCH_FLAGS);
  benchmark::AddCustomContext("commit", FL_BENCH_COMMIT);
  benchmark::AddCustomContext("peers", fl_bench::peers_compiled_in());
  benchmark::AddCustomContext("peers_missing", fl_bench::peers_missing());
  benchmark::AddCustomContext("seed", std::to_string(fl_bench::seed()));
  benchmark::AddCustomContext("min_time_s", min_time);
  benchmark::AddCustomContext("malloc",
                              "glibc, mmap threshold 32 MiB, trim threshold 64 MiB (fixed)");

  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
