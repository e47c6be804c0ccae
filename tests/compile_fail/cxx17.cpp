// Compiled as C++17 by the ctests compile_fail_cxx17_<header>
// (tests/CMakeLists.txt), once for every public header, named by FL_HEADER:
// each must stop at the one #error of <fl/detail/config.hpp> that names
// C++20, not at the C++20 code further down.
#include FL_HEADER

int main() { return 0; }
