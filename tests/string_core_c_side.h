/* tests/string_core_c_side.c's functions, for C++ (tests/string_core_test.cpp). */
#ifndef FL_TESTS_STRING_CORE_C_SIDE_H
#define FL_TESTS_STRING_CORE_C_SIDE_H

#include <fl/fl.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* s = the n <= 23 bytes at p, inline, written byte by byte (no library call). */
void c_side_write_inline(fl_str* s, const char* p, size_t n);
/* fl.h's inline functions, compiled as C. */
int c_side_from_n(fl_str* s, const char* p, size_t n);
int c_side_append(fl_str* s, const char* p, size_t n);
size_t c_side_len(const fl_str* s);
const char* c_side_cstr(const fl_str* s);
unsigned c_side_tag(const fl_str* s);
void c_side_free(fl_str* s);

#ifdef __cplusplus
}
#endif

#endif
