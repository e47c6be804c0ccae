// tests/fuzz/fuzz_input.hpp: what the libFuzzer targets share: a reader
// that turns the fuzzer's bytes into operation fields and texts (zeros and
// short texts once the input runs out), and the check that stops a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace fl_fuzz {

struct reader {
  const std::uint8_t* p;
  std::size_t left;

  std::uint8_t byte() {
    if (left == 0) return 0;
    --left;
    return *p++;
  }
  // The next min(n, left) bytes as text.
  std::string_view text(std::size_t n) {
    n = n < left ? n : left;
    const std::string_view t(reinterpret_cast<const char*>(p), n);
    p += n;
    left -= n;
    return t;
  }
};

// A failed check aborts, which libFuzzer reports with the input that did it.
inline void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace fl_fuzz
