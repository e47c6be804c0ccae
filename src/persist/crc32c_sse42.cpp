// src/persist/crc32c_sse42.cpp: CRC-32C on the SSE4.2 crc32 instruction (this file is
// compiled with the flags of the sse42 level of src/simd/isa_levels.def and
// entered only after the run-time check of that level, from src/persist/crc32c.cpp).
//
// The instruction takes 3 cycles but can start one every cycle, so a single
// stream runs at a third of its throughput. Blocks of 3 * lane bytes are
// therefore split into three lanes computed side by side: lane A continues
// the running register, lanes B and C start from 0. The CRC register update
// is affine, r' = Z(r) ^ D(data), with Z the linear map "append one zero
// byte"; so the register after A||B||C is Z^2L(a) ^ Z^L(b) ^ c for lane
// registers a, b, c of L bytes each. Z^L is a 32x32 matrix over GF(2),
// computed at compile time by repeated squaring and applied through four
// 256-entry tables (one per byte of the register).
#ifndef FL_NO_SIMD

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <nmmintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// The reflected Castagnoli polynomial.
constexpr std::uint32_t poly = 0x82F63B78u;

// A linear map on 32-bit registers: column i is the image of bit i.
using gf2_matrix = std::array<std::uint32_t, 32>;

constexpr std::uint32_t apply(const gf2_matrix& m, std::uint32_t v) {
  std::uint32_t r = 0;
  for (int i = 0; v != 0; ++i, v >>= 1)
    if (v & 1) r ^= m[static_cast<std::size_t>(i)];
  return r;
}

constexpr gf2_matrix compose(const gf2_matrix& a, const gf2_matrix& b) {  // a after b
  gf2_matrix r{};
  for (std::size_t i = 0; i < 32; ++i) r[i] = apply(a, b[i]);
  return r;
}

// Z^(8 * bytes): the register after `bytes` zero bytes.
constexpr gf2_matrix zeros_operator(std::size_t bytes) {
  gf2_matrix bit{};  // one zero bit: shift right, reduce by the polynomial
  bit[0] = poly;
  for (std::size_t i = 1; i < 32; ++i) bit[i] = std::uint32_t{1} << (i - 1);
  gf2_matrix result{};
  for (std::size_t i = 0; i < 32; ++i) result[i] = std::uint32_t{1} << i;
  for (std::size_t n = bytes * 8; n != 0; n >>= 1) {
    if (n & 1) result = compose(bit, result);
    bit = compose(bit, bit);
  }
  return result;
}

using shift_table = std::array<std::array<std::uint32_t, 256>, 4>;

constexpr shift_table make_shift(std::size_t bytes) {
  const gf2_matrix m = zeros_operator(bytes);
  shift_table t{};
  for (std::size_t k = 0; k < 4; ++k)
    for (std::uint32_t b = 0; b < 256; ++b) t[k][b] = apply(m, b << (8 * k));
  return t;
}

// Lane lengths (multiples of 8). 3 * 1360 + 16 = 4096: a page is one long
// block and two words.
constexpr std::size_t long_lane = 1360;
constexpr std::size_t short_lane = 128;
constexpr shift_table long_shift = make_shift(long_lane);
constexpr shift_table short_shift = make_shift(short_lane);

inline std::uint32_t shift(const shift_table& t, std::uint32_t r) noexcept {
  return t[0][r & 0xFF] ^ t[1][(r >> 8) & 0xFF] ^ t[2][(r >> 16) & 0xFF] ^ t[3][r >> 24];
}

inline std::uint64_t word(const unsigned char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// One block of three lanes of `lane` bytes at p, continuing register c.
inline std::uint32_t three_lanes(const unsigned char* p, std::size_t lane, const shift_table& t,
                                 std::uint32_t c) noexcept {
  std::uint64_t a = c, b = 0, d = 0;
  const unsigned char* pb = p + lane;
  const unsigned char* pd = p + 2 * lane;
  for (std::size_t i = 0; i < lane; i += 8) {
    a = _mm_crc32_u64(a, word(p + i));
    b = _mm_crc32_u64(b, word(pb + i));
    d = _mm_crc32_u64(d, word(pd + i));
  }
  const auto ab = shift(t, static_cast<std::uint32_t>(a)) ^ static_cast<std::uint32_t>(b);
  return shift(t, ab) ^ static_cast<std::uint32_t>(d);
}

}  // namespace

std::uint32_t crc32c_sse42(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (; n >= 3 * long_lane; n -= 3 * long_lane, p += 3 * long_lane)
    c = three_lanes(p, long_lane, long_shift, c);
  for (; n >= 3 * short_lane; n -= 3 * short_lane, p += 3 * short_lane)
    c = three_lanes(p, short_lane, short_shift, c);
  std::uint64_t c64 = c;
  for (; n >= 8; n -= 8, p += 8) c64 = _mm_crc32_u64(c64, word(p));
  c = static_cast<std::uint32_t>(c64);
  for (; n > 0; --n, ++p) c = _mm_crc32_u8(c, *p);
  return ~c;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl

#endif  // FL_NO_SIMD
