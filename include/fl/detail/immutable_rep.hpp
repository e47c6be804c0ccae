// fl/detail/immutable_rep.hpp: the shared block behind a long
// fl::immutable_string and the 16-byte handle layout. Not a public header.
//
// One pool block holds everything a long text needs:
//   refs  (8 bytes)  atomic owner count; copies add 1 (relaxed), destruction
//                    subtracts 1 (acq_rel) and the owner that reaches 0 frees
//   hash  (8 bytes)  std::hash<std::string_view> of the text, computed on first
//                    use; 0 means "not computed yet" (a text whose hash really is
//                    0 is simply rehashed each time, which is only slower)
//   size  (8 bytes)  the length, so the block size is known from the block alone
//   bytes (size + 1) the text and a '\0'
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace fl::detail {

struct immutable_rep {
  std::atomic<std::uint64_t> refs;
  std::atomic<std::size_t> hash;
  std::size_t size;

  char* bytes() noexcept { return reinterpret_cast<char*>(this + 1); }
  const char* bytes() const noexcept { return reinterpret_cast<const char*>(this + 1); }
  // The pool block size of a rep holding `n` bytes of text.
  static constexpr std::size_t block_size(std::size_t n) noexcept { return sizeof(immutable_rep) + n + 1; }
};
static_assert(sizeof(immutable_rep) == 24, "the text starts right after a 24-byte header");
static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<std::size_t>::is_always_lock_free,
              "immutable_string needs lock-free 64-bit atomics");

// The handle is 16 bytes; byte 15 tells the two modes apart (little-endian):
//   inline: bytes 0..14 hold up to 15 chars followed by zeros; byte 15 is
//           15 - size, so a full 15-char text's byte 15 is 0 and doubles as
//           its terminator
//   shared: bytes 0..7 point at an immutable_rep; bytes 8..15 hold
//           size | (0x80 << 56), so byte 15 has its top bit set
inline constexpr std::size_t immutable_inline_max = 15;
inline constexpr std::uint64_t immutable_shared_tag = std::uint64_t{0x80} << 56;
inline constexpr std::size_t immutable_max_size = (std::size_t{1} << 56) - 1 - sizeof(immutable_rep);

// Out of line: a rep with refs = 1 holding a copy of [p, p + n). Throws
// std::bad_alloc, or std::length_error if n > immutable_max_size.
immutable_rep* immutable_make_rep(const char* p, std::size_t n);
// Out of line: frees a rep whose last owner is gone.
void immutable_free_rep(immutable_rep* rep) noexcept;
// Out of line: std::hash<std::string_view> of [p, p + n).
std::size_t immutable_hash_bytes(const char* p, std::size_t n) noexcept;
// Out of line: throws std::out_of_range naming the index and the size.
[[noreturn]] void immutable_throw_out_of_range(std::size_t index, std::size_t size);

}  // namespace fl::detail
