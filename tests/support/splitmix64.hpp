// tests/support/splitmix64.hpp: the one pseudo-random generator of the
// generated test and benchmark inputs (bench/common.hpp's fl_bench::rng,
// tests/support/json_documents.hpp). Its output is defined by this code
// alone, not by a standard distribution that may differ between standard
// libraries, so a seed names the same input on every machine.
// Header-only, so the benchmark program needs no test library.
//
// Threads: one generator per thread (the state is unguarded).
#pragma once

#include <cstdint>

namespace fl_test {

// splitmix64: the state advances by a constant, so every seed gives a
// full-period sequence, and the output mixes every bit of the state.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t s) noexcept : state_(s) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0. The modulo bias (< 2^-50 for small n) does not
  // matter for generated inputs.
  std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }

 private:
  std::uint64_t state_;
};

}  // namespace fl_test
