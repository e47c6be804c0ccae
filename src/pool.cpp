// Interim pool: plain malloc, no caches. Replaced by the size-class caches.
#include <fl/pool.hpp>

#include <cstdlib>
#include <cstring>

namespace fl {
namespace {
thread_local pool_statistics tl_stats;
}
pool_statistics pool_stats() noexcept { return tl_stats; }
void pool_trim() noexcept {}

namespace detail {
void* pool_allocate(std::size_t bytes) {
  void* p = std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  ++tl_stats.misses;
  return p;
}
void pool_deallocate(void* p, std::size_t) noexcept {
  if (p) ++tl_stats.frees_released;
  std::free(p);
}
void* pool_reallocate(void* p, std::size_t, std::size_t new_bytes) {
  void* q = std::realloc(p, new_bytes);
  if (!q) throw std::bad_alloc();
  return q;
}
std::size_t pool_good_size(std::size_t bytes) noexcept { return (bytes + 15) & ~std::size_t{15}; }
}  // namespace detail
}  // namespace fl
