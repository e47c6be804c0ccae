// A consumer of fl::fmt (<fl/fmt.hpp>) against an installed fl.
#include <fl/fmt.hpp>

#include <cstdio>

int main() {
  const fl::string name = "fl";
  const fl::string s = fl::format("{:>4}|{}", name, 42);
  const bool ok = s == "  fl|42";
  std::puts(ok ? "fl::fmt package ok" : "fl::fmt package BROKEN");
  return ok ? 0 : 1;
}
