// src/text/text_count.cpp: the counting functions of src/text/text_count.hpp, each a
// call through the kernel set installed for the level of src/simd/isa.hpp (the
// sets of src/text/text_count_sse2.cpp and src/text/text_count_avx2.cpp, or the scalar
// code here).
#include "text/text_count.hpp"

#include <fl/detail/utf8.hpp>

#include "simd/isa.hpp"
#include "text/text_count_kernel_set.hpp"

#include <atomic>
#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

using byte = unsigned char;

std::size_t scalar_weight(byte b, int metric) noexcept {
  return metric == 1   ? (b == '\n' ? 1u : 0u)
         : metric == 0 ? (utf8_continuation(b) ? 0u : 1u)
                       : utf8_utf16_units(b);
}

text_counts count_text_scalar(const char* p, std::size_t n) noexcept {
  text_counts r;
  const byte* s = reinterpret_cast<const byte*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    r.chars += !utf8_continuation(s[i]);
    r.newlines += s[i] == '\n';
    r.astral += utf8_astral_lead(s[i]);
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

// The resolver set: the initial kernels, which install the set of the active
// level and forward the call (constant-initialized, so valid inside other
// translation units' static initializers; relaxed, as in
// fl/detail/find_impl.hpp).
const text_count_kernel_set& resolved() noexcept;

text_counts count_text_resolve(const char* p, std::size_t n) noexcept {
  return resolved().count_text(p, n);
}
std::size_t count_byte_resolve(const char* p, std::size_t n, char ch) noexcept {
  return resolved().count_byte(p, n, ch);
}
std::size_t nth_item_resolve(const char* p, std::size_t n, int metric, std::size_t k,
                             std::size_t& skipped) noexcept {
  return resolved().nth_item(p, n, metric, k, skipped);
}
std::size_t nth_item_back_resolve(const char* p, std::size_t n, int metric,
                                  std::size_t k) noexcept {
  return resolved().nth_item_back(p, n, metric, k);
}

constexpr text_count_kernel_set resolver_kernels{&count_text_resolve, &count_byte_resolve,
                                                 &nth_item_resolve, &nth_item_back_resolve};

constinit std::atomic<const text_count_kernel_set*> kernels{&resolver_kernels};

const text_count_kernel_set& resolved() noexcept {
  install_text_count_kernels(active_isa());
  return *kernels.load(std::memory_order_relaxed);
}

}  // namespace

isa install_text_count_kernels(isa level) noexcept {
  const isa_choice<text_count_kernel_set>& c = choose_kernels(text_count_choices, level);
  kernels.store(c.kernels, std::memory_order_relaxed);
  return c.level;
}

text_counts count_text_bulk(const char* p, std::size_t n) noexcept {
  return kernels.load(std::memory_order_relaxed)->count_text(p, n);
}

std::size_t count_byte(const char* p, std::size_t n, char ch) noexcept {
  return kernels.load(std::memory_order_relaxed)->count_byte(p, n, ch);
}

std::size_t nth_item(const char* p, std::size_t n, text_metric m, std::size_t k,
                     std::size_t& skipped) noexcept {
  return kernels.load(std::memory_order_relaxed)->nth_item(p, n, static_cast<int>(m), k, skipped);
}

std::size_t nth_item_back(const char* p, std::size_t n, text_metric m, std::size_t k) noexcept {
  return kernels.load(std::memory_order_relaxed)->nth_item_back(p, n, static_cast<int>(m), k);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
