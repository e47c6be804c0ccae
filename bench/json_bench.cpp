// bench/json_bench.cpp: section json/, fl::json_store against nlohmann::json,
// simdjson (DOM) and RapidJSON on two real documents.
//
// Inputs: twitter.json (631,515 bytes) and citm_catalog.json (1,727,204 bytes)
// from ../shared/data/json beside the source tree (FL_JSON_DATA in the
// environment overrides); a case whose document is missing reports an error
// naming the path instead of a time. Store and text files go to a scratch
// directory under $TMPDIR or /tmp, removed at exit.
//
// Cases:
//   import_<doc>       text in memory -> a usable document. fl: json_store::import
//                      (parsed and built in its store file, not synced: the
//                      commit is what edit_sync measures); peers: parse (the
//                      simdjson parser object is reused, as simdjson advises).
//   reopen_<doc>       a program that saved the document earlier opens it and
//                      reads one value deep inside. fl: json_store::open + find;
//                      peers: read the text file, parse, read the same value.
//   pointer_lookup_twitter  1,000 RFC 6901 lookups (pointer strings picked with
//                      a seeded generator from every value of the document) on
//                      an open document; every library gets the pointer as a
//                      string (nlohmann::json_pointer, rapidjson::Pointer and
//                      simdjson's at_pointer parse it per lookup, as fl does).
//   dump_twitter       the whole document to compact JSON text.
//   edit_sync_twitter  change one number (/statuses/0/retweet_count) and make it
//                      durable. fl: set + sync; peers: change it, serialize the
//                      whole text, write a temporary file, fsync, rename,
//                      fsync the directory (the same crash guarantee). simdjson's
//                      DOM is read-only, so its peer finds the number's bytes
//                      with the On Demand API and splices the text instead of
//                      serializing: the cheapest whole-file rewrite.
// "Faster" is less time per operation; import/reopen/dump report GB/s of the
// document text.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "json_pointers.hpp"

#include <fl/json_store.hpp>

#include <nlohmann/json.hpp>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <simdjson.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

fs::path data_dir() {
  if (const char* e = std::getenv("FL_JSON_DATA"); e != nullptr && *e != '\0') return e;
  return FL_BENCH_JSON_DATA_DIR;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The document's text, read once; nullopt when it is missing.
const std::optional<std::string>& document(const std::string& name) {
  static std::optional<std::string> twitter, citm;
  static bool loaded = false;
  if (!loaded) {
    loaded = true;
    if (fs::exists(data_dir() / "twitter.json")) twitter = slurp(data_dir() / "twitter.json");
    if (fs::exists(data_dir() / "citm_catalog.json"))
      citm = slurp(data_dir() / "citm_catalog.json");
  }
  return name == "twitter" ? twitter : citm;
}

bool have(benchmark::State& st, const std::string& name) {
  if (document(name)) return true;
  const std::string file = name == "twitter" ? "twitter.json" : "citm_catalog.json";
  st.SkipWithError((file + " not found in " + data_dir().string()).c_str());
  return false;
}

const fs::path& scratch() {
  static struct dir {
    fs::path p;
    dir() {
      std::string t = (fs::temp_directory_path() / "fl_json_benchXXXXXX").string();
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

// A value deep inside each document, read by every reopen peer.
std::string deep_pointer(const std::string& name) {
  return name == "twitter" ? "/statuses/99/user/screen_name"
                           : "/performances/200/seatCategories/0/areas/0/areaId";
}

// The fsync-rename commit that every peer of edit_sync uses.
void write_durably(const fs::path& path, std::string_view text) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("open failed");
  const char* p = text.data();
  std::size_t n = text.size();
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("write failed");
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) throw std::runtime_error("fsync failed");
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("rename failed");
  const int d = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ::fsync(d);
  ::close(d);
}

// ---- import ----

void bm_import_fl(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const std::string& text = *document(name);
  const fs::path file = scratch() / ("import_" + name + ".fljson");
  for (auto _ : st) {
    auto s = fl::json_store::import(text, file);
    benchmark::DoNotOptimize(s.root().size());
  }
  fl_bench::set_bytes(st, text.size());
}

void bm_import_nlohmann(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const std::string& text = *document(name);
  for (auto _ : st) {
    nlohmann::json j = nlohmann::json::parse(text);
    benchmark::DoNotOptimize(j.size());
  }
  fl_bench::set_bytes(st, text.size());
}

void bm_import_simdjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const std::string& text = *document(name);
  simdjson::dom::parser parser;
  for (auto _ : st) {
    simdjson::dom::element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS) st.SkipWithError("simdjson parse failed");
    benchmark::DoNotOptimize(doc);
  }
  fl_bench::set_bytes(st, text.size());
}

void bm_import_rapidjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const std::string& text = *document(name);
  for (auto _ : st) {
    rapidjson::Document d;
    d.Parse(text.data(), text.size());
    benchmark::DoNotOptimize(d.IsObject());
  }
  fl_bench::set_bytes(st, text.size());
}

// ---- reopen ----

void bm_reopen_fl(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = scratch() / ("reopen_" + name + ".fljson");
  fl::json_store::import(*document(name), file).sync();
  const std::string ptr = deep_pointer(name);
  for (auto _ : st) {
    auto s = fl::json_store::open(file);
    const auto v = s.find(ptr);
    if (!v) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(v->type() == fl::json_type::string ? v->as_string_view().size()
                                                                : v->as_uint64());
  }
  fl_bench::set_bytes(st, document(name)->size());
}

fs::path text_file(const std::string& name) {
  const fs::path file = scratch() / (name + ".json");
  if (!fs::exists(file)) write_durably(file, *document(name));
  return file;
}

void bm_reopen_nlohmann(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = text_file(name);
  const nlohmann::json::json_pointer ptr(deep_pointer(name));
  for (auto _ : st) {
    const nlohmann::json j = nlohmann::json::parse(slurp(file));
    benchmark::DoNotOptimize(j.at(ptr).dump().size());
  }
  fl_bench::set_bytes(st, document(name)->size());
}

void bm_reopen_simdjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = text_file(name);
  const std::string ptr = deep_pointer(name);
  simdjson::dom::parser parser;
  for (auto _ : st) {
    simdjson::dom::element doc;
    if (parser.load(file.string()).get(doc) != simdjson::SUCCESS)
      st.SkipWithError("simdjson load failed");
    simdjson::dom::element v;
    if (doc.at_pointer(ptr).get(v) != simdjson::SUCCESS) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(v);
  }
  fl_bench::set_bytes(st, document(name)->size());
}

void bm_reopen_rapidjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = text_file(name);
  const std::string ptr = deep_pointer(name);
  for (auto _ : st) {
    const std::string text = slurp(file);
    rapidjson::Document d;
    d.Parse(text.data(), text.size());
    const rapidjson::Value* v = rapidjson::Pointer(ptr.c_str()).Get(d);
    if (!v) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(v);
  }
  fl_bench::set_bytes(st, document(name)->size());
}

// ---- pointer lookups ----

// The twitter document imported into the store file `name` (in scratch())
// and synced, then opened again, as by a program that saved it earlier.
fl::json_store saved_twitter(const char* name) {
  const fs::path file = scratch() / name;
  fl::json_store::import(*document("twitter"), file).sync();
  return fl::json_store::open(file);
}

// The twitter document parsed into d.
void rapidjson_twitter(rapidjson::Document& d) {
  d.Parse(document("twitter")->data(), document("twitter")->size());
}

// The twitter document in simdjson's DOM, whose memory `parser` owns; marks
// the run failed when simdjson rejects the text.
simdjson::dom::element simdjson_twitter(benchmark::State& st, simdjson::dom::parser& parser) {
  simdjson::dom::element doc;
  if (parser.parse(*document("twitter")).get(doc) != simdjson::SUCCESS)
    st.SkipWithError("simdjson parse failed");
  return doc;
}

const std::vector<std::string>& lookup_pointers() {
  static const std::vector<std::string> picked = [] {
    std::vector<std::string> all, out;
    fl_test::collect_pointers(nlohmann::json::parse(*document("twitter")), "", all);
    fl_bench::rng r(fl_bench::salt("json/pointer_lookup"));
    for (int i = 0; i < 1000; ++i) out.push_back(all[r.below(all.size())]);
    return out;
  }();
  return picked;
}

// Times lookup(p) over the pointers of lookup_pointers(); items/s count
// lookups.
template <class Lookup>
void time_lookups(benchmark::State& st, const Lookup& lookup) {
  const auto& ptrs = lookup_pointers();
  for (auto _ : st) {
    for (const std::string& p : ptrs) lookup(p);
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(ptrs.size()));
}

void bm_lookup_fl(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  auto s = saved_twitter("lookup.fljson");
  time_lookups(st, [&](const std::string& p) {
    auto v = s.find(p);
    benchmark::DoNotOptimize(v);
  });
}

void bm_lookup_nlohmann(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  const nlohmann::json j = nlohmann::json::parse(*document("twitter"));
  time_lookups(st, [&](const std::string& p) {
    const nlohmann::json& v = j.at(nlohmann::json::json_pointer(p));
    benchmark::DoNotOptimize(&v);
  });
}

void bm_lookup_simdjson(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = simdjson_twitter(st, parser);
  time_lookups(st, [&](const std::string& p) {
    simdjson::dom::element v;
    if (doc.at_pointer(p).get(v) != simdjson::SUCCESS) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(v);
  });
}

void bm_lookup_rapidjson(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  rapidjson::Document d;
  rapidjson_twitter(d);
  time_lookups(st, [&](const std::string& p) {
    const rapidjson::Value* v = rapidjson::Pointer(p.data(), p.size()).Get(d);
    benchmark::DoNotOptimize(v);
  });
}

// ---- dump ----

// Times dump(), which returns the document as JSON text in a string (data(),
// size()); bytes/s count that text.
template <class Dump>
void time_dump(benchmark::State& st, const Dump& dump) {
  std::size_t n = 0;
  for (auto _ : st) {
    auto out = dump();
    n = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  fl_bench::set_bytes(st, n);
}

void bm_dump_fl(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  auto s = saved_twitter("dump.fljson");
  time_dump(st, [&] { return s.dump(); });
}

void bm_dump_nlohmann(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  const nlohmann::json j = nlohmann::json::parse(*document("twitter"));
  time_dump(st, [&] { return j.dump(); });
}

void bm_dump_simdjson(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = simdjson_twitter(st, parser);
  time_dump(st, [&] { return simdjson::to_string(doc); });
}

void bm_dump_rapidjson(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  rapidjson::Document d;
  rapidjson_twitter(d);
  std::size_t n = 0;
  for (auto _ : st) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    d.Accept(w);
    n = buf.GetSize();
    benchmark::DoNotOptimize(buf.GetString());
  }
  fl_bench::set_bytes(st, n);
}

// ---- edit + durable commit ----

constexpr const char* edit_pointer = "/statuses/0/retweet_count";

void bm_edit_sync_fl(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  auto s = saved_twitter("edit.fljson");
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    s.set(edit_pointer, std::to_string(++i));
    s.sync();
  }
  benchmark::DoNotOptimize(s.file_bytes());
}

void bm_edit_sync_nlohmann(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  const fs::path file = scratch() / "edit_nlohmann.json";
  nlohmann::json j = nlohmann::json::parse(*document("twitter"));
  const nlohmann::json::json_pointer ptr(edit_pointer);
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    j[ptr] = ++i;
    write_durably(file, j.dump());
  }
}

void bm_edit_sync_rapidjson(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  const fs::path file = scratch() / "edit_rapidjson.json";
  rapidjson::Document d;
  rapidjson_twitter(d);
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    rapidjson::Pointer(edit_pointer).Set(d, ++i);
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    d.Accept(w);
    write_durably(file, std::string_view(buf.GetString(), buf.GetSize()));
  }
}

void bm_edit_sync_simdjson(benchmark::State& st) {
  if (!have(st, "twitter")) return;
  const fs::path file = scratch() / "edit_simdjson.json";
  std::string text = *document("twitter");
  simdjson::ondemand::parser parser;
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    // Locate the number's bytes, splice the new text in, write it all back.
    const simdjson::padded_string padded(text);
    simdjson::ondemand::document doc = parser.iterate(padded);
    std::string_view raw;
    if (doc.at_pointer(edit_pointer).raw_json_token().get(raw) != simdjson::SUCCESS)
      st.SkipWithError("value not found");
    const std::size_t at = static_cast<std::size_t>(raw.data() - padded.data());
    std::size_t len = raw.size();
    while (len && (raw[len - 1] == ' ' || raw[len - 1] == '\n' || raw[len - 1] == '\r' ||
                   raw[len - 1] == '\t'))
      --len;
    text.replace(at, len, std::to_string(++i));
    write_durably(file, text);
  }
}

const bool registered = [] {
  for (const std::string doc : {"twitter", "citm"}) {
    fl_bench::reg("json/import_" + doc + "/fl", bm_import_fl, doc)->UseRealTime();
    fl_bench::reg("json/import_" + doc + "/nlohmann", bm_import_nlohmann, doc)->UseRealTime();
    fl_bench::reg("json/import_" + doc + "/simdjson", bm_import_simdjson, doc)->UseRealTime();
    fl_bench::reg("json/import_" + doc + "/rapidjson", bm_import_rapidjson, doc)->UseRealTime();
  }
  for (const std::string doc : {"twitter", "citm"}) {
    fl_bench::reg("json/reopen_" + doc + "/fl", bm_reopen_fl, doc)->UseRealTime();
    fl_bench::reg("json/reopen_" + doc + "/nlohmann", bm_reopen_nlohmann, doc)->UseRealTime();
    fl_bench::reg("json/reopen_" + doc + "/simdjson", bm_reopen_simdjson, doc)->UseRealTime();
    fl_bench::reg("json/reopen_" + doc + "/rapidjson", bm_reopen_rapidjson, doc)->UseRealTime();
  }
  fl_bench::reg("json/pointer_lookup_twitter/fl", bm_lookup_fl);
  fl_bench::reg("json/pointer_lookup_twitter/nlohmann", bm_lookup_nlohmann);
  fl_bench::reg("json/pointer_lookup_twitter/simdjson", bm_lookup_simdjson);
  fl_bench::reg("json/pointer_lookup_twitter/rapidjson", bm_lookup_rapidjson);
  fl_bench::reg("json/dump_twitter/fl", bm_dump_fl);
  fl_bench::reg("json/dump_twitter/nlohmann", bm_dump_nlohmann);
  fl_bench::reg("json/dump_twitter/simdjson", bm_dump_simdjson);
  fl_bench::reg("json/dump_twitter/rapidjson", bm_dump_rapidjson);
  fl_bench::reg("json/edit_sync_twitter/fl", bm_edit_sync_fl)->UseRealTime();
  fl_bench::reg("json/edit_sync_twitter/nlohmann", bm_edit_sync_nlohmann)->UseRealTime();
  fl_bench::reg("json/edit_sync_twitter/simdjson", bm_edit_sync_simdjson)->UseRealTime();
  fl_bench::reg("json/edit_sync_twitter/rapidjson", bm_edit_sync_rapidjson)->UseRealTime();
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
