// tests/port/compile_fail.cpp: expressions fl::string rejects on purpose.
// Compiled once per case (-DFL_PORT_CASE_<name>, tests/port/CMakeLists.txt);
// each case must NOT compile, and must compile with -DFL_PORT_CONTROL (the
// same case with the accepted spelling in place of the rejected one), so a
// failure proves the rejected expression, not a typo, is what fails.
#include <fl/fl.hpp>

#ifdef FL_PORT_CONTROL
#define FL_PORT_PICK(rejected, accepted) accepted
#else
#define FL_PORT_PICK(rejected, accepted) rejected
#endif

int main() {
  const fl::string s = "text";
#if defined(FL_PORT_CASE_plus_42)
  // `s + 42`: std::string compiles it and appends the char '*' (42 converts
  // to char), which is almost never what was meant; fl rejects it
  // (docs/porting.md): write fl::concat(s, 42) for the number or
  // s + char(42) for the char.
  int n = 42;
  auto r = FL_PORT_PICK(s + n, s + static_cast<char>(n));
#elif defined(FL_PORT_CASE_plus_zero)
  // `s + 0`: std::string rejects it too (0 is both a null pointer and a
  // char, so the call is ambiguous); fl rejects it because a number is not
  // text, instead of reading a null C string.
  auto r = FL_PORT_PICK(s + 0, s + '0');
#elif defined(FL_PORT_CASE_rope_from_plus)
  // `s + 0.5`: a number next to an fl::string must never turn either side
  // into another type (an fl::rope, say) to make the expression compile.
  auto r = FL_PORT_PICK(s + 0.5, s + ".5");
#else
#error "name a case: -DFL_PORT_CASE_<name>"
#endif
  return static_cast<int>(r.size());
}
