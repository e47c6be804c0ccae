/* tests/support/c_check.h: the C tests' CHECK, which counts a failed condition
 * (printing where it is) and lets the test go on; main returns `failures != 0`. */
#ifndef FL_TESTS_C_CHECK_H
#define FL_TESTS_C_CHECK_H

#include <stdio.h>

static int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#endif
