// bench/common.hpp: what every bench/*_bench.cpp shares: one registration
// helper, the time budget, input generators the compiler cannot
// constant-fold, and scratch directories for the sections that write files.
//
// How to add a benchmark (every section file does the same):
//
//   #include "common.hpp"
//   namespace {
//   void bm_thing_std(benchmark::State& st) {
//     std::string in = fl_bench::random_text(100, fl_bench::salt("thing"));
//     for (auto _ : st) {
//       std::string s(in);
//       benchmark::DoNotOptimize(s);  // the result escapes; the work stays
//     }
//     fl_bench::set_bytes(st, in.size());  // optional: GB/s in the report
//   }
//   const bool registered = [] {
//     fl_bench::reg("section/case/std", bm_thing_std);
//     fl_bench::reg("section/case/fl", bm_thing_fl);   // peers of one case
//     return true;                                     // next to each other
//   }();
//   }  // namespace
//
// Names are `section/case/library`: the report takes the section from the
// first component, the library from the last, and the case is everything in
// between (so `concat/strcat/4_parts/fl` is case `strcat/4_parts`). Register
// all peers of one case one after another so they run back to back in the
// same process: their ratio is what the report shows, and on a noisy machine
// only a ratio of neighbours is meaningful. The baseline library of each
// section is mapped in bench/report/report.py (default `std`).
//
// Budget: the whole suite, every section, 5 repetitions, must finish within 10
// minutes on 2 cores. The time per benchmark is Google Benchmark's own
// --benchmark_min_time, for every benchmark; when the command line does not
// give it, main.cpp passes min_time(): min_time_s unless the environment sets
// FL_BENCH_MIN_TIME (seconds), e.g. `FL_BENCH_MIN_TIME=0.5` for a slower,
// quieter run (`make bench BENCH_MIN_TIME=0.5`). So the budget is set here and
// nowhere else: do not call ->MinTime yourself (it would override the flag).
// A benchmark whose single iteration takes longer than the minimum time still
// runs at least one iteration per repetition, so keep one iteration under
// ~20 ms (scale inner loops down rather than up).
//
// Against the optimizer: build inputs at run time from fl_bench::seed() (a
// volatile read, so not a compile-time constant) through the generators
// below; pass every result to benchmark::DoNotOptimize (for strings, the
// object itself or its data()), and benchmark::DoNotOptimize the inputs inside
// the loop when the work is a pure function of them (find, compare), so the
// compiler cannot hoist it out of the loop. A call that is meant to be
// measured as a call (copy by value) goes through a [[gnu::noinline]] function.
//
// Threads: registration runs during static initialization on the main
// thread; the generators are pure functions of their arguments.
#pragma once

#include "../tests/support/splitmix64.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <stdlib.h>

namespace fl_bench {

// Minimum measuring time per benchmark and repetition, in seconds, when
// neither --benchmark_min_time nor FL_BENCH_MIN_TIME says otherwise. With the
// Makefile's 5 repetitions and Google Benchmark's iteration-count search, a
// benchmark costs about 4-6 times this in wall time.
inline constexpr double min_time_s = 0.05;

// The per-benchmark minimum time in seconds: FL_BENCH_MIN_TIME from the
// environment when set to a positive number, else min_time_s.
inline double min_time() {
  static const double value = [] {
    if (const char* e = std::getenv("FL_BENCH_MIN_TIME"); e != nullptr && *e != '\0') {
      double v = std::strtod(e, nullptr);
      if (v > 0) return v;
    }
    return min_time_s;
  }();
  return value;
}

// Registers `fn` (a function or lambda taking benchmark::State&, followed by
// `args`, which are copied into the benchmark) under `name`. Returns the
// benchmark so callers may add ->Arg(), ->Unit()...
template <class Fn, class... Args>
benchmark::internal::Benchmark* reg(const std::string& name, Fn&& fn, Args&&... args) {
  if constexpr (sizeof...(Args) == 0)
    return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn));
  else
    return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn),
                                        std::forward<Args>(args)...);
}

// The run's seed: FL_BENCH_SEED from the environment when set (decimal),
// otherwise a fixed default, so runs are reproducible. Read once through a
// volatile so no input derived from it is a compile-time constant. main.cpp
// records it in the JSON context.
inline std::uint64_t seed() {
  static const std::uint64_t value = [] {
    std::uint64_t v = 0x5eedf1b3c0ffee11ULL;
    if (const char* e = std::getenv("FL_BENCH_SEED"); e != nullptr && *e != '\0')
      v = std::strtoull(e, nullptr, 10);
    volatile std::uint64_t sink = v;
    return static_cast<std::uint64_t>(sink);
  }();
  return value;
}

// A per-purpose seed: mixes the run's seed with a label so that two inputs
// of one benchmark differ, yet each is the same from run to run.
inline std::uint64_t salt(std::string_view label) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : label) h = (h ^ c) * 0x100000001b3ULL;
  return h ^ seed();
}

// The generator of every benchmark input (tests/support/splitmix64.hpp).
using rng = fl_test::splitmix64;

// Letters and digits: text-like bytes with a realistic rate of first-byte
// matches for search benchmarks.
inline constexpr std::string_view alnum =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

// `n` bytes drawn uniformly from `alphabet` (non-empty), seeded by `s`.
inline std::string random_text(std::size_t n, std::uint64_t s, std::string_view alphabet = alnum) {
  rng r(s);
  std::string out(n, '\0');
  for (auto& c : out) c = alphabet[r.below(alphabet.size())];
  return out;
}

// A haystack of `n` bytes from `alphabet` with `needle` planted at byte
// `at` and nowhere before it (earlier accidental occurrences are broken by
// changing one byte), so a forward find must scan to `at`.
// Requires at + needle.size() <= n, needle non-empty, and an alphabet with at
// least two letters.
inline std::string haystack_with(std::size_t n, std::string_view needle, std::size_t at,
                                 std::uint64_t s, std::string_view alphabet = alnum) {
  std::string h = random_text(n, s, alphabet);
  h.replace(at, needle.size(), needle);
  for (std::size_t p = h.find(needle); p < at; p = h.find(needle)) {
    // Replace the first byte of the early match with a different letter.
    h[p] = alphabet[0] == needle[0] ? alphabet[1] : alphabet[0];
  }
  return h;
}

// A byte the compiler cannot know, for append-one-char loops.
inline char runtime_char() { return alnum[static_cast<std::size_t>(seed() % alnum.size())]; }

// A count the compiler cannot know (equal to n at run time), for loop bounds
// that must not be unrolled into constants or vectorized away.
inline std::size_t runtime_count(std::size_t n) {
  volatile std::size_t v = n;
  return v;
}

// Reports bytes processed per iteration, so the report shows GB/s.
inline void set_bytes(benchmark::State& st, std::size_t bytes_per_iteration) {
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) *
                       static_cast<std::int64_t>(bytes_per_iteration));
}

// Reports items (operations) per iteration, so the report shows items/s.
inline void set_items(benchmark::State& st, std::size_t items_per_iteration) {
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) *
                       static_cast<std::int64_t>(items_per_iteration));
}

// The loop of a durable-edit row: per iteration `edit(k)` (k = 0, 1, ...)
// and then `s.sync()`, with the pages each commit changed and the bytes of
// its log record beside the time as the counters pages_per_commit and
// log_bytes_per_commit. Store: anything with sync() and stats() of a
// mapped_space (fl::json_store, fl::mapped_space).
template <class Store, class Edit>
void edit_sync_loop(benchmark::State& st, Store& s, Edit&& edit) {
  std::uint64_t k = 0;
  std::uint64_t pages = 0, logged = 0;
  for (auto _ : st) {
    edit(k++);
    s.sync();
    pages += s.stats().last_sync_pages;
    logged += s.stats().last_sync_log_bytes;
  }
  const auto n = static_cast<double>(std::max<std::int64_t>(1, st.iterations()));
  st.counters["pages_per_commit"] = static_cast<double>(pages) / n;
  st.counters["log_bytes_per_commit"] = static_cast<double>(logged) / n;
}

// A directory for one section's scratch files: `<prefix>XXXXXX` made with
// mkdtemp under $TMPDIR (or /tmp), removed with everything in it when the
// object goes. Sections keep one as a function-local static, so it is made on
// first use and removed when the program exits. Throws std::runtime_error
// when the directory cannot be made.
class scratch_dir {
 public:
  explicit scratch_dir(std::string_view prefix) {
    std::string name =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
    if (::mkdtemp(name.data()) == nullptr)
      throw std::runtime_error(std::string(prefix) + ": mkdtemp failed");
    path_ = name;
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace fl_bench
