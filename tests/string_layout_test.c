/* The encoding's constants, seen from C11 (built with -std=c11 -Wall -Wextra
 * -Werror -pedantic): <fl/detail/string_layout.h> agrees with fl_str at compile
 * time, and the bytes the inline functions of <fl/fl.h> write are the ones the
 * header describes. The C++ side checks the same constants against
 * fl::detail::string_core (tests/string_core_test.cpp). Exits non-zero on the
 * first failure. */
#include <fl/detail/string_layout.h>
#include <fl/fl.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(fl_str) == FL_STR_BYTES, "fl_str is the 24 bytes of the encoding");
_Static_assert(_Alignof(fl_str) == sizeof(size_t), "fl_str is word aligned");
_Static_assert(FL_STR_BYTES == 3 * sizeof(size_t), "three words");
_Static_assert(FL_STR_INLINE_CAPACITY == 23 && FL_STR_TAG_BYTE == 23, "the documented 23");
_Static_assert(FL_STR_TAG_SHIFT == 56, "the tag is the capacity word's top byte");
_Static_assert(FL_STR_INLINE_CAPACITY < FL_STR_TAG_HEAP, "inline tags never carry the heap bit");
_Static_assert(FL_STR_HEAP_FLAG == (size_t)1 << 63, "the heap flag is the capacity word's top bit");
_Static_assert((FL_STR_EMPTY_CAP_WORD >> FL_STR_TAG_SHIFT) == FL_STR_INLINE_CAPACITY,
               "an empty string's tag is 23");

#include "c_check.h"

static size_t word(const fl_str* s, int i) {
  size_t w;
  memcpy(&w, (const unsigned char*)s + (size_t)i * sizeof w, sizeof w);
  return w;
}

int main(void) {
  const fl_str init = FL_STR_INIT;
  const unsigned char* b = (const unsigned char*)&init;
  CHECK(b[FL_STR_TAG_BYTE] == FL_STR_INLINE_CAPACITY);
  CHECK(word(&init, FL_STR_WORD_CAP) == FL_STR_EMPTY_CAP_WORD);

  static const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (size_t n = 0; n <= FL_STR_INLINE_CAPACITY + 2; ++n) {
    fl_str s;
    CHECK(fl_str_from_n(&s, text, n) == FL_OK);
    b = (const unsigned char*)&s;
    if (n <= FL_STR_INLINE_CAPACITY) {
      /* Inline: the text in place, the terminator after it, the tag last. */
      CHECK(memcmp(b, text, n) == 0 && b[n] == 0);
      CHECK(b[FL_STR_TAG_BYTE] == FL_STR_INLINE_CAPACITY - n);
      CHECK((b[FL_STR_TAG_BYTE] & FL_STR_TAG_HEAP) == 0);
    } else {
      /* Heap: pointer | length | capacity with the flag. */
      const char* p;
      memcpy(&p, b + FL_STR_WORD_PTR * sizeof(size_t), sizeof p);
      CHECK(b[FL_STR_TAG_BYTE] & FL_STR_TAG_HEAP);
      CHECK((word(&s, FL_STR_WORD_CAP) & FL_STR_HEAP_FLAG) != 0);
      CHECK(word(&s, FL_STR_WORD_SIZE) == n);
      CHECK((word(&s, FL_STR_WORD_CAP) & ~FL_STR_HEAP_FLAG) >= n);
      CHECK(p == fl_str_cstr(&s) && memcmp(p, text, n) == 0 && p[n] == 0);
    }
    CHECK(fl_str_len(&s) == n);
    fl_str_free(&s);
    CHECK(fl_str_len(&s) == 0 &&
          ((const unsigned char*)&s)[FL_STR_TAG_BYTE] == FL_STR_INLINE_CAPACITY);
  }
  if (failures == 0) puts("string_layout_test: all checks passed");
  return failures == 0 ? 0 : 1;
}
