// src/text/text_count.hpp: the byte-counting kernels behind fl::rope's text
// metrics and fl::count. Private to src/ (not installed). The kernels are
// written once over a vector type in text_count_simd.hpp and compiled for
// SSE2 (src/text/text_count_sse2.cpp) and AVX2 (src/text/text_count_avx2.cpp); the
// level is chosen by src/simd/isa.hpp, as for fl::find and CRC-32C.
//
// Definitions, for any bytes (valid UTF-8 or not):
//   char     a byte that is not a UTF-8 continuation byte (10xxxxxx)
//   newline  a '\n' byte
//   astral   a byte >= 0xF0 (the lead byte of a 4-byte sequence, a char
//            outside the BMP, which takes two UTF-16 code units)
//   utf16    units: one per char, plus one per astral byte; exact UTF-16
//            length for valid UTF-8, and for invalid bytes each stray lead or
//            single byte counts as one char (two if >= 0xF0)
//
// Threads: stateless, callable from any thread.
#pragma once

#include <cstddef>

#include "text/text_count_word.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

enum class text_metric : unsigned char { chars, newlines, utf16 };

// The three counts of [p, p + n), in one pass, by the vector kernel the CPU
// runs (any n).
text_counts count_text_bulk(const char* p, std::size_t n) noexcept;

namespace {
// The same. Inline: an edit counts the few bytes it inserts and removes, and
// for up to 16 bytes two words counted in registers cost less than the call
// and the ISA dispatch. (Internal linkage, like count_short, so that no
// translation unit's copy depends on another's compile flags.)
inline text_counts count_text(const char* p, std::size_t n) noexcept {
  if (n <= 16) return count_short(reinterpret_cast<const unsigned char*>(p), n);
  return count_text_bulk(p, n);
}
}  // namespace

// The position in [p, p + n) of item k (0-based) of the metric: the k-th
// char start, the k-th '\n', or the start of the char holding UTF-16 unit k.
// `skipped` receives the items before that position. Returns n (and the
// total in `skipped`) when the range holds k items or fewer.
std::size_t nth_item(const char* p, std::size_t n, text_metric m, std::size_t k,
                     std::size_t& skipped) noexcept;

// The same counted from the end: the position of the item holding unit k
// counted back from the end of [p, p + n) (k == 0: the last char, the last
// '\n', the char holding the last UTF-16 unit), or n when the range holds
// k items or fewer. So item k of a range of T items is nth_item_back(p, n,
// m, T - 1 - k), found by a scan of the bytes after it.
std::size_t nth_item_back(const char* p, std::size_t n, text_metric m, std::size_t k) noexcept;

// Number of bytes equal to ch in [p, p + n).
std::size_t count_byte(const char* p, std::size_t n, char ch) noexcept;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
