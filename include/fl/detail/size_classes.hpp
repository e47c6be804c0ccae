// fl/detail/size_classes.hpp: the size-class scheme of fl's two allocators,
// written once: the pool's thread caches (detail/pool_impl.hpp, blocks up to
// pool_max_cached_bytes) and mapped_space files (src/persist/persist_format.hpp,
// blocks up to 2^46). One generator, two bounds: the pool's classes are the
// first of the file's. Not a public interface.
//
// Classes: 16, 32, ..., 128 (16-byte steps: the short heap strings that
// dominate real programs waste at most 15 bytes), then four per doubling,
// 2^k + j * 2^(k-2) for j = 1..4 (160, 192, 224, 256, 320, ...), so a request
// rounded up to its class wastes at most 25% above 128 bytes. Every class is
// a multiple of 16.
//
// ABI and file format: the pool's inline tables are compiled into programs
// (see FL_ABI_NS), and mapped_space block headers store class numbers, so
// class_size(c) is part of the on-disk format for every c a file may hold
// (tests/size_class_test.cpp keeps both tables as they are).
//
// Threads: constants and constexpr functions.
#pragma once

#include <fl/detail/config.hpp>

#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// The 16-byte classes: 16 .. 128.
inline constexpr unsigned size_class_linear_count = 8;

// The size of class c (< 8 + 4 * 57, where the sizes would leave 64 bits).
constexpr std::uint64_t class_size(unsigned c) noexcept {
  if (c < size_class_linear_count) return 16 * (std::uint64_t{c} + 1);
  const unsigned k = 7 + (c - size_class_linear_count) / 4;
  const unsigned j = (c - size_class_linear_count) % 4 + 1;
  return (std::uint64_t{1} << k) + j * (std::uint64_t{1} << (k - 2));
}

// The smallest class of at least n bytes (n >= 1; n = 0 gives class 0).
constexpr unsigned size_class(std::uint64_t n) noexcept {
  if (n <= 128) return n == 0 ? 0 : static_cast<unsigned>((n + 15) / 16 - 1);
  const unsigned k = 63 - static_cast<unsigned>(__builtin_clzll(n - 1));  // 2^k < n <= 2^(k+1)
  const std::uint64_t step = std::uint64_t{1} << (k - 2);
  const std::uint64_t j = (n - (std::uint64_t{1} << k) + step - 1) / step;  // 1..4
  return size_class_linear_count + (k - 7) * 4 + static_cast<unsigned>(j - 1);
}

// The number of classes of an allocator whose largest block is max_bytes,
// which must itself be a class size (the bound is then a class, not a
// request that would round past it).
consteval unsigned size_class_count(std::uint64_t max_bytes) {
  const unsigned last = size_class(max_bytes);
  if (class_size(last) != max_bytes) throw "size_class_count: the bound is not a class size";
  return last + 1;
}

static_assert(class_size(size_class(129)) == 160 && class_size(size_class(256)) == 256 &&
              class_size(size_class(257)) == 320);

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
