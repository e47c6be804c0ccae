// bench/json_life_bench.cpp: section json/, a store over its life: readers
// beside a writer, and edits committed one by one for as long as the
// benchmark runs, with what the file looks like after them.
//
// Inputs: the documents of bench/json_data.hpp (twitter: the real
// twitter.json, its rows skipped with "no data: ..." when it is missing;
// gen_twitter: the generated document of its shape, always there) and a
// 60-byte document. Store files go to a scratch directory under $TMPDIR or
// /tmp, removed at exit.
//
// Reader cases:
//   reader_open_<doc>  a second process's view of a store a writer has open
//                      (with an edit it has not committed): fl:
//                      json_store::open(read_only) + one deep find + close;
//                      peer: simdjson's parse of the same text (the parser
//                      reused) + the same find, the cheapest way to get a
//                      readable document from the text.
//   reader_refresh     a reader moving to the writer's next commit (one
//                      number set and synced, outside the timing) and reading
//                      that number: refresh() + find (on gen_twitter).
// Churn cases:
//   churn_small        edits of the small document (tests/support/json_churn.hpp:
//                      string and container sets, in-place number sets, a
//                      rolling log of appends and erases), each followed by sync().
//   churn_<doc>        the same kinds of edits at random statuses of the document.
// Time per edit + sync (wall time: the commit's flush is most of it).
// Counters: file_mb, the data file's size after the run (MiB), and fresh_mb,
// a fresh import of the final document (the target: file_mb <= 2 x fresh_mb
// + 1). "Faster" is less time per edit; "smaller" is a lower file_mb.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "json_churn.hpp"
#include "json_data.hpp"

#include <fl/json_store.hpp>

#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <stdlib.h>

namespace {

namespace fs = std::filesystem;
namespace data = fl_bench::json_data;

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
constexpr double mib = 1024.0 * 1024.0;

// ---- readers ----

void bm_reader_open_fl(benchmark::State& st, const std::string& doc) {
  if (!data::have(st, doc)) return;
  const fs::path file = life_scratch() / ("reader_open_" + doc + ".fljson");
  fl::json_store writer = fl::json_store::import(*data::document(doc), file);
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

void bm_reader_open_simdjson(benchmark::State& st, const std::string& doc) {
  if (!data::have(st, doc)) return;
  const std::string& text = *data::document(doc);
  simdjson::dom::parser parser;
  for (auto _ : st) {
    simdjson::dom::element root;
    if (parser.parse(text).get(root) != simdjson::SUCCESS) st.SkipWithError("parse failed");
    std::string_view name;
    if (root.at_pointer(reader_pointer).get(name) != simdjson::SUCCESS)
      st.SkipWithError("value not found");
    benchmark::DoNotOptimize(name.size());
  }
}

void bm_reader_refresh_fl(benchmark::State& st) {
  const fs::path file = life_scratch() / "reader_refresh.fljson";
  fl::json_store writer = fl::json_store::import(*data::document("gen_twitter"), file);
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

// ---- churn ----

// doc: "" for the small document, else a document of json_data.hpp.
void bm_churn_fl(benchmark::State& st, const std::string& doc) {
  const bool small = doc.empty();
  if (!small && !data::have(st, doc)) return;
  const std::string text = small ? fl_test::churn_gen::small_document() : *data::document(doc);
  const fs::path file = life_scratch() / ("churn_" + (small ? std::string("small") : doc) + ".fljson");
  fl::json_store::import(text, file).sync();
  auto s = fl::json_store::open(file);
  const auto statuses = s.find("/statuses");
  fl_test::churn_gen gen(small ? fl_test::churn_gen::workload::small
                               : fl_test::churn_gen::workload::twitter,
                         fl_bench::seed(), statuses ? statuses->size() : 0);
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
  data::describe();
  for (const std::string doc : {"twitter", "gen_twitter"}) {
    fl_bench::reg("json/reader_open_" + doc + "/fl", bm_reader_open_fl, doc)->UseRealTime();
    fl_bench::reg("json/reader_open_" + doc + "/simdjson", bm_reader_open_simdjson, doc)
        ->UseRealTime();
  }
  // Each iteration's commit (an fdatasync, untimed) costs far more than the
  // refresh: a fixed count keeps the row's run short.
  fl_bench::reg("json/reader_refresh/fl", bm_reader_refresh_fl)->UseRealTime()->Iterations(400);
  fl_bench::reg("json/churn_small/fl", bm_churn_fl, std::string())->UseRealTime();
  for (const std::string doc : {"twitter", "gen_twitter"})
    fl_bench::reg("json/churn_" + doc + "/fl", bm_churn_fl, doc)->UseRealTime();
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
