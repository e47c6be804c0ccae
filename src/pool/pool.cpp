// src/pool/pool.cpp
// The slow paths of the pool: cache misses, blocks above the cache limit,
// full classes, the exchange of batches between threads, thread exit,
// pool_trim() and pool_stats(). The fast paths (a pop or push on a
// thread-local free list) are inline in fl/detail/pool_impl.hpp.
//
// Invariant kept here: every block the pool hands out is a system-allocator
// block (malloc, or mi_malloc with FL_WITH_MIMALLOC) of exactly
// pool_class_size[c] bytes for a cached class c, or of at least the requested
// size above pool_max_cached_bytes (exactly, except a reused kept block, which
// may be up to twice the request), so any thread may cache or free any block.
//
// Memory held: each thread's cache at most pool_thread_cache_max_bytes, the
// exchange at most pool_exchange_max_bytes, and one kept large block for at
// most pool_keep_ms after its free; every other block above
// pool_max_cached_bytes goes back to the system allocator when it is freed.
// The releaser thread (below) frees the kept block when its time is up and,
// after a burst of frees, empties the exchange and trims the system
// allocator, so that freed memory leaves the process without a call from the
// threads that freed it.
#include <fl/pool.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include <pthread.h>

#if defined(FL_WITH_MIMALLOC)
#include <mimalloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fl {
inline namespace FL_ABI_NS {
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

// Hands the system allocator's free memory back to the system. glibc keeps
// freed chunks in its arenas (small ones in fast bins that are not even
// coalesced) and shrinks an arena only from its top, so after a burst of
// frees most of the memory stays resident until malloc_trim walks the arenas
// and releases every free page. Expensive (every arena is locked and walked):
// only the releaser's pass and pool_trim() call it.
void sys_trim() noexcept {
#if defined(FL_WITH_MIMALLOC)
  mi_collect(true);
#elif defined(__GLIBC__)
  malloc_trim(0);
#endif
}

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
void* gated_realloc(void* p, std::size_t n) noexcept {
  return fail_now() ? nullptr : sys_realloc(p, n);
}
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

// ---- bytes released, for the releaser ----
//
// Every block the pool hands to the system allocator (frees of uncached
// sizes, batches the exchange refused, a cache returned at thread exit) is
// counted here: per thread first, and in the process-wide total once a thread
// has pool_publish_bytes to add, so the shared counter is touched once per
// 256 KiB released rather than once per free. The releaser compares the total
// between its passes (a burst is over when it stops growing). A thread's
// unpublished rest (under 256 KiB) is published at its exit.
constexpr std::size_t pool_publish_bytes = std::size_t{256} << 10;
constinit std::atomic<std::uint64_t> released_total{0};
constinit thread_local std::size_t released_unpublished = 0;

// The generation of pool_trim_all(): a thread whose seen_trim_epoch differs
// returns its cache at its next slow-path call.
constinit std::atomic<std::uint64_t> trim_epoch{0};
constinit thread_local std::uint64_t seen_trim_epoch = 0;

void publish_released() noexcept;

void note_released(std::size_t bytes) noexcept {
  released_unpublished += bytes;
  if (released_unpublished >= pool_publish_bytes) publish_released();
}

// ---- the exchange ----
//
// One stack of batches per class, under a mutex (taken once per batch, so
// its cost is spread over pool_class_batch[c] allocations or frees). A batch
// is a null-terminated list of exactly pool_class_batch[c] blocks linked
// through their first word; the second word of a batch's first block links
// the batches (every block is at least 16 bytes).
struct exchange_class {
  std::mutex m;
  pool_free_block* batches = nullptr;  // guarded by m
  std::size_t count = 0;               // batches held, guarded by m
};
constinit exchange_class pool_exchange[pool_class_count];

// Batches of class c that fit in pool_exchange_class_bytes.
constexpr std::size_t exchange_max_batches(std::size_t c) {
  const std::size_t batch_bytes = std::size_t{pool_class_batch[c]} * pool_class_size[c];
  return pool_exchange_class_bytes / batch_bytes;
}

// The second word of a batch's first block: the link to the next batch.
pool_free_block** batch_link(pool_free_block* b) noexcept {
  return reinterpret_cast<pool_free_block**>(reinterpret_cast<unsigned char*>(b) +
                                             sizeof(pool_free_block));
}

// Frees every block of the null-terminated list starting at b to the system
// allocator.
void free_list(pool_free_block* b, std::size_t c) noexcept {
  while (b != nullptr) {
    FL_POOL_UNPOISON(b, pool_class_size[c]);
    pool_free_block* next = b->next;
    sys_free(b);
    b = next;
  }
}

// Under ASan, the word that links a batch to the next one in the exchange
// (the second word of its first block, poisoned with the block's body while
// the block sits in a thread's list): readable while the batch is in the
// exchange, since LeakSanitizer does not follow pointers in poisoned memory
// and a batch may outlive every thread.
void show_batch_link(pool_free_block* batch, bool visible) noexcept {
  if (visible)
    FL_POOL_UNPOISON(batch_link(batch), sizeof(pool_free_block*));
  else
    FL_POOL_POISON(batch_link(batch), sizeof(pool_free_block*));
}

// Hands a batch (a null-terminated list of pool_class_batch[c] blocks) to the
// exchange; false when the class's share is full (the caller keeps it).
bool exchange_put(std::size_t c, pool_free_block* batch) noexcept {
  exchange_class& x = pool_exchange[c];
  std::lock_guard<std::mutex> lock(x.m);
  if (x.count == exchange_max_batches(c)) return false;
  show_batch_link(batch, true);
  *batch_link(batch) = x.batches;
  x.batches = batch;
  ++x.count;
  return true;
}

// A batch of class c from the exchange, or null when it holds none.
pool_free_block* exchange_take(std::size_t c) noexcept {
  exchange_class& x = pool_exchange[c];
  std::lock_guard<std::mutex> lock(x.m);
  pool_free_block* batch = x.batches;
  if (batch == nullptr) return nullptr;
  x.batches = *batch_link(batch);
  --x.count;
  show_batch_link(batch, false);
  return batch;
}

// Frees every batch the exchange holds.
void exchange_release_all() noexcept {
  for (std::size_t c = 0; c < pool_class_count; ++c) {
    exchange_class& x = pool_exchange[c];
    pool_free_block* batches;
    {
      std::lock_guard<std::mutex> lock(x.m);
      batches = x.batches;
      x.batches = nullptr;
      x.count = 0;
    }
    while (batches != nullptr) {
      pool_free_block* next_batch = *batch_link(batches);
      free_list(batches, c);
      batches = next_batch;
    }
  }
}

// Returns every cached block of the calling thread to the system allocator
// and leaves each class empty with room `room` (its depth, or 0 to close).
void release_all(pool_thread_cache& t, bool reopen) noexcept {
  for (std::size_t c = 0; c < pool_class_count; ++c) {
    if (t.state == 1) {
      t.moved_out += t.limit[c] - t.room[c];
      released_unpublished += std::size_t{pool_class_size[c]} * (t.limit[c] - t.room[c]);
    }
    free_list(t.head[c], c);
    t.head[c] = nullptr;
    t.limit[c] = reopen ? pool_class_batch[c] : 0;
    t.room[c] = t.limit[c];
  }
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
    release_all(t, false);
    t.state = 2;
    publish_released();
  }
};

// First free (or slow-path allocation) of a thread: register the exit hook (a
// function-local thread_local with a destructor, constructed here and only
// here, so the fast paths carry no TLS guard) and open every class with a
// limit of one batch; the first allocation of a class on the slow path raises
// its limit to the depth bound.
void open_cache(pool_thread_cache& t) noexcept {
  thread_local thread_exit_hook hook;
  (void)hook;
  for (std::size_t c = 0; c < pool_class_count; ++c) {
    t.limit[c] = pool_class_batch[c];
    t.room[c] = pool_class_batch[c];
  }
  t.state = 1;
  seen_trim_epoch = trim_epoch.load(std::memory_order_relaxed);
}

// pool_trim_all() was called since this thread last looked: return the cache
// (reopened, each class at one batch, as after the first free).
bool trim_requested(pool_thread_cache& t) noexcept {
  const std::uint64_t e = trim_epoch.load(std::memory_order_relaxed);
  if (e == seen_trim_epoch) return false;
  seen_trim_epoch = e;
  release_all(t, true);
  return true;
}

// Cuts the first pool_class_batch[c] blocks off class c's list, which holds
// `len` blocks (at least that many), and hands them to the exchange, or to
// malloc when the exchange has no room. The caller fixes room[c].
//
// A list of exactly one batch (a consumer's class: its limit is one batch) is
// handed on whole, without following its links: the list is already
// null-terminated. Following them cost a cache miss per block on a consumer
// thread, whose blocks' first lines the scheduler had often left in the other
// core's cache (perf, alloc/producer_consumer/4: 81% of the consumer's slow
// path on the one load of the walk).
void give_batch(pool_thread_cache& t, std::size_t c, std::size_t len) noexcept {
  pool_free_block* batch = t.head[c];
  pool_free_block* rest = nullptr;
  if (len > pool_class_batch[c]) {
    pool_free_block* last = batch;
    for (std::size_t i = 1; i < pool_class_batch[c]; ++i) last = last->next;
    rest = last->next;
    last->next = nullptr;
  }
  t.head[c] = rest;
  t.moved_out += pool_class_batch[c];
  if (exchange_put(c, batch)) {
    ++t.batches_given;
  } else {
    free_list(batch, c);
    t.released += pool_class_batch[c];
    note_released(std::size_t{pool_class_batch[c]} * pool_class_size[c]);
  }
}

// ---- the kept large block and the releaser ----
//
// One kept block for the whole process (not one per thread: four threads that
// each freed a 100 MB string would otherwise hold 400 MB between them), under
// a mutex that only blocks of pool_keep_min_bytes and more, and the releaser,
// ever take.
//
// The releaser is a thread that runs while there is something to release: a
// kept block, or bytes released to the system allocator since its last trim.
// It frees the kept block when pool_keep_ms pass without a reuse, and every
// pool_idle_ms it makes a pass (trim_pass): once at least pool_trim_min_bytes
// were released since the last trim and fewer during the last interval, it
// empties the exchange and trims the system allocator. It ends when the kept
// slot is empty and a pass finds nothing left to trim; poke() starts it again.
// So a process whose threads go idle after a burst of frees gives the memory
// back within pool_idle_ms or two, whatever those threads do next.
//
// The slot is allocated once and never destroyed: the releaser may still be
// waiting on it while static destructors run at exit.
struct kept_slot {
  std::mutex m;
  std::condition_variable wake;
  void* p = nullptr;  // guarded by m; null when no block is kept
  std::size_t bytes = 0;
  std::chrono::steady_clock::time_point deadline;
  bool releaser = false;  // the releaser thread is running (it owns the wait on `wake`)
  bool pending = false;   // released bytes were published since the releaser's last pass
};

// kept_slot::releaser, readable without the lock: a thread that publishes
// released bytes pokes the releaser only when it is not running.
constinit std::atomic<bool> releaser_running{false};

void unpoison_and_free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  FL_POOL_UNPOISON(p, bytes);
  sys_free(p);
}

void fork_prepare() noexcept;
void fork_parent() noexcept;
void fork_child() noexcept;

// The slot once it exists (read by pool_stats() and pool_trim(), which
// never allocate).
constinit std::atomic<kept_slot*> kept_instance{nullptr};

kept_slot& kept() noexcept {
  static kept_slot* const s = [] {
    auto* k = new (std::nothrow) kept_slot;
    kept_instance.store(k, std::memory_order_release);
    // A child of fork() has no releaser thread: it frees the block it
    // inherited (see fork_child) instead of holding it for good.
    if (k != nullptr) ::pthread_atfork(fork_prepare, fork_parent, fork_child);
    return k;
  }();
  if (s == nullptr) std::abort();  // no memory for a few words at the first large free
  return *s;
}

void fork_prepare() noexcept { kept().m.lock(); }
void fork_parent() noexcept { kept().m.unlock(); }
void fork_child() noexcept {
  kept_slot& k = kept();
  void* p = k.p;
  const std::size_t bytes = k.bytes;
  k.p = nullptr;
  k.bytes = 0;
  k.releaser = false;
  k.pending = false;
  releaser_running.store(false, std::memory_order_relaxed);
  k.m.unlock();
  unpoison_and_free(p, bytes);
}

// The releaser's memory between passes (its thread's only).
struct trim_state {
  std::uint64_t seen = 0;     // released_total at the previous pass
  std::uint64_t trimmed = 0;  // released_total at the last trim
};
// Across releaser threads: one ends when there is nothing to do and the next
// one picks up where it stopped (guarded by kept_slot::m).
constinit trim_state trim_memory;

// One pass of the releaser (see above); true while released bytes wait for a
// quieter pass.
bool trim_pass(trim_state& st) noexcept {
  const std::uint64_t total = released_total.load(std::memory_order_relaxed);
  const std::uint64_t during = total - st.seen;
  st.seen = total;
  if (total - st.trimmed < pool_trim_min_bytes) return false;
  if (during >= pool_trim_min_bytes) return true;  // a burst is still going on
  st.trimmed = total;
  exchange_release_all();
  sys_trim();
  return false;
}

// The releaser thread (see above).
void run_releaser() noexcept {
  kept_slot& k = kept();
  std::unique_lock<std::mutex> lock(k.m);
  trim_state st = trim_memory;
  auto next_pass = std::chrono::steady_clock::now() + std::chrono::milliseconds(pool_idle_ms);
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (k.p != nullptr && now >= k.deadline) {
      void* p = k.p;
      const std::size_t bytes = k.bytes;
      k.p = nullptr;
      k.bytes = 0;
      lock.unlock();
      unpoison_and_free(p, bytes);
      lock.lock();
      continue;
    }
    if (now >= next_pass) {
      k.pending = false;
      lock.unlock();
      const bool more = trim_pass(st);
      lock.lock();
      next_pass = std::chrono::steady_clock::now() + std::chrono::milliseconds(pool_idle_ms);
      if (!more && !k.pending && k.p == nullptr) break;
      continue;
    }
    const auto until = k.p != nullptr && k.deadline < next_pass ? k.deadline : next_pass;
    k.wake.wait_until(lock, until);
  }
  trim_memory = st;
  k.releaser = false;
  releaser_running.store(false, std::memory_order_release);
}

// Starts the releaser unless it runs (k.m held). False when no thread could
// be started.
bool start_releaser(kept_slot& k) noexcept {
  if (k.releaser) return true;
  try {
    std::thread(run_releaser).detach();
  } catch (const std::system_error&) {
    return false;
  }
  k.releaser = true;
  releaser_running.store(true, std::memory_order_release);
  return true;
}

void publish_released() noexcept {
  const std::size_t n = released_unpublished;
  if (n == 0) return;
  released_unpublished = 0;
  released_total.fetch_add(n, std::memory_order_relaxed);
  // Under the lock even when the releaser runs: it may be deciding to end
  // right now, and `pending` makes it look again.
  kept_slot& k = kept();
  std::lock_guard<std::mutex> lock(k.m);
  k.pending = true;
  start_releaser(k);  // without a thread the memory stays until pool_trim()
}

// Keeps p (`bytes` long) in place of the block kept before, which is freed.
// Without a releaser thread (none could be started) p is freed at once.
void keep_block(pool_thread_cache& t, void* p, std::size_t bytes) noexcept {
  kept_slot& k = kept();
  void* old = nullptr;
  std::size_t old_bytes = 0;
  {
    std::lock_guard<std::mutex> lock(k.m);
    if (start_releaser(k)) {
      old = k.p;
      old_bytes = k.bytes;
      FL_POOL_POISON(p, bytes);
      k.p = p;
      k.bytes = bytes;
      k.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(pool_keep_ms);
      ++t.kept_frees;
    } else {
      old = p;
      old_bytes = bytes;
    }
  }
  if (old != nullptr) ++t.released;
  unpoison_and_free(old, old_bytes);
}

// The kept block when a request of `bytes` fits it without wasting more than
// half of it; otherwise null, and the kept block is freed first (so the two
// never coexist).
void* take_kept(pool_thread_cache& t, std::size_t bytes) noexcept {
  kept_slot& k = kept();
  void* old;
  std::size_t old_bytes;
  {
    std::lock_guard<std::mutex> lock(k.m);
    if (k.p == nullptr) return nullptr;
    old = k.p;
    old_bytes = k.bytes;
    k.p = nullptr;
    k.bytes = 0;
    if (bytes <= old_bytes && bytes > old_bytes / 2) {
      FL_POOL_UNPOISON(old, old_bytes);
      ++t.kept_hits;
      return old;
    }
  }
  ++t.released;
  unpoison_and_free(old, old_bytes);
  return nullptr;
}

// Frees the kept block now (pool_trim).
void release_kept() noexcept {
  kept_slot* const slot = kept_instance.load(std::memory_order_acquire);
  if (slot == nullptr) return;
  kept_slot& k = *slot;
  void* p;
  std::size_t bytes;
  {
    std::lock_guard<std::mutex> lock(k.m);
    p = k.p;
    bytes = k.bytes;
    k.p = nullptr;
    k.bytes = 0;
  }
  unpoison_and_free(p, bytes);
}

std::size_t kept_bytes() noexcept {
  kept_slot* const slot = kept_instance.load(std::memory_order_acquire);
  if (slot == nullptr) return 0;
  kept_slot& k = *slot;
  std::lock_guard<std::mutex> lock(k.m);
  return k.bytes;
}

}  // namespace

void* pool_allocate_slow(std::size_t bytes) {
  pool_thread_cache& t = pool_tls;
  if (bytes <= pool_max_cached_bytes) {
    // An empty class: refill it with a batch from the exchange (the cache is
    // opened first, so that the exit hook will return what it takes) ...
    const std::size_t c = pool_class_index(bytes);
    if (t.state == 0) open_cache(t);
    if (t.state == 1) {
      trim_requested(t);
      // The list is empty: the class goes back to its full depth (this
      // thread allocates from it, so it is no pure consumer).
      t.allocated[c] = 1;
      t.limit[c] = pool_class_depth[c];
      t.room[c] = pool_class_depth[c];
      if (pool_free_block* batch = exchange_take(c)) {
        t.head[c] = batch;
        t.room[c] = static_cast<std::uint16_t>(t.room[c] - pool_class_batch[c]);
        t.moved_in += pool_class_batch[c];
        ++t.batches_taken;
        return pool_allocate(bytes);  // now a hit on the fast path
      }
    }
    // ... or else a fresh block of the full class size, so that it can be
    // cached and reused for any request of this class later.
    void* p = sys_malloc(pool_class_size[c]);
    if (p == nullptr) throw std::bad_alloc();
    ++t.misses;
    return p;
  }
  if (bytes > max_request) throw std::bad_alloc();
  if (t.state == 1) trim_requested(t);
  if (bytes >= pool_keep_min_bytes && t.state != 2) {
    if (void* p = take_kept(t, bytes)) return p;
  }
  void* p = sys_malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  ++t.misses;
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
  if (t.state == 1 && trim_requested(t) && bytes <= pool_max_cached_bytes) {
    pool_deallocate(p, bytes);  // every class has room again
    return;
  }
  if (bytes <= pool_max_cached_bytes && t.state == 1) {
    // A full class: hand its first pool_class_batch[c] blocks to the exchange
    // (or to malloc when the exchange has no room for them) and, on a thread
    // that allocated nothing of this class since its last overflow, every
    // further whole batch too, keeping it at one batch from now on (see
    // pool_thread_cache). Then p is cached on the fast path.
    const std::size_t c = pool_class_index(bytes);
    const bool consumer =
        static_cast<std::uint32_t>(t.hits[c]) == t.overflow_hits[c] && t.allocated[c] == 0;
    std::size_t len = t.limit[c];
    do {
      give_batch(t, c, len);
      len -= pool_class_batch[c];
    } while (consumer && len >= pool_class_batch[c]);
    t.limit[c] = consumer ? pool_class_batch[c] : pool_class_depth[c];
    t.room[c] = static_cast<std::uint16_t>(t.limit[c] - len);
    t.overflow_hits[c] = static_cast<std::uint32_t>(t.hits[c]);
    t.allocated[c] = 0;
    pool_deallocate(p, bytes);
    return;
  }
  if (bytes >= pool_keep_min_bytes && bytes <= pool_keep_max_bytes && t.state != 2) {
    // A very large block: kept for pool_keep_ms in place of the previous one.
    // The block is at least `bytes` long, which is all the reuse test relies on.
    keep_block(t, p, bytes);
    return;
  }
  // A large block, or a thread past its exit hook.
  ++t.released;
  sys_free(p);
  note_released(bytes);
}

void* pool_reallocate_slow(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  if (p == nullptr) return pool_allocate(new_bytes);
  const bool old_small = old_bytes <= pool_max_cached_bytes;
  const bool new_small = new_bytes <= pool_max_cached_bytes;
  if (old_small && new_small && pool_class_index(old_bytes) == pool_class_index(new_bytes))
    return p;
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
  ++pool_tls.misses;
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

pool_statistics pool_stats() noexcept {
  const detail::pool_thread_cache& t = detail::pool_tls;
  // Blocks now in the lists, from the invariant list length = depth - room.
  std::uint64_t cached_blocks = 0;
  std::size_t bytes = 0;
  if (t.state == 1) {
    for (std::size_t c = 0; c < detail::pool_class_count; ++c) {
      const std::size_t n = t.limit[c] - t.room[c];
      cached_blocks += n;
      bytes += n * detail::pool_class_size[c];
    }
  }
  pool_statistics s;
  std::uint64_t hits = 0;
  for (std::size_t c = 0; c < detail::pool_class_count; ++c) hits += t.hits[c];
  s.hits = hits + t.kept_hits;
  s.misses = t.misses;
  // Every block that entered the lists by a free is still there, or left by
  // an allocation (a hit) or otherwise (moved_out); the exchange's batches
  // entered without a free.
  s.frees_cached = cached_blocks + hits + t.moved_out - t.moved_in + t.kept_frees;
  s.frees_released = t.released;
  s.bytes_cached = bytes;
  s.bytes_kept = detail::kept_bytes();
  s.batches_taken = t.batches_taken;
  s.batches_given = t.batches_given;
  return s;
}

#ifdef FL_POOL_FAIL_HOOK
namespace detail {
void pool_fail_after(std::size_t n) noexcept {
  pool_thread_cache& t = pool_tls;
  release_all(t, false);  // every class closed (room 0)
  t.state = 2;            // as after thread exit: frees go straight to the system
  fail_countdown = n;
}
long pool_live_blocks() noexcept { return live_blocks; }
}  // namespace detail
#endif

void pool_trim() noexcept {
  detail::pool_thread_cache& t = detail::pool_tls;
  detail::release_all(t, t.state == 1);
  detail::exchange_release_all();
  detail::release_kept();
  detail::sys_trim();
}

void pool_trim_all() noexcept {
  detail::trim_epoch.fetch_add(1, std::memory_order_relaxed);
  detail::seen_trim_epoch = detail::trim_epoch.load(std::memory_order_relaxed);
  pool_trim();
}

}  // namespace FL_ABI_NS
}  // namespace fl
