// Must not compile: `s + 42`. std::string compiles it and appends the char
// '*' (42 converts to char), which is almost never what was meant; fl rejects
// it on purpose (docs/porting.md): write fl::concat(s, 42) for the number or
// s + char(42) for the char.
#include <fl/fl.hpp>

int main() {
  const fl::string s = "text";
  int n = 42;
#ifndef FL_PORT_CONTROL
  auto r = s + n;
#else
  auto r = s + static_cast<char>(n);
#endif
  return static_cast<int>(r.size());
}
