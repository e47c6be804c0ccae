// tests/support/test_support.cpp: the compiled half of fl_test_support (see
// test_support.hpp).
#include "test_support.hpp"

#include <fl/pool.hpp>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

namespace fl_test {

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("FL_TEST_SEED"))
      return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return seed;
}

std::string random_text(std::mt19937_64& rng, std::size_t n, unsigned alphabet,
                        unsigned char first) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(alphabet >= 256 ? rng() % 256 : first + rng() % alphabet);
  return s;
}

std::string random_text(std::mt19937_64& rng, std::size_t n, std::string_view alphabet) {
  std::string s(n, '\0');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

std::string random_lines(std::mt19937_64& rng, std::size_t n,
                         const std::vector<std::string_view>& pieces, std::size_t max_len,
                         std::string_view end, std::string_view rare_end, unsigned rare_every) {
  std::string s;
  s.reserve(n + max_len + 16);
  while (s.size() < n) {
    const std::size_t line_end = s.size() + rng() % max_len;
    while (s.size() < line_end) s += pieces[rng() % pieces.size()];
    s += rng() % rare_every == 0 ? rare_end : end;
  }
  return s;
}

std::string random_run(std::mt19937_64& rng, std::size_t max_len, char first) {
  const std::size_t n = rng() % max_len;
  return std::string(n, static_cast<char>(first + rng() % 26));
}

std::uint64_t pool_allocations() {
  const fl::pool_statistics st = fl::pool_stats();
  return st.hits + st.misses;
}

temp_dir::temp_dir(std::string_view prefix) {
  std::string name =
      (std::filesystem::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(name.data()) == nullptr)
    throw std::system_error(errno, std::system_category(), "mkdtemp " + name);
  path_ = name;
}

temp_dir::~temp_dir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

temp_file::temp_file(std::string_view prefix) : dir_(prefix), path_(dir_ / "file") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::system_error(errno, std::system_category(), "open " + path_.string());
}

temp_file::~temp_file() { ::close(fd_); }

std::string read_whole_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace fl_test
