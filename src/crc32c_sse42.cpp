// src/crc32c_sse42.cpp: CRC-32C on the SSE4.2 crc32 instruction (this file is
// compiled with -msse4.2 and entered only after a run-time CPU check, from
// src/crc32c.cpp). Three independent streams would hide the instruction's
// 3-cycle latency; one stream already runs at several GB/s, far beyond the
// disk this checksum guards, so it stays simple.
#ifndef FL_NO_SIMD

#include <nmmintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fl::detail {

std::uint32_t crc32c_sse42(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
  }
  auto c32 = static_cast<std::uint32_t>(c);
  for (; n > 0; --n, ++p) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}

}  // namespace fl::detail

#endif  // FL_NO_SIMD
