// fl/detail/string_core.hpp: detail::string_core, the one owner of fl::string's
// 24-byte encoding (constants in <fl/detail/string_layout.h>, shared with the C
// API's fl_str), of the growth policy and max_size of every string container
// in fl, and of handing pool blocks in and out of a string (adopt/release).
// fl::basic_string, fl::string_builder, fl::writer, fl::read_file and the C
// API all go through it; nothing else reads or writes the encoding.
// Users never name these types.
//
// Threads: a plain value; the usual rule for standard containers applies.
#pragma once

#include <fl/detail/config.hpp>
#include <fl/detail/string_layout.h>
#include <fl/pool.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// ---- policy: max_size and growth, one definition each ----

// The longest string any fl container holds with an allocator whose max_size()
// is alloc_max: the capacity word keeps its top bit as the heap flag and sizes
// stay below PTRDIFF_MAX (so pointer differences stay defined), minus the
// terminator's byte.
constexpr std::size_t string_max_size(std::size_t alloc_max) noexcept {
  constexpr auto limit = static_cast<std::size_t>(PTRDIFF_MAX);
  return (alloc_max < limit ? alloc_max : limit) - 1;
}
// With the pool (whose allocator allows any size_t): fl::string, the builder,
// read_file and the C API.
inline constexpr std::size_t pool_string_max_size = string_max_size(SIZE_MAX);

// The least capacity a growth moves to: 63 chars, a 64-byte pool block. A
// string that outgrows its 23 inline chars by appends usually goes on
// growing, and doubling from 23 would give it a 48-byte block that it soon
// leaves again, so strings built of 32 to 256 bytes (alloc/builder_churn)
// grow fewer times (docs/design.md, fl::string: "Growth"; the runs are in
// docs/performance.md). The floor also puts the
// capacities of a string grown from inline on the powers of two (64, 128,
// 256, ... byte blocks), all of them pool classes.
inline constexpr std::size_t min_grown_capacity = 63;

// The growth policy of every fl text container (fl::string's appends, the
// builder, fl::writer into a string, read_file of a file that grows): the
// capacity to move to when `needed` chars do not fit `capacity`: at least
// double (measured against 1.5x on the append benchmarks: doubling makes fewer
// trips to the allocator, and pool_reallocate extends large blocks in place),
// at least min_grown_capacity and `needed`, never past `max`. Callers check
// needed <= max first.
constexpr std::size_t grown_capacity(std::size_t capacity, std::size_t needed,
                                     std::size_t max) noexcept {
  std::size_t want = capacity < max / 2 ? 2 * capacity : max;
  if (want < min_grown_capacity) want = min_grown_capacity < max ? min_grown_capacity : max;
  return want > needed ? want : needed;
}

// The capacity of the pool block that holds at least min_capacity chars and
// the terminator: the request rounded up to the pool's size class, so that no
// byte of the block is wasted. Callers keep min_capacity <= max_size.
inline std::size_t pool_block_capacity(std::size_t min_capacity) noexcept {
  return pool_good_size(min_capacity + 1) - 1;
}

// A block of capacity + 1 bytes from a string's allocator (pool_allocate or
// pool_reallocate of capacity + 1, or basic_string::allocate_block, which
// returns size 0) whose first size bytes are text. The unit adopt and release
// hand over.
struct heap_block {
  char* data;
  std::size_t size;
  std::size_t capacity;
};

// The encoding (<fl/detail/string_layout.h> has the constants and the picture):
//   inline: bytes 0..22 hold up to 23 chars; the tag (byte 23) = 23 - size
//   heap:   ptr | size | capacity, the capacity word's top bit (the tag's bit 7) set
// The three words are always the objects that live here; inline characters are
// read and written through char lvalues, which may access any object's bytes.
// Invariants: data()[size()] == 0 in both modes; in heap mode the block holds
// capacity + 1 bytes and came from the string's allocator with exactly that
// count; heap mode may hold any capacity (adopt can hand over a small block),
// inline mode always has capacity 23.
//
// C interop rule: an fl_str's 24 bytes are the object representation of a
// string_core. C++ never reads an fl_str through a union member: it copies the
// bytes in and out with load/store (memcpy, defined for any trivially
// copyable type), and fl::as_string creates the fl::string that lives in an
// fl_str's storage from those bytes (<fl/fl.h>).
struct string_core {
  char* ptr;         // heap: the block
  std::size_t size;  // heap: the length
  std::size_t cap;   // heap: capacity | heap_flag; inline: chars 16..22 and the tag

  static constexpr std::size_t bytes_total = FL_STR_BYTES;
  static constexpr std::size_t inline_capacity = FL_STR_INLINE_CAPACITY;
  static constexpr std::size_t tag_index = FL_STR_TAG_BYTE;
  static constexpr unsigned char tag_heap = FL_STR_TAG_HEAP;
  static constexpr unsigned tag_shift = FL_STR_TAG_SHIFT;
  static constexpr std::size_t heap_flag = FL_STR_HEAP_FLAG;
  static constexpr std::size_t empty_cap_word = FL_STR_EMPTY_CAP_WORD;
  // The capacity word with the tag cleared: inline chars 16..22.
  static constexpr std::size_t below_tag = (std::size_t{1} << tag_shift) - 1;
  // First inline char that lives in the capacity word.
  static constexpr std::size_t cap_word_first_char = FL_STR_WORD_CAP * sizeof(std::size_t);

  char* bytes() noexcept { return reinterpret_cast<char*>(this); }
  const char* bytes() const noexcept { return reinterpret_cast<const char*>(this); }

  // Both read the tag byte alone, not the whole capacity word: the inline
  // paths have just written that byte, and a byte load is forwarded from a
  // byte store where a word load would stall until the store retires.
  unsigned char tag() const noexcept { return static_cast<unsigned char>(bytes()[tag_index]); }
  bool is_heap() const noexcept { return (tag() & tag_heap) != 0; }
  // One test for "both are heap strings" (compare's fast path).
  static bool both_heap(const string_core& a, const string_core& b) noexcept {
    return ((a.tag() & b.tag()) & tag_heap) != 0;
  }

  // Branch-free: the compiler turns the select into cmov.
  std::size_t size_any() const noexcept {
    const std::size_t inl = inline_capacity - tag();
    return is_heap() ? size : inl;
  }
  std::size_t heap_capacity() const noexcept { return cap & ~heap_flag; }
  std::size_t capacity_any() const noexcept {
    return is_heap() ? heap_capacity() : inline_capacity;
  }
  char* data_any() noexcept { return is_heap() ? ptr : bytes(); }
  const char* data_any() const noexcept { return is_heap() ? ptr : bytes(); }

  // Heap mode: the low 32 bits of the capacity, read without touching the
  // tag. A fast path that tests the tag byte and then loads the whole capacity
  // word makes two overlapping loads, which slow append and push_back loops
  // down by an amount that depends on code alignment (docs/design.md,
  // fl::string: "Reads"). The
  // value is at most the capacity, so room against it is real room; strings
  // of 4 GiB and more take the slow paths, which test the full capacity.
  std::size_t heap_capacity_low() const noexcept {
    std::uint32_t low;
    std::memcpy(&low, &cap, sizeof low);
    return low;
  }

  // Appends ch if it fits, in either mode; false (nothing changed) when the
  // string is full. One 8-byte load of the capacity word decides the mode
  // (its top bit) and, on the heap, the room: testing the tag byte and then
  // loading the word that contains it slows push_back loops down, by an amount
  // that depends on code alignment (docs/design.md, fl::string: "Reads").
  // For the load to be forwarded from
  // the previous push_back's store, the inline path also writes that word
  // whole (chars 16..22 and the tag live in it), never the tag alone.
  [[gnu::always_inline]] bool push_back_fits(char ch) noexcept {
    std::size_t w = cap;
    if (w & heap_flag) {
      const std::size_t sz = size;
      if (sz < (w & ~heap_flag)) [[likely]] {
        char* p = ptr;
        p[sz] = ch;
        size = sz + 1;
        p[sz + 1] = '\0';
        return true;
      }
      return false;
    }
    const std::size_t left = w >> tag_shift;  // the tag: 23 - size
    if (left > inline_capacity) __builtin_unreachable();
    if (left == 0) [[unlikely]]
      return false;
    const std::size_t sz = inline_capacity - left;
    if (sz + 1 < cap_word_first_char) {
      char* b = bytes();
      b[sz] = ch;
      b[sz + 1] = '\0';
      w -= std::size_t{1} << tag_shift;
    } else {
      if (sz + 1 == cap_word_first_char) {
        bytes()[sz] = ch;
        w &= ~std::size_t{0xff};  // the terminator is the word's first char
      } else {
        // Char sz and its terminator are bytes sz - 16 and sz - 15 of w (for
        // the last inline char the terminator is the tag, which becomes 0).
        const unsigned shift = static_cast<unsigned>(sz - cap_word_first_char) * 8;
        w = (w & ~(std::size_t{0xffff} << shift)) |
            (std::size_t{static_cast<unsigned char>(ch)} << shift);
      }
      w = (w & below_tag) | ((left - 1) << tag_shift);
    }
    cap = w;
    return true;
  }

  // This core becomes a copy of o, read as three 8-byte words. A plain struct
  // copy is compiled to a 16-byte load, which the CPU cannot forward from
  // the two 8-byte stores that set_heap made just before (a string handed on
  // by `a + b + c` is read right after it was written): that stall cost more
  // than the append itself. The empty asm keeps the words in registers, so
  // the compiler cannot merge the loads again.
  void copy_words(const string_core& o) noexcept {
    char* p = o.ptr;
    std::size_t n = o.size;
    std::size_t c = o.cap;
    __asm__("" : "+r"(p), "+r"(n), "+r"(c));
    ptr = p;
    size = n;
    cap = c;
  }

  // The 24 bytes at `from` (an fl_str) as a core, and back: word by word
  // (see copy_words), through memcpy.
  static string_core load(const void* from) noexcept {
    string_core c;
    std::memcpy(&c.ptr, static_cast<const char*>(from), sizeof c.ptr);
    std::memcpy(&c.size, static_cast<const char*>(from) + sizeof c.ptr, sizeof c.size);
    std::memcpy(&c.cap, static_cast<const char*>(from) + 2 * sizeof c.ptr, sizeof c.cap);
    return c;
  }
  void store(void* to) const noexcept {
    std::memcpy(static_cast<char*>(to), &ptr, sizeof ptr);
    std::memcpy(static_cast<char*>(to) + sizeof ptr, &size, sizeof size);
    std::memcpy(static_cast<char*>(to) + 2 * sizeof ptr, &cap, sizeof cap);
  }

  void set_empty() noexcept {
    ptr = nullptr;
    size = 0;
    cap = empty_cap_word;
  }
  // Inline mode of length n <= 23: terminator then the tag (for n == 23
  // both are the tag byte and both write 0).
  void set_inline_size(std::size_t n) noexcept {
    // Callers guarantee it; telling the compiler keeps the stores in bounds
    // in its eyes (and spares -Warray-bounds false alarms after inlining).
    if (n > inline_capacity) __builtin_unreachable();
    char* b = bytes();
    b[n] = '\0';
    b[tag_index] = static_cast<char>(inline_capacity - n);
  }
  // Inline mode holding the n <= 23 chars at s (read only inside
  // [s, s + n)), written as three whole words composed in registers. Writing
  // the chars with byte-range moves and then reading the words back, as
  // moving the new string does at once (`v[i] = fl::string(p, n)`), makes the
  // CPU wait: a word load is not forwarded from several narrower or
  // misaligned stores (docs/design.md, fl::string: "Short strings never
  // allocate").
  void set_inline_copy(const char* s, std::size_t n) noexcept {
    if (n > inline_capacity) __builtin_unreachable();
    std::uint64_t w[3] = {0, 0, 0};
    if (n >= 8) {
      // Three loads inside [s, s + n): chars 0..7, the 8 chars that end at
      // min(n, 16) and the last 8. Words 1 and 2 keep the top k1 and k2 bytes
      // of theirs, so a length takes no branch (random lengths mispredict).
      const auto load = [](const char* p) noexcept {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        return x;
      };
      // The top k (0..8) bytes of x as its low bytes, zeros above: two
      // shifts of at most 32 bits, as one shift by 64 is undefined.
      const auto top = [](std::uint64_t x, std::size_t k) noexcept {
        const unsigned half = static_cast<unsigned>(32 - 4 * k);
        return (x >> half) >> half;
      };
      const std::size_t mid_end = n < 16 ? n : 16;
      w[0] = load(s);
      w[1] = top(load(s + mid_end - 8), mid_end - 8);
      w[2] = top(load(s + n - 8), n - mid_end);
    } else if (n >= 4) {
      std::uint32_t lo, hi;
      std::memcpy(&lo, s, 4);
      std::memcpy(&hi, s + n - 4, 4);
      w[0] = lo | (std::uint64_t{hi} << (8 * (n - 4)));
    } else if (n != 0) {
      const auto byte = [s](std::size_t i) noexcept {
        return std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
      };
      w[0] = byte(0) | byte(n / 2) | byte(n - 1);
    }
    std::memcpy(&ptr, &w[0], sizeof ptr);
    size = w[1];
    cap = w[2] | ((inline_capacity - n) << tag_shift);
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

  // ---- pool blocks in and out (fl::string over the pool only) ----
  // Takes ownership of b (from the pool; size <= capacity < 2^63) and writes
  // the terminator at data[size]. Any capacity is accepted: the core stays in
  // heap mode even for a small block, and is freed as capacity + 1 bytes
  // later. A null data gives the empty string. The previous content is
  // overwritten, not freed.
  void adopt(heap_block b) noexcept {
    if (b.data == nullptr) {
      set_empty();
      return;
    }
    b.data[b.size] = '\0';
    set_heap(b.data, b.size, b.capacity);
  }
  // Heap mode: hands the block over (data[size] == 0) and becomes empty and
  // inline. Inline mode: returns {nullptr, 0, 0} and changes nothing.
  heap_block release() noexcept {
    if (!is_heap()) return {nullptr, 0, 0};
    const heap_block b{ptr, size, heap_capacity()};
    set_empty();
    return b;
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

static_assert(sizeof(string_core) == string_core::bytes_total && alignof(string_core) == 8);
static_assert(std::is_standard_layout_v<string_core> && std::is_trivially_copyable_v<string_core> &&
              std::is_trivially_default_constructible_v<string_core>);
static_assert(offsetof(string_core, ptr) == FL_STR_WORD_PTR * sizeof(std::size_t) &&
              offsetof(string_core, size) == FL_STR_WORD_SIZE * sizeof(std::size_t) &&
              offsetof(string_core, cap) == FL_STR_WORD_CAP * sizeof(std::size_t));
static_assert(string_core::tag_index / sizeof(std::size_t) == FL_STR_WORD_CAP &&
                  string_core::inline_capacity < string_core::tag_heap,
              "the tag is the capacity word's top byte, and inline tags never carry the heap bit");
static_assert(sizeof(void*) == 8 && std::endian::native == std::endian::little,
              "fl::string's layout is written for 64-bit little-endian targets");

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
