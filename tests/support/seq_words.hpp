// tests/support/seq_words.hpp: the value the persistence crash and power-loss
// tests save over and over: every word derives from a sequence number, so a
// torn save (some words of one value, some of another) is caught by intact().
#pragma once

#include <cstddef>
#include <cstdint>

namespace fl_test {

// N words after the sequence number; trivially copyable, as fl::persist<T>
// requires. The size is the test's choice (how many sectors a save spans).
template <std::size_t N>
struct seq_words {
  std::uint64_t seq;
  std::uint64_t words[N];

  static constexpr std::uint64_t word(std::uint64_t s, std::uint64_t i) noexcept {
    return (s + 1) * 0x9E3779B97F4A7C15ull ^ i;
  }
  void set(std::uint64_t s) noexcept {
    seq = s;
    for (std::uint64_t i = 0; i < N; ++i) words[i] = word(s, i);
  }
  // True when every word belongs to `seq`: the value was saved whole.
  bool intact() const noexcept {
    for (std::uint64_t i = 0; i < N; ++i)
      if (words[i] != word(seq, i)) return false;
    return true;
  }
};

}  // namespace fl_test
