// Built against an installed fl through find_package(fl): the umbrella header
// must compile on its own and the library must link.
#include <fl/fl.hpp>

#include <cstdio>
#include <cstring>

int main() {
  fl::pool_allocator<char> alloc;
  char* p = alloc.allocate(64);
  std::memcpy(p, "fl", 3);
  const bool ok = std::strcmp(p, "fl") == 0 && std::strlen(FL_VERSION_STRING) > 0;
  alloc.deallocate(p, 64);
  std::puts(ok ? "fl package ok" : "fl package BROKEN");
  return ok ? 0 : 1;
}
