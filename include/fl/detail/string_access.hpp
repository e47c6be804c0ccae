// fl/detail/string_access.hpp: hands heap buffers between fl::string and the
// parts of fl that build text elsewhere (string_builder, rope, the C API)
// without copying. Not for users: a block handed over must come from the pool.
#pragma once

#include <fl/string.hpp>

#include <cstddef>

namespace fl::detail {

// A pool block of capacity + 1 bytes (from pool_allocate(capacity + 1) or
// pool_reallocate(..., capacity + 1)) whose first size bytes are the text.
struct heap_block {
  char* data;
  std::size_t size;
  std::size_t capacity;
};

struct string_access {
  // Heap mode: hands the block over (data[size] == 0) and leaves s empty and
  // inline. Inline mode: returns {nullptr, 0, 0} and leaves s unchanged.
  static heap_block release(basic_string<pool_allocator<char>>& s) noexcept {
    if (!s.rep_.is_heap()) return {nullptr, 0, 0};
    const heap_block b{s.rep_.ptr, s.rep_.size, s.heap_capacity()};
    s.rep_.set_empty();
    return b;
  }

  // Takes ownership of b and writes the terminator at data[size]. Any
  // capacity is accepted (size <= capacity < 2^63): the string stays in heap
  // mode even for small blocks, and frees capacity + 1 bytes later. A null
  // data gives an empty string.
  static basic_string<pool_allocator<char>> adopt(heap_block b) noexcept {
    basic_string<pool_allocator<char>> s;
    if (b.data == nullptr) return s;
    b.data[b.size] = '\0';
    s.rep_.set_heap(b.data, b.size, b.capacity);
    return s;
  }

  // The representation, for the C API's in-place view of fl_str.
  static string_rep& rep(basic_string<pool_allocator<char>>& s) noexcept { return s.rep_; }
};

}  // namespace fl::detail
