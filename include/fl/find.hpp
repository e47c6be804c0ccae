// fl/find.hpp: substring search (fl::find, fl::rfind) and character-set search
// (fl::find_first_of and friends) over std::string_view, with the exact
// semantics of std::string_view's members of the same names.
//
// Every search is O(n + m) in the worst case: a SIMD candidate filter (AVX2,
// SSE2) does the common case and hands over to a Two-Way (Crochemore-Perrin)
// search, O(1) extra space, as soon as its false positives exceed a linear
// budget. The kernel is chosen once per process from the CPU (scalar where
// SIMD is unavailable); a call costs one indirect jump. Haystacks of up to 128
// bytes are searched inline instead (detail/find_short.hpp), which is what
// finding a literal in a line or a field costs. No search reads a byte
// outside [data(), data() + size()) of its arguments.
//
// Use std::string_view::find for constant-evaluated searches; these functions
// are not constexpr. Use fl::find rather than std::boyer_moore_searcher: it
// needs no set-up and is linear on every input.
//
// Threads: all functions are pure and may run concurrently.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/detail/find_impl.hpp>
#include <fl/detail/find_short.hpp>

#include <cstddef>
#include <cstring>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {

inline constexpr std::size_t npos = std::string_view::npos;

// The first index i >= pos where needle occurs in hay, or npos. An empty needle
// is found at pos when pos <= hay.size(). O(n + m).
// Always inlined, so that a literal needle's length and bytes are constants
// in the short path (its middle compare becomes a load or two); haystacks
// past short_hay_max make one call to the out-of-line find_long.
[[gnu::always_inline]] inline std::size_t find(std::string_view hay, std::string_view needle,
                                               std::size_t pos = 0) noexcept {
  const std::size_t n = hay.size();
  const std::size_t m = needle.size();
  if (pos > n || m > n - pos) return npos;
  if (m == 0) return pos;
  if (n <= detail::short_hay_max) {
    if (m == 1) return detail::find_char_short(hay.data(), n, needle[0], pos);
    return detail::find_short(hay.data(), n, needle.data(), m, pos);
  }
  return detail::find_long(hay.data(), n, needle.data(), m, pos);
}

// The last index i <= pos where needle occurs in hay, or npos. An empty needle
// is found at min(pos, hay.size()). O(n + m).
inline std::size_t rfind(std::string_view hay, std::string_view needle,
                         std::size_t pos = npos) noexcept {
  const std::size_t n = hay.size();
  const std::size_t m = needle.size();
  if (m > n) return npos;
  const std::size_t last = pos < n - m ? pos : n - m;  // the highest start to consider
  if (m == 0) return last;
  return detail::rfind_kernel.load(std::memory_order_relaxed)(hay.data(), last + m, needle.data(),
                                                              m);
}

// The first index i >= pos with hay[i] in set, or npos. O(n + |set|).
inline std::size_t find_first_of(std::string_view hay, std::string_view set,
                                 std::size_t pos = 0) noexcept {
  const std::size_t n = hay.size();
  if (pos >= n || set.empty()) return npos;
  if (set.size() == 1) {
    const void* p = std::memchr(hay.data() + pos, static_cast<unsigned char>(set[0]), n - pos);
    return p ? static_cast<std::size_t>(static_cast<const char*>(p) - hay.data()) : npos;
  }
  return detail::first_of_kernel.load(std::memory_order_relaxed)(hay.data(), n, set.data(),
                                                                 set.size(), pos, false);
}

// The last index i <= pos with hay[i] in set, or npos. O(n + |set|).
inline std::size_t find_last_of(std::string_view hay, std::string_view set,
                                std::size_t pos = npos) noexcept {
  const std::size_t n = hay.size();
  if (n == 0 || set.empty()) return npos;
  const std::size_t end = (pos < n ? pos : n - 1) + 1;  // search [0, end)
  return detail::last_of_kernel.load(std::memory_order_relaxed)(hay.data(), end, set.data(),
                                                                set.size(), false);
}

// The first index i >= pos with hay[i] not in set, or npos. O(n + |set|).
inline std::size_t find_first_not_of(std::string_view hay, std::string_view set,
                                     std::size_t pos = 0) noexcept {
  const std::size_t n = hay.size();
  if (pos >= n) return npos;
  if (set.empty()) return pos;
  return detail::first_of_kernel.load(std::memory_order_relaxed)(hay.data(), n, set.data(),
                                                                 set.size(), pos, true);
}

// The last index i <= pos with hay[i] not in set, or npos. O(n + |set|).
inline std::size_t find_last_not_of(std::string_view hay, std::string_view set,
                                    std::size_t pos = npos) noexcept {
  const std::size_t n = hay.size();
  if (n == 0) return npos;
  const std::size_t end = (pos < n ? pos : n - 1) + 1;
  if (set.empty()) return end - 1;
  return detail::last_of_kernel.load(std::memory_order_relaxed)(hay.data(), end, set.data(),
                                                                set.size(), true);
}

}  // namespace FL_ABI_NS
}  // namespace fl
