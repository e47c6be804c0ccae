// bench/json_life_bench.cpp: section json/, a json_store over a long life:
// edits committed one by one for as long as the benchmark runs, and what the
// file looks like after them.
//
// Inputs: a 60-byte document, and twitter.json (631,515 bytes) from
// ../shared/data/json beside the source tree (FL_JSON_DATA in the
// environment overrides; the case reports an error naming the path when it
// is missing). Store files go to a scratch directory under $TMPDIR or /tmp,
// removed at exit.
//
// Cases:
//   churn_small    edits of the small document (tests/support/json_churn.hpp:
//                  string and container sets, in-place number sets, a rolling
//                  log of appends and erases), each followed by sync().
//   churn_twitter  the same kinds of edits at random statuses of twitter.json.
// Time per edit + sync (wall time: the commit's flush is most of it).
// Counters: file_mb, the data file's size after the run (MiB), and fresh_mb,
// a fresh import of the final document (the target: file_mb <= 2 x fresh_mb
// + 1). "Faster" is less time per edit; "smaller" is a lower file_mb.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "json_churn.hpp"

#include <fl/json_store.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <stdlib.h>

namespace {

namespace fs = std::filesystem;

fs::path life_data_dir() {
  if (const char* e = std::getenv("FL_JSON_DATA"); e != nullptr && *e != '\0') return e;
  return FL_BENCH_JSON_DATA_DIR;
}

// twitter.json's text, read once; nullopt when it is missing.
const std::optional<std::string>& twitter_text() {
  static const std::optional<std::string> text = []() -> std::optional<std::string> {
    const fs::path p = life_data_dir() / "twitter.json";
    if (!fs::exists(p)) return std::nullopt;
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return text;
}

const fs::path& life_scratch() {
  static struct dir {
    fs::path p;
    dir() {
      std::string t = (fs::temp_directory_path() / "fl_json_life_benchXXXXXX").string();
      if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
      p = t;
    }
    ~dir() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } d;
  return d.p;
}

constexpr double mib = 1024.0 * 1024.0;

// ---- churn ----

void bm_churn_fl(benchmark::State& st, fl_test::churn_gen::workload w) {
  const bool small = w == fl_test::churn_gen::workload::small;
  if (!small && !twitter_text()) {
    st.SkipWithError(("twitter.json not found in " + life_data_dir().string()).c_str());
    return;
  }
  const std::string text = small ? fl_test::churn_gen::small_document() : *twitter_text();
  const fs::path file = life_scratch() / (small ? "churn_small.fljson" : "churn_twitter.fljson");
  fl::json_store::import(text, file).sync();
  auto s = fl::json_store::open(file);
  const auto statuses = s.find("/statuses");
  fl_test::churn_gen gen(w, fl_bench::seed(), statuses ? statuses->size() : 0);
  for (auto _ : st) {
    const fl_test::churn_edit e = gen.next();
    if (e.erase)
      benchmark::DoNotOptimize(s.erase(e.pointer));
    else
      s.set(e.pointer, e.text);
    s.sync();
  }
  st.counters["file_mb"] = static_cast<double>(s.file_bytes()) / mib;
  const fs::path fresh = life_scratch() / "churn_fresh.fljson";
  {
    auto f = fl::json_store::import(std::string_view(s.dump()), fresh);
    f.sync();
  }
  st.counters["fresh_mb"] = static_cast<double>(fs::file_size(fresh)) / mib;
}

const bool registered = [] {
  fl_bench::reg("json/churn_small/fl", bm_churn_fl, fl_test::churn_gen::workload::small)
      ->UseRealTime();
  fl_bench::reg("json/churn_twitter/fl", bm_churn_fl, fl_test::churn_gen::workload::twitter)
      ->UseRealTime();
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
