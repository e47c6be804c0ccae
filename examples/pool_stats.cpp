// The pool behind fl::string: freed blocks are kept per thread and handed
// out again; fl::pool_stats() shows it, fl::pool_trim() gives them back.
#include <fl/pool.hpp>
#include <fl/string.hpp>

#include <cstdio>
#include <vector>

int main() {
  for (int round = 0; round < 3; ++round) {
    std::vector<fl::string> lines;
    for (int i = 0; i < 500; ++i) lines.emplace_back(100, 'x');  // 101-byte blocks
  }  // freed into this thread's cache; the next round reuses them
  const fl::pool_statistics st = fl::pool_stats();
  std::printf("hits %llu, misses %llu, cached %zu bytes\n",
              static_cast<unsigned long long>(st.hits), static_cast<unsigned long long>(st.misses),
              st.bytes_cached);
  fl::pool_trim();  // e.g. before a thread goes idle
  return st.hits >= 1000 && fl::pool_stats().bytes_cached == 0 ? 0 : 1;
}
