/* c_api_test.c again, against the library's exported functions instead of
 * the static inline fast paths of <fl/fl.h> (what FFI users and programs
 * built with FL_C_NO_INLINE call). */
#define FL_C_NO_INLINE 1
#include "c_api_test.c"
