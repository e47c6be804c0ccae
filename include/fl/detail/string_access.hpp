// fl/detail/string_access.hpp: the gate through which the parts of fl that
// build text elsewhere (string_builder, read_file, rope, the C API) hand pool
// blocks to and from an fl::string without copying. What a block is, and how
// it enters and leaves the 24 bytes, is decided by detail::string_core
// (adopt/release); this only reaches the string's core. Not for users: a
// block handed over must come from the pool.
#pragma once

#include <fl/string.hpp>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

struct string_access {
  using pool_string = basic_string<pool_allocator<char>>;

  // Heap mode: hands the block over (data[size] == 0) and leaves s empty and
  // inline. Inline mode: returns {nullptr, 0, 0} and leaves s unchanged.
  static heap_block release(pool_string& s) noexcept { return s.core_.release(); }

  // Takes ownership of b (string_core::adopt: any capacity, terminator
  // written at data[size], a null data gives an empty string).
  static pool_string adopt(heap_block b) noexcept {
    string_core c;
    c.adopt(b);
    return from_core(c);
  }

  // The string whose 24 bytes are c, which it now owns (the C API and
  // fl::as_string: an fl_str's bytes, read with string_core::load).
  static pool_string from_core(const string_core& c) noexcept {
    return pool_string(typename pool_string::from_core_tag{}, c);
  }
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
