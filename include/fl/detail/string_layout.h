/* fl/detail/string_layout.h: the 24-byte encoding shared by C++'s fl::string
 * (fl::detail::string_core, <fl/detail/string_core.hpp>) and C's fl_str
 * (<fl/fl.h>). Every constant of the encoding is written here and nowhere
 * else; both languages include this file and static_assert against it
 * (tests/c_api_test.c, src/c/c_api.cpp). Plain C11 preprocessor constants,
 * usable unchanged from C++.
 *
 * The 24 bytes are three machine words (64-bit little-endian targets only).
 * Two modes share them; the top bit of byte 23, the tag, tells them apart:
 *   inline: bytes 0..22 hold up to 23 chars; the tag = 23 - length, so a full
 *           inline string's tag is 0 and doubles as its terminator
 *   heap:   word 0 the block | word 1 the length | word 2 the capacity, whose
 *           top bit (bit 7 of the tag) is set
 * An all-zero fl_str is therefore NOT empty: it reads as 23 NUL chars.
 *
 * Changing any value below changes the ABI of fl.h's inline functions: every C
 * program compiled against fl.h must then be rebuilt. */
#ifndef FL_DETAIL_STRING_LAYOUT_H
#define FL_DETAIL_STRING_LAYOUT_H

/* sizeof(fl_str) == sizeof(fl::string) (with a stateless allocator). */
#define FL_STR_BYTES 24
/* The longest string held inline, without any allocation: every byte but the
 * tag. */
#define FL_STR_INLINE_CAPACITY (FL_STR_BYTES - 1)
/* Index of the tag byte: the last one, the top byte of the capacity word. */
#define FL_STR_TAG_BYTE (FL_STR_BYTES - 1)
/* Set in the tag of a heap string. Inline tags are 0..23, so never have it. */
#define FL_STR_TAG_HEAP 0x80u
/* Word indexes: the block (heap), the length (heap), the capacity and tag. */
#define FL_STR_WORD_PTR 0
#define FL_STR_WORD_SIZE 1
#define FL_STR_WORD_CAP 2
/* Bit position of the tag inside the capacity word (little endian). */
#define FL_STR_TAG_SHIFT ((FL_STR_TAG_BYTE - FL_STR_WORD_CAP * 8) * 8)
/* The capacity word's heap flag, and the capacity word of an empty inline
 * string (tag 23, other bytes 0); 64-bit constants written without casts, so
 * that C++ compiled with -Wold-style-cast accepts them too. */
#define FL_STR_HEAP_FLAG ((0ull + FL_STR_TAG_HEAP) << FL_STR_TAG_SHIFT)
#define FL_STR_EMPTY_CAP_WORD ((0ull + FL_STR_INLINE_CAPACITY) << FL_STR_TAG_SHIFT)

#endif /* FL_DETAIL_STRING_LAYOUT_H */
