// Braced {ptr, n} arguments that std::string (libstdc++, C++20) rejects, which
// fl::basic_string must reject too (LWG 2946; tests/string_braced_test.cpp
// runs the forms both accept). Compiled by the ctests
// compile_fail_braced_<FORM>_<lib> (tests/CMakeLists.txt) with
// -DFL_BRACED_<FORM> and -DFL_BRACED_LIB_<lib> (fl or std): each must fail,
// for both libraries. compile_braced_control_<lib> compiles the file with no
// form, so a failure comes from the form's line and nothing else.
#include <cstddef>
#include <string>

#if defined(FL_BRACED_LIB_std)
using S = std::string;
#else
#include <fl/string.hpp>
using S = fl::string;
#endif

int main() {
  const char* p = "abcdef";
  std::size_t n = 3;
  S s = "zz";
  // A braced list whose one element is itself a braced list may not build a
  // temporary S for the copy or move constructor's first parameter.
#if defined(FL_BRACED_BRACE_INIT)
  S t{{p, n}};
#elif defined(FL_BRACED_COPY_LIST_NESTED)
  S t = {{p, n}};
#elif defined(FL_BRACED_ASSIGN_NESTED)
  s = {{p, n}};
  S& t = s;
  // insert at an iterator takes a char count or an initializer_list<char>, and
  // {p, n} is neither.
#elif defined(FL_BRACED_INSERT_ITERATOR)
  s.insert(s.begin() + 1, {p, n});
  S& t = s;
#elif defined(FL_BRACED_INSERT_CONST_ITERATOR)
  s.insert(s.cbegin() + 1, {p, n});
  S& t = s;
#else
  S t(p, n);
#endif
  return static_cast<int>(t.size() + s.size());
}
