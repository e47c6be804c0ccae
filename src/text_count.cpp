// src/text_count.cpp: the counting functions of src/text_count.hpp, each a
// call through a kernel pointer set for the level of src/simd/isa.hpp (the
// sets of src/text_count_sse2.cpp and src/text_count_avx2.cpp, or the scalar
// code here).
#include "text_count.hpp"

#include "simd/isa.hpp"
#include "text_count_kernel_set.hpp"

#include <atomic>
#include <cstdint>

namespace fl::detail {

namespace {

using byte = unsigned char;

bool scalar_is_char(byte b) noexcept { return (b & 0xC0) != 0x80; }

std::size_t scalar_weight(byte b, int metric) noexcept {
  return metric == 1   ? (b == '\n' ? 1u : 0u)
         : metric == 0 ? (scalar_is_char(b) ? 1u : 0u)
                       : (scalar_is_char(b) ? 1u + (b >= 0xF0 ? 1u : 0u) : 0u);
}

text_counts count_text_scalar(const char* p, std::size_t n) noexcept {
  text_counts r;
  const byte* s = reinterpret_cast<const byte*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    r.chars += scalar_is_char(s[i]);
    r.newlines += s[i] == '\n';
    r.astral += s[i] >= 0xF0;
  }
  return r;
}

std::size_t count_byte_scalar(const char* p, std::size_t n, char ch) noexcept {
  std::size_t c = 0;
  for (std::size_t i = 0; i < n; ++i) c += p[i] == ch;
  return c;
}

std::size_t nth_item_scalar(const char* p, std::size_t n, int metric, std::size_t k,
                            std::size_t& skipped) noexcept {
  const byte* s = reinterpret_cast<const byte*>(p);
  std::size_t seen = 0, i = 0;
  for (; i < n; ++i) {
    const std::size_t w = scalar_weight(s[i], metric);
    if (seen + w > k) break;
    seen += w;
  }
  skipped = seen;
  return i;
}

std::size_t nth_item_back_scalar(const char* p, std::size_t n, int metric,
                                 std::size_t k) noexcept {
  const byte* s = reinterpret_cast<const byte*>(p);
  std::size_t seen = 0;
  for (std::size_t i = n; i-- > 0;) {
    const std::size_t w = scalar_weight(s[i], metric);
    if (seen + w > k) return i;
    seen += w;
  }
  return n;
}

constexpr text_count_kernel_set scalar_text_count_kernels{
    &count_text_scalar, &count_byte_scalar, &nth_item_scalar, &nth_item_back_scalar};

// The sets by level, highest first.
constexpr isa_choice<text_count_kernel_set> text_count_choices[] = {
#ifndef FL_NO_SIMD
    {isa::avx2, &avx2_text_count_kernels},
    {isa::sse2, &sse2_text_count_kernels},
#endif
    {isa::scalar, &scalar_text_count_kernels},
};

// Resolvers: the pointers' initial values (see fl/detail/find_impl.hpp for
// why constant-initialized relaxed atomics).
text_counts count_text_resolve(const char* p, std::size_t n) noexcept;
std::size_t count_byte_resolve(const char* p, std::size_t n, char ch) noexcept;
std::size_t nth_item_resolve(const char* p, std::size_t n, int metric, std::size_t k,
                             std::size_t& skipped) noexcept;
std::size_t nth_item_back_resolve(const char* p, std::size_t n, int metric,
                                  std::size_t k) noexcept;

constinit std::atomic<decltype(text_count_kernel_set::count_text)> count_text_kernel{
    &count_text_resolve};
constinit std::atomic<decltype(text_count_kernel_set::count_byte)> count_byte_kernel{
    &count_byte_resolve};
constinit std::atomic<decltype(text_count_kernel_set::nth_item)> nth_item_kernel{
    &nth_item_resolve};
constinit std::atomic<decltype(text_count_kernel_set::nth_item_back)> nth_item_back_kernel{
    &nth_item_back_resolve};

text_counts count_text_resolve(const char* p, std::size_t n) noexcept {
  install_text_count_kernels(active_isa());
  return count_text_kernel.load(std::memory_order_relaxed)(p, n);
}
std::size_t count_byte_resolve(const char* p, std::size_t n, char ch) noexcept {
  install_text_count_kernels(active_isa());
  return count_byte_kernel.load(std::memory_order_relaxed)(p, n, ch);
}
std::size_t nth_item_resolve(const char* p, std::size_t n, int metric, std::size_t k,
                             std::size_t& skipped) noexcept {
  install_text_count_kernels(active_isa());
  return nth_item_kernel.load(std::memory_order_relaxed)(p, n, metric, k, skipped);
}
std::size_t nth_item_back_resolve(const char* p, std::size_t n, int metric,
                                  std::size_t k) noexcept {
  install_text_count_kernels(active_isa());
  return nth_item_back_kernel.load(std::memory_order_relaxed)(p, n, metric, k);
}

}  // namespace

isa install_text_count_kernels(isa level) noexcept {
  const isa_choice<text_count_kernel_set>& c = choose_kernels(text_count_choices, level);
  count_text_kernel.store(c.kernels->count_text, std::memory_order_relaxed);
  count_byte_kernel.store(c.kernels->count_byte, std::memory_order_relaxed);
  nth_item_kernel.store(c.kernels->nth_item, std::memory_order_relaxed);
  nth_item_back_kernel.store(c.kernels->nth_item_back, std::memory_order_relaxed);
  return c.level;
}

text_counts count_text_bulk(const char* p, std::size_t n) noexcept {
  return count_text_kernel.load(std::memory_order_relaxed)(p, n);
}

std::size_t count_byte(const char* p, std::size_t n, char ch) noexcept {
  return count_byte_kernel.load(std::memory_order_relaxed)(p, n, ch);
}

std::size_t nth_item(const char* p, std::size_t n, text_metric m, std::size_t k,
                     std::size_t& skipped) noexcept {
  return nth_item_kernel.load(std::memory_order_relaxed)(p, n, static_cast<int>(m), k, skipped);
}

std::size_t nth_item_back(const char* p, std::size_t n, text_metric m, std::size_t k) noexcept {
  return nth_item_back_kernel.load(std::memory_order_relaxed)(p, n, static_cast<int>(m), k);
}

}  // namespace fl::detail
