// bench/json_data.hpp: the JSON documents of the json/ rows, by name, for
// every bench/*_bench.cpp that measures JSON.
//
//   gen_twitter, gen_citm  generated from a fixed seed with the shape of the
//                          real documents (tests/support/json_documents.hpp):
//                          always there, so their rows run on a fresh clone.
//   twitter, citm          the real twitter.json and citm_catalog.json, from
//                          FL_JSON_DATA in the environment or else
//                          ../shared/data/json beside the source tree
//                          (FL_BENCH_JSON_DATA_DIR); their rows run when the
//                          files are found and are skipped otherwise.
//
// A row of a missing document calls have(), which ends it with
// SkipWithError("no data: set FL_JSON_DATA ..."): report.py shows such a row
// as `skipped (no data: ...)`, not as an error. The data set's state is put in
// the results' context as "data_set/json" (report.py lists every
// "data_set/<name>" key in the report's header): a section with other inputs
// that may be missing does the same with its own name and variable.
//
// Threads: the documents are loaded on first use, from the benchmark thread.
#pragma once

#include "common.hpp"
#include "json_documents.hpp"

#include <fl/json_store.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#ifndef FL_BENCH_JSON_DATA_DIR
#define FL_BENCH_JSON_DATA_DIR "../shared/data/json"
#endif

namespace fl_bench::json_data {

// What a row without its document says; report.py keys on the "no data:" prefix.
inline constexpr const char* missing_message =
    "no data: set FL_JSON_DATA to the directory holding twitter.json and citm_catalog.json";

inline std::filesystem::path data_dir() {
  if (const char* e = std::getenv("FL_JSON_DATA"); e != nullptr && *e != '\0') return e;
  return std::filesystem::path(FL_BENCH_JSON_DATA_DIR).lexically_normal();
}

// The file of a real document, by its short name.
inline std::string file_name(const std::string& name) {
  return name == "twitter" ? "twitter.json" : "citm_catalog.json";
}

inline bool is_generated(const std::string& name) { return name.starts_with("gen_"); }

// Spare capacity every text here keeps past its end. simdjson's
// parse(const std::string&) reads a text in place when its capacity leaves
// SIMDJSON_PADDING bytes (64 in every release; json_bench.cpp checks) past
// the end, and otherwise copies it into a new padded buffer at every call: a
// cost of the benchmark's strings, not of simdjson, which advises padding.
inline constexpr std::size_t text_slack = 64;
inline std::string with_slack(std::string s) {
  s.reserve(s.size() + text_slack);
  return s;
}

// The text of document `name` (above), read or generated once, with
// text_slack; nullopt when it is a real document that is not found.
inline const std::optional<std::string>& document(const std::string& name) {
  static std::map<std::string, std::optional<std::string>> loaded;
  if (const auto it = loaded.find(name); it != loaded.end()) return it->second;
  std::optional<std::string> text;
  if (name == "gen_twitter") {
    text = fl_test::generated_twitter();
  } else if (name == "gen_citm") {
    text = fl_test::generated_citm();
  } else if (const auto p = data_dir() / file_name(name); std::filesystem::exists(p)) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  if (text) text = with_slack(std::move(*text));
  return loaded.emplace(name, std::move(text)).first->second;
}

// True when document `name` is there; otherwise ends the row as skipped for
// want of data, and the caller returns.
inline bool have(benchmark::State& st, const std::string& name) {
  if (document(name)) return true;
  st.SkipWithError(missing_message);
  return false;
}

// Records in the results' context whether the real documents were found.
// Called while the rows are registered (before the run prints its context);
// a second call does nothing.
inline void describe() {
  static bool done = false;
  if (done) return;
  done = true;
  const bool twitter = std::filesystem::exists(data_dir() / "twitter.json");
  const bool citm = std::filesystem::exists(data_dir() / "citm_catalog.json");
  std::string what;
  if (twitter && citm)
    what = "found (twitter.json, citm_catalog.json in " + data_dir().string() + ")";
  else if (twitter || citm)
    what = "partly found (only " + std::string(twitter ? "twitter.json" : "citm_catalog.json") +
           " in " + data_dir().string() + "; set FL_JSON_DATA)";
  else
    what = "not found in " + data_dir().string() + " (set FL_JSON_DATA); generated documents only";
  benchmark::AddCustomContext("data_set/json", what);
}

// The commit of a peer that keeps JSON as text, with the crash guarantee a
// json_store sync() gives: the text written to "<path>.tmp", fsync, rename
// over `path`, fsync of the directory. Throws std::runtime_error on failure.
inline void write_durably(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("open failed");
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw std::runtime_error("write failed");
    done += static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) throw std::runtime_error("fsync failed");
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("rename failed");
  const int d = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ::fsync(d);
  ::close(d);
}

// The bytes an import of `text` carves (the store's top): the size of the
// file each write_floor row writes. The import goes to `scratch_file`,
// removed after.
inline std::uint64_t import_bytes(std::string_view text, const std::filesystem::path& scratch_file) {
  std::uint64_t bytes = 0;
  {
    const auto s = fl::json_store::import(text, scratch_file);
    bytes = s.stats().top;
  }
  std::filesystem::remove(scratch_file);
  return bytes;
}

// The file system's share of an import into a new store file (the rows
// .../write_floor): `path` created, `bytes` reserved with fallocate (as every
// growth of a store file is: src/persist/posix.hpp, reserve_file), written
// from `data` (repeated while it is shorter) with as few write calls as the
// kernel takes (at most 2 GiB each), closed and removed. False on failure.
inline bool write_new_file(const std::filesystem::path& path, std::uint64_t bytes,
                           std::string_view data) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && ::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) == 0;
  for (std::uint64_t done = 0; ok && done < bytes;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, data.size()));
    const ssize_t w = ::pwrite(fd, data.data(), n, static_cast<off_t>(done));
    ok = w > 0;
    if (ok) done += static_cast<std::uint64_t>(w);
  }
  if (fd >= 0) ::close(fd);
  ::unlink(path.c_str());
  return ok;
}

}  // namespace fl_bench::json_data
