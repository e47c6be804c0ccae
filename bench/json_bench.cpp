// bench/json_bench.cpp: section json/, fl::json_store against nlohmann::json,
// simdjson (DOM), RapidJSON, LMDB and SQLite on four documents.
//
// Inputs (bench/json_data.hpp): gen_twitter and gen_citm, generated from a
// fixed seed with the shape of the real documents, always run; twitter
// (twitter.json, 631,515 bytes) and citm (citm_catalog.json, 1,727,204 bytes)
// from FL_JSON_DATA or ../shared/data/json beside the source tree run when
// found, and are reported as skipped for want of data otherwise. Each case is
// named after its document. Store and text files go to a scratch directory
// under $TMPDIR or /tmp, removed at exit.
//
// Cases:
//   import_<doc>       text in memory -> a usable document. fl: json_store::import
//                      (parsed and built in its store file, not synced: the
//                      commit is what edit_sync measures); peers: parse (the
//                      simdjson parser object is reused, as simdjson advises).
//                      write_floor: no parse, no store: a new file created,
//                      the bytes an import of the document carves (its
//                      space's top) reserved (fallocate, as every growth of
//                      a store file is: posix.hpp, reserve_file) and written
//                      with one pwrite, closed and removed, as each fl
//                      import's file is: the file system's cost of any
//                      import into a new file. (Where the file system
//                      discards freed blocks synchronously, mount option
//                      `discard`, the removal dominates both rows.)
//   reopen_<doc>       a program that saved the document earlier opens it and
//                      reads one value deep inside. fl: json_store::open + find;
//                      peers: read the text file, parse, read the same value;
//                      lmdb: open the environment, get the top-level member that
//                      holds the value, find the value in it (below).
//   pointer_lookup_<twitter doc>  1,000 RFC 6901 lookups (pointer strings
//                      picked with a seeded generator from every value of the
//                      document) on an open document; every library gets the
//                      pointer as a string (nlohmann::json_pointer,
//                      rapidjson::Pointer and simdjson's at_pointer parse it per
//                      lookup, as fl does).
//   dump_<twitter doc> the whole document to compact JSON text.
//   edit_sync_<twitter doc>  change one number (/statuses/0/retweet_count) and
//                      make it durable. fl: set + sync; peers: change it,
//                      serialize the whole text, write a temporary file, fsync,
//                      rename, fsync the directory (the same crash guarantee).
//                      simdjson's DOM is read-only, so its peer finds the
//                      number's bytes with the On Demand API and splices the
//                      text instead of serializing: the cheapest whole-file
//                      rewrite. lmdb: the same splice in the one member's value
//                      (/statuses), put and committed. fdatasync: 4 KiB
//                      overwritten in a written file and flushed
//                      (bench/flush_floor.hpp), the disk's floor for any
//                      durable commit, no store (for reference only).
//                      fl_no_feed: fl keeping no change records
//                      (keep_changes(0)): what the change feed costs.
// lmdb (FL_BENCH_HAVE_LMDB) stores the document as one key per top-level
// member, each value the member's compact JSON text (bench/lmdb_peer.hpp).
// sqlite and sqlite_json (FL_BENCH_HAVE_SQLITE, bench/sqlite_peer.hpp: WAL,
// synchronous=FULL) keep it in SQLite, as a row per top-level member (sqlite)
// or as one row's JSON text (sqlite_json); reopen_<doc> opens the database
// and reads the value with json_extract, edit_sync_<doc> runs one UPDATE ...
// json_set in autocommit (below, "the SQLite peers").
// "Faster" is less time per operation; import/reopen/dump report GB/s of the
// document text.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "json_data.hpp"
#include "json_pointers.hpp"
#include "flush_floor.hpp"
#include "lmdb_peer.hpp"
#include "sqlite_peer.hpp"

#include <fl/json_store.hpp>

#include <nlohmann/json.hpp>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using fl_bench::json_data::document;
static_assert(simdjson::SIMDJSON_PADDING <= fl_bench::json_data::text_slack,
              "the texts' slack lets simdjson parse them in place");
using fl_bench::json_data::have;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const fs::path& scratch() {
  static const fl_bench::scratch_dir dir("fl_json_bench");
  return dir.path();
}

// A value deep inside each document, read by every reopen peer.
std::string deep_pointer(const std::string& name) {
  return name.ends_with("twitter") ? "/statuses/99/user/screen_name"
                                   : "/performances/200/seatCategories/0/areas/0/areaId";
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

void bm_import_floor(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const std::string& text = *document(name);
  const std::uint64_t bytes =
      fl_bench::json_data::import_bytes(text, scratch() / ("floor_" + name + ".fljson"));
  const std::string data(bytes, 'x');
  const fs::path file = scratch() / ("floor_" + name + ".bin");
  for (auto _ : st)
    if (!fl_bench::json_data::write_new_file(file, bytes, data)) st.SkipWithError("write failed");
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
  if (!fs::exists(file)) fl_bench::json_data::write_durably(file, *document(name));
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

// Document `name` imported into the store file `file` (in scratch()) and
// synced, then opened again, as by a program that saved it earlier.
fl::json_store saved(const std::string& name, const std::string& file) {
  const fs::path path = scratch() / (file + "_" + name + ".fljson");
  fl::json_store::import(*document(name), path).sync();
  return fl::json_store::open(path);
}

// Document `name` parsed into d.
void rapidjson_parse(rapidjson::Document& d, const std::string& name) {
  d.Parse(document(name)->data(), document(name)->size());
}

// Document `name` in simdjson's DOM, whose memory `parser` owns; marks the
// run failed when simdjson rejects the text.
simdjson::dom::element simdjson_parse(benchmark::State& st, simdjson::dom::parser& parser,
                                      const std::string& name) {
  simdjson::dom::element doc;
  if (parser.parse(*document(name)).get(doc) != simdjson::SUCCESS)
    st.SkipWithError("simdjson parse failed");
  return doc;
}

// 1,000 pointers picked from every value of document `name`, the same for
// every library.
const std::vector<std::string>& lookup_pointers(const std::string& name) {
  static std::map<std::string, std::vector<std::string>> picked;
  if (const auto it = picked.find(name); it != picked.end()) return it->second;
  std::vector<std::string> all, out;
  fl_test::collect_pointers(nlohmann::json::parse(*document(name)), "", all);
  fl_bench::rng r(fl_bench::salt("json/pointer_lookup"));
  for (int i = 0; i < 1000; ++i) out.push_back(all[r.below(all.size())]);
  return picked.emplace(name, std::move(out)).first->second;
}

// Times lookup(p) over the pointers of lookup_pointers(name); items/s count
// lookups.
template <class Lookup>
void time_lookups(benchmark::State& st, const std::string& name, const Lookup& lookup) {
  const auto& ptrs = lookup_pointers(name);
  for (auto _ : st) {
    for (const std::string& p : ptrs) lookup(p);
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(ptrs.size()));
}

void bm_lookup_fl(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  auto s = saved(name, "lookup");
  time_lookups(st, name, [&](const std::string& p) {
    auto v = s.find(p);
    benchmark::DoNotOptimize(v);
  });
}

void bm_lookup_nlohmann(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const nlohmann::json j = nlohmann::json::parse(*document(name));
  time_lookups(st, name, [&](const std::string& p) {
    const nlohmann::json& v = j.at(nlohmann::json::json_pointer(p));
    benchmark::DoNotOptimize(&v);
  });
}

void bm_lookup_simdjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = simdjson_parse(st, parser, name);
  time_lookups(st, name, [&](const std::string& p) {
    simdjson::dom::element v;
    if (doc.at_pointer(p).get(v) != simdjson::SUCCESS) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(v);
  });
}

void bm_lookup_rapidjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  rapidjson::Document d;
  rapidjson_parse(d, name);
  time_lookups(st, name, [&](const std::string& p) {
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

void bm_dump_fl(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  auto s = saved(name, "dump");
  time_dump(st, [&] { return s.dump(); });
}

void bm_dump_nlohmann(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const nlohmann::json j = nlohmann::json::parse(*document(name));
  time_dump(st, [&] { return j.dump(); });
}

void bm_dump_simdjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = simdjson_parse(st, parser, name);
  time_dump(st, [&] { return simdjson::to_string(doc); });
}

void bm_dump_rapidjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  rapidjson::Document d;
  rapidjson_parse(d, name);
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

// Where the number at `pointer` is in `padded` (simdjson On Demand): its
// offset and length, without the whitespace after it.
std::pair<std::size_t, std::size_t> locate_number(benchmark::State& st,
                                                  simdjson::ondemand::parser& parser,
                                                  simdjson::padded_string_view padded,
                                                  std::string_view pointer) {
  simdjson::ondemand::document doc = parser.iterate(padded);
  std::string_view raw;
  if (doc.at_pointer(pointer).raw_json_token().get(raw) != simdjson::SUCCESS) {
    st.SkipWithError("value not found");
    return {0, 0};
  }
  std::size_t len = raw.size();
  while (len && (raw[len - 1] == ' ' || raw[len - 1] == '\n' || raw[len - 1] == '\r' ||
                 raw[len - 1] == '\t'))
    --len;
  return {static_cast<std::size_t>(raw.data() - padded.data()), len};
}

// fl_no_feed: the same store keeping no change records (keep_changes(0)),
// so the row beside fl's is what the change feed costs a commit; both count
// the pages each commit wrote.
void edit_sync_fl(benchmark::State& st, const std::string& name, bool feed) {
  if (!have(st, name)) return;
  auto s = saved(name, feed ? "edit" : "edit_no_feed");
  if (!feed) s.keep_changes(0);
  const std::uint64_t first = fl_bench::seed() % 1000 + 1;
  fl_bench::edit_sync_loop(
      st, s, [&](std::uint64_t k) { s.set(edit_pointer, std::to_string(first + k)); });
  benchmark::DoNotOptimize(s.file_bytes());
}
void bm_edit_sync_fl(benchmark::State& st, std::string name) { edit_sync_fl(st, name, true); }
void bm_edit_sync_fl_no_feed(benchmark::State& st, std::string name) {
  edit_sync_fl(st, name, false);
}

void bm_edit_sync_nlohmann(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = scratch() / ("edit_nlohmann_" + name + ".json");
  nlohmann::json j = nlohmann::json::parse(*document(name));
  const nlohmann::json::json_pointer ptr(edit_pointer);
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    j[ptr] = ++i;
    fl_bench::json_data::write_durably(file, j.dump());
  }
}

void bm_edit_sync_rapidjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = scratch() / ("edit_rapidjson_" + name + ".json");
  rapidjson::Document d;
  rapidjson_parse(d, name);
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    rapidjson::Pointer(edit_pointer).Set(d, ++i);
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    d.Accept(w);
    fl_bench::json_data::write_durably(file, std::string_view(buf.GetString(), buf.GetSize()));
  }
}

void bm_edit_sync_simdjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = scratch() / ("edit_simdjson_" + name + ".json");
  std::string text = *document(name);
  simdjson::ondemand::parser parser;
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    // Locate the number's bytes, splice the new text in, write it all back.
    const simdjson::padded_string padded(text);
    const auto [at, len] = locate_number(st, parser, padded, edit_pointer);
    text.replace(at, len, std::to_string(++i));
    fl_bench::json_data::write_durably(file, text);
  }
}

// The disk's floor beside them (the document plays no part).
void bm_edit_sync_floor(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  fl_bench::run_flush_floor(st, scratch() / ("edit_floor_" + name));
}

// The member of the top-level object that `pointer` names, and the rest of
// the pointer inside it (the lmdb and sqlite peers keep a key or row per
// member). The members of these documents need no unescaping.
std::pair<std::string, std::string> split_pointer(const std::string& pointer) {
  const std::size_t slash = pointer.find('/', 1);
  return {pointer.substr(1, slash - 1), slash == std::string::npos ? "" : pointer.substr(slash)};
}

#if defined(FL_BENCH_HAVE_LMDB)
// ---- the LMDB peer: one key per top-level member ----
//
// The document is stored as LMDB values: each top-level member's value as
// compact JSON text under the member's name. A lookup reads the member's
// value from the map and finds the rest of the pointer in it with simdjson On
// Demand (the value is copied into a padded buffer first: simdjson reads up
// to 64 bytes past the end, which a value at the end of the map does not
// have). An edit rewrites the one member that holds the pointer, as the
// simdjson peer rewrites the whole text: the number's bytes spliced in, the
// value put, the transaction committed (durable on return).

constexpr std::size_t lmdb_map_bytes = std::size_t{256} << 20;

// Document `name` stored in a new LMDB file under scratch(); returns the file.
fs::path lmdb_store(const std::string& name, const std::string& file) {
  const fs::path path = scratch() / (file + "_" + name + ".mdb");
  fs::remove(path);
  fs::remove(path.string() + "-lock");
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(*document(name)).get(root) != simdjson::SUCCESS)
    throw std::runtime_error("json_bench: simdjson parse failed");
  fl_bench::lmdb::env e(path, lmdb_map_bytes);
  fl_bench::lmdb::txn t(e, 0);
  for (const auto field : root) t.put(field.key, simdjson::to_string(field.value));
  t.commit();
  return path;
}

// A copy of `value` with simdjson's padding after it, in `buf` (reused).
simdjson::padded_string_view padded_copy(std::string_view value, std::vector<char>& buf) {
  if (buf.size() < value.size() + simdjson::SIMDJSON_PADDING)
    buf.resize(value.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(buf.data(), value.data(), value.size());
  return simdjson::padded_string_view(buf.data(), value.size(), buf.size());
}

void bm_reopen_lmdb(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = lmdb_store(name, "reopen");
  const auto [member, rest] = split_pointer(deep_pointer(name));
  simdjson::ondemand::parser parser;
  std::vector<char> buf;
  for (auto _ : st) {
    const fl_bench::lmdb::env e(file, lmdb_map_bytes);
    const fl_bench::lmdb::txn t(e, MDB_RDONLY);
    simdjson::ondemand::document doc = parser.iterate(padded_copy(t.get(member), buf));
    std::string_view raw;
    if (doc.at_pointer(rest).raw_json_token().get(raw) != simdjson::SUCCESS)
      st.SkipWithError("value not found");
    benchmark::DoNotOptimize(raw.data());
  }
  fl_bench::set_bytes(st, document(name)->size());
}

void bm_edit_sync_lmdb(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = lmdb_store(name, "edit");
  const auto [member, rest] = split_pointer(edit_pointer);
  const fl_bench::lmdb::env e(file, lmdb_map_bytes);
  simdjson::ondemand::parser parser;
  std::vector<char> buf;
  std::string value;
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    fl_bench::lmdb::txn t(e, 0);
    const std::string_view old = t.get(member);
    const auto [at, len] = locate_number(st, parser, padded_copy(old, buf), rest);
    value.assign(old.substr(0, at)).append(std::to_string(++i)).append(old.substr(at + len));
    t.put(member, value);
    t.commit();
  }
}
#endif  // FL_BENCH_HAVE_LMDB

#if defined(FL_BENCH_HAVE_SQLITE)
// ---- the SQLite peers (bench/sqlite_peer.hpp: WAL, synchronous=FULL) ----
//
// sqlite_json keeps the document as the text of one row, doc(id INTEGER
// PRIMARY KEY, body TEXT); sqlite keeps a row per top-level member, obj(k
// TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID, v the member's compact JSON text
// (the rows these documents allow: their top level is an object of a few
// members, as the lmdb peer's keys). Both read with json_extract and edit
// with json_set, SQLite's own JSON functions, which parse and rewrite the
// text of the row they touch. An edit is one UPDATE in autocommit: durable
// when it returns.

// The SQLite JSON path of an RFC 6901 pointer into these documents
// ("/statuses/0/user" -> "$.statuses[0].user"): an all-digit token is an
// array index; member names here need neither unescaping nor quoting.
std::string sqlite_path(std::string_view pointer) {
  std::string out = "$";
  while (!pointer.empty()) {
    pointer.remove_prefix(1);
    const std::size_t slash = std::min(pointer.find('/'), pointer.size());
    const std::string_view token = pointer.substr(0, slash);
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == token.npos;
    out += index ? "[" : ".";
    out += token;
    if (index) out += "]";
    pointer.remove_prefix(slash);
  }
  return out;
}

// Document `name` stored in a new SQLite file under scratch(), as one row
// (rows == false) or a row per top-level member; returns the file.
fs::path sqlite_store(const std::string& name, const std::string& file, bool rows) {
  const fs::path path = scratch() / (file + "_" + name + (rows ? ".rows" : ".json") + ".sqlite");
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
  fl_bench::sqlite::db d(path);
  if (rows) {
    d.exec("CREATE TABLE obj(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID");
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    if (parser.parse(*document(name)).get(root) != simdjson::SUCCESS)
      throw std::runtime_error("json_bench: simdjson parse failed");
    d.exec("BEGIN");
    {
      fl_bench::sqlite::stmt put(d, "INSERT INTO obj(k, v) VALUES(?1, ?2)");
      for (const auto field : root) {
        const std::string value = simdjson::to_string(field.value);
        put.bind(1, field.key).bind(2, value).run();
      }
    }
    d.exec("COMMIT");
  } else {
    d.exec("CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT)");
    fl_bench::sqlite::stmt put(d, "INSERT INTO doc(id, body) VALUES(1, ?1)");
    put.bind(1, *document(name)).run();
  }
  d.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return path;
}

// reopen: open the database, prepare the read (a new process has no
// prepared statement), read the value, close.
void bm_reopen_sqlite(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = sqlite_store(name, "reopen", true);
  const auto [member, rest] = split_pointer(deep_pointer(name));
  const std::string path = sqlite_path(rest);
  for (auto _ : st) {
    const fl_bench::sqlite::db d(file, fl_bench::sqlite::db::use::read);
    fl_bench::sqlite::stmt q(d, "SELECT json_extract(v, ?1) FROM obj WHERE k = ?2");
    q.bind(1, path).bind(2, member);
    if (!q.step()) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(q.text(0).size());
  }
  fl_bench::set_bytes(st, document(name)->size());
}

void bm_reopen_sqlite_json(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = sqlite_store(name, "reopen", false);
  const std::string path = sqlite_path(deep_pointer(name));
  for (auto _ : st) {
    const fl_bench::sqlite::db d(file, fl_bench::sqlite::db::use::read);
    fl_bench::sqlite::stmt q(d, "SELECT json_extract(body, ?1) FROM doc WHERE id = 1");
    q.bind(1, path);
    if (!q.step()) st.SkipWithError("value not found");
    benchmark::DoNotOptimize(q.text(0).size());
  }
  fl_bench::set_bytes(st, document(name)->size());
}

// edit_sync: one UPDATE with json_set, prepared once, in autocommit.
void bm_edit_sync_sqlite(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = sqlite_store(name, "edit", true);
  const auto [member, rest] = split_pointer(edit_pointer);
  const std::string path = sqlite_path(rest);
  const fl_bench::sqlite::db d(file);
  fl_bench::sqlite::stmt q(d, "UPDATE obj SET v = json_set(v, ?1, ?2) WHERE k = ?3");
  std::int64_t i = static_cast<std::int64_t>(fl_bench::seed() % 1000);
  for (auto _ : st) q.bind(1, path).bind(2, ++i).bind(3, member).run();
}

void bm_edit_sync_sqlite_json(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = sqlite_store(name, "edit", false);
  const std::string path = sqlite_path(edit_pointer);
  const fl_bench::sqlite::db d(file);
  fl_bench::sqlite::stmt q(d, "UPDATE doc SET body = json_set(body, ?1, ?2) WHERE id = 1");
  std::int64_t i = static_cast<std::int64_t>(fl_bench::seed() % 1000);
  for (auto _ : st) q.bind(1, path).bind(2, ++i).run();
}
#endif  // FL_BENCH_HAVE_SQLITE

// The documents of every case: the generated ones first (always there), then
// the real ones (skipped for want of data when not found).
constexpr const char* all_documents[] = {"gen_twitter", "gen_citm", "twitter", "citm"};
constexpr const char* twitter_documents[] = {"gen_twitter", "twitter"};

const bool registered = [] {
  fl_bench::json_data::describe();
  for (const std::string doc : all_documents) {
    fl_bench::reg("json/import_" + doc + "/fl", bm_import_fl, doc)->UseRealTime();
    fl_bench::reg("json/import_" + doc + "/nlohmann", bm_import_nlohmann, doc)->UseRealTime();
    fl_bench::reg("json/import_" + doc + "/simdjson", bm_import_simdjson, doc)->UseRealTime();
    fl_bench::reg("json/import_" + doc + "/rapidjson", bm_import_rapidjson, doc)->UseRealTime();
    fl_bench::reg("json/import_" + doc + "/write_floor", bm_import_floor, doc)->UseRealTime();
  }
  for (const std::string doc : all_documents) {
    fl_bench::reg("json/reopen_" + doc + "/fl", bm_reopen_fl, doc)->UseRealTime();
    fl_bench::reg("json/reopen_" + doc + "/nlohmann", bm_reopen_nlohmann, doc)->UseRealTime();
    fl_bench::reg("json/reopen_" + doc + "/simdjson", bm_reopen_simdjson, doc)->UseRealTime();
    fl_bench::reg("json/reopen_" + doc + "/rapidjson", bm_reopen_rapidjson, doc)->UseRealTime();
#if defined(FL_BENCH_HAVE_LMDB)
    fl_bench::reg("json/reopen_" + doc + "/lmdb", bm_reopen_lmdb, doc)->UseRealTime();
#endif
#if defined(FL_BENCH_HAVE_SQLITE)
    fl_bench::reg("json/reopen_" + doc + "/sqlite", bm_reopen_sqlite, doc)->UseRealTime();
    fl_bench::reg("json/reopen_" + doc + "/sqlite_json", bm_reopen_sqlite_json, doc)
        ->UseRealTime();
#endif
  }
  for (const std::string doc : twitter_documents) {
    fl_bench::reg("json/pointer_lookup_" + doc + "/fl", bm_lookup_fl, doc);
    fl_bench::reg("json/pointer_lookup_" + doc + "/nlohmann", bm_lookup_nlohmann, doc);
    fl_bench::reg("json/pointer_lookup_" + doc + "/simdjson", bm_lookup_simdjson, doc);
    fl_bench::reg("json/pointer_lookup_" + doc + "/rapidjson", bm_lookup_rapidjson, doc);
  }
  for (const std::string doc : twitter_documents) {
    fl_bench::reg("json/dump_" + doc + "/fl", bm_dump_fl, doc);
    fl_bench::reg("json/dump_" + doc + "/nlohmann", bm_dump_nlohmann, doc);
    fl_bench::reg("json/dump_" + doc + "/simdjson", bm_dump_simdjson, doc);
    fl_bench::reg("json/dump_" + doc + "/rapidjson", bm_dump_rapidjson, doc);
  }
  for (const std::string doc : twitter_documents) {
    fl_bench::reg("json/edit_sync_" + doc + "/fl", bm_edit_sync_fl, doc)->UseRealTime();
    fl_bench::reg("json/edit_sync_" + doc + "/fl_no_feed", bm_edit_sync_fl_no_feed, doc)
        ->UseRealTime();
    fl_bench::reg("json/edit_sync_" + doc + "/nlohmann", bm_edit_sync_nlohmann, doc)
        ->UseRealTime();
    fl_bench::reg("json/edit_sync_" + doc + "/simdjson", bm_edit_sync_simdjson, doc)
        ->UseRealTime();
    fl_bench::reg("json/edit_sync_" + doc + "/rapidjson", bm_edit_sync_rapidjson, doc)
        ->UseRealTime();
#if defined(FL_BENCH_HAVE_LMDB)
    fl_bench::reg("json/edit_sync_" + doc + "/lmdb", bm_edit_sync_lmdb, doc)->UseRealTime();
#endif
#if defined(FL_BENCH_HAVE_SQLITE)
    fl_bench::reg("json/edit_sync_" + doc + "/sqlite", bm_edit_sync_sqlite, doc)->UseRealTime();
    fl_bench::reg("json/edit_sync_" + doc + "/sqlite_json", bm_edit_sync_sqlite_json, doc)
        ->UseRealTime();
#endif
    fl_bench::reg("json/edit_sync_" + doc + "/fdatasync", bm_edit_sync_floor, doc)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
