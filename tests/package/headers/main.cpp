// tests/package/headers/main.cpp: the program the headers' translation units
// link into (see CMakeLists.txt): its build is the test; running it checks
// that the library it linked is usable.
#include <fl/string.hpp>

int main() {
  const fl::string s("every installed header compiles alone");
  return s.size() == 37 ? 0 : 1;
}
