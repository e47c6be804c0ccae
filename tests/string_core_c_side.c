/* The C half of tests/string_core_test.cpp, compiled as C11: fl_str values
 * written by C code alone, through the bytes as <fl/detail/string_layout.h>
 * describes them and through fl.h's inline functions (compiled as C here), so
 * that the C++ side reads bytes no C++ code ever wrote. */
#include <fl/detail/string_layout.h>
#include <fl/fl.h>

#include <string.h>

#include "string_core_c_side.h"

void c_side_write_inline(fl_str* s, const char* p, size_t n) {
  unsigned char* b = (unsigned char*)s;
  memset(b, 0xee, FL_STR_BYTES); /* garbage past the terminator is allowed */
  memcpy(b, p, n);
  b[n] = 0;
  b[FL_STR_TAG_BYTE] = (unsigned char)(FL_STR_INLINE_CAPACITY - n);
}

int c_side_from_n(fl_str* s, const char* p, size_t n) { return fl_str_from_n(s, p, n) == FL_OK; }

int c_side_append(fl_str* s, const char* p, size_t n) { return fl_str_append_n(s, p, n) == FL_OK; }

size_t c_side_len(const fl_str* s) { return fl_str_len(s); }

const char* c_side_cstr(const fl_str* s) { return fl_str_cstr(s); }

unsigned c_side_tag(const fl_str* s) { return ((const unsigned char*)s)[FL_STR_TAG_BYTE]; }

void c_side_free(fl_str* s) { fl_str_free(s); }
