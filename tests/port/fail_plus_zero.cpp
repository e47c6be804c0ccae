// Must not compile: `s + 0`. std::string rejects it too (0 is both a null
// pointer and a char, so the call is ambiguous); fl rejects it because a
// number is not text, instead of reading a null C string.
#include <fl/fl.hpp>

int main() {
  fl::string s = "text";
#ifndef FL_PORT_CONTROL
  auto r = s + 0;
#else
  auto r = s + '0';
#endif
  return static_cast<int>(r.size());
}
