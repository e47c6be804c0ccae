// The slow paths of the pool: cache misses, blocks above the cache limit,
// full classes, thread exit and pool_trim(). The fast paths (a pop or push on a
// thread-local free list) are inline in fl/detail/pool_impl.hpp.
//
// Invariant kept here: every block the pool hands out is a system-allocator
// block (malloc, or mi_malloc with FL_WITH_MIMALLOC) of exactly
// pool_class_size[c] bytes for a cached class c, or of at least the requested
// size above pool_max_cached_bytes (exactly, except a reused kept block, which
// may be up to twice the request), so any thread may cache or free any block.
#include <fl/pool.hpp>

#include <cstdlib>
#include <cstring>

#if defined(FL_WITH_MIMALLOC)
#include <mimalloc.h>
#endif

namespace fl {
namespace detail {
namespace {

#if defined(FL_WITH_MIMALLOC)
void* sys_malloc(std::size_t n) noexcept { return mi_malloc(n); }
void* sys_realloc(void* p, std::size_t n) noexcept { return mi_realloc(p, n); }
void sys_free(void* p) noexcept { mi_free(p); }
#else
void* sys_malloc(std::size_t n) noexcept { return std::malloc(n); }
void* sys_realloc(void* p, std::size_t n) noexcept { return std::realloc(p, n); }
void sys_free(void* p) noexcept { std::free(p); }
#endif

#ifdef FL_POOL_FAIL_HOOK
// Test builds only (FL_POOL_FAIL_HOOK, see tests/alloc_failure_test.cmake):
// the one gate between the pool and the system allocator. pool_fail_after(n)
// makes the n-th system allocation of this thread from now on fail (as if
// malloc returned null; 0: none) and turns this thread's cache off, so that
// every allocation reaches the gate; pool_live_blocks() counts the system
// blocks this thread's pool holds. The names below shadow the three above.
thread_local std::size_t fail_countdown = 0;
thread_local long live_blocks = 0;
bool fail_now() noexcept { return fail_countdown != 0 && --fail_countdown == 0; }
void* gated_malloc(std::size_t n) noexcept {
  if (fail_now()) return nullptr;
  void* p = sys_malloc(n);
  if (p != nullptr) ++live_blocks;
  return p;
}
void* gated_realloc(void* p, std::size_t n) noexcept { return fail_now() ? nullptr : sys_realloc(p, n); }
void gated_free(void* p) noexcept {
  if (p != nullptr) --live_blocks;
  sys_free(p);
}
#define sys_malloc gated_malloc
#define sys_realloc gated_realloc
#define sys_free gated_free
#endif

// No 64-bit machine maps more than 2^47 bytes of user address space; larger
// requests fail up front with std::bad_alloc instead of reaching malloc (which
// a sanitizer runtime would report as a fatal error rather than return null).
constexpr std::size_t max_request = std::size_t{1} << 47;

// The calling thread's kept large block (see pool_keep_min_bytes), empty
// when p is null. Its bytes count in stats.bytes_cached.
struct kept_block {
  void* p;
  std::size_t bytes;
};
constinit thread_local kept_block pool_kept{};

// Frees the kept large block, if any.
void release_kept(pool_thread_cache& t) noexcept {
  kept_block& k = pool_kept;
  if (k.p == nullptr) return;
  FL_POOL_UNPOISON(k.p, k.bytes);
  sys_free(k.p);
  t.stats.bytes_cached -= k.bytes;
  ++t.stats.frees_released;
  k = kept_block{};
}

// Returns every cached block of the calling thread to the system allocator.
void release_all(pool_thread_cache& t) noexcept {
  release_kept(t);
  for (std::size_t c = 0; c < pool_class_count; ++c) {
    pool_free_block* b = t.head[c];
    while (b != nullptr) {
      FL_POOL_UNPOISON(b, pool_class_size[c]);
      pool_free_block* next = b->next;
      sys_free(b);
      b = next;
    }
    t.head[c] = nullptr;
  }
  t.stats.bytes_cached = 0;
}

// Destroyed at thread exit (and for the main thread at exit()): hands the
// cache back and closes every class, so that frees from thread_local
// destructors that run later go straight to the system allocator.
struct thread_exit_hook {
  thread_exit_hook() = default;
  thread_exit_hook(const thread_exit_hook&) = delete;
  thread_exit_hook& operator=(const thread_exit_hook&) = delete;
  ~thread_exit_hook() {
    pool_thread_cache& t = pool_tls;
    release_all(t);
    for (auto& r : t.room) r = 0;
    t.state = 2;
  }
};

// First free of a thread: register the exit hook (a function-local
// thread_local with a destructor, constructed here and only here, so the fast
// paths carry no TLS guard) and open every class to its depth bound.
void open_cache(pool_thread_cache& t) noexcept {
  thread_local thread_exit_hook hook;
  (void)hook;
  for (std::size_t c = 0; c < pool_class_count; ++c) t.room[c] = pool_class_depth[c];
  t.state = 1;
}

}  // namespace

void* pool_allocate_slow(std::size_t bytes) {
  pool_thread_cache& t = pool_tls;
  if (bytes <= pool_max_cached_bytes) {
    // An empty class: a fresh block of the full class size, so that it can be
    // cached and reused for any request of this class later.
    void* p = sys_malloc(pool_class_size[pool_class_index(bytes)]);
    if (p == nullptr) throw std::bad_alloc();
    ++t.stats.misses;
    return p;
  }
  if (bytes > max_request) throw std::bad_alloc();
  if (bytes >= pool_keep_min_bytes) {
    kept_block& k = pool_kept;
    if (k.p != nullptr) {
      // Reuse the kept block when it fits without wasting more than half of
      // it; otherwise free it first, so the two never coexist.
      if (bytes <= k.bytes && bytes > k.bytes / 2) {
        void* p = k.p;
        FL_POOL_UNPOISON(p, k.bytes);
        t.stats.bytes_cached -= k.bytes;
        ++t.stats.hits;
        k = kept_block{};
        return p;
      }
      release_kept(t);
    }
  }
  void* p = sys_malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  ++t.stats.misses;
  return p;
}

void pool_deallocate_slow(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  pool_thread_cache& t = pool_tls;
  if (bytes <= pool_max_cached_bytes && t.state == 0) {
    open_cache(t);
    pool_deallocate(p, bytes);  // now takes the fast path
    return;
  }
  if (bytes >= pool_keep_min_bytes && bytes <= pool_keep_max_bytes && t.state != 2) {
    // A very large block: keep it in place of the previous one. The block is
    // at least `bytes` long, which is all the reuse test relies on.
    if (t.state == 0) open_cache(t);  // registers the exit hook that frees it
    release_kept(t);
    FL_POOL_POISON(p, bytes);
    pool_kept = kept_block{p, bytes};
    t.stats.bytes_cached += bytes;
    ++t.stats.frees_cached;
    return;
  }
  // A full class, a large block, or a thread past its exit hook.
  ++t.stats.frees_released;
  sys_free(p);
}

void* pool_reallocate(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  if (p == nullptr) return pool_allocate(new_bytes);
  const bool old_small = old_bytes <= pool_max_cached_bytes;
  const bool new_small = new_bytes <= pool_max_cached_bytes;
  if (old_small && new_small && pool_class_index(old_bytes) == pool_class_index(new_bytes)) return p;
  if (!new_small && new_bytes > max_request) throw std::bad_alloc();
  if (new_small) {
    // A cached-class block must be exactly its class size, so it is never
    // the result of realloc: allocate, copy, free (p is untouched on failure).
    void* q = pool_allocate(new_bytes);
    std::size_t n = old_bytes < new_bytes ? old_bytes : new_bytes;
    // Hide the bound (n <= pool_max_cached_bytes) from GCC: knowing it, GCC
    // expands the copy inline as `rep movsq`, whose start-up cost (measured:
    // about 100 cycles per growth step of a string) dwarfs a call to the
    // library memcpy, which copies these sizes with vector moves.
    asm("" : "+r"(n));
    std::memcpy(q, p, n);
    pool_deallocate(p, old_bytes);
    return q;
  }
  // Large target: p is a system block whatever its class (a small block is a
  // malloc block of its class size), so realloc may extend it in place.
  void* q = sys_realloc(p, new_bytes);
  if (q == nullptr) throw std::bad_alloc();
  ++pool_tls.stats.misses;
  return q;
}

std::size_t pool_good_size_large(std::size_t bytes) noexcept {
  if (bytes > max_request) return bytes;
#if defined(FL_WITH_MIMALLOC)
  return mi_good_size(bytes);
#elif defined(__GLIBC__)
  // glibc chunks are multiples of 16 bytes with an 8-byte size header, so a
  // request of n bytes really occupies round_up(n + 8, 16) and can use all of
  // it but the header: asking for that much costs nothing more.
  return ((bytes + 8 + 15) & ~std::size_t{15}) - 8;
#else
  return (bytes + 15) & ~std::size_t{15};
#endif
}

}  // namespace detail

pool_statistics pool_stats() noexcept { return detail::pool_tls.stats; }

#ifdef FL_POOL_FAIL_HOOK
namespace detail {
void pool_fail_after(std::size_t n) noexcept {
  pool_thread_cache& t = pool_tls;
  release_all(t);
  for (auto& r : t.room) r = 0;
  t.state = 2;  // as after thread exit: frees go straight to the system
  fail_countdown = n;
}
long pool_live_blocks() noexcept { return live_blocks; }
}  // namespace detail
#endif

void pool_trim() noexcept {
  detail::pool_thread_cache& t = detail::pool_tls;
  detail::release_all(t);
  if (t.state == 1)
    for (std::size_t c = 0; c < detail::pool_class_count; ++c) t.room[c] = detail::pool_class_depth[c];
}

}  // namespace fl
