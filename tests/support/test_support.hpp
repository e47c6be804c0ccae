// tests/support/test_support.hpp: what the test programs share, compiled once
// into the fl_test_support library (tests/support/test_support.cpp) that every
// test program links: the run's seed, random text, allocation counting (pool
// blocks, and an allocator that logs every block), and temporary files and
// directories. A helper a second test needs goes here, not into a copy.
//
// Threads: test_seed() and the generators may be called from any thread (each
// thread passes its own engine); alloc_log is for single-threaded tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fl_test {

// The seed of the randomized tests: FL_TEST_SEED (decimal) when set, else the
// clock. Read once per program, so every test of a run, and every failure
// message that prints it, names the same seed, and FL_TEST_SEED=<it>
// replays the run.
std::uint64_t test_seed();

// `n` bytes, each `first + rng() % alphabet`; with alphabet >= 256, any byte
// ('\0' included). A small alphabet makes searches hit and partial matches
// common; the defaults give arbitrary bytes.
std::string random_text(std::mt19937_64& rng, std::size_t n, unsigned alphabet = 256,
                        unsigned char first = 0);

// `n` bytes drawn uniformly from `alphabet` (non-empty; it may hold '\0').
std::string random_text(std::mt19937_64& rng, std::size_t n, std::string_view alphabet);

// Lines until the text holds at least `n` bytes: each of `rng() % max_len`
// bytes or a little more, of pieces drawn from `pieces`, then `rare_end`
// one time in `rare_every` (drawn per line) and `end` otherwise.
std::string random_lines(std::mt19937_64& rng, std::size_t n,
                         const std::vector<std::string_view>& pieces, std::size_t max_len,
                         std::string_view end, std::string_view rare_end, unsigned rare_every);

// A run of one random letter: `rng() % max_len` copies (max_len > 0) of
// `first + rng() % 26`, drawn in that order.
std::string random_run(std::mt19937_64& rng, std::size_t max_len, char first);

// Blocks the calling thread has taken from the pool so far (cache hits plus
// misses): the difference across a call is the number of allocations it made.
std::uint64_t pool_allocations();

// The blocks counting_allocator has handed out and not yet taken back (address
// to size in elements), how many it has handed out in all, and how many
// deallocations named a block it did not hand out or the wrong size.
struct alloc_log {
  static inline std::map<const void*, std::size_t> live;
  static inline std::size_t allocations = 0;
  static inline std::size_t mismatched_frees = 0;
};

// std::allocator that records every block in alloc_log, so a test can see how
// many allocations a container made and how large each block is.
template <class T>
struct counting_allocator {
  using value_type = T;
  using is_always_equal = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  counting_allocator() = default;
  template <class U>
  counting_allocator(const counting_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    alloc_log::live[p] = n;
    ++alloc_log::allocations;
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept {
    auto it = alloc_log::live.find(p);
    if (it == alloc_log::live.end() || it->second != n) ++alloc_log::mismatched_frees;
    if (it != alloc_log::live.end()) alloc_log::live.erase(it);
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const counting_allocator<U>&) const noexcept {
    return true;
  }
};

// A fresh directory under the system's temporary directory ($TMPDIR or /tmp),
// named `<prefix>XXXXXX`, removed with everything in it when the object goes.
// Throws std::system_error when it cannot be made.
class temp_dir {
 public:
  explicit temp_dir(std::string_view prefix = "fl_test_");
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir();

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A fresh, empty file in a directory of its own (a temp_dir), open for
// reading and writing as `fd()`; closed and removed when the object goes.
// Throws std::system_error when it cannot be made.
class temp_file {
 public:
  explicit temp_file(std::string_view prefix = "fl_test_");
  ~temp_file();

  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  temp_dir dir_;
  std::filesystem::path path_;
  int fd_;
};

// The whole content of the file at `p`, read with the standard library (not
// with fl), so a test can check fl's output against it. Throws
// std::runtime_error when the file cannot be opened.
std::string read_whole_file(const std::filesystem::path& p);

}  // namespace fl_test
