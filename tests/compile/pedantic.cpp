// Compiled by the ctests compile_pedantic_clang_<header> (tests/CMakeLists.txt),
// once for every public header, named by FL_HEADER, with clang and
// -Wall -Wextra -Wpedantic -Werror: a user's strict build must not fail in
// fl's headers. (clang reports what GCC does not, such as a member's
// explicit instantiation qualified by a typedef.)
#include FL_HEADER

int main() { return 0; }
