// tests/support/fault_store.hpp: what the tests of a store's faults share
// (persist_faults_test's sweep of failing file calls, persist_full_disk_test's
// size limit and full file system): a mapped_space that holds a list of 2 KiB
// notes, the list read back, and the check that a persist_error names a file
// of the store and the error.
#pragma once

#include <fl/mapped_space.hpp>
#include <fl/persist_error.hpp>
#include <fl/pstring.hpp>

#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

namespace fl_test {

struct node {
  fl::pstring text;
  fl::fptr<node> next;
};

// The text of the n-th note, 2 KiB and more, so that the space grows.
inline std::string note_text(int n) {
  return std::string(static_cast<std::size_t>(2048 + 512 * (n % 5)),
                     static_cast<char>('a' + n % 26));
}

// The notes from the root on, newest first, joined with '|'.
inline std::string list_of(const fl::mapped_space& sp) {
  std::string out;
  for (fl::fptr<node> p = sp.root<node>(); p; p = sp.get(p)->next) {
    const std::string_view t = sp.get(p)->text.view(sp);
    out += std::to_string(t.size());
    out += t.empty() ? '-' : t[0];
    out += '|';
  }
  return out;
}

// Appends note n and makes it the root (not committed).
inline void push_note(fl::mapped_space& sp, int n) {
  const fl::fptr<node> p = sp.make<node>();
  sp.get(p)->text.assign(sp, note_text(n));
  sp.get(p)->next = sp.root<node>();
  sp.set_root(p);
}

// Does `e` name a file of the store at `store` ("<store>", "<store>-log",
// "<store>.tmp-..." and the like) and the error `err`?
inline std::string check_error(const fl::persist_error& e, const std::filesystem::path& dir,
                               int err) {
  const std::string what = e.what();
  std::string problems;
  if (e.path().parent_path() != dir || what.find(e.path().string()) == std::string::npos)
    problems += " does not name a file of the store;";
  if (what.find(std::strerror(err)) == std::string::npos)
    problems += std::string(" does not name ") + std::strerror(err) + ";";
  return problems.empty() ? std::string() : "\"" + what + "\"" + problems;
}

}  // namespace fl_test
