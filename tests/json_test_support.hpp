// tests/json_test_support.hpp: what the json_store tests share beyond
// test_support.hpp (temp_dir, read_whole_file): writing a file's bytes, the
// benchmark documents, real or generated, and what one edit's commit costs.
#pragma once

#include <fl/json_store.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "json_documents.hpp"
#include "test_support.hpp"

namespace fl_test {

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The text of a real benchmark document (twitter.json, citm_catalog.json), or
// nullopt when it is not found: FL_JSON_DATA in the environment names its
// directory, else the data directory beside the source tree
// (FL_JSON_DATA_DIR, set by json_*_test.cmake).
inline std::optional<std::string> json_document(const std::string& name) {
  if (const char* d = std::getenv("FL_JSON_DATA"); d != nullptr && *d != '\0') {
    const std::filesystem::path p = std::filesystem::path(d) / name;
    if (std::filesystem::exists(p)) return read_whole_file(p);
  }
#ifdef FL_JSON_DATA_DIR
  const std::filesystem::path p = std::filesystem::path(FL_JSON_DATA_DIR) / name;
  if (std::filesystem::exists(p)) return read_whole_file(p);
#endif
  return std::nullopt;
}

// One document a test runs over: where it comes from and its text.
struct test_document {
  std::string name;  // "twitter.json" (real) or "generated twitter.json"
  std::string text;
  bool generated;
};

// The documents of the kind of `name` (twitter.json or citm_catalog.json):
// the generator's stand-in always, so a fresh clone checks the same, and the
// real document too when it is found.
inline std::vector<test_document> json_documents_like(const std::string& name) {
  std::vector<test_document> out;
  out.push_back(
      {"generated " + name, name == "twitter.json" ? generated_twitter() : generated_citm(), true});
  if (auto real = json_document(name)) out.push_back({name, std::move(*real), false});
  return out;
}

// What one edit and its commit cost a store: the growth of its live bytes
// (blocks the edit added, less those the commit reused) and the pages the
// commit wrote (mapped_space's last_sync_pages). The tests of trees bound
// both, which is what makes an edit O(log n).
struct commit_cost {
  std::uint64_t grown_bytes = 0;
  std::uint64_t pages = 0;
};
template <class Edit>
commit_cost cost_of_commit(fl::json_store& s, Edit&& edit) {
  const std::uint64_t before = s.stats().used_bytes;
  edit(s);
  s.sync();
  const fl::space_stats after = s.stats();
  return {after.used_bytes - std::min(after.used_bytes, before), after.last_sync_pages};
}

}  // namespace fl_test
