// bench/json_api_bench.cpp: section json/, the typed and patch API of
// fl::json_store against nlohmann::json and RapidJSON doing the same durable
// work.
//
// Cases:
//   patch_<twitter doc>  a 10-operation RFC 6902 patch (replace, test, add,
//                 copy, move, remove; the values change every iteration)
//                 applied and made durable. fl: apply_patch + sync; nlohmann:
//                 parse the current text, patch(), dump, write a temporary
//                 file, fsync, rename, fsync the directory (the same crash
//                 guarantee). rapidjson: the same job with the same 10
//                 operations written with rapidjson::Pointer (RapidJSON has
//                 no JSON Patch; an array "add" is a PushBack and a shift,
//                 a "move" takes the value and erases the member), dumped
//                 with rapidjson::Writer. Every operation checks what RFC
//                 6902 requires (the path exists, the test holds) and
//                 throws otherwise. Before timing, each library's result
//                 for one patch is compared with nlohmann's (as values).
//                 sqlite_json (FL_BENCH_HAVE_SQLITE): the document as one
//                 row's JSON text, the 10 operations as SQL statements with
//                 SQLite's JSON functions in one transaction (below).
//                 simdjson has no peer row: its DOM and On-Demand APIs are
//                 read-only, so it cannot apply an edit.
//   build_settings  a 50-key settings document (strings, integers, doubles,
//                 bools, small arrays) built from C++ values and committed.
//                 fl: 50 put() on an open store + sync; nlohmann: 50
//                 assignments, dump, and the same durable write.
// Documents as bench/json_bench.cpp (FL_JSON_DATA or ../shared/data/json;
// gen_twitter always runs). "Faster" is less time per operation.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "json_data.hpp"
#include "sqlite_peer.hpp"

#include <fl/json_store.hpp>

#include <nlohmann/json.hpp>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fl_bench::json_data::document;
using fl_bench::json_data::have;
using fl_bench::json_data::write_durably;

const fs::path& scratch() {
  static const fl_bench::scratch_dir dir("fl_json_api_bench");
  return dir.path();
}

// The 10-operation patch of iteration `i` (its values depend on i, so no
// iteration repeats the last one's bytes).
std::string twitter_patch(std::uint64_t i) {
  const std::string n = std::to_string(i);
  return R"([{"op":"replace","path":"/statuses/0/retweet_count","value":)" + n + "}," +
         R"({"op":"test","path":"/statuses/0/retweet_count","value":)" + n + "}," +
         R"({"op":"replace","path":"/statuses/1/favorite_count","value":)" + n + "}," +
         R"({"op":"add","path":"/statuses/2/fl_note","value":"note )" + n + "\"}," +
         R"({"op":"copy","from":"/statuses/0/user/screen_name","path":"/statuses/3/fl_name"},)" +
         R"({"op":"add","path":"/statuses/4/fl_tmp","value":[1,2,)" + n + "]}," +
         R"({"op":"move","from":"/statuses/4/fl_tmp","path":"/statuses/5/fl_tmp"},)" +
         R"({"op":"remove","path":"/statuses/5/fl_tmp"},)" +
         R"({"op":"add","path":"/statuses/6/entities/hashtags/0","value":{"text":"fl","indices":[0,)" +
         n + "]}}," + R"({"op":"remove","path":"/statuses/6/entities/hashtags/0"}])";
}

// Document `name` after patch i, as nlohmann applies it: what each peer's
// result is compared with before its timed loop.
nlohmann::json patched_by_nlohmann(const std::string& name, std::uint64_t i) {
  return nlohmann::json::parse(*document(name)).patch(nlohmann::json::parse(twitter_patch(i)));
}

void check_same(benchmark::State& st, const std::string& name, std::string_view text) {
  if (nlohmann::json::parse(text) != patched_by_nlohmann(name, 1))
    st.SkipWithError("the patched document differs from nlohmann's");
}

void bm_patch_fl(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  {
    auto s = fl::json_store::import(*document(name), scratch() / ("check_" + name + ".fljson"));
    s.apply_patch(twitter_patch(1));
    check_same(st, name, std::string_view(s.dump()));
  }
  const fs::path file = scratch() / ("patch_" + name + ".fljson");
  auto s = fl::json_store::import(*document(name), file);
  s.sync();
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    st.PauseTiming();
    const std::string patch = twitter_patch(++i);
    st.ResumeTiming();
    s.apply_patch(patch);
    s.sync();
  }
  benchmark::DoNotOptimize(s.file_bytes());
}

void bm_patch_nlohmann(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  const fs::path file = scratch() / ("patch_nlohmann_" + name + ".json");
  std::string text = *document(name);
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    st.PauseTiming();
    const nlohmann::json patch = nlohmann::json::parse(twitter_patch(++i));
    st.ResumeTiming();
    text = nlohmann::json::parse(text).patch(patch).dump();
    write_durably(file, text);
    benchmark::DoNotOptimize(text.data());
  }
}

namespace rj = rapidjson;

rj::Value& must_get(rj::Document& d, const char* ptr) {
  rj::Value* v = rj::Pointer(ptr).Get(d);
  if (v == nullptr) throw std::out_of_range(std::string("no value at ") + ptr);
  return *v;
}

// RFC 6902 "add" of member `key` to the object at `parent` (replacing a
// member of that name, in place).
void add_member(rj::Document& d, const char* parent, const char* key, rj::Value&& v) {
  rj::Value& o = must_get(d, parent);
  if (!o.IsObject()) throw std::out_of_range(std::string(parent) + " is not an object");
  const auto it = o.FindMember(key);
  if (it != o.MemberEnd())
    it->value = std::move(v);
  else
    o.AddMember(rj::Value(key, d.GetAllocator()), std::move(v), d.GetAllocator());
}

// Removes member `key` of the object at `parent`, keeping member order.
rj::Value take_member(rj::Document& d, const char* parent, const char* key) {
  rj::Value& o = must_get(d, parent);
  const auto it = o.IsObject() ? o.FindMember(key) : rj::Value::MemberIterator();
  if (!o.IsObject() || it == o.MemberEnd())
    throw std::out_of_range(std::string("no member ") + key + " in " + parent);
  rj::Value v(std::move(it->value));
  o.EraseMember(it);
  return v;
}

// twitter_patch(i), operation by operation, on a parsed document.
void patch_rapidjson(rj::Document& d, std::uint64_t i) {
  auto& a = d.GetAllocator();
  must_get(d, "/statuses/0/retweet_count").SetUint64(i);
  if (must_get(d, "/statuses/0/retweet_count") != rj::Value(static_cast<std::uint64_t>(i)))
    throw std::invalid_argument("test failed");
  must_get(d, "/statuses/1/favorite_count").SetUint64(i);
  const std::string note = "note " + std::to_string(i);
  add_member(d, "/statuses/2", "fl_note", rj::Value(note.c_str(), a));
  add_member(d, "/statuses/3", "fl_name",
             rj::Value(must_get(d, "/statuses/0/user/screen_name"), a));
  rj::Value tmp(rj::kArrayType);
  tmp.PushBack(1, a).PushBack(2, a).PushBack(static_cast<std::uint64_t>(i), a);
  add_member(d, "/statuses/4", "fl_tmp", std::move(tmp));
  add_member(d, "/statuses/5", "fl_tmp", take_member(d, "/statuses/4", "fl_tmp"));
  take_member(d, "/statuses/5", "fl_tmp");
  rj::Value tag(rj::kObjectType);
  rj::Value indices(rj::kArrayType);
  indices.PushBack(0, a).PushBack(static_cast<std::uint64_t>(i), a);
  tag.AddMember("text", "fl", a).AddMember("indices", std::move(indices), a);
  rj::Value& tags = must_get(d, "/statuses/6/entities/hashtags");
  if (!tags.IsArray()) throw std::out_of_range("hashtags is not an array");
  tags.PushBack(rj::Value(), a);  // insert at 0: shift every element up by one
  for (rj::SizeType k = tags.Size() - 1; k > 0; --k) tags[k] = std::move(tags[k - 1]);
  tags[0] = std::move(tag);
  if (tags.Empty()) throw std::out_of_range("no element 0");
  tags.Erase(tags.Begin());
}

std::string dump_rapidjson(const rj::Document& d) {
  rj::StringBuffer buf;
  rj::Writer<rj::StringBuffer> w(buf);
  d.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

void parse_rapidjson(rj::Document& d, const std::string& text) {
  d.Parse(text.data(), text.size());
  if (d.HasParseError()) throw std::runtime_error("rapidjson parse failed");
}

void bm_patch_rapidjson(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  {
    rj::Document d;
    parse_rapidjson(d, *document(name));
    patch_rapidjson(d, 1);
    check_same(st, name, dump_rapidjson(d));
  }
  const fs::path file = scratch() / ("patch_rapidjson_" + name + ".json");
  std::string text = *document(name);
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) {
    rj::Document d;
    parse_rapidjson(d, text);
    patch_rapidjson(d, ++i);
    text = dump_rapidjson(d);
    write_durably(file, text);
    benchmark::DoNotOptimize(text.data());
  }
}

#if defined(FL_BENCH_HAVE_SQLITE)
// ---- sqlite_json: the patch with SQLite's JSON functions ----
//
// The document is one row's JSON text, doc(id INTEGER PRIMARY KEY, body TEXT)
// (bench/sqlite_peer.hpp: WAL, synchronous=FULL). SQLite has no JSON Patch, so
// the 10 operations are the statements a user writes, prepared once, in one
// transaction (all or nothing; durable at COMMIT): json_set for replace and
// add to an object, json_remove for remove, json_set of json_extract for copy
// and move, and, for the add at an array's front (no JSON path of SQLite's
// inserts there), the array rebuilt from json_each with the new element
// first. Each operation first checks what RFC 6902 requires (the path or its
// parent is there, the test holds) with a SELECT and throws otherwise, as the
// rapidjson peer does; every statement parses the row's whole text (SQLite
// 3.40 keeps no parsed form between statements).
class sqlite_patcher {
 public:
  explicit sqlite_patcher(const fs::path& file) : db_(file) {}

  // twitter_patch(i), all of it or (after a throw) none of it.
  void apply(std::uint64_t i) {
    db_.exec("BEGIN");
    try {
      const auto n = static_cast<std::int64_t>(i);
      must_exist("$.statuses[0].retweet_count");
      set_.bind(1, "$.statuses[0].retweet_count").bind(2, n).run();
      test_.bind(1, "$.statuses[0].retweet_count").bind(2, n);
      const bool held = test_.step() && test_.int64(0) == 1;
      test_.reset();
      if (!held) throw std::invalid_argument("sqlite_json: test failed");
      must_exist("$.statuses[1].favorite_count");
      set_.bind(1, "$.statuses[1].favorite_count").bind(2, n).run();
      must_exist("$.statuses[2]");
      const std::string note = "note " + std::to_string(i);
      set_.bind(1, "$.statuses[2].fl_note").bind(2, note).run();
      must_exist("$.statuses[0].user.screen_name");
      must_exist("$.statuses[3]");
      copy_.bind(1, "$.statuses[0].user.screen_name").bind(2, "$.statuses[3].fl_name").run();
      must_exist("$.statuses[4]");
      const std::string tmp = "[1,2," + std::to_string(i) + "]";
      set_json_.bind(1, "$.statuses[4].fl_tmp").bind(2, tmp).run();
      must_exist("$.statuses[4].fl_tmp");
      must_exist("$.statuses[5]");
      move_.bind(1, "$.statuses[4].fl_tmp").bind(2, "$.statuses[5].fl_tmp").run();
      must_exist("$.statuses[5].fl_tmp");
      remove_.bind(1, "$.statuses[5].fl_tmp").run();
      must_exist("$.statuses[6].entities.hashtags");
      const std::string tag = R"({"text":"fl","indices":[0,)" + std::to_string(i) + "]}";
      push_front_.bind(1, "$.statuses[6].entities.hashtags").bind(2, tag).run();
      must_exist("$.statuses[6].entities.hashtags[0]");
      remove_.bind(1, "$.statuses[6].entities.hashtags[0]").run();
    } catch (...) {
      db_.exec("ROLLBACK");
      throw;
    }
    db_.exec("COMMIT");
  }

  std::string body() {
    fl_bench::sqlite::stmt q(db_, "SELECT body FROM doc WHERE id = 1");
    if (!q.step()) throw std::runtime_error("sqlite_json: no document row");
    return std::string(q.text(0));
  }

 private:
  void must_exist(const char* path) {
    exists_.bind(1, path);
    const bool there = exists_.step() && exists_.int64(0) == 1;
    exists_.reset();
    if (!there) throw std::out_of_range(std::string("sqlite_json: no value at ") + path);
  }

  fl_bench::sqlite::db db_;
  using stmt = fl_bench::sqlite::stmt;
  stmt exists_{db_, "SELECT json_type(body, ?1) IS NOT NULL FROM doc WHERE id = 1"};
  stmt test_{db_, "SELECT json_extract(body, ?1) = ?2 FROM doc WHERE id = 1"};
  stmt set_{db_, "UPDATE doc SET body = json_set(body, ?1, ?2) WHERE id = 1"};
  stmt set_json_{db_, "UPDATE doc SET body = json_set(body, ?1, json(?2)) WHERE id = 1"};
  stmt remove_{db_, "UPDATE doc SET body = json_remove(body, ?1) WHERE id = 1"};
  stmt copy_{db_, "UPDATE doc SET body = json_set(body, ?2, json_extract(body, ?1)) WHERE id = 1"};
  stmt move_{db_,
             "UPDATE doc SET body = json_set(json_remove(body, ?1), ?2, json_extract(body, ?1)) "
             "WHERE id = 1"};
  // The elements go through a sorter, which drops the JSON subtype of
  // containers, so each is turned back into JSON by its type.
  stmt push_front_{db_,
                   "UPDATE doc SET body = json_set(body, ?1, (SELECT json_group_array("
                   "CASE t WHEN 'object' THEN json(v) WHEN 'array' THEN json(v) "
                   "WHEN 'true' THEN json('true') WHEN 'false' THEN json('false') "
                   "WHEN 'null' THEN json('null') ELSE v END) FROM "
                   "(SELECT ?2 AS v, 'object' AS t, -1 AS o UNION ALL "
                   "SELECT value, type, key FROM json_each(doc.body, ?1) ORDER BY o))) "
                   "WHERE id = 1"};
};

// A new sqlite_json database holding document `name` under scratch().
fs::path sqlite_json_store(const std::string& name, const std::string& file) {
  const fs::path path = scratch() / (file + "_" + name + ".sqlite");
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
  fl_bench::sqlite::db d(path);
  d.exec("CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT)");
  fl_bench::sqlite::stmt put(d, "INSERT INTO doc(id, body) VALUES(1, ?1)");
  put.bind(1, *document(name)).run();
  d.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return path;
}

void bm_patch_sqlite_json(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
  {
    sqlite_patcher check(sqlite_json_store(name, "check_sqlite"));
    check.apply(1);
    check_same(st, name, check.body());
  }
  sqlite_patcher p(sqlite_json_store(name, "patch_sqlite"));
  std::uint64_t i = fl_bench::seed() % 1000;
  for (auto _ : st) p.apply(++i);
}
#endif  // FL_BENCH_HAVE_SQLITE

// Key k of the settings document and its value in iteration i, by type.
std::string key(int k) { return "setting_" + std::to_string(k); }

void bm_build_settings_fl(benchmark::State& st) {
  const fs::path file = scratch() / "settings.fljson";
  fs::remove(file);
  auto s = fl::json_store::create(file);
  std::int64_t i = static_cast<std::int64_t>(fl_bench::seed() % 1000);
  for (auto _ : st) {
    ++i;
    for (int k = 0; k < 50; ++k) {
      switch (k % 5) {
        case 0: s.put("/" + key(k), "value " + std::to_string(i)); break;
        case 1: s.put("/" + key(k), i * k); break;
        case 2: s.put("/" + key(k), static_cast<double>(i) / (k + 1)); break;
        case 3: s.put("/" + key(k), (i + k) % 2 == 0); break;
        default: s.put("/" + key(k), std::vector<std::int64_t>{i, k, i + k}); break;
      }
    }
    s.sync();
  }
  benchmark::DoNotOptimize(s.file_bytes());
}

void bm_build_settings_nlohmann(benchmark::State& st) {
  const fs::path file = scratch() / "settings_nlohmann.json";
  nlohmann::json j = nlohmann::json::object();
  std::int64_t i = static_cast<std::int64_t>(fl_bench::seed() % 1000);
  for (auto _ : st) {
    ++i;
    for (int k = 0; k < 50; ++k) {
      switch (k % 5) {
        case 0: j[key(k)] = "value " + std::to_string(i); break;
        case 1: j[key(k)] = i * k; break;
        case 2: j[key(k)] = static_cast<double>(i) / (k + 1); break;
        case 3: j[key(k)] = (i + k) % 2 == 0; break;
        default: j[key(k)] = std::vector<std::int64_t>{i, k, i + k}; break;
      }
    }
    write_durably(file, j.dump());
  }
}

const bool registered = [] {
  for (const std::string doc : {"gen_twitter", "twitter"}) {
    fl_bench::reg("json/patch_" + doc + "/fl", bm_patch_fl, doc)->UseRealTime();
    fl_bench::reg("json/patch_" + doc + "/nlohmann", bm_patch_nlohmann, doc)->UseRealTime();
    fl_bench::reg("json/patch_" + doc + "/rapidjson", bm_patch_rapidjson, doc)->UseRealTime();
#if defined(FL_BENCH_HAVE_SQLITE)
    fl_bench::reg("json/patch_" + doc + "/sqlite_json", bm_patch_sqlite_json, doc)
        ->UseRealTime();
#endif
  }
  fl_bench::reg("json/build_settings/fl", bm_build_settings_fl)->UseRealTime();
  fl_bench::reg("json/build_settings/nlohmann", bm_build_settings_nlohmann)->UseRealTime();
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
