// bench/json_reopen_bench.cpp: section json/, cases reopen_size/<size> and
// pointer_read/<size>: whether opening a store and reading it cost the same
// at any size (issue 36: a reopen of a 1 GB store within 2x that of a 1 MB
// one; a depth-4 pointer read under 1 us at any size).
//
// The document, generated per size (no randomness in its shape):
//   {"meta":{...},"users":[{"id":0,"name":"user 0","tags":["alpha","beta"],
//     "profile":{"age":0,"city":"somewhere"}}, ...]}
// about 100 bytes of text per user, users until the text has <size> bytes.
// Every read is a depth-4 pointer, /users/<i>/profile/age, i picked from a
// seeded generator over all users, so reads land all over the file.
//
// Cases:
//   reopen_size/<size>/fl        json_store::open(read_only), one pointer
//                                read, the store closed: a program's start.
//   reopen_size/<size>/simdjson  the text file read, parsed by simdjson's DOM
//                                parser (reused), the same pointer read: what
//                                a program keeping the text pays instead.
//   pointer_read/<size>/fl       find(pointer) on an open store, the value
//                                read; the pointer is a string, parsed per call.
//   edit_sync_size/<size>/fl     one number set at such a pointer and sync():
//                                whether a durable commit of one edit costs the
//                                same at any size (pages_per_commit beside it).
// Sizes: 1mb and 16mb; 100mb and 1gb when FL_BENCH_REOPEN_MAX=100mb or 1gb
// (the 1 GB document is a 4.8 GB store, built in about a minute here). Each
// size's text and store are built on the first run of one of its rows, in a
// scratch directory under $TMPDIR or /tmp, removed at exit.
// "Faster" is less time per call.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"

#include <fl/json_store.hpp>

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct size_case {
  const char* name;
  std::size_t bytes;
};
constexpr size_case all_sizes[] = {
    {"1mb", std::size_t{1} << 20},
    {"16mb", std::size_t{16} << 20},
    {"100mb", std::size_t{100} << 20},
    {"1gb", std::size_t{1} << 30},
};

std::size_t reopen_max() {
  const char* e = std::getenv("FL_BENCH_REOPEN_MAX");
  const std::string v = e ? e : "";
  if (v == "1gb") return std::size_t{1} << 30;
  if (v == "100mb") return std::size_t{100} << 20;
  return std::size_t{16} << 20;
}

const fs::path& scratch() {
  static const fl_bench::scratch_dir dir("fl_json_reopen_bench");
  return dir.path();
}

// One size's files: the text (for the simdjson peer) and the store.
struct documents {
  fs::path text, store;
  std::size_t users = 0;
};

documents build(const size_case& sc) {
  documents d{scratch() / (std::string(sc.name) + ".json"),
              scratch() / (std::string(sc.name) + ".fljson"), 0};
  std::string s = R"({"meta":{"version":{"major":{"n":1}}},"users":[)";
  s.reserve(sc.bytes + 256);
  while (s.size() < sc.bytes) {
    const std::string i = std::to_string(d.users);
    if (d.users != 0) s += ',';
    s += R"({"id":)" + i + R"(,"name":"user )" + i +
         R"(","tags":["alpha","beta"],"profile":{"age":)" + std::to_string(d.users % 90) +
         R"(,"city":"somewhere"}})";
    ++d.users;
  }
  s += "]}";
  std::ofstream(d.text, std::ios::binary).write(s.data(), static_cast<std::streamsize>(s.size()));
  fl::json_store::import(s, d.store).sync();
  return d;
}

// 1,024 depth-4 pointers over all users, seeded by the run.
std::vector<std::string> pointers(std::size_t users) {
  fl_bench::rng r(fl_bench::salt("json/reopen_size"));
  std::vector<std::string> p(1024);
  for (auto& x : p) x = "/users/" + std::to_string(r.below(users)) + "/profile/age";
  return p;
}

void bm_reopen_fl(benchmark::State& st, std::shared_ptr<const documents> d) {
  const std::vector<std::string> ptr = pointers(d->users);
  std::size_t k = 0;
  for (auto _ : st) {
    const fl::json_store s = fl::json_store::open(d->store, fl::open_mode::read_only);
    benchmark::DoNotOptimize(s.find(ptr[k++ % ptr.size()])->as_int64());
  }
}

void bm_reopen_simdjson(benchmark::State& st, std::shared_ptr<const documents> d) {
  const std::vector<std::string> ptr = pointers(d->users);
  simdjson::dom::parser parser;
  std::size_t k = 0;
  const std::string file = d->text.string();
  for (auto _ : st) {
    simdjson::dom::element doc;
    std::int64_t v = 0;
    if (parser.load(file).get(doc) != simdjson::SUCCESS ||
        doc.at_pointer(ptr[k++ % ptr.size()]).get_int64().get(v) != simdjson::SUCCESS)
      st.SkipWithError("simdjson: load or read failed");
    benchmark::DoNotOptimize(v);
  }
}

void bm_pointer_read_fl(benchmark::State& st, std::shared_ptr<const documents> d) {
  const std::vector<std::string> ptr = pointers(d->users);
  const fl::json_store s = fl::json_store::open(d->store, fl::open_mode::read_only);
  for (const std::string& p : ptr) benchmark::DoNotOptimize(s.find(p));  // warm: pages checked
  std::size_t k = 0;
  for (auto _ : st) benchmark::DoNotOptimize(s.find(ptr[k++ % ptr.size()])->as_int64());
}

void bm_edit_sync_fl(benchmark::State& st, std::shared_ptr<const documents> d) {
  const std::vector<std::string> ptr = pointers(d->users);
  fl::json_store s = fl::json_store::open(d->store);
  fl_bench::edit_sync_loop(
      st, s, [&](std::uint64_t k) { s.set(ptr[k % ptr.size()], std::to_string(k % 90)); });
}

const bool registered = [] {
  const std::size_t max = reopen_max();
  for (const size_case& sc : all_sizes) {
    if (sc.bytes > max) break;
    auto d = std::make_shared<documents>();
    auto ready = [sc, d] {
      if (d->users == 0) *d = build(sc);
    };
    const std::string n = sc.name;
    fl_bench::reg("json/reopen_size/" + n + "/fl", [ready, d](benchmark::State& st) {
      ready();
      bm_reopen_fl(st, d);
    })->UseRealTime();
    fl_bench::reg("json/reopen_size/" + n + "/simdjson", [ready, d](benchmark::State& st) {
      ready();
      bm_reopen_simdjson(st, d);
    })->UseRealTime();
    fl_bench::reg("json/pointer_read/" + n + "/fl", [ready, d](benchmark::State& st) {
      ready();
      bm_pointer_read_fl(st, d);
    });
    fl_bench::reg("json/edit_sync_size/" + n + "/fl", [ready, d](benchmark::State& st) {
      ready();
      bm_edit_sync_fl(st, d);
    })->UseRealTime();
  }
  benchmark::AddCustomContext(
      "json/reopen_size sizes",
      max < all_sizes[std::size(all_sizes) - 1].bytes
          ? "1mb 16mb (FL_BENCH_REOPEN_MAX=100mb or 1gb adds the larger sizes)"
          : "1mb 16mb 100mb 1gb");
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
