// tests/json_test_support.hpp: what the json_store tests share beyond
// test_support.hpp (temp_dir, read_whole_file): writing a file's bytes and the
// benchmark documents (FL_JSON_DATA_DIR, set by json_*_test.cmake).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "test_support.hpp"

namespace fl_test {

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The text of a benchmark document (twitter.json, citm_catalog.json), or
// nullopt when the data directory is not beside the source tree.
//
// FL_JSON_DATA in the environment names another directory.
inline std::optional<std::string> json_document(const std::string& name) {
  if (const char* d = std::getenv("FL_JSON_DATA")) {
    const std::filesystem::path p = std::filesystem::path(d) / name;
    if (std::filesystem::exists(p)) return read_whole_file(p);
  }
#ifdef FL_JSON_DATA_DIR
  const std::filesystem::path p = std::filesystem::path(FL_JSON_DATA_DIR) / name;
  if (std::filesystem::exists(p)) return read_whole_file(p);
#endif
  (void)name;
  return std::nullopt;
}

}  // namespace fl_test
