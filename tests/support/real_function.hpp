// tests/support/real_function.hpp: the C library's definition of a function
// that a test program interposes (defines under the same name, so the
// library's calls reach the test first): the power-loss recorder, the fault
// sweep and the file-times count each forward to it. Header-only: those
// programs link no support code into their interposers.
//
// Threads: dlsym may be called from any thread; callers keep the result in a
// function-local static.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <dlfcn.h>

namespace fl_test {

// The next definition of `name` after this program's (dlsym(RTLD_NEXT)),
// typed F; aborts with a message naming `who` and `name` when there is none,
// since a test that cannot forward its calls cannot run.
template <class F>
F real_function(const char* who, const char* name) {
  void* p = ::dlsym(RTLD_NEXT, name);
  if (p == nullptr) {
    std::fprintf(stderr, "%s: dlsym(RTLD_NEXT, %s) failed\n", who, name);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}

}  // namespace fl_test
