// Must not compile: `auto r = s + 0.5;`: a number next to an fl::string must
// never turn either side into another type (an fl::rope, say) to make the
// expression compile.
#include <fl/fl.hpp>

int main() {
  const fl::string s = "text";
#ifndef FL_PORT_CONTROL
  auto r = s + 0.5;
#else
  auto r = s + ".5";
#endif
  return static_cast<int>(r.size());
}
