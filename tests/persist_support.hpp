// tests/persist_support.hpp: what the persistence tests share: a scratch
// directory per test program, whole-file reads and writes, and running a
// check in a child process (so that a crash is a failed check, not the end
// of the test program).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include <sys/wait.h>

namespace fl_test {

// A fresh directory under $TMPDIR (or /tmp), removed with its files when the
// object goes.
class scratch_dir {
 public:
  scratch_dir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/fl_persist_XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::vector<unsigned char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The size of the redo log beside the space or store at `data` ("<data>-log"),
// 0 when there is none.
inline std::uintmax_t log_bytes(const std::filesystem::path& data) {
  std::error_code ec;
  const std::uintmax_t n = std::filesystem::file_size(data.string() + "-log", ec);
  return ec ? 0 : n;
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<unsigned char>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Starts `fn` in a forked child, whose exit status is the value `fn`
// returns (98 if it throws).
inline pid_t start_child(const std::function<int()>& fn) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) std::abort();
  if (pid == 0) {
    int rc = 99;
    try {
      rc = fn();
    } catch (...) { rc = 98; }
    std::fflush(nullptr);
    ::_exit(rc);
  }
  return pid;
}

// Waits for a child start_child() made: its exit status, or 128 + the
// signal that ended it.
inline int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {}
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// Runs `fn` in a forked child and returns its exit status (wait_child).
inline int run_in_child(const std::function<int()>& fn) { return wait_child(start_child(fn)); }

}  // namespace fl_test
