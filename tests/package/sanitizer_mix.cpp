// A program built with different sanitizer flags than the fl it links: with
// ASan against a plain fl (tests/package/sanitizer, after install), and plain
// against an ASan fl (target sanitizer_mix_plain in the ASan build). Pool blocks
// cross the boundary both ways: freed by inline code compiled into this program
// and reused inside libfl (fl::read_file's buffer, filled by read()), and freed
// inside libfl (the C API's growth and free) and reused by inline code here
// (then read by fl::write_file's write()). The pool's poisoning follows how
// libfl was built, never this program's flags, so neither direction may give
// a sanitizer report; a report aborts the run (halt_on_error).
//
// Usage: sanitizer_mix <scratch directory>
#include <fl/fl.h>
#include <fl/fl.hpp>

#include <cstdio>
#include <cstring>
#include <string>

#include <unistd.h>

namespace {

int failures = 0;

void check(bool ok, const char* what, std::size_t n) {
  if (!ok) {
    std::fprintf(stderr, "sanitizer_mix: %s failed at size %zu\n", what, n);
    ++failures;
  }
}

// n bytes that depend on n and the position, so a stale block is noticed.
std::string pattern(std::size_t n, char base) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(base + (i * 7 + n) % 26);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <scratch directory>\n", argv[0]);
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/fl_sanitizer_mix_" + std::to_string(getpid());

  // Every cached size class (up to 8 KiB) and a few sizes past it.
  for (std::size_t n = 1; n <= 9000; n += n < 256 ? 5 : 89) {
    // 1. Freed here, reused in libfl: read_file allocates its buffer from the
    //    classes these strings just returned, and read() writes into it.
    const std::string want = pattern(n, 'a');
    for (std::size_t k = 0; k < 4; ++k) {
      fl::string a(n, 'x');
      fl::string b(n + 1 + k, 'y');
      check(a.size() == n && b[n] == 'y', "local strings", n);
    }
    fl::write_file(path.c_str(), want);
    fl::string got = fl::read_file(path.c_str());
    check(got.size() == n && std::memcmp(got.data(), want.data(), n) == 0, "read_file", n);

    // 2. Freed in libfl, reused here: the C API grows and frees inside the
    //    library; the next strings of those classes are built inline here
    //    and handed back to libfl, whose write() reads them.
    fl_str s = FL_STR_INIT;
    while (fl_str_len(&s) < n)
      check(fl_str_append(&s, "0123456789abcdef") == FL_OK, "fl_str_append", n);
    fl_str_free(&s);
    const std::string want2 = pattern(n, 'A');
    fl::string mine(want2.data(), want2.size());
    fl::string copy = mine;
    copy += got;
    fl::write_file(path.c_str(), mine);
    check(fl::read_file(path.c_str()) == mine, "write_file of a reused block", n);
    check(copy.size() == 2 * n && std::memcmp(copy.data() + n, want.data(), n) == 0, "append", n);

    // 3. Strings made in libfl and destroyed here, and the other way round.
    fl::string joined = fl::concat(got, "-", mine);
    check(joined.size() == 2 * n + 1 && joined[n] == '-', "concat", n);
    fl::rope r(joined);
    r += mine;
    check(r.size() == 3 * n + 1, "rope", n);
  }
  fl::pool_trim();
  std::remove(path.c_str());
  std::puts(failures == 0 ? "fl sanitizer mix ok" : "fl sanitizer mix BROKEN");
  return failures == 0 ? 0 : 1;
}
