// src/persist/crc32c.hpp: CRC-32C (Castagnoli, the iSCSI/ext4 polynomial
// 0x1EDC6F41, reflected), the checksum of every persistence file. Runs on the
// SSE4.2 crc32 instruction where the CPU has it (about 8 bytes per cycle,
// src/persist/crc32c_sse42.cpp), else on a byte table (src/persist/crc32c.cpp).
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

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
