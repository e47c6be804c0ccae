// src/text_count.cpp: run-time selection of the counting kernels of
// src/text_count.hpp (the ISA fl::find uses: AVX2 when present, SSE2 on
// other x86-64, scalar elsewhere), the SSE2 instantiation and the scalar
// code.
#include "text_count.hpp"

#include <fl/detail/find_impl.hpp>

#include <cstdint>

#ifndef FL_NO_SIMD
#include "text_count_simd.hpp"
#endif

namespace fl::inline FL_ABI_NS::detail {

#ifndef FL_NO_SIMD
// src/text_count_avx2.cpp.
void count_text_avx2(const char* p, std::size_t n, std::size_t& chars, std::size_t& newlines,
                     std::size_t& astral) noexcept;
std::size_t count_byte_avx2(const char* p, std::size_t n, char ch) noexcept;
std::size_t nth_item_avx2(const char* p, std::size_t n, int metric, std::size_t k,
                          std::size_t& skipped) noexcept;
std::size_t nth_item_back_avx2(const char* p, std::size_t n, int metric, std::size_t k) noexcept;
#endif

namespace {

using byte = unsigned char;

#ifndef FL_NO_SIMD
// 0: scalar, 1: SSE2, 2: AVX2 (find_isa's values), chosen once.
int isa() noexcept {
  static const int chosen = static_cast<int>(current_find_isa());
  return chosen;
}
#endif

bool scalar_is_char(byte b) noexcept { return (b & 0xC0) != 0x80; }

}  // namespace

text_counts count_text_bulk(const char* p, std::size_t n) noexcept {
  text_counts r;
#ifndef FL_NO_SIMD
  const int k = isa();
  if (k == 2) {
    count_text_avx2(p, n, r.chars, r.newlines, r.astral);
    return r;
  }
  if (k == 1) {
    count_text_simd<v128>(reinterpret_cast<const byte*>(p), n, r.chars, r.newlines, r.astral);
    return r;
  }
#endif
  const byte* s = reinterpret_cast<const byte*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    r.chars += scalar_is_char(s[i]);
    r.newlines += s[i] == '\n';
    r.astral += s[i] >= 0xF0;
  }
  return r;
}

std::size_t count_byte(const char* p, std::size_t n, char ch) noexcept {
#ifndef FL_NO_SIMD
  const int k = isa();
  if (k == 2) return count_byte_avx2(p, n, ch);
  if (k == 1)
    return count_byte_simd<v128>(reinterpret_cast<const byte*>(p), n, static_cast<byte>(ch));
#endif
  std::size_t c = 0;
  for (std::size_t i = 0; i < n; ++i) c += p[i] == ch;
  return c;
}

std::size_t nth_item(const char* p, std::size_t n, text_metric m, std::size_t k,
                     std::size_t& skipped) noexcept {
  const int metric = static_cast<int>(m);
#ifndef FL_NO_SIMD
  const int isa_k = isa();
  if (isa_k == 2) return nth_item_avx2(p, n, metric, k, skipped);
  if (isa_k == 1)
    return nth_item_simd<v128>(reinterpret_cast<const byte*>(p), n, metric, k, skipped);
#endif
  const byte* s = reinterpret_cast<const byte*>(p);
  std::size_t seen = 0, i = 0;
  for (; i < n; ++i) {
    const byte b = s[i];
    const std::size_t w = metric == 1   ? (b == '\n' ? 1u : 0u)
                          : metric == 0 ? (scalar_is_char(b) ? 1u : 0u)
                                        : (scalar_is_char(b) ? 1u + (b >= 0xF0 ? 1u : 0u) : 0u);
    if (seen + w > k) break;
    seen += w;
  }
  skipped = seen;
  return i;
}

std::size_t nth_item_back(const char* p, std::size_t n, text_metric m, std::size_t k) noexcept {
  const int metric = static_cast<int>(m);
#ifndef FL_NO_SIMD
  const int isa_k = isa();
  if (isa_k == 2) return nth_item_back_avx2(p, n, metric, k);
  if (isa_k == 1) return nth_item_back_simd<v128>(reinterpret_cast<const byte*>(p), n, metric, k);
#endif
  const byte* s = reinterpret_cast<const byte*>(p);
  std::size_t seen = 0;
  for (std::size_t i = n; i-- > 0;) {
    const byte b = s[i];
    const std::size_t w = metric == 1   ? (b == '\n' ? 1u : 0u)
                          : metric == 0 ? (scalar_is_char(b) ? 1u : 0u)
                                        : (scalar_is_char(b) ? 1u + (b >= 0xF0 ? 1u : 0u) : 0u);
    if (seen + w > k) return i;
    seen += w;
  }
  return n;
}

}  // namespace fl::inline FL_ABI_NS::detail
