// src/persist/crc32c.cpp: CRC-32C, the portable byte-table version and the choice
// of the SSE4.2 kernel (src/persist/crc32c_sse42.cpp) by the level of
// src/simd/isa.hpp.
#include "persist/crc32c.hpp"

#include "simd/isa.hpp"

#include <array>
#include <atomic>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

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

// The kernels by level, highest first.
constexpr crc_fn table_kernel = &crc32c_table;
#ifndef FL_NO_SIMD
constexpr crc_fn sse42_kernel = &crc32c_sse42;
#endif
constexpr isa_choice<crc_fn> crc32c_choices[] = {
#ifndef FL_NO_SIMD
    {isa::sse42, &sse42_kernel},
#endif
    {isa::scalar, &table_kernel},
};

std::uint32_t crc32c_resolve(const void* data, std::size_t n, std::uint32_t crc) noexcept;

// Starts at the resolver (constant-initialized: valid in static initializers).
constinit std::atomic<crc_fn> crc32c_kernel{&crc32c_resolve};

std::uint32_t crc32c_resolve(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  install_crc32c_kernel(active_isa());
  return crc32c_kernel.load(std::memory_order_relaxed)(data, n, crc);
}

}  // namespace

isa install_crc32c_kernel(isa level) noexcept {
  const isa_choice<crc_fn>& c = choose_kernels(crc32c_choices, level);
  crc32c_kernel.store(*c.kernels, std::memory_order_relaxed);
  return c.level;
}

std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  return crc32c_kernel.load(std::memory_order_relaxed)(data, n, crc);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
