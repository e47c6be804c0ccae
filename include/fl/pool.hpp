// fl/pool.hpp: fl::pool_allocator, a standard allocator over thread-local
// size-class caches, and fl::pool_stats().
//
// Blocks come from the system malloc (mimalloc when built with
// FL_WITH_MIMALLOC=ON). Freed blocks of the small size classes (up to
// detail::pool_max_cached_bytes, 8 KiB) are kept in a per-thread cache of
// bounded depth and handed out again without touching malloc.
//
// Memory the pool holds after strings are freed, the whole rule:
//   - a thread's cache: at most detail::pool_thread_cache_max_bytes (about
//     1.6 MiB), small blocks only; an idle thread holds no more than that,
//     and nothing once it exits or calls pool_trim();
//   - the process-wide exchange of batches: at most
//     detail::pool_exchange_max_bytes (8 MiB);
//   - one kept large block for the whole process: the last freed block of
//     detail::pool_keep_min_bytes to detail::pool_keep_max_bytes (32-256 MiB,
//     e.g. a whole file just read), handed out again for the next request of
//     about its size, and returned to the system detail::pool_keep_ms (250 ms)
//     after its free if nobody reused it (a reaper thread, started with the
//     first kept block and ending when none is kept, frees it);
//   - every other block above pool_max_cached_bytes goes back to the system
//     allocator at once.
// Free memory of the system allocator (glibc malloc keeps freed blocks in its
// arenas and returns little of them by itself): once threads have handed the
// system allocator at least detail::pool_trim_min_bytes (2 MiB) and then a
// pass of detail::pool_idle_ms (100 ms) sees less than that released, the
// pool's releaser thread empties the exchange and calls malloc_trim(0)
// (mi_collect with mimalloc). So 100-200 ms after a burst of frees ends, an
// idle process holds its live memory, each thread's cache and nothing else,
// with no call from the idle threads. The releaser is the thread that also
// frees the kept block; it starts when there is something to release and
// ends when there is nothing.
// The kept block is mapped memory the kernel would otherwise fault in and
// zero again page by page on the next big read (docs/io.md); its 250 ms are
// the bound on how long a big string outlives its free.
//
// Threads: a block may be freed on any thread, not only the one that allocated
// it; it then joins the freeing thread's cache. A class that is full hands half
// of its blocks, as one batch, to a process-wide exchange, and a class that is
// empty takes a batch from there before it calls malloc: blocks that pile up
// on a consuming thread flow back, a batch at a time, to the thread that
// allocates (one lock per batch). The exchange is bounded
// (detail::pool_exchange_class_bytes per class); beyond it blocks go back to
// malloc. A thread's cache goes back to malloc when the thread exits.
#pragma once

#include <fl/detail/config.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>

namespace fl::inline FL_ABI_NS {

// Counters of the calling thread's cache since the thread started.
struct pool_statistics {
  std::uint64_t hits = 0;            // allocations served from the cache
  std::uint64_t misses = 0;          // allocations that went to malloc (any size)
  std::uint64_t frees_cached = 0;    // frees kept in the cache
  std::uint64_t frees_released = 0;  // blocks handed to the system allocator: frees of
                                     // uncached sizes, and batches the full exchange refused
  std::size_t bytes_cached = 0;      // bytes now held in the cache (this thread's)
  std::uint64_t batches_taken = 0;   // batches this thread took from the exchange
  std::uint64_t batches_given = 0;   // batches this thread handed to the exchange
  std::size_t bytes_kept = 0;        // the process's kept large block now (any thread's), 0 if none
};

// The calling thread's statistics. Costs nothing until called: the fast paths
// keep one counter, and the rest is computed here. O(number of size classes),
// never allocates.
pool_statistics pool_stats() noexcept;

// Returns every block cached by the calling thread, every batch held by the
// process-wide exchange and the kept large block to the system allocator,
// then hands the system allocator's free memory back to the system
// (malloc_trim(0) on glibc, mi_collect(true) with mimalloc). Other threads'
// caches are untouched. Costs a walk of the malloc arenas: call it when a
// thread goes idle, not in a loop.
void pool_trim() noexcept;

// pool_trim(), and every other thread drops its cache too: a thread's cache
// is returned at its next call into the pool that leaves the inline fast
// path (an allocation its class cannot serve, a free into a full class, or a
// block above pool_max_cached_bytes). A thread that makes no such call keeps
// its cache (at most pool_thread_cache_max_bytes, about 1.6 MiB): a thread's
// cache can only be touched by its own thread, since the fast paths take no
// lock. A class that the thread has only freed into since its last overflow
// (the end of a burst of frees) holds at most one batch.
void pool_trim_all() noexcept;

namespace detail {

// Blocks of more than this many bytes are never cached (they go straight to
// malloc/realloc/free). 8 KiB rather than 4 KiB: a string that grows to a
// 4 KiB page of text needs 4097 bytes, and its last block should be recycled
// like the ones before it instead of costing a malloc and a free every time.
inline constexpr std::size_t pool_max_cached_bytes = 8192;

// The kept large block: a freed block of pool_keep_min_bytes to
// pool_keep_max_bytes is kept (one for the whole process, the last one freed)
// and handed out again for a request of at most its size and more than half
// of it; after pool_keep_ms without such a request it goes back to the
// system. 32 MiB is where glibc stops recycling freed blocks itself (its mmap
// threshold never rises above that), so every larger block is fresh kernel
// memory.
inline constexpr std::size_t pool_keep_min_bytes = std::size_t{32} << 20;
inline constexpr std::size_t pool_keep_max_bytes = std::size_t{256} << 20;
inline constexpr unsigned pool_keep_ms = 250;

// The releaser's pass interval, and the bytes handed to the system allocator
// that make a pass trim: every pool_idle_ms while there is something to
// release, the releaser compares the bytes threads have released so far with
// its previous pass; once at least pool_trim_min_bytes have been released
// since the last trim and fewer than that during the last interval (the burst
// is over), it empties the exchange and trims malloc. 100 ms keeps a busy
// program from trimming memory it is about to reuse (a trim during a burst
// would only make malloc fault the pages in again) and returns an idle one's
// within 0.2 s; 2 MiB keeps a trim, which walks every malloc arena, from
// following every few frees.
inline constexpr unsigned pool_idle_ms = 100;
inline constexpr std::size_t pool_trim_min_bytes = std::size_t{2} << 20;

// The exchange holds at most this many bytes of each size class (32 classes,
// so at most pool_exchange_max_bytes, 8 MiB, in all); a batch that does not
// fit goes back to malloc.
inline constexpr std::size_t pool_exchange_class_bytes = std::size_t{256} << 10;

// A block of at least `bytes` bytes (bytes > 0), aligned to 16. Throws
// std::bad_alloc.
[[nodiscard]] void* pool_allocate(std::size_t bytes);

// Frees a block. `bytes` must equal the size passed to the pool_allocate or
// pool_reallocate call that returned p. p may be null (then nothing happens).
void pool_deallocate(void* p, std::size_t bytes) noexcept;

// Resizes a block to `new_bytes`, keeping its first min(old, new) bytes; large
// blocks grow in place when the system allocator can (realloc). Returns the
// new block; on std::bad_alloc p is untouched and still owned by the caller.
[[nodiscard]] void* pool_reallocate(void* p, std::size_t old_bytes, std::size_t new_bytes);

// A block of at least `bytes` bytes (bytes > 0) and its whole size,
// pool_good_size(bytes), from one class lookup (the shape of C++23's
// allocate_at_least): the size and the free list come from the same class
// index instead of two lookups one after the other. Freed as `bytes` bytes
// (the size returned). Throws std::bad_alloc.
struct pool_block {
  void* p;
  std::size_t bytes;
};
[[nodiscard]] pool_block pool_allocate_at_least(std::size_t bytes);

// The size pool_allocate would really reserve for `bytes`: a request of
// pool_good_size(n) costs the same as one of n. Containers round their
// capacity up to it so that no byte of a block is wasted.
std::size_t pool_good_size(std::size_t bytes) noexcept;

}  // namespace detail

// A standard allocator over the pool. Stateless: any two compare equal, so a
// block may be freed through any copy, on any thread.
template <class T>
class pool_allocator {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using propagate_on_container_move_assignment = std::true_type;
  using is_always_equal = std::true_type;

  constexpr pool_allocator() noexcept = default;
  template <class U>
  constexpr pool_allocator(const pool_allocator<U>&) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    if constexpr (alignof(T) > 16) {
      return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{alignof(T)}));
    } else {
      return static_cast<T*>(detail::pool_allocate(n * sizeof(T)));
    }
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if constexpr (alignof(T) > 16) {
      ::operator delete (p, n * sizeof(T), std::align_val_t{alignof(T)});
    } else {
      detail::pool_deallocate(p, n * sizeof(T));
    }
  }

  template <class U>
  friend constexpr bool operator==(const pool_allocator&, const pool_allocator<U>&) noexcept {
    return true;
  }
};

}  // namespace fl::inline FL_ABI_NS

// Inline fast paths of pool_allocate, pool_deallocate and pool_good_size.
#include <fl/detail/pool_impl.hpp>
