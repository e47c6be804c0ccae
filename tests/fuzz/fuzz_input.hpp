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
  // The next two bytes as a 16-bit number, the first one low.
  std::size_t u16() {
    const std::size_t low = byte();
    return low | std::size_t{byte()} << 8;
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

// Runs step(op, in) for each step of the input: every step starts with an
// opcode byte and reads its other fields from `in` itself, until the input
// runs out.
template <class Step>
void for_each_step(const std::uint8_t* data, std::size_t size, Step step) {
  reader in{data, size};
  while (in.left > 0) {
    const std::uint8_t op = in.byte();
    step(op, in);
  }
}

// A failed check aborts, which libFuzzer reports with the input that did it.
inline void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace fl_fuzz
