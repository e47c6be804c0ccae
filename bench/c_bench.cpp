// bench/c_bench.cpp: section c/, the C API (<fl/fl.h>, library fl_c) against
// plain C and std::string.
//
// Cases:
//   sso_create_free       create an 11-byte string from a pointer the compiler
//                         cannot see through, let it escape, free it. One
//                         create+free per iteration, so time/iteration is the
//                         cost of one. The length (11) is part of the case and
//                         a compile-time constant for every peer; the bytes are
//                         not. Peers: fl_c (fl_str_from_n + fl_str_free: the
//                         inline path of fl.h, no allocation), c (malloc(12) +
//                         memcpy + free), std (std::string(p, 11)).
//   append_10k            10,000 appends of 8 bytes to an empty string, no
//                         reserve; create and free included. Peers: fl_c
//                         (fl_str_append_n), c (a {ptr, len, cap} buffer that
//                         doubles with realloc, as C programs write it), std
//                         (std::string::append(p, 8)).
//   append_10k_reserved   the same after reserving the final 80,000 bytes.
// "Faster" is less time per iteration; bytes/s is reported for the appends.
//
// Reading the numbers:
// - sso_create_free is close to the floor of any honest loop: the empty
//   benchmark loop with DoNotOptimize(p) alone runs at one cycle per
//   iteration (0.26 ns at this machine's ~3.8 GHz boost), and an escaped
//   11-byte string needs its text, terminator and length tag in memory. fl_c
//   compiles to 2 loads, 4 stores and the tag test of fl_str_free (13
//   instructions, about 2 cycles); std::string to 2 loads and 5 stores.
// - append_10k's std and c times depend on glibc's heap state, which is why
//   bench/main.cpp pins the mmap and trim thresholds. Left to adapt, std's last
//   block (122,881 bytes) sits at the top of the heap, and while the trim
//   threshold is at its initial 128 KiB each free returns those pages to the
//   kernel, so every iteration faults them in again (47 us instead of 8.5 us);
//   with only MALLOC_TRIM_THRESHOLD_ set, c is hit instead (its last realloc,
//   131,057 bytes, crosses the 128 KiB mmap threshold: 49 us). fl_c, which
//   grows through the pool with realloc, measured about 7 us in every state.
#include "common.hpp"

#include <fl/fl.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace {

constexpr std::size_t sso_len = 11;
constexpr std::size_t append_count = 10000;
constexpr std::size_t append_len = 8;

// --- sso_create_free ---------------------------------------------------------

void bm_sso_fl_c(benchmark::State& st) {
  const std::string in = fl_bench::random_text(sso_len, fl_bench::salt("c/sso_create_free"));
  const char* p = in.data();
  for (auto _ : st) {
    benchmark::DoNotOptimize(p);
    fl_str s;
    if (fl_str_from_n(&s, p, sso_len) != FL_OK) st.SkipWithError("fl_str_from_n failed");
    benchmark::DoNotOptimize(s);
    fl_str_free(&s);  // like the peers' frees, its stores to a dead s may be elided
  }
}

void bm_sso_c(benchmark::State& st) {
  const std::string in = fl_bench::random_text(sso_len, fl_bench::salt("c/sso_create_free"));
  const char* p = in.data();
  for (auto _ : st) {
    benchmark::DoNotOptimize(p);
    char* s = static_cast<char*>(std::malloc(sso_len + 1));
    if (s == nullptr) st.SkipWithError("malloc failed");
    std::memcpy(s, p, sso_len);
    s[sso_len] = '\0';
    benchmark::DoNotOptimize(s);
    std::free(s);
  }
}

void bm_sso_std(benchmark::State& st) {
  const std::string in = fl_bench::random_text(sso_len, fl_bench::salt("c/sso_create_free"));
  const char* p = in.data();
  for (auto _ : st) {
    benchmark::DoNotOptimize(p);
    std::string s(p, sso_len);
    benchmark::DoNotOptimize(s);
  }
}

// --- append_10k ---------------------------------------------------------------

// The growable buffer a C program writes by hand: doubling with realloc,
// always terminated.
struct c_buf {
  char* p = nullptr;
  std::size_t len = 0;
  std::size_t cap = 0;
};
bool c_buf_reserve(c_buf& b, std::size_t cap) {
  if (cap <= b.cap) return true;
  char* q = static_cast<char*>(std::realloc(b.p, cap + 1));
  if (q == nullptr) return false;
  b.p = q;
  b.cap = cap;
  return true;
}
bool c_buf_append(c_buf& b, const char* s, std::size_t n) {
  if (n > b.cap - b.len && !c_buf_reserve(b, (b.len + n) * 2)) return false;
  std::memcpy(b.p + b.len, s, n);
  b.len += n;
  b.p[b.len] = '\0';
  return true;
}

void bm_append_fl_c(benchmark::State& st, bool reserve) {
  const std::string in = fl_bench::random_text(append_len, fl_bench::salt("c/append_10k"));
  const std::size_t count = fl_bench::runtime_count(append_count);
  for (auto _ : st) {
    fl_str s = FL_STR_INIT;
    if (reserve && fl_str_reserve(&s, count * append_len) != FL_OK)
      st.SkipWithError("reserve failed");
    for (std::size_t i = 0; i < count; ++i) {
      if (fl_str_append_n(&s, in.data(), append_len) != FL_OK) st.SkipWithError("append failed");
    }
    benchmark::DoNotOptimize(fl_str_cstr(&s));
    fl_str_free(&s);
  }
  fl_bench::set_bytes(st, append_count * append_len);
}

void bm_append_c(benchmark::State& st, bool reserve) {
  const std::string in = fl_bench::random_text(append_len, fl_bench::salt("c/append_10k"));
  const std::size_t count = fl_bench::runtime_count(append_count);
  for (auto _ : st) {
    c_buf b;
    if (reserve && !c_buf_reserve(b, count * append_len)) st.SkipWithError("reserve failed");
    for (std::size_t i = 0; i < count; ++i) {
      if (!c_buf_append(b, in.data(), append_len)) st.SkipWithError("append failed");
    }
    benchmark::DoNotOptimize(b.p);
    std::free(b.p);
  }
  fl_bench::set_bytes(st, append_count * append_len);
}

void bm_append_std(benchmark::State& st, bool reserve) {
  const std::string in = fl_bench::random_text(append_len, fl_bench::salt("c/append_10k"));
  const std::size_t count = fl_bench::runtime_count(append_count);
  for (auto _ : st) {
    std::string s;
    if (reserve) s.reserve(count * append_len);
    for (std::size_t i = 0; i < count; ++i) s.append(in.data(), append_len);
    benchmark::DoNotOptimize(s.data());
  }
  fl_bench::set_bytes(st, append_count * append_len);
}

const bool registered = [] {
  fl_bench::reg("c/sso_create_free/fl_c", bm_sso_fl_c);
  fl_bench::reg("c/sso_create_free/c", bm_sso_c);
  fl_bench::reg("c/sso_create_free/std", bm_sso_std);
  fl_bench::reg("c/append_10k/fl_c", bm_append_fl_c, false);
  fl_bench::reg("c/append_10k/c", bm_append_c, false);
  fl_bench::reg("c/append_10k/std", bm_append_std, false);
  fl_bench::reg("c/append_10k_reserved/fl_c", bm_append_fl_c, true);
  fl_bench::reg("c/append_10k_reserved/c", bm_append_c, true);
  fl_bench::reg("c/append_10k_reserved/std", bm_append_std, true);
  return true;
}();

}  // namespace
