// fl/pstring.hpp: fl::pstring, a string that lives in an fl::mapped_space
// (fl/mapped_space.hpp, which includes this header). For text on the heap,
// fl::string.
//
// Threads: as the objects of its space (fl/mapped_space.hpp): reads may run
// concurrently; calls that allocate need exclusive access to the space.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/mapped_space.hpp>
#include <fl/string.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {

namespace detail {
// The part of pstring's layout (src/persist/persist_format.hpp) that the
// inline constructor writes: an empty pstring is inline, and its tag byte
// holds the inline capacity minus its size.
inline constexpr std::size_t pstring_tag_byte = 23;
inline constexpr unsigned char pstring_inline_max = 23;
}  // namespace detail

// A string that lives in a mapped_space: 24 bytes, trivially copyable, text
// of up to 23 bytes inline, longer text in a block of the space. Any bytes.
// It cannot find its space by itself (addresses differ between processes),
// so every call that reads heap text or allocates takes the space; read it
// through view(), which offers the whole read-only std::string_view
// interface, and convert with to_string() / assign().
//
//   fptr<pstring> name = pstring::make(space, "Ada");
//   space.get(name)->append(space, " Lovelace");
//   fl::string copy = space.get(name)->to_string(space);
//   pstring::destroy(space, name);
//
// A pstring that lives in the space stays correct if an allocation it makes
// moves the mapping (it re-finds itself by offset), and `text` may point into
// the same space.
class pstring {
 public:
  constexpr pstring() noexcept : bytes_{} {
    bytes_[detail::pstring_tag_byte] = detail::pstring_inline_max;
  }

  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }
  // The text; valid while the pointers of `space` are (see the file comment)
  // and until this pstring is changed.
  std::string_view view(const mapped_space& space) const;
  fl::string to_string(const mapped_space& space) const { return fl::string(view(space)); }

  // Replace or extend the text. Strong guarantee: on a throw
  // (persist_error, std::bad_alloc) the text is unchanged. Appending grows
  // the block by fl::string's growth policy (at least doubling: amortized
  // O(1) per byte).
  void assign(mapped_space& space, std::string_view text);
  void append(mapped_space& space, std::string_view text);
  // Frees the heap block, if any; the pstring is then empty.
  void clear(mapped_space& space);

  // A new pstring holding `text`, and its release (text and object).
  static fptr<pstring> make(mapped_space& space, std::string_view text);
  static void destroy(mapped_space& space, fptr<pstring> p);

 private:
  // The layout: src/persist/persist_format.hpp ("fl::pstring").
  bool is_heap() const noexcept;
  std::size_t capacity(const mapped_space& space) const;
  std::uint64_t heap_offset() const noexcept;
  void set_heap(std::uint64_t offset, std::uint64_t size) noexcept;
  void set_inline(std::string_view text) noexcept;

  unsigned char bytes_[24];
};
static_assert(sizeof(pstring) == 24 && std::is_trivially_copyable_v<pstring>);

}  // namespace FL_ABI_NS
}  // namespace fl
