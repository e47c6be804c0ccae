// src/persist/crc32c.hpp: CRC-32C (Castagnoli, the iSCSI/ext4 polynomial
// 0x1EDC6F41, reflected), the checksum of every persistence file. Runs on the
// SSE4.2 crc32 instruction where the CPU has it (about 8 bytes per cycle,
// src/persist/crc32c_sse42.cpp), by carry-less multiplication of 512-bit
// vectors where it has AVX-512 and VPCLMULQDQ (about twice that,
// src/persist/crc32c_avx512.cpp), else on a byte table (src/persist/crc32c.cpp).
//
// Private to the library (no installed header needs it): the persistence
// and JSON store files include it, tests and fuzzers by its path.
//
// Threads: pure function; safe anywhere.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>
#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// The CRC-32C of `n` bytes at `data`, continuing from `crc` (the result of
// the previous piece; 0 to start). crc32c("123456789", 9) == 0xE3069283.
std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0) noexcept;

// Follows the CRC-32C of a buffer of `length` bytes through changes of a
// few of its words without reading the rest, in O(changes + log length).
// CRC-32C is linear: for two messages A and B of one length,
// crc32c(A) ^ crc32c(B) is the bare register (no initial or final
// inversion) run over A ^ B from 0, and zero bytes before the first change
// leave that register 0; so only the changed words and the distance from
// each to the next and to the end count. Changes are given in ascending
// order of offset, each once.
class crc32c_patch {
 public:
  explicit crc32c_patch(std::uint64_t length) noexcept : length_(length) {}
  // The 4 bytes at `at` (at + 4 <= length, above the previous change) were
  // `before` and are `after`.
  void change(std::uint64_t at, std::uint32_t before, std::uint32_t after) noexcept;
  // The buffer's CRC-32C after the changes, given the one before them.
  std::uint32_t apply(std::uint32_t crc_before) const noexcept;

 private:
  std::uint64_t length_;
  std::uint64_t end_ = 0;     // just past the last change
  std::uint32_t delta_ = 0;   // the bare register of the changes up to end_
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
