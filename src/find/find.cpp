// src/find/find.cpp: the kernel choice of <fl/find.hpp> (the best set for the
// level of src/simd/isa.hpp), the Two-Way (Crochemore-Perrin) searches that
// bound every kernel to O(n + m), and the portable scalar kernels (used
// without SIMD and for ranges shorter than a vector).
#include <fl/detail/find_impl.hpp>

#include "find/find_kernel_set.hpp"
#include "simd/isa.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

using uchar = unsigned char;
constexpr std::size_t not_found = static_cast<std::size_t>(-1);

// ---------------------------------------------------------------------------
// Two-Way. The needle x[0, m) is split at a critical factorization x = u v
// (|u| = ell + 1), found from the maximal suffixes of x under both byte
// orders. A window is checked right part first (v, left to right), then left
// part (u, right to left); a mismatch in v at i shifts by i - ell, a full
// match of v followed by a mismatch in u shifts by the period. For periodic
// needles the already-matched prefix of the next window is remembered
// (`memory`), which keeps the whole search at most 2n comparisons.
//
// Written over an index accessor so that the same code searches backwards
// (rfind): a reversed view of the needle in a reversed view of the haystack.

struct forward_view {
  const uchar* p;
  uchar operator[](std::ptrdiff_t i) const noexcept { return p[i]; }
};
struct reverse_view {
  const uchar* end;  // index i reads end[-1 - i]
  uchar operator[](std::ptrdiff_t i) const noexcept { return end[-1 - i]; }
};

// The start (minus one) of the maximal suffix of x[0, m) under the byte order
// (`greater` flips it), and that suffix's period.
template <class X>
std::ptrdiff_t max_suffix(const X& x, std::ptrdiff_t m, bool greater,
                          std::ptrdiff_t& period) noexcept {
  std::ptrdiff_t ms = -1, j = 0, k = 1, p = 1;
  while (j + k < m) {
    const uchar a = x[j + k];
    const uchar b = x[ms + k];
    if (a == b) {
      if (k != p) {
        ++k;
      } else {
        j += p;
        k = 1;
      }
    } else if ((a < b) != greater) {
      j += k;
      k = 1;
      p = j - ms;
    } else {
      ms = j;
      j = ms + 1;
      k = p = 1;
    }
  }
  period = p;
  return ms;
}

// The first j in [0, n - m] with y[j, j + m) == x[0, m), or not_found.
// Requires 1 <= m <= n.
template <class X>
std::size_t two_way(const X& x, std::ptrdiff_t m, const X& y, std::ptrdiff_t n) noexcept {
  std::ptrdiff_t p = 0, q = 0;
  const std::ptrdiff_t i1 = max_suffix(x, m, false, p);
  const std::ptrdiff_t i2 = max_suffix(x, m, true, q);
  const std::ptrdiff_t ell = i1 > i2 ? i1 : i2;  // u = x[0, ell], v = x[ell + 1, m)
  std::ptrdiff_t per = i1 > i2 ? p : q;
  // per + ell + 1 <= m, since per is a period of the suffix after ell.
  bool periodic = true;
  for (std::ptrdiff_t t = 0; t <= ell; ++t) {
    if (x[t] != x[t + per]) {
      periodic = false;
      break;
    }
  }
  std::ptrdiff_t j = 0;
  if (periodic) {
    std::ptrdiff_t memory = -1;  // x[0, memory] is known to match at j
    while (j <= n - m) {
      std::ptrdiff_t i = std::max(ell, memory) + 1;
      while (i < m && x[i] == y[i + j]) ++i;
      if (i >= m) {
        i = ell;
        while (i > memory && x[i] == y[i + j]) --i;
        if (i <= memory) return static_cast<std::size_t>(j);
        j += per;
        memory = m - per - 1;
      } else {
        j += i - ell;
        memory = -1;
      }
    }
  } else {
    per = std::max(ell + 1, m - ell - 1) + 1;
    while (j <= n - m) {
      std::ptrdiff_t i = ell + 1;
      while (i < m && x[i] == y[i + j]) ++i;
      if (i >= m) {
        i = ell;
        while (i >= 0 && x[i] == y[i + j]) --i;
        if (i < 0) return static_cast<std::size_t>(j);
        j += per;
      } else {
        j += i - ell;
      }
    }
  }
  return not_found;
}

// ---------------------------------------------------------------------------
// Scalar kernels: a libc byte search for one needle byte finds candidates,
// verified word by word, under the same verification budget as the SIMD
// filter (see find_simd.hpp), then Two-Way.

constexpr std::size_t scalar_candidate_cost = 8;
constexpr std::size_t scalar_budget_per_byte = 4;
constexpr std::size_t scalar_budget_slack = 512;

std::size_t prefix_len(const uchar* a, const uchar* b, std::size_t len) noexcept {
  std::size_t k = 0;
  for (; k + 8 <= len; k += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a + k, 8);
    std::memcpy(&y, b + k, 8);
    if (x != y) break;
  }
  while (k < len && a[k] == b[k]) ++k;
  return k;
}

// The last byte equal to c in p[0, len), like GNU memrchr.
const uchar* last_byte(const uchar* p, uchar c, std::size_t len) noexcept {
#if defined(__GLIBC__)
  return static_cast<const uchar*>(::memrchr(p, c, len));
#else
  while (len > 0) {
    if (p[--len] == c) return p + len;
  }
  return nullptr;
#endif
}

std::size_t find_scalar(const char* hay, std::size_t n, const char* needle, std::size_t m,
                        std::size_t pos) noexcept {
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const auto* x = reinterpret_cast<const uchar*>(needle);
  const std::size_t last = n - m;
  const uchar tail = x[m - 1];  // the last byte: in runs of one letter it is usually the odd one
  std::size_t work = 0;
  std::size_t j = pos;
  while (j <= last) {
    const void* p = std::memchr(h + j + m - 1, tail, last - j + 1);
    if (p == nullptr) return not_found;
    const std::size_t c = static_cast<std::size_t>(static_cast<const uchar*>(p) - h) - (m - 1);
    const std::size_t k = prefix_len(h + c, x, m);
    if (k == m) return c;
    work += k + scalar_candidate_cost;
    if (work > scalar_budget_per_byte * (c - pos) + 2 * m + scalar_budget_slack) {
      return c < last ? find_twoway(hay, n, needle, m, c + 1) : not_found;
    }
    j = c + 1;
  }
  return not_found;
}

std::size_t rfind_scalar(const char* hay, std::size_t end, const char* needle,
                         std::size_t m) noexcept {
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const auto* x = reinterpret_cast<const uchar*>(needle);
  const std::size_t last = end - m;
  std::size_t work = 0;
  std::size_t hi = last + 1;  // starts [hi, last] are done
  while (hi > 0) {
    const uchar* p = last_byte(h, x[0], hi);
    if (p == nullptr) return not_found;
    const std::size_t c = static_cast<std::size_t>(p - h);
    const std::size_t k = prefix_len(h + c, x, m);
    if (k == m) return c;
    work += k + scalar_candidate_cost;
    if (work > scalar_budget_per_byte * (last - c) + 2 * m + scalar_budget_slack) {
      return c > 0 ? rfind_twoway(hay, c - 1 + m, needle, m) : not_found;
    }
    hi = c;
  }
  return not_found;
}

// A 256-bit membership table.
struct byte_set {
  std::uint64_t w[4] = {0, 0, 0, 0};
  byte_set(const uchar* s, std::size_t k) noexcept {
    for (std::size_t i = 0; i < k; ++i) w[s[i] >> 6] |= std::uint64_t{1} << (s[i] & 63);
  }
  bool has(uchar c) const noexcept { return (w[c >> 6] >> (c & 63)) & 1; }
};

// ---------------------------------------------------------------------------
// Dispatch: the kernel sets by level (src/simd/isa.hpp), highest first.

constexpr kernel_set scalar_kernels{&find_scalar, &rfind_scalar, &first_of_scalar, &last_of_scalar};

constexpr isa_choice<kernel_set> find_choices[] = {
#ifndef FL_NO_SIMD
    {isa::avx2, &avx2_kernels},
    {isa::sse2, &sse2_kernels},
#endif
    {isa::scalar, &scalar_kernels},
};

// The resolvers: the kernel pointers' initial values. Selecting twice (two
// threads racing on the first call) installs the same set twice, harmlessly.
std::size_t find_resolve(const char* h, std::size_t n, const char* x, std::size_t m,
                         std::size_t pos) noexcept {
  install_find_kernels(active_isa());
  return find_kernel.load(std::memory_order_relaxed)(h, n, x, m, pos);
}
std::size_t rfind_resolve(const char* h, std::size_t end, const char* x, std::size_t m) noexcept {
  install_find_kernels(active_isa());
  return rfind_kernel.load(std::memory_order_relaxed)(h, end, x, m);
}
std::size_t first_of_resolve(const char* h, std::size_t n, const char* s, std::size_t k,
                             std::size_t pos, bool negate) noexcept {
  install_find_kernels(active_isa());
  return first_of_kernel.load(std::memory_order_relaxed)(h, n, s, k, pos, negate);
}
std::size_t last_of_resolve(const char* h, std::size_t end, const char* s, std::size_t k,
                            bool negate) noexcept {
  install_find_kernels(active_isa());
  return last_of_kernel.load(std::memory_order_relaxed)(h, end, s, k, negate);
}

}  // namespace

std::size_t find_long(const char* hay, std::size_t n, const char* needle, std::size_t m,
                      std::size_t pos) noexcept {
  if (m == 1) {
    const void* p = std::memchr(hay + pos, static_cast<unsigned char>(needle[0]), n - pos);
    return p != nullptr ? static_cast<std::size_t>(static_cast<const char*>(p) - hay)
                        : static_cast<std::size_t>(-1);
  }
  return find_kernel.load(std::memory_order_relaxed)(hay, n, needle, m, pos);
}

// Constant-initialized: valid before any dynamic initializer runs.
constinit std::atomic<find_fn> find_kernel{&find_resolve};
constinit std::atomic<rfind_fn> rfind_kernel{&rfind_resolve};
constinit std::atomic<first_of_fn> first_of_kernel{&first_of_resolve};
constinit std::atomic<last_of_fn> last_of_kernel{&last_of_resolve};

std::size_t first_of_scalar(const char* hay, std::size_t n, const char* set, std::size_t k,
                            std::size_t pos, bool negate) noexcept {
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const byte_set s(reinterpret_cast<const uchar*>(set), k);
  for (std::size_t i = pos; i < n; ++i) {
    if (s.has(h[i]) != negate) return i;
  }
  return not_found;
}

std::size_t last_of_scalar(const char* hay, std::size_t end, const char* set, std::size_t k,
                           bool negate) noexcept {
  const auto* h = reinterpret_cast<const uchar*>(hay);
  const byte_set s(reinterpret_cast<const uchar*>(set), k);
  for (std::size_t i = end; i-- > 0;) {
    if (s.has(h[i]) != negate) return i;
  }
  return not_found;
}

std::size_t find_twoway(const char* hay, std::size_t n, const char* needle, std::size_t m,
                        std::size_t pos) noexcept {
  const forward_view x{reinterpret_cast<const uchar*>(needle)};
  const forward_view y{reinterpret_cast<const uchar*>(hay) + pos};
  const std::size_t r =
      two_way(x, static_cast<std::ptrdiff_t>(m), y, static_cast<std::ptrdiff_t>(n - pos));
  return r == not_found ? not_found : r + pos;
}

std::size_t rfind_twoway(const char* hay, std::size_t end, const char* needle,
                         std::size_t m) noexcept {
  const reverse_view x{reinterpret_cast<const uchar*>(needle) + m};
  const reverse_view y{reinterpret_cast<const uchar*>(hay) + end};
  const std::size_t r =
      two_way(x, static_cast<std::ptrdiff_t>(m), y, static_cast<std::ptrdiff_t>(end));
  return r == not_found ? not_found : end - r - m;
}

isa install_find_kernels(isa level) noexcept {
  const isa_choice<kernel_set>& c = choose_kernels(find_choices, level);
  find_kernel.store(c.kernels->find, std::memory_order_relaxed);
  rfind_kernel.store(c.kernels->rfind, std::memory_order_relaxed);
  first_of_kernel.store(c.kernels->first_of, std::memory_order_relaxed);
  last_of_kernel.store(c.kernels->last_of, std::memory_order_relaxed);
  return c.level;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
