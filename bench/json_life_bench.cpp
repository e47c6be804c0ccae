// bench/json_life_bench.cpp: section json/, a store over its life: readers
// beside a writer (this file's reader rows), and other long-life rows in
// functions of their own.
//
// Inputs: twitter.json from ../shared/data/json beside the source tree
// (FL_JSON_DATA in the environment overrides); without it a row reports
// "no data: set FL_JSON_DATA ..." instead of a time. Store files go to a
// scratch directory under $TMPDIR or /tmp, removed at exit.
//
// Reader cases:
//   reader_open_twitter  a second process's view of a store a writer has
//                        open (with an edit it has not committed): fl:
//                        json_store::open(read_only) + one deep find + close;
//                        peer: simdjson's parse of the same text (the parser
//                        reused) + the same find, the cheapest way to get a
//                        readable document from the text.
//   reader_refresh       a reader moving to the writer's next commit (one
//                        number set and synced, outside the timing) and
//                        reading that number: refresh() + find.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"

#include <fl/json_store.hpp>

#include <simdjson.h>

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

bool have_twitter(benchmark::State& st) {
  if (twitter_text()) return true;
  st.SkipWithError(("no data: set FL_JSON_DATA to a directory holding twitter.json (looked in " +
                    life_data_dir().string() + ")")
                       .c_str());
  return false;
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

constexpr const char* reader_pointer = "/statuses/99/user/screen_name";
constexpr const char* refresh_pointer = "/statuses/0/retweet_count";

// ---- readers ----

void bm_reader_open_fl(benchmark::State& st) {
  if (!have_twitter(st)) return;
  const fs::path file = life_scratch() / "reader_open.fljson";
  fl::json_store writer = fl::json_store::import(*twitter_text(), file);
  writer.sync();
  writer.set(refresh_pointer, "1");
  writer.sync();
  writer.set(refresh_pointer, "2");  // uncommitted: readers see the commit before
  for (auto _ : st) {
    auto r = fl::json_store::open(file, fl::open_mode::read_only);
    const auto v = r.find(reader_pointer);
    if (!v) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(v->as_string_view().size());
  }
}

void bm_reader_open_simdjson(benchmark::State& st) {
  if (!have_twitter(st)) return;
  const std::string& text = *twitter_text();
  simdjson::dom::parser parser;
  for (auto _ : st) {
    simdjson::dom::element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS) st.SkipWithError("parse failed");
    std::string_view name;
    if (doc.at_pointer(reader_pointer).get(name) != simdjson::SUCCESS)
      st.SkipWithError("value not found");
    benchmark::DoNotOptimize(name.size());
  }
}

void bm_reader_refresh_fl(benchmark::State& st) {
  if (!have_twitter(st)) return;
  const fs::path file = life_scratch() / "reader_refresh.fljson";
  fl::json_store writer = fl::json_store::import(*twitter_text(), file);
  writer.sync();
  auto reader = fl::json_store::open(file, fl::open_mode::read_only);
  std::int64_t n = 0;
  for (auto _ : st) {
    st.PauseTiming();
    writer.set(refresh_pointer, std::to_string(++n));
    writer.sync();
    st.ResumeTiming();
    reader.refresh();
    const auto v = reader.find(refresh_pointer);
    if (!v || v->as_int64() != n) st.SkipWithError("the reader did not see the commit");
    benchmark::DoNotOptimize(v->as_int64());
  }
}

const bool registered = [] {
  fl_bench::reg("json/reader_open_twitter/fl", bm_reader_open_fl)->UseRealTime();
  fl_bench::reg("json/reader_open_twitter/simdjson", bm_reader_open_simdjson)->UseRealTime();
  // Each iteration's commit (an fdatasync, untimed) costs far more than the
  // refresh: a fixed count keeps the row's run short.
  fl_bench::reg("json/reader_refresh/fl", bm_reader_refresh_fl)->UseRealTime()->Iterations(400);
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
