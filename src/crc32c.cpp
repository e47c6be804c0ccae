// src/crc32c.cpp: CRC-32C, the portable byte-table version and the run-time
// choice of the SSE4.2 kernel (src/crc32c_sse42.cpp).
#include <fl/detail/crc32c.hpp>

#include <array>

namespace fl::inline FL_ABI_NS::detail {

#ifndef FL_NO_SIMD
std::uint32_t crc32c_sse42(const void* data, std::size_t n, std::uint32_t crc) noexcept;
#endif

namespace {

// The reflected Castagnoli polynomial.
constexpr std::uint32_t poly = 0x82F63B78u;

constexpr std::array<std::uint32_t, 256> make_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<std::uint32_t, 256> table = make_table();

std::uint32_t crc32c_table(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return ~c;
}

using crc_fn = std::uint32_t (*)(const void*, std::size_t, std::uint32_t) noexcept;

crc_fn pick() noexcept {
#ifndef FL_NO_SIMD
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2")) return &crc32c_sse42;
#endif
  return &crc32c_table;
}

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  static const crc_fn fn = pick();
  return fn(data, n, crc);
}

}  // namespace fl::inline FL_ABI_NS::detail
