// bench/json_api_bench.cpp: section json/, the typed and patch API of
// fl::json_store against nlohmann::json doing the same durable work.
//
// Cases:
//   patch_<twitter doc>  a 10-operation RFC 6902 patch (replace, test, add,
//                 copy, move, remove; the values change every iteration)
//                 applied and made durable. fl: apply_patch + sync; nlohmann:
//                 parse the current text, patch(), dump, write a temporary
//                 file, fsync, rename, fsync the directory (the same crash
//                 guarantee).
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

void bm_patch_fl(benchmark::State& st, std::string name) {
  if (!have(st, name)) return;
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
  }
  fl_bench::reg("json/build_settings/fl", bm_build_settings_fl)->UseRealTime();
  fl_bench::reg("json/build_settings/nlohmann", bm_build_settings_nlohmann)->UseRealTime();
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
