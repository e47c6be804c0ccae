// src/persist/crc32c.cpp: CRC-32C, the portable byte-table version and the choice
// of the SSE4.2 kernel (src/persist/crc32c_sse42.cpp) or the AVX-512 one
// (src/persist/crc32c_avx512.cpp) by the level of src/simd/isa.hpp.
#include "persist/crc32c.hpp"

#include "simd/isa.hpp"

#include <array>
#include <atomic>
#include <cstring>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

#ifndef FL_NO_SIMD
std::uint32_t crc32c_sse42(const void* data, std::size_t n, std::uint32_t crc) noexcept;
std::uint32_t crc32c_avx512(const void* data, std::size_t n, std::uint32_t crc) noexcept;
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
constexpr crc_fn avx512_kernel = &crc32c_avx512;
#endif
constexpr isa_choice<crc_fn> crc32c_choices[] = {
#ifndef FL_NO_SIMD
    {isa::avx512, &avx512_kernel},
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

namespace {

// Polynomials over GF(2) modulo the Castagnoli polynomial, in the order a
// reflected CRC register keeps them: bit 31 holds x^0, bit 0 x^31.
//
// A polynomial b with its products by x^0 .. x^31, so that a product by it
// is the XOR of those a's bits select: no branch on a's bits, which are
// random (a patch of the checksum table's CRC multiplies at every change,
// and the branches' mispredictions made those multiplies 3% of a commit's
// CPU).
struct multiples {
  std::array<std::uint32_t, 32> of_x{};  // b * x^j
  multiples() noexcept = default;
  explicit multiples(std::uint32_t b) noexcept {
    for (std::uint32_t& m : of_x) {
      m = b;
      b = (b & 1) ? (b >> 1) ^ poly : b >> 1;  // b *= x
    }
  }
  std::uint32_t times(std::uint32_t a) const noexcept {
    std::uint32_t product = 0;
    for (unsigned j = 0; j < 32; ++j) product ^= of_x[j] & (0u - ((a >> (31 - j)) & 1u));
    return product;
  }
};

// x^(8 * 2^k) mod P for k < 64, with their multiples: a register carried
// over 2^k zero bytes is multiplied by it.
const std::array<multiples, 64>& zero_byte_powers() noexcept {
  static const std::array<multiples, 64> powers = [] {
    std::array<multiples, 64> p{};
    p[0] = multiples(0x80000000u >> 8);  // x^8
    for (std::size_t k = 1; k < p.size(); ++k) p[k] = multiples(p[k - 1].times(p[k - 1].of_x[0]));
    return p;
  }();
  return powers;
}

// The bare register `r` carried over `n` zero bytes.
std::uint32_t over_zeros(std::uint32_t r, std::uint64_t n) noexcept {
  if (r == 0) return 0;
  static constexpr unsigned char zeros[64] = {};
  if (n <= sizeof zeros) return ~crc32c(zeros, static_cast<std::size_t>(n), ~r);
  const std::array<multiples, 64>& powers = zero_byte_powers();
  for (unsigned k = 0; n != 0; ++k, n >>= 1)
    if (n & 1) r = powers[k].times(r);
  return r;
}

}  // namespace

void crc32c_patch::change(std::uint64_t at, std::uint32_t before, std::uint32_t after) noexcept {
  const std::uint32_t diff = before ^ after;
  if (diff == 0) return;
  delta_ = over_zeros(delta_, at - end_);
  unsigned char bytes[4];
  std::memcpy(bytes, &diff, sizeof bytes);
  delta_ = ~crc32c(bytes, sizeof bytes, ~delta_);  // the bare register over them
  end_ = at + sizeof bytes;
}

std::uint32_t crc32c_patch::apply(std::uint32_t crc_before) const noexcept {
  return crc_before ^ over_zeros(delta_, length_ - end_);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
