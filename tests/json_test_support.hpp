// tests/json_test_support.hpp: what the json_store tests share: a scratch
// directory removed at the end of the test, file helpers, and the benchmark
// documents (FL_JSON_DATA_DIR, set by json_*_test.cmake).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <stdlib.h>

namespace fl_test {

class scratch_dir {
 public:
  scratch_dir() {
    std::string t = (std::filesystem::temp_directory_path() / "fl_json_testXXXXXX").string();
    if (!::mkdtemp(t.data())) std::abort();
    dir_ = t;
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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
    if (std::filesystem::exists(p)) return read_bytes(p);
  }
#ifdef FL_JSON_DATA_DIR
  const std::filesystem::path p = std::filesystem::path(FL_JSON_DATA_DIR) / name;
  if (std::filesystem::exists(p)) return read_bytes(p);
#endif
  (void)name;
  return std::nullopt;
}

}  // namespace fl_test
