// fl/detail/string_rep.hpp: the 24-byte representation behind fl::basic_string.
// Users never name these types; fl/string.hpp and the C API's fl_str do.
//
// Threads: a plain value; the usual rule for standard containers applies.
#pragma once

#include <fl/detail/config.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace fl::detail {

// Two modes share 24 bytes; the top bit of byte 23 tells them apart.
//   inline: bytes 0..22 hold up to 23 chars; byte 23 = 23 - size, so a full
//           inline string's last byte is 0 and doubles as its terminator
//   heap:   ptr | size | capacity (bytes 0..23); the capacity word has its top
//           bit (the top bit of byte 23 on little endian) set
// The three words are always the objects that live here; inline characters are
// read and written through char lvalues, which may access any object's bytes.
// Invariants: data()[size()] == 0 in both modes; in heap mode the block holds
// capacity + 1 bytes and came from the string's allocator with exactly that
// count; heap mode may hold any capacity (string_access::adopt can hand over a
// small block), inline mode always has capacity 23.
struct string_rep {
  char* ptr;         // heap: the block
  std::size_t size;  // heap: the length
  std::size_t cap;   // heap: capacity | heap_flag; inline: chars 16..22 and byte 23

  // Set in the capacity word of a heap string; bit 7 of byte 23.
  static constexpr std::size_t heap_flag = std::size_t{1} << 63;
  // Chars that fit inline: 24 bytes minus the byte that stores 23 - size.
  static constexpr std::size_t inline_capacity = 23;
  // Byte 23 of an empty inline string: 23 - 0, placed in the top byte of cap.
  static constexpr std::size_t empty_cap_word = std::size_t{inline_capacity} << 56;

  char* bytes() noexcept { return reinterpret_cast<char*>(this); }
  const char* bytes() const noexcept { return reinterpret_cast<const char*>(this); }

  // Both read byte 23 alone, not the whole capacity word: the inline paths
  // have just written that byte, and a byte load is forwarded from a byte
  // store where a word load would stall until the store retires.
  unsigned char tag() const noexcept { return static_cast<unsigned char>(bytes()[23]); }
  bool is_heap() const noexcept { return (tag() & 0x80) != 0; }

  // Branch-free: the compiler turns the select into cmov.
  std::size_t size_any() const noexcept {
    const std::size_t inl = inline_capacity - tag();
    return is_heap() ? size : inl;
  }
  std::size_t capacity_any() const noexcept {
    return is_heap() ? (cap & ~heap_flag) : inline_capacity;
  }
  char* data_any() noexcept { return is_heap() ? ptr : bytes(); }
  const char* data_any() const noexcept { return is_heap() ? ptr : bytes(); }

  // Heap mode: the low 32 bits of the capacity, read without touching byte
  // 23. A fast path that tests the tag byte and then loads the whole capacity
  // word makes two overlapping loads, which measured up to 1.8x slower in
  // append and push_back loops depending on code alignment (AMD Zen). The
  // value is at most the capacity, so room against it is real room; strings
  // of 4 GiB and more take the slow paths, which test the full capacity.
  std::size_t heap_capacity_low() const noexcept {
    std::uint32_t low;
    std::memcpy(&low, &cap, sizeof low);
    return low;
  }

  // This rep becomes a copy of o, read as three 8-byte words. A plain struct
  // copy is compiled to a 16-byte load, which the CPU cannot forward from
  // the two 8-byte stores that set_heap made just before (a string handed on
  // by `a + b + c` is read right after it was written): that stall cost more
  // than the append itself. The empty asm keeps the words in registers, so
  // the compiler cannot merge the loads again.
  void copy_words(const string_rep& o) noexcept {
    char* p = o.ptr;
    std::size_t n = o.size;
    std::size_t c = o.cap;
    __asm__("" : "+r"(p), "+r"(n), "+r"(c));
    ptr = p;
    size = n;
    cap = c;
  }

  void set_empty() noexcept {
    ptr = nullptr;
    size = 0;
    cap = empty_cap_word;
  }
  // Inline mode of length n <= 23: terminator then the length byte (for
  // n == 23 both are byte 23 and both write 0).
  void set_inline_size(std::size_t n) noexcept {
    // Callers guarantee it; telling the compiler keeps the stores in bounds
    // in its eyes (and spares -Warray-bounds false alarms after inlining).
    if (n > inline_capacity) __builtin_unreachable();
    char* b = bytes();
    b[n] = '\0';
    b[23] = static_cast<char>(inline_capacity - n);
  }
  // Inline mode of length n <= 23 with bytes 0..22 zero, in three word
  // stores: the terminator is already in place, and the caller copies the n
  // chars over the zeros. Cheaper than set_empty + set_inline_size (five
  // stores, two of them single bytes) for constructors.
  void set_inline_zeroed(std::size_t n) noexcept {
    if (n > inline_capacity) __builtin_unreachable();
    ptr = nullptr;
    size = 0;
    cap = (inline_capacity - n) << 56;
  }
  void set_heap(char* p, std::size_t n, std::size_t capacity) noexcept {
    ptr = p;
    size = n;
    cap = capacity | heap_flag;
  }
  // Keeps the mode, sets the length and the terminator.
  void set_size_any(std::size_t n) noexcept {
    if (is_heap()) {
      // Sizes stay <= max_size() < PTRDIFF_MAX; saying so keeps GCC from
      // warning about stores it imagines at huge constant offsets.
      if (n >= static_cast<std::size_t>(PTRDIFF_MAX)) __builtin_unreachable();
      size = n;
      ptr[n] = '\0';
    } else {
      set_inline_size(n);
    }
  }
};

// Copies n <= 32 bytes with at most two fixed-size moves that may overlap,
// instead of a call to memcpy with a run-time length: short strings and
// formatted numbers are the common case, and a library call costs more than
// the copy. Never touches bytes outside [src, src + n) or [dst, dst + n).
inline void copy_short(char* dst, const char* src, std::size_t n) noexcept {
  if (n >= 16) {
    std::memcpy(dst, src, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else if (n != 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

// Copies n bytes between non-overlapping ranges: copy_short up to 32, two
// 32-byte moves (that may overlap each other) up to 64, memcpy above. Strings
// of a line or a name are the common case, and up to 64 bytes the library
// call costs more than the copy.
inline void copy_bytes(char* dst, const char* src, std::size_t n) noexcept {
  if (n <= 32) {
    copy_short(dst, src, n);
  } else if (n <= 64) {
    std::memcpy(dst, src, 32);
    std::memcpy(dst + n - 32, src + n - 32, 32);
  } else {
    std::memcpy(dst, src, n);
  }
}

static_assert(sizeof(string_rep) == 24 && alignof(string_rep) == 8);
static_assert(std::is_standard_layout_v<string_rep> && std::is_trivially_copyable_v<string_rep>);
static_assert(sizeof(void*) == 8 && std::endian::native == std::endian::little,
              "fl::string's layout is written for 64-bit little-endian targets");

}  // namespace fl::detail
