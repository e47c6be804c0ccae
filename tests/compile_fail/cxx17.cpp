// Compiled as C++17 by the ctest compile_fail_cxx17 (tests/CMakeLists.txt):
// must stop at the one #error of <fl/detail/config.hpp> that names C++20,
// not at the C++20 code further down.
#include <fl/fl.hpp>

int main() { return 0; }
