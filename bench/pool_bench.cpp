// bench/pool_bench.cpp: section pool/, allocation-heavy patterns where
// fl::string's pool allocator (thread-local size-class caches) competes with
// malloc (std, boost) and with a monotonic arena (pmr).
//
// Cases:
//   build_destroy_1000x100       build 1,000 strings of 100 bytes (one heap
//                                block each), then destroy them all, in
//                                construction order: the pool's caches must
//                                absorb 1,000 blocks and hand them out again
//   grow_to_1k_by_256_appends    one string grown to 1,024 bytes by 256
//                                appends of 4 bytes, no reserve: every
//                                reallocation size class on the way up
#include "common.hpp"
#include "peers.hpp"
#include "string_bodies.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace {

using fl_bench::reg_peers;
using fl_bench::string_peers;

template <class P>
void bm_build_destroy_1000x100(benchmark::State& st) {
  const std::string in = fl_bench::random_text(100, fl_bench::salt("build_destroy_1000x100"));
  const char* p = in.data();
  const std::size_t count = fl_bench::runtime_count(1000);
  // The vector's own buffer is reserved once, before the loop, so only the
  // strings' blocks are measured.
  std::vector<typename P::string> v;
  v.reserve(count);
  typename P::arena arena;
  for (auto _ : st) {
    for (std::size_t i = 0; i < count; ++i) {
      benchmark::DoNotOptimize(p);
      v.emplace_back(p, 100);
    }
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
    v.clear();
    arena.recycle();
  }
  fl_bench::set_items(st, 1000);
}

const bool registered = [] {
  constexpr string_peers peers{};
  reg_peers(peers, "pool/build_destroy_1000x100",
            []<class P>() { return &bm_build_destroy_1000x100<P>; });
  reg_peers(
      peers, "pool/grow_to_1k_by_256_appends",
      []<class P>() { return &fl_bench::bm_append_pieces<P, 4, 256>; },
      "grow_to_1k_by_256_appends");
  return true;
}();

}  // namespace
