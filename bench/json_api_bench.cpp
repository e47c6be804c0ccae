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

#include <fl/json_store.hpp>

#include <nlohmann/json.hpp>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
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
  }
  fl_bench::reg("json/build_settings/fl", bm_build_settings_fl)->UseRealTime();
  fl_bench::reg("json/build_settings/nlohmann", bm_build_settings_nlohmann)->UseRealTime();
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
