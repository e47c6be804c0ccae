// fl/detail/immutable_rep.hpp: the shared block behind a long
// fl::immutable_string, its biased reference count, and the 16-byte handle
// layout. Not a public header.
//
// Biased reference counting (after Choi, Shull and Torrellas, PACT 2018): a
// text is owned by the thread that made it. The owner counts its copies in
// `local` with plain loads and stores (no locked instruction); every other
// thread counts in `shared` with atomic read-modify-writes. The number of
// handles alive is local + count(shared), and either part may be "wrong" on
// its own (a copy made on the owner and destroyed elsewhere raises local and
// lowers shared), so the text is freed only once the two are merged:
//   - when the owner's local count drops to 0 it merges (sets MERGED; the
//     text becomes unowned, `owner` is written before MERGED is published,
//     and every later count is atomic), and frees the text if no other
//     handle is left;
//   - when another thread's decrement takes count(shared) below 0, the owner
//     still holds local references that are really gone: that decrement also
//     marks the text QUEUED (one compare-exchange, so exactly one thread
//     claims it and no thread touches the text after a decrement that did not
//     claim it), and the claimant pushes it on the owner's merge queue, which
//     the owner drains when it next makes a text and when it exits;
//   - after the owner has exited (its queue is closed), the thread that would
//     have queued the text merges it itself: the owner's last write to local
//     happened before it closed the queue, which that thread has read.
// A text that never leaves its thread is made and freed without any locked
// instruction: when local reaches 0 and shared is still exactly 0, no other
// handle can exist and the block is freed at once.
//
// Block layout (one pool block):
//   owner  (8 bytes)  the owning thread's record, or &immutable_no_owner
//                     once merged (then all counting is in `shared`)
//   local  (8 bytes)  the owner's count; only the owner writes it (a relaxed
//                     atomic so that use_count() may read it from anywhere)
//   shared (8 bytes)  4 * count + QUEUED (2) + MERGED (1); count may be < 0
//   hash   (8 bytes)  std::hash<std::string_view> of the text, 0 = not yet
//   size   (8 bytes)  the length, so the block size is known from the block
//   queue_next (8)    link of the owner's merge queue (while QUEUED)
//   bytes (size + 1)  the text and a '\0'
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS
#include <fl/detail/out_of_range.hpp>
#include <fl/detail/string_layout.h>  // FL_STR_TAG_HEAP

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

struct immutable_rep;

// One per thread that has made a long immutable_string (src/shared/immutable_string.cpp
// creates it on the thread's first text and retires it at thread exit).
struct immutable_owner {
  // Texts other threads pushed for merging; immutable_queue_closed once the
  // thread has exited.
  std::atomic<immutable_rep*> queue{nullptr};
  // Keeps the record alive: 1 for the live thread plus, after it exited, one
  // per text it still owns.
  std::atomic<std::uint64_t> refs{1};
  // Texts this thread owns that are not merged (owner thread only; folded
  // into refs at exit).
  std::uint64_t owned = 0;
};

// The owner of merged texts: never a thread's record, never dereferenced.
extern immutable_owner immutable_no_owner;

// The calling thread's record, null until it makes its first long text (and
// again after it exited). initial-exec: see pool_impl.hpp.
inline constinit thread_local immutable_owner* immutable_me
    __attribute__((tls_model("initial-exec"))) = nullptr;

inline constexpr std::int64_t immutable_merged = 1;
inline constexpr std::int64_t immutable_queued = 2;
inline constexpr std::int64_t immutable_one = 4;  // one reference in `shared`

struct immutable_rep {
  std::atomic<immutable_owner*> owner;
  std::atomic<std::uint64_t> local;
  std::atomic<std::int64_t> shared;
  std::atomic<std::size_t> hash;
  std::size_t size;
  immutable_rep* queue_next;

  char* bytes() noexcept { return reinterpret_cast<char*>(this + 1); }
  const char* bytes() const noexcept { return reinterpret_cast<const char*>(this + 1); }
  // The pool block size of a rep holding `n` bytes of text.
  static constexpr std::size_t block_size(std::size_t n) noexcept {
    return sizeof(immutable_rep) + n + 1;
  }
};
static_assert(sizeof(immutable_rep) == 48, "the text starts right after a 48-byte header");
static_assert(std::atomic<std::uint64_t>::is_always_lock_free &&
                  std::atomic<std::int64_t>::is_always_lock_free &&
                  std::atomic<immutable_owner*>::is_always_lock_free,
              "immutable_string needs lock-free 64-bit atomics");

// The handle is 16 bytes, the string encoding of detail/string_layout.h on
// two words instead of three: byte 15, the tag, tells the modes apart
// (little-endian):
//   inline: bytes 0..14 hold up to 15 chars followed by zeros; the tag is
//           15 - size, so a full 15-char text's tag is 0 and doubles as its
//           terminator
//   shared: bytes 0..7 point at an immutable_rep; bytes 8..15 hold the size
//           with the tag's heap bit (FL_STR_TAG_HEAP) set
inline constexpr std::size_t immutable_inline_max = 16 - 1;
inline constexpr std::uint64_t immutable_shared_tag = std::uint64_t{FL_STR_TAG_HEAP} << 56;
static_assert(immutable_inline_max < FL_STR_TAG_HEAP, "inline tags never carry the heap bit");
inline constexpr std::size_t immutable_max_size =
    (std::size_t{1} << 56) - 1 - sizeof(immutable_rep);

// Out of line: a rep holding a copy of [p, p + n), owned by the calling thread
// with one reference. Throws std::bad_alloc, or std::length_error if
// n > immutable_max_size.
immutable_rep* immutable_make_rep(const char* p, std::size_t n);
// Out of line: the owner's local count just reached 0.
void immutable_owner_released(immutable_rep* rep) noexcept;
// Out of line: drops one reference counted in `shared` (any thread).
void immutable_release_shared(immutable_rep* rep) noexcept;
// Out of line: std::hash<std::string_view> of [p, p + n).
std::size_t immutable_hash_bytes(const char* p, std::size_t n) noexcept;

// One more reference to r, taken on the calling thread.
inline void immutable_acquire(immutable_rep* r) noexcept {
  if (r->owner.load(std::memory_order_relaxed) == immutable_me) {
    r->local.store(r->local.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } else {
    r->shared.fetch_add(immutable_one, std::memory_order_relaxed);
  }
}

// One reference to r fewer, dropped on the calling thread.
inline void immutable_release(immutable_rep* r) noexcept {
  if (r->owner.load(std::memory_order_relaxed) == immutable_me) {
    // A handle counted elsewhere may be destroyed on the owner; while local
    // is 0 (a queued text) such a drop goes to `shared`.
    const std::uint64_t l = r->local.load(std::memory_order_relaxed);
    if (l != 0) {
      r->local.store(l - 1, std::memory_order_relaxed);
      if (l == 1) immutable_owner_released(r);
      return;
    }
  }
  immutable_release_shared(r);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
