// fl/detail/pool_impl.hpp: the inline fast paths of the pool (included at the
// bottom of <fl/pool.hpp>; do not include it directly).
//
// Representation: every thread owns one pool_thread_cache, a constinit,
// trivially destructible thread_local, so the fast paths reach it with a single
// TLS-relative address and no initialisation guard. Each size class has an
// intrusive singly linked free list (the first 8 bytes of a free block hold the
// next pointer) and a `room` counter: how many more blocks the class may take
// before it is full. `room` starts at 0, so the very first free of a thread goes
// to the out-of-line slow path, which registers the thread-exit cleanup and then
// opens every class; the fast paths never test any "initialised" flag.
//
// Every cached block is a plain system-allocator block of exactly its class
// size, so a block may be freed on any thread (it joins that thread's cache)
// and a thread's cache can always be handed back with free().
//
// A full class does not free the block it is given: it hands half of its list,
// as one batch, to a process-wide exchange (src/pool/pool.cpp), and an empty class
// takes a batch from there before it asks malloc. Blocks carry no owner, so a
// batch goes to whichever thread runs dry next; under producer/consumer
// traffic that is the producer, which gets its blocks back a batch at a time
// (one lock per batch) instead of from malloc one by one.
//
// Statistics cost the fast paths one counter (hits, per class, which also
// tells a consumer thread from one that reuses its blocks): everything else is
// counted on the slow paths or computed when pool_stats() reads it (the
// cached bytes from `limit` and `room`, frees_cached from the flows in and out).
//
// TLS model: initial-exec, so that code compiled as position-independent
// (libfl itself, a shared libfl) reaches the cache at a fixed offset from the
// thread pointer instead of calling __tls_get_addr on every allocation. The
// price is that a shared libfl cannot be loaded with dlopen() into a process
// whose static TLS space is exhausted (the cache is ~870 bytes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <fl/detail/build_config.hpp>
#include <fl/detail/size_classes.hpp>
#include <fl/pool.hpp>  // the bounds these paths use (this file is its bottom half)

// Cached blocks are poisoned when libfl itself was built with ASan, whatever
// the flags of the program including this header: these inline paths and the
// library's own code push and pop the same free lists, so both sides must
// agree. Keyed on the includer's __SANITIZE_ADDRESS__, an ASan program over a
// plain fl would poison blocks that the uninstrumented library then hands out
// (a false use-after-poison in fl::read_file), and a plain program over an ASan
// fl would hand out poisoned blocks. The functions are called directly because
// the ASAN_*_MEMORY_REGION macros compile to nothing in a plain includer.
//
// A cached block is poisoned past its link word only (FL_POOL_POISON_BODY):
// LeakSanitizer does not follow pointers stored in poisoned memory, so a
// poisoned link would make every block behind the head of a list look leaked
// whenever a leak check runs while the list holds two or more (libFuzzer runs
// one after any input that allocated more than it freed).
#if FL_BUILT_WITH_ASAN
#include <sanitizer/asan_interface.h>
#define FL_POOL_POISON(p, n) __asan_poison_memory_region((p), (n))
#define FL_POOL_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#define FL_POOL_POISON_BODY(p, n)                                                      \
  __asan_poison_memory_region(reinterpret_cast<char*>(p) + sizeof(void*), \
                              (n) - sizeof(void*))
#else
#define FL_POOL_POISON(p, n) ((void)(p), (void)(n))
#define FL_POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#define FL_POOL_POISON_BODY(p, n) ((void)(p), (void)(n))
#endif

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// Size classes: the scheme of detail/size_classes.hpp (16-byte steps up to
// 128, then four per doubling) bounded by pool_max_cached_bytes: 16, ..., 128,
// 160, 192, 224, 256, 320, ..., 7168, 8192, 32 classes. These tables are
// compiled into programs: part of the ABI (FL_ABI_NS).
inline constexpr std::size_t pool_class_count = size_class_count(pool_max_cached_bytes);

// A per-class table: entry c is f(c) (each fits 16 bits).
template <class F>
consteval std::array<std::uint16_t, pool_class_count> pool_per_class(F f) {
  std::array<std::uint16_t, pool_class_count> t{};
  for (std::size_t c = 0; c < pool_class_count; ++c) t[c] = static_cast<std::uint16_t>(f(c));
  return t;
}
inline constexpr std::array<std::uint16_t, pool_class_count> pool_class_size =
    pool_per_class([](std::size_t c) { return class_size(static_cast<unsigned>(c)); });
static_assert(pool_class_size[pool_class_count - 1] == pool_max_cached_bytes);

// The class of a request of n bytes (0 < n <= pool_max_cached_bytes) is
// pool_class_of[(n + 15) / 16]: every class size is a multiple of 16, so the
// rounded-up 16-byte granule decides the class. 513 bytes, one load.
inline constexpr std::size_t pool_granules = pool_max_cached_bytes / 16 + 1;
consteval std::array<std::uint8_t, pool_granules> pool_make_class_of() {
  std::array<std::uint8_t, pool_granules> t{};
  std::size_t c = 0;
  for (std::size_t g = 0; g < pool_granules; ++g) {
    while (pool_class_size[c] < g * 16) ++c;
    t[g] = static_cast<std::uint8_t>(c);
  }
  return t;
}
inline constexpr std::array<std::uint8_t, pool_granules> pool_class_of = pool_make_class_of();

constexpr std::size_t pool_class_index(std::size_t bytes) noexcept {
  return pool_class_of[(bytes + 15) >> 4];
}

// Depth bound: the classes up to pool_short_class_bytes (the short heap
// strings that dominate real programs) keep up to pool_short_class_depth
// blocks each; larger classes keep max(2, 64 KiB / class size) blocks (16 of
// 4096 bytes, 8 of 8192), a byte budget that keeps big classes from pinning
// memory. One thread never holds more than pool_thread_cache_max_bytes (about
// 1.6 MiB) of cached memory. 64 KiB rather than 32: strings of mixed sizes up
// to 4 KiB random-walk each class between empty and full, and a deeper class
// goes to the exchange far less often (docs/design.md, Pool: "Depth bound";
// the runs are in docs/performance.md). A longer burst (a thousand short
// strings built, then destroyed) overflows into the exchange half a class at
// a time and is refilled from there, one lock per batch, so the depth only
// needs to cover the common case; keeping it small keeps consumer threads
// from hoarding blocks.
inline constexpr std::size_t pool_short_class_bytes = 128;
inline constexpr std::size_t pool_short_class_depth = 256;
inline constexpr std::size_t pool_class_budget_bytes = 64 * 1024;
inline constexpr std::array<std::uint16_t, pool_class_count> pool_class_depth =
    pool_per_class([](std::size_t c) {
      const std::size_t n = pool_class_size[c] <= pool_short_class_bytes
                                ? pool_short_class_depth
                                : pool_class_budget_bytes / pool_class_size[c];
      return n < 2 ? 2 : n;
    });

// A full class hands this many blocks to the exchange, and an empty class
// takes as many back: half its depth, but at most pool_batch_max_blocks and
// pool_batch_budget_bytes, and at least pool_batch_min_blocks. Small batches because the
// batch a consumer thread is filling (see pool_thread_cache), and the rest of
// the one the producer last took, are memory no other thread can use; the
// lock is taken once per batch, so only the slow paths pay for it. 4 KiB
// rather than 2 KiB halves the locks of blocks of 128 bytes and more for the
// same bound on memory. The floor of 4 blocks concerns the classes above
// 1 KiB, whose 4 KiB budget would give 2 or 3, so that one lock moves more
// than two strings of 2-4 KiB between threads; the classes up to 1 KiB keep
// their batches, and with them the consumer's bound (docs/design.md, Pool:
// "Exchange"; the runs are in docs/performance.md).
inline constexpr std::size_t pool_batch_max_blocks = 32;
inline constexpr std::size_t pool_batch_min_blocks = 4;
inline constexpr std::size_t pool_batch_budget_bytes = 4 * 1024;
inline constexpr std::array<std::uint16_t, pool_class_count> pool_class_batch =
    pool_per_class([](std::size_t c) {
      std::size_t n = pool_class_depth[c] / 2;
      if (n > pool_batch_max_blocks) n = pool_batch_max_blocks;
      if (n * pool_class_size[c] > pool_batch_budget_bytes)
        n = pool_batch_budget_bytes / pool_class_size[c];
      // At least pool_batch_min_blocks (never below 2, so a consumer's class,
      // limit one batch, has room again after its overflow hands the list on).
      return n < pool_batch_min_blocks ? pool_batch_min_blocks : n;
    });
// A full class that hands one batch on keeps blocks and room (half its depth
// or more): every depth holds at least two batches.
consteval bool pool_batches_fit_twice() {
  for (std::size_t c = 0; c < pool_class_count; ++c)
    if (2 * std::size_t{pool_class_batch[c]} > pool_class_depth[c]) return false;
  return true;
}
static_assert(pool_batches_fit_twice());

// The most a thread's cache ever holds: every class full to its depth (the
// limit never exceeds the depth): 144 KiB in the classes up to 128 bytes, at
// most 64 KiB in each larger one (docs/pool.md quotes the total, checked by
// tests/docs).
consteval std::size_t pool_make_thread_cache_max_bytes() {
  std::size_t n = 0;
  for (std::size_t c = 0; c < pool_class_count; ++c)
    n += std::size_t{pool_class_depth[c]} * pool_class_size[c];
  return n;
}
inline constexpr std::size_t pool_thread_cache_max_bytes = pool_make_thread_cache_max_bytes();
// The most the process-wide exchange holds (all classes at their share).
inline constexpr std::size_t pool_exchange_max_bytes = pool_class_count * pool_exchange_class_bytes;

struct pool_free_block {
  pool_free_block* next;
};

// Invariant while the cache is open (state 1): a class's list holds exactly
// limit[c] - room[c] blocks. Closed (state 0 or 2): every list is empty and
// every room and limit is 0.
//
// The limit of a class is its depth bound on a thread that allocates from it,
// and only its batch size on a thread that frees blocks of the class without
// allocating any (a consumer). Every class starts at one batch and rises to
// its depth at its first allocation on the slow path (the list ran dry: this
// thread reuses its blocks). When a full class overflows and no block of it
// was allocated on this thread since its previous overflow (hits[c]
// unchanged, no slow-path allocation), the whole list goes to the exchange and
// the limit drops back to one batch. So a consumer holds at most a batch per
// class, from its first free on (Hoard's bound on producer/consumer blowup):
// starting at the depth instead, every consumer would fill every class to its
// depth before its first batch went back, and the producer would malloc that
// much more (docs/design.md, Pool: "Adaptive limit").
struct pool_thread_cache {
  pool_free_block* head[pool_class_count];  // free lists, null when empty
  std::uint64_t hits[pool_class_count];     // blocks popped, per class (the only fast-path counter)
  std::uint16_t room[pool_class_count];     // pushes left before the class is full
  std::uint16_t limit[pool_class_count];    // the class's current bound: depth or batch
  std::uint32_t overflow_hits[pool_class_count];  // low bits of hits[c] at its last overflow
  unsigned char allocated[pool_class_count];      // a slow-path allocation since that overflow
  std::uint64_t misses;                           // allocations that went to malloc
  std::uint64_t kept_hits;                        // allocations served by the kept large block
  std::uint64_t kept_frees;                       // frees kept as the large block
  std::uint64_t released;                         // frees handed to the system allocator
  std::uint64_t moved_in;                         // blocks that joined the lists from the exchange
  std::uint64_t moved_out;  // blocks that left the lists other than by allocation
  std::uint64_t batches_taken;
  std::uint64_t batches_given;
  // 0: no block freed yet (cleanup not registered); 1: live; 2: thread exiting,
  // the cache is gone and every later free goes straight to the system.
  unsigned char state;
};

// Hot state, constant-initialised and trivially destructible: no TLS guard.
inline constinit thread_local pool_thread_cache pool_tls
    __attribute__((tls_model("initial-exec"))){};

// Out of line (src/pool/pool.cpp): cache misses, large blocks and full classes.
[[nodiscard]] void* pool_allocate_slow(std::size_t bytes);
void pool_deallocate_slow(void* p, std::size_t bytes) noexcept;
std::size_t pool_good_size_large(std::size_t bytes) noexcept;
[[nodiscard]] void* pool_reallocate_slow(void* p, std::size_t old_bytes, std::size_t new_bytes);

// The fast paths' two list operations, shared by allocate, deallocate and
// reallocate: pop needs a non-empty list, push a class with room.
[[gnu::always_inline]] inline pool_free_block* pool_pop(pool_thread_cache& t,
                                                        std::size_t c) noexcept {
  pool_free_block* b = t.head[c];
  FL_POOL_UNPOISON(b, pool_class_size[c]);
  t.head[c] = b->next;
  ++t.room[c];
  ++t.hits[c];
  return b;
}
[[gnu::always_inline]] inline void pool_push(pool_thread_cache& t, std::size_t c,
                                             void* p) noexcept {
  pool_free_block* b = static_cast<pool_free_block*>(p);
  b->next = t.head[c];
  t.head[c] = b;
  --t.room[c];
  FL_POOL_POISON_BODY(b, pool_class_size[c]);
}

[[nodiscard]] inline void* pool_allocate(std::size_t bytes) {
  if (bytes <= pool_max_cached_bytes) [[likely]] {
    const std::size_t c = pool_class_index(bytes);
    pool_thread_cache& t = pool_tls;
    if (t.head[c] != nullptr) [[likely]]
      return pool_pop(t, c);
  }
  return pool_allocate_slow(bytes);
}

[[nodiscard]] inline pool_block pool_allocate_at_least(std::size_t bytes) {
  if (bytes <= pool_max_cached_bytes) [[likely]] {
    const std::size_t c = pool_class_index(bytes);
    pool_thread_cache& t = pool_tls;
    if (t.head[c] != nullptr) [[likely]]
      return {pool_pop(t, c), pool_class_size[c]};
    // A miss returns a block of the class size too.
    return {pool_allocate_slow(bytes), pool_class_size[c]};
  }
  const std::size_t n = pool_good_size_large(bytes);
  return {pool_allocate_slow(n), n};
}

// Always inline: GCC otherwise emits it out of line in big callers, and a
// string destroyed inside a tokenizer loop pays a call and register spills
// per heap token (docs/performance.md, Pool).
[[gnu::always_inline]] inline void pool_deallocate(void* p, std::size_t bytes) noexcept {
  if (bytes <= pool_max_cached_bytes && p != nullptr) [[likely]] {
    const std::size_t c = pool_class_index(bytes);
    pool_thread_cache& t = pool_tls;
    if (t.room[c] != 0) [[likely]] {
      pool_push(t, c, p);
      return;
    }
  }
  pool_deallocate_slow(p, bytes);
}

// A string that grows by appends moves from class to class: the common case
// (both sizes cached, a block of the new class in the list, room in the old
// class) is a pop, a copy and a push here, without the out-of-line call
// (docs/performance.md, Pool). Everything else goes to pool_reallocate_slow.
[[nodiscard]] inline void* pool_reallocate(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  if (old_bytes <= pool_max_cached_bytes && new_bytes <= pool_max_cached_bytes && p != nullptr)
      [[likely]] {
    const std::size_t from = pool_class_index(old_bytes);
    const std::size_t to = pool_class_index(new_bytes);
    if (from == to) return p;
    pool_thread_cache& t = pool_tls;
    if (t.head[to] != nullptr && t.room[from] != 0) [[likely]] {
      pool_free_block* b = pool_pop(t, to);
      std::size_t n = old_bytes < new_bytes ? old_bytes : new_bytes;
      // Hide the bound from GCC, which would otherwise expand the copy as
      // `rep movsq` (see pool_reallocate_slow).
      asm("" : "+r"(n));
      __builtin_memcpy(b, p, n);
      pool_push(t, from, p);
      return b;
    }
  }
  return pool_reallocate_slow(p, old_bytes, new_bytes);
}

inline std::size_t pool_good_size(std::size_t bytes) noexcept {
  if (bytes <= pool_max_cached_bytes) [[likely]]
    return pool_class_size[pool_class_index(bytes)];
  return pool_good_size_large(bytes);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
