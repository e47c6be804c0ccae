// bench/json_import_bench.cpp: section json/, import_size: fl::json_store::import
// of generated documents of growing size beside simdjson's DOM parse of the
// same text, with the peak memory each takes.
//
// Inputs: a JSON array of copies of the generated twitter document
// (tests/json_test_support.hpp, fl_test::generated_twitter, fixed seed), as
// many as make the text reach the size: 1mb and 32mb always, 1gb when
// FL_BENCH_IMPORT_MAX=1gb (a 1 GB text, simdjson's DOM of it and the store
// file take about 4 GB of memory and disk, and one import takes seconds):
//   FL_BENCH_IMPORT_MAX=1gb build-rel/bench/fl_bench --benchmark_filter='json/import_size/'
// The store file goes to a scratch directory under $TMPDIR or /tmp, removed
// at exit.
//
// Cases:
//   import_size/<size>   text in memory -> a usable document, as import_<doc>
//                        in json_bench.cpp (fl: json_store::import, not
//                        synced; simdjson: dom::parser::parse, parser reused;
//                        each row warmed by one untimed call;
//                        write_floor: no parse, no store, the bytes fl's
//                        import of the text carves written to a new file, as
//                        json/import_<doc>/write_floor: the file system's
//                        share, which grows with the size once the page
//                        cache writes back while the import runs).
// Counters: text_mib, the text's size; peak_extra_mib, how far one call
// raised the peak resident set above the resident set before it (the text
// included there), measured in a child process (fork) so that earlier rows
// leave no mark: VmHWM of /proc/self/status after the call minus VmRSS
// before it (after malloc_trim, so that the call's allocations are counted
// whatever free memory earlier rows left in the heap). For a call in bounded memory it stays flat as the text grows.
// "Faster" is less time per call; bytes/s count the text.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "json_data.hpp"
#include "../tests/json_test_support.hpp"

#include <fl/json_store.hpp>

#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const fs::path& scratch() {
  static const fl_bench::scratch_dir dir("fl_json_import_bench");
  return dir.path();
}

// An array of copies of the generated twitter document, at least `bytes` long.
const std::string& sized_document(std::size_t bytes) {
  static std::size_t made_for = 0;
  static std::string text;
  if (made_for == bytes) return text;
  text.clear();
  text.shrink_to_fit();
  const std::string one = fl_test::generated_twitter();
  text.reserve(bytes + one.size() + 2 + fl_bench::json_data::text_slack);
  text += '[';
  do {
    if (text.size() > 1) text += ',';
    text += one;
  } while (text.size() + 1 < bytes);
  text += ']';
  made_for = bytes;
  return text;
}

// A line "Name: <kB> kB" of /proc/self/status, in KiB (0 when missing).
long status_kib(const char* name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(name);
  while (std::getline(in, line))
    if (line.compare(0, n, name) == 0 && line.size() > n && line[n] == ':')
      return std::strtol(line.c_str() + n + 1, nullptr, 10);
  return 0;
}

// Runs `call` once in a child process and returns how many MiB it raised the
// child's peak resident set above its resident set before the call; -1 when
// it cannot tell (no fork, no /proc).
template <class Call>
double peak_extra_mib(const Call& call) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    // Free heap memory goes back to the system first, so that what the call
    // allocates is counted however earlier rows left the heap; then a fresh
    // peak (the child's mark starts at the parent's).
    malloc_trim(0);
    if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
      std::fputs("5", f);
      std::fclose(f);
    }
    const long before = status_kib("VmRSS");
    long extra = -1;
    try {
      call();
      extra = status_kib("VmHWM") - before;
    } catch (...) {
    }
    const ssize_t w = write(fds[1], &extra, sizeof extra);
    _exit(w == sizeof extra ? 0 : 1);
  }
  close(fds[1]);
  long extra = -1;
  const ssize_t r = read(fds[0], &extra, sizeof extra);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (r != sizeof extra || extra < 0) return -1;
  return static_cast<double>(extra) / 1024.0;
}

void set_counters(benchmark::State& st, const std::string& text, double extra) {
  st.counters["text_mib"] = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  st.counters["peak_extra_mib"] = extra;
  fl_bench::set_bytes(st, text.size());
}

void bm_import_size_fl(benchmark::State& st, std::size_t bytes) {
  const std::string& text = sized_document(bytes);
  const fs::path file = scratch() / "import_size.fljson";
  // Once per size, before any timed call: those leave the thread's parser
  // buffers resident in this process (and so in the child's resident set
  // before its call), which a later measure would not count.
  static std::map<std::size_t, double> measured;
  if (!measured.contains(bytes))
    measured[bytes] = peak_extra_mib([&] {
      auto s = fl::json_store::import(text, file);
      benchmark::DoNotOptimize(s.root().size());
    });
  const double extra = measured[bytes];
  // Warmed by one untimed import (the thread's parser sized for the text),
  // as the simdjson row's parser is.
  (void)fl::json_store::import(text, file);
  for (auto _ : st) {
    auto s = fl::json_store::import(text, file);
    benchmark::DoNotOptimize(s.root().size());
  }
  set_counters(st, text, extra);
}

void bm_import_size_simdjson(benchmark::State& st, std::size_t bytes) {
  const std::string& text = sized_document(bytes);
  const double extra = peak_extra_mib([&] {
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    if (p.parse(text).get(doc) != simdjson::SUCCESS) throw std::runtime_error("parse");
    benchmark::DoNotOptimize(doc);
  });
  // Warmed by one untimed parse, as fl's thread keeps its parser: a row
  // whose one iteration passes the minimum time would otherwise time the
  // first touch of a new parser's buffers at every repetition.
  simdjson::dom::parser parser;
  simdjson::dom::element warm;
  if (parser.parse(text).get(warm) != simdjson::SUCCESS) st.SkipWithError("simdjson parse failed");
  for (auto _ : st) {
    simdjson::dom::element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS) st.SkipWithError("simdjson parse failed");
    benchmark::DoNotOptimize(doc);
  }
  set_counters(st, text, extra);
}

void bm_import_size_floor(benchmark::State& st, std::size_t bytes) {
  const std::string& text = sized_document(bytes);
  const std::uint64_t store_bytes =
      fl_bench::json_data::import_bytes(text, scratch() / "import_size_floor.fljson");
  const std::string data(std::size_t{4} << 20, 'x');  // the import's runs are 4 MiB too
  const fs::path file = scratch() / "import_size_floor.bin";
  for (auto _ : st)
    if (!fl_bench::json_data::write_new_file(file, store_bytes, data))
      st.SkipWithError("write failed");
  st.counters["store_mib"] = static_cast<double>(store_bytes) / (1024.0 * 1024.0);
  fl_bench::set_bytes(st, text.size());
}

struct size_row {
  const char* name;
  std::size_t bytes;
};
constexpr size_row all_sizes[] = {
    {"1mb", std::size_t{1} << 20}, {"32mb", std::size_t{32} << 20}, {"1gb", std::size_t{1} << 30}};

const bool registered = [] {
  const char* max = std::getenv("FL_BENCH_IMPORT_MAX");
  const bool big = max != nullptr && std::string(max) == "1gb";
  for (const size_row& z : all_sizes) {
    if (z.bytes > (std::size_t{32} << 20) && !big) continue;
    const std::string c = std::string("json/import_size/") + z.name;
    fl_bench::reg(c + "/fl", bm_import_size_fl, z.bytes)->UseRealTime();
    fl_bench::reg(c + "/simdjson", bm_import_size_simdjson, z.bytes)->UseRealTime();
    fl_bench::reg(c + "/write_floor", bm_import_size_floor, z.bytes)->UseRealTime();
  }
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
