/* The C API from C11 (built with -std=c11 -Wall -Wextra -Werror -pedantic):
 * every function of <fl/fl.h>, every status code, lengths around the inline
 * limit (22, 23, 24), self-aliasing arguments, and the guarantee that a failed
 * call leaves its output unchanged. Exits non-zero on the first failure. */
/* mkdtemp, unlink, rmdir: POSIX, not ISO C. */
#define _POSIX_C_SOURCE 200809L

#include <fl/fl.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "c_check.h"

/* s holds exactly the n bytes at p, and is terminated. */
static int holds(const fl_str* s, const char* p, size_t n) {
  return fl_str_len(s) == n && memcmp(fl_str_cstr(s), p, n) == 0 && fl_str_cstr(s)[n] == '\0';
}
#define HOLDS(s, lit) holds((s), (lit), sizeof(lit) - 1)

/* A copy of the 24 bytes, to prove that a failed call changed nothing. */
static int same_bytes(const fl_str* a, const fl_str* b) {
  return memcmp(a, b, sizeof(fl_str)) == 0;
}

static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

static void test_layout_and_init(void) {
  fl_str a = FL_STR_INIT;
  fl_str b;
  CHECK(sizeof(fl_str) == 24);
  CHECK(_Alignof(fl_str) == 8);
  CHECK(FL_OK == 0);
  CHECK(FL_NPOS == (size_t)-1);
  CHECK(fl_str_len(&a) == 0 && fl_str_cstr(&a)[0] == '\0');
  CHECK(fl_str_init(&b) == FL_OK);
  CHECK(fl_str_len(&b) == 0);
  CHECK(fl_str_capacity(&b) == FL_STR_INLINE_CAPACITY);
  CHECK(same_bytes(&a, &b));
  CHECK(fl_str_init(NULL) == FL_EINVAL);
  /* NULL tolerated by the accessors. */
  CHECK(fl_str_len(NULL) == 0);
  CHECK(strcmp(fl_str_cstr(NULL), "") == 0);
  CHECK(fl_str_data(NULL) == NULL);
  fl_str_free(NULL);
  fl_str_clear(NULL);
  fl_str_free(&a);
  fl_str_free(&b);
}

static void test_lengths_around_inline_limit(void) {
  size_t n;
  for (n = 0; n <= 40; ++n) {
    fl_str s;
    fl_str c;
    CHECK(fl_str_from_n(&s, alphabet, n) == FL_OK);
    CHECK(holds(&s, alphabet, n));
    CHECK(fl_str_capacity(&s) >= n);
    if (n <= FL_STR_INLINE_CAPACITY) CHECK(fl_str_capacity(&s) == FL_STR_INLINE_CAPACITY);
    /* data() is writable in [0, len). */
    if (n > 0) {
      fl_str_data(&s)[0] = '#';
      CHECK(fl_str_cstr(&s)[0] == '#');
      fl_str_data(&s)[0] = 'a';
    }
    CHECK(fl_str_clone(&c, &s) == FL_OK);
    CHECK(fl_str_eq(&c, &s));
    /* Append one byte across the limit: 22 -> 23 stays inline, 23 -> 24 moves. */
    CHECK(fl_str_append_n(&s, "!", 1) == FL_OK);
    CHECK(fl_str_len(&s) == n + 1 && fl_str_cstr(&s)[n] == '!' && fl_str_cstr(&s)[n + 1] == '\0');
    CHECK(memcmp(fl_str_cstr(&s), alphabet, n) == 0);
    fl_str_clear(&s);
    CHECK(fl_str_len(&s) == 0 && fl_str_cstr(&s)[0] == '\0');
    CHECK(fl_str_append(&s, "again") == FL_OK && HOLDS(&s, "again"));
    fl_str_free(&s);
    CHECK(fl_str_len(&s) == 0);
    /* Reusable after free. */
    CHECK(fl_str_append_n(&s, alphabet, n) == FL_OK && holds(&s, alphabet, n));
    fl_str_free(&s);
    fl_str_free(&c);
  }
  {
    /* The 23-char inline string's byte 23 is its terminator. */
    fl_str s;
    CHECK(fl_str_from_n(&s, alphabet, 23) == FL_OK);
    CHECK(fl_str_cstr(&s) == (const char*)&s);
    CHECK(fl_str_cstr(&s)[23] == '\0');
    fl_str_free(&s);
    CHECK(fl_str_from_n(&s, alphabet, 24) == FL_OK);
    CHECK(fl_str_cstr(&s) != (const char*)&s);
    fl_str_free(&s);
  }
}

static void test_from(void) {
  fl_str s;
  fl_str keep;
  CHECK(fl_str_from(&s, "hello") == FL_OK && HOLDS(&s, "hello"));
  fl_str_free(&s);
  CHECK(fl_str_from(&s, "a string that is longer than twenty-three bytes") == FL_OK);
  CHECK(HOLDS(&s, "a string that is longer than twenty-three bytes"));
  fl_str_free(&s);
  CHECK(fl_str_from_n(&s, "a\0b", 3) == FL_OK && fl_str_len(&s) == 3 && fl_str_cstr(&s)[1] == '\0');
  fl_str_free(&s);
  CHECK(fl_str_from_n(&s, NULL, 0) == FL_OK && fl_str_len(&s) == 0);
  fl_str_free(&s);
  /* Errors leave the target untouched. */
  fl_str_from(&s, "xyz");
  keep = s;
  CHECK(fl_str_from(&s, NULL) == FL_EINVAL && same_bytes(&s, &keep));
  CHECK(fl_str_from(NULL, "x") == FL_EINVAL);
  CHECK(fl_str_from_n(&s, NULL, 3) == FL_EINVAL && same_bytes(&s, &keep));
  CHECK(fl_str_from_n(NULL, "x", 1) == FL_EINVAL);
  CHECK(fl_str_clone(NULL, &s) == FL_EINVAL);
  CHECK(fl_str_clone(&s, NULL) == FL_EINVAL && same_bytes(&s, &keep));
  fl_str_free(&s);
}

static void test_append_reserve(void) {
  fl_str s = FL_STR_INIT;
  fl_str keep;
  size_t i;
  for (i = 0; i < 1000; ++i) CHECK(fl_str_append_n(&s, alphabet + (i % 60), 2) == FL_OK);
  CHECK(fl_str_len(&s) == 2000);
  for (i = 0; i < 1000; ++i) CHECK(memcmp(fl_str_cstr(&s) + 2 * i, alphabet + (i % 60), 2) == 0);
  /* Self-append: the source is inside the destination. */
  fl_str_clear(&s);
  CHECK(fl_str_append(&s, "0123456789ab") == FL_OK);
  CHECK(fl_str_append_n(&s, fl_str_cstr(&s), fl_str_len(&s)) == FL_OK); /* 12 -> 24: goes to heap */
  CHECK(HOLDS(&s, "0123456789ab0123456789ab"));
  CHECK(fl_str_append(&s, fl_str_cstr(&s)) == FL_OK);
  CHECK(HOLDS(&s, "0123456789ab0123456789ab0123456789ab0123456789ab"));

  CHECK(fl_str_reserve(&s, 5000) == FL_OK && fl_str_capacity(&s) >= 5000);
  CHECK(HOLDS(&s, "0123456789ab0123456789ab0123456789ab0123456789ab"));
  CHECK(fl_str_reserve(&s, 10) == FL_OK && fl_str_capacity(&s) >= 5000); /* never shrinks */
  /* FL_ENOMEM: a capacity no allocator can provide; s unchanged. */
  keep = s;
  CHECK(fl_str_reserve(&s, SIZE_MAX / 2) == FL_ENOMEM && same_bytes(&s, &keep));
  CHECK(fl_str_reserve(&s, SIZE_MAX) == FL_ENOMEM && same_bytes(&s, &keep));
  CHECK(fl_str_append_n(&s, alphabet, SIZE_MAX - 10) == FL_ENOMEM && same_bytes(&s, &keep));
  CHECK(fl_str_append(NULL, "x") == FL_EINVAL);
  CHECK(fl_str_append(&s, NULL) == FL_EINVAL && same_bytes(&s, &keep));
  CHECK(fl_str_append_n(&s, NULL, 1) == FL_EINVAL && same_bytes(&s, &keep));
  CHECK(fl_str_append_n(&s, NULL, 0) == FL_OK && same_bytes(&s, &keep));
  CHECK(fl_str_append_n(NULL, "x", 1) == FL_EINVAL);
  CHECK(fl_str_reserve(NULL, 1) == FL_EINVAL);
  fl_str_free(&s);
}

/* The inline heap append up to the last byte of the capacity: the terminator
 * goes to byte cap (the block holds cap + 1), the length and capacity words
 * stay intact, and the next byte grows the buffer. */
static void test_append_fills_capacity(void) {
  fl_str s = FL_STR_INIT;
  size_t cap, i;
  CHECK(fl_str_reserve(&s, 100) == FL_OK);
  cap = fl_str_capacity(&s);
  CHECK(cap >= 100);
  for (i = 0; i < cap; ++i) CHECK(fl_str_append_n(&s, alphabet + (i % 62), 1) == FL_OK);
  CHECK(fl_str_len(&s) == cap && fl_str_capacity(&s) == cap);
  CHECK(fl_str_cstr(&s)[cap] == '\0');
  for (i = 0; i < cap; ++i) CHECK(fl_str_cstr(&s)[i] == alphabet[i % 62]);
  CHECK(fl_str_append_n(&s, "+", 1) == FL_OK);
  CHECK(fl_str_len(&s) == cap + 1 && fl_str_capacity(&s) > cap);
  CHECK(fl_str_cstr(&s)[cap] == '+' && fl_str_cstr(&s)[cap + 1] == '\0');
  for (i = 0; i < cap; ++i) CHECK(fl_str_cstr(&s)[i] == alphabet[i % 62]);
  fl_str_free(&s);
}

static void test_appendf(void) {
  fl_str s = FL_STR_INIT;
  fl_str keep;
  char want[256];
  int i;
  CHECK(fl_str_appendf(&s, "%d-%s", 42, "x") == FL_OK && HOLDS(&s, "42-x"));
  /* Exactly filling the inline capacity (23), then one past it. */
  fl_str_clear(&s);
  CHECK(fl_str_appendf(&s, "%s", "0123456789012345678901") == FL_OK && fl_str_len(&s) == 22);
  CHECK(fl_str_appendf(&s, "%c", 'x') == FL_OK && HOLDS(&s, "0123456789012345678901x"));
  CHECK(fl_str_appendf(&s, "%c", 'y') == FL_OK && HOLDS(&s, "0123456789012345678901xy"));
  /* A long format that does not fit the spare capacity: the second pass. */
  fl_str_clear(&s);
  CHECK(fl_str_append(&s, "start:") == FL_OK);
  CHECK(fl_str_appendf(&s, "%0200d|%s", 7, "end") == FL_OK);
  snprintf(want, sizeof want, "start:%0200d|%s", 7, "end");
  CHECK(holds(&s, want, strlen(want)));
  for (i = 0; i < 100; ++i) CHECK(fl_str_appendf(&s, "[%d]", i) == FL_OK);
  CHECK(fl_str_find(&s, "[99]", 4, 0) == fl_str_len(&s) - 4);
  CHECK(fl_str_appendf(&s, "%s", "") == FL_OK);
  /* An empty result from an inline string keeps it intact. */
  {
    fl_str t;
    fl_str_from(&t, "abc");
    CHECK(fl_str_appendf(&t, "%s", "") == FL_OK && HOLDS(&t, "abc"));
    /* A format that fails (an unencodable wide character in the C locale):
     * FL_EINVAL and the string unchanged, inline and heap. */
    keep = t;
    CHECK(fl_str_appendf(&t, "%lc", (wint_t)0xD800) == FL_EINVAL && same_bytes(&t, &keep) &&
          HOLDS(&t, "abc"));
    fl_str_free(&t);
  }
  keep = s;
  {
    size_t len = fl_str_len(&s);
    CHECK(fl_str_appendf(&s, "%lc", (wint_t)0xD800) == FL_EINVAL && same_bytes(&s, &keep));
    CHECK(fl_str_len(&s) == len && fl_str_cstr(&s)[len] == '\0');
  }
  CHECK(fl_str_appendf(NULL, "x") == FL_EINVAL);
  CHECK(fl_str_appendf(&s, NULL) == FL_EINVAL && same_bytes(&s, &keep));
  fl_str_free(&s);
}

static void test_edit(void) {
  fl_str s;
  fl_str keep;
  fl_str_from(&s, "hello world");
  CHECK(fl_str_insert(&s, 5, ",", 1) == FL_OK && HOLDS(&s, "hello, world"));
  CHECK(fl_str_insert(&s, 0, ">> ", 3) == FL_OK && HOLDS(&s, ">> hello, world"));
  CHECK(fl_str_insert(&s, fl_str_len(&s), "!", 1) == FL_OK && HOLDS(&s, ">> hello, world!"));
  /* Self-insert across the inline limit. */
  CHECK(fl_str_insert(&s, 3, fl_str_cstr(&s) + 3, 5) == FL_OK &&
        HOLDS(&s, ">> hellohello, world!"));
  CHECK(fl_str_insert(&s, 0, fl_str_cstr(&s), fl_str_len(&s)) == FL_OK);
  CHECK(HOLDS(&s, ">> hellohello, world!>> hellohello, world!"));
  CHECK(fl_str_erase(&s, 21, FL_NPOS) == FL_OK && HOLDS(&s, ">> hellohello, world!"));
  CHECK(fl_str_erase(&s, 0, 3) == FL_OK && HOLDS(&s, "hellohello, world!"));
  CHECK(fl_str_erase(&s, 5, 5) == FL_OK && HOLDS(&s, "hello, world!"));
  CHECK(fl_str_erase(&s, fl_str_len(&s), 5) == FL_OK && HOLDS(&s, "hello, world!"));
  CHECK(fl_str_replace(&s, 0, 5, "goodbye", 7) == FL_OK && HOLDS(&s, "goodbye, world!"));
  CHECK(fl_str_replace(&s, 9, FL_NPOS, "moon", 4) == FL_OK && HOLDS(&s, "goodbye, moon"));
  CHECK(fl_str_replace(&s, 0, 4, fl_str_cstr(&s) + 9, 4) == FL_OK && HOLDS(&s, "moonbye, moon"));
  CHECK(fl_str_replace(&s, 4, 0, NULL, 0) == FL_OK && HOLDS(&s, "moonbye, moon"));
  CHECK(fl_str_assign(&s, "assigned", 8) == FL_OK && HOLDS(&s, "assigned"));
  CHECK(fl_str_assign(&s, fl_str_cstr(&s) + 2, 4) == FL_OK && HOLDS(&s, "sign"));
  CHECK(fl_str_assign(&s, NULL, 0) == FL_OK && HOLDS(&s, ""));
  fl_str_assign(&s, "0123456789012345678901234567", 28);
  /* FL_ERANGE: a position past the end; nothing changes. */
  keep = s;
  CHECK(fl_str_insert(&s, 29, "x", 1) == FL_ERANGE && same_bytes(&s, &keep));
  CHECK(fl_str_erase(&s, 29, 1) == FL_ERANGE && same_bytes(&s, &keep));
  CHECK(fl_str_replace(&s, 29, 1, "x", 1) == FL_ERANGE && same_bytes(&s, &keep));
  CHECK(fl_str_insert(&s, 0, alphabet, SIZE_MAX - 5) == FL_ENOMEM && same_bytes(&s, &keep));
  CHECK(fl_str_replace(&s, 0, 1, alphabet, SIZE_MAX - 5) == FL_ENOMEM && same_bytes(&s, &keep));
  /* FL_EINVAL. */
  CHECK(fl_str_insert(NULL, 0, "x", 1) == FL_EINVAL);
  CHECK(fl_str_insert(&s, 0, NULL, 1) == FL_EINVAL && same_bytes(&s, &keep));
  CHECK(fl_str_erase(NULL, 0, 1) == FL_EINVAL);
  CHECK(fl_str_replace(NULL, 0, 1, "x", 1) == FL_EINVAL);
  CHECK(fl_str_replace(&s, 0, 1, NULL, 1) == FL_EINVAL && same_bytes(&s, &keep));
  CHECK(fl_str_assign(NULL, "x", 1) == FL_EINVAL);
  CHECK(fl_str_assign(&s, NULL, 1) == FL_EINVAL && same_bytes(&s, &keep));
  CHECK(fl_str_trim(NULL) == FL_EINVAL);
  /* trim */
  fl_str_assign(&s, " \t\r\n  padded text \v\f ", 21);
  CHECK(fl_str_trim(&s) == FL_OK && HOLDS(&s, "padded text"));
  fl_str_assign(&s, "   ", 3);
  CHECK(fl_str_trim(&s) == FL_OK && HOLDS(&s, ""));
  fl_str_assign(&s, "                              long and padded                    ",
                30 + 15 + 20);
  CHECK(fl_str_trim(&s) == FL_OK && HOLDS(&s, "long and padded"));
  CHECK(fl_str_trim(&s) == FL_OK && HOLDS(&s, "long and padded"));
  fl_str_free(&s);
}

static void test_move(void) {
  fl_str a;
  fl_str b;
  fl_str_from(&a, "a heap string, longer than the inline limit");
  fl_str_from(&b, "short");
  {
    const char* buf = fl_str_cstr(&a);
    CHECK(fl_str_move(&b, &a) == FL_OK);
    CHECK(fl_str_cstr(&b) == buf); /* no copy */
    CHECK(HOLDS(&b, "a heap string, longer than the inline limit"));
    CHECK(fl_str_len(&a) == 0);
  }
  CHECK(fl_str_move(&b, &b) == FL_OK && HOLDS(&b, "a heap string, longer than the inline limit"));
  CHECK(fl_str_move(NULL, &b) == FL_EINVAL && fl_str_len(&b) == 43);
  CHECK(fl_str_move(&a, NULL) == FL_EINVAL);
  fl_str_free(&a);
  fl_str_free(&b);
}

static void test_search_compare(void) {
  fl_str s;
  fl_str t;
  fl_str keep;
  fl_str_from_n(&s, "abracadabra, abracadabra and a\0zero", 35);
  CHECK(fl_str_find(&s, "abra", 4, 0) == 0);
  CHECK(fl_str_find(&s, "abra", 4, 1) == 7);
  CHECK(fl_str_find(&s, "cad", 3, 5) == 17);
  CHECK(fl_str_find(&s, "\0zero", 5, 0) == 30);
  CHECK(fl_str_find(&s, "xyz", 3, 0) == FL_NPOS);
  CHECK(fl_str_find(&s, "", 0, 4) == 4);
  CHECK(fl_str_find(&s, "", 0, 36) == FL_NPOS);
  CHECK(fl_str_find(&s, NULL, 0, 2) == 2);
  CHECK(fl_str_find(&s, "a", 1, 1000) == FL_NPOS);
  CHECK(fl_str_find(NULL, "a", 1, 0) == FL_NPOS);
  CHECK(fl_str_find(&s, NULL, 1, 0) == FL_NPOS);
  CHECK(fl_str_rfind(&s, "abra", 4, FL_NPOS) == 20);
  CHECK(fl_str_rfind(&s, "abra", 4, 19) == 13);
  CHECK(fl_str_rfind(&s, "zz", 2, FL_NPOS) == FL_NPOS);
  CHECK(fl_str_rfind(&s, "", 0, FL_NPOS) == 35);
  CHECK(fl_str_rfind(NULL, "a", 1, 0) == FL_NPOS);
  CHECK(fl_str_rfind(&s, NULL, 1, 0) == FL_NPOS);

  CHECK(fl_str_starts_with(&s, "abraca", 6));
  CHECK(!fl_str_starts_with(&s, "abrax", 5));
  CHECK(fl_str_starts_with(&s, NULL, 0));
  CHECK(fl_str_ends_with(&s, "\0zero", 5));
  CHECK(!fl_str_ends_with(&s, "hero", 4));
  CHECK(!fl_str_starts_with(NULL, "a", 1) && !fl_str_ends_with(NULL, "a", 1));
  CHECK(!fl_str_starts_with(&s, NULL, 1) && !fl_str_ends_with(&s, NULL, 1));

  /* substr: n clipped, pos == len gives "", pos > len FL_ERANGE. */
  fl_str_init(&t);
  CHECK(fl_str_substr(&s, 4, 3, &t) == FL_OK && HOLDS(&t, "cad"));
  CHECK(fl_str_substr(&s, 31, 100, &t) == FL_OK && HOLDS(&t, "zero"));
  CHECK(fl_str_substr(&s, 35, 1, &t) == FL_OK && HOLDS(&t, ""));
  CHECK(fl_str_substr(&s, 0, 30, &t) == FL_OK && HOLDS(&t, "abracadabra, abracadabra and a"));
  keep = t;
  CHECK(fl_str_substr(&s, 36, 1, &t) == FL_ERANGE && same_bytes(&t, &keep));
  CHECK(fl_str_substr(NULL, 0, 1, &t) == FL_EINVAL && same_bytes(&t, &keep));
  CHECK(fl_str_substr(&s, 0, 1, NULL) == FL_EINVAL);
  /* out == s */
  CHECK(fl_str_substr(&t, 13, 11, &t) == FL_OK && HOLDS(&t, "abracadabra"));

  /* cmp / eq: memcmp order, then length; bytes compare unsigned. */
  {
    fl_str a, b;
    fl_str_from(&a, "abc");
    fl_str_from(&b, "abd");
    CHECK(fl_str_cmp(&a, &b) < 0 && fl_str_cmp(&b, &a) > 0 && !fl_str_eq(&a, &b));
    fl_str_assign(&b, "abc", 3);
    CHECK(fl_str_cmp(&a, &b) == 0 && fl_str_eq(&a, &b));
    fl_str_assign(&b, "abcd", 4);
    CHECK(fl_str_cmp(&a, &b) < 0 && fl_str_cmp(&b, &a) > 0);
    fl_str_assign(&b, "ab\xff", 3);
    CHECK(fl_str_cmp(&a, &b) < 0);
    fl_str_assign(&a, "a long string past the inline limit, version 1", 46);
    fl_str_assign(&b, "a long string past the inline limit, version 2", 46);
    CHECK(fl_str_cmp(&a, &b) < 0 && !fl_str_eq(&a, &b));
    CHECK(fl_str_eq(&a, &a) && fl_str_cmp(&a, &a) == 0);
    CHECK(fl_str_cmp(NULL, &a) < 0 && fl_str_cmp(&a, NULL) > 0 && fl_str_cmp(NULL, NULL) == 0);
    CHECK(!fl_str_eq(NULL, &a) && fl_str_eq(NULL, NULL));
    fl_str_free(&a);
    fl_str_free(&b);
  }
  fl_str_free(&s);
  fl_str_free(&t);
}

static void test_split(void) {
  fl_str s;
  fl_str_list list = FL_STR_LIST_INIT;
  fl_str_list keep;
  fl_str_from(&s, "a,,b,a much longer field than twenty-three bytes,");
  CHECK(fl_str_split(&s, ",", 1, &list) == FL_OK);
  CHECK(list.len == 5);
  if (list.len == 5) {
    CHECK(HOLDS(&list.items[0], "a"));
    CHECK(HOLDS(&list.items[1], ""));
    CHECK(HOLDS(&list.items[2], "b"));
    CHECK(HOLDS(&list.items[3], "a much longer field than twenty-three bytes"));
    CHECK(HOLDS(&list.items[4], ""));
  }
  /* A multi-byte separator; the previous items are freed. */
  fl_str_assign(&s, "one::two::three", 15);
  CHECK(fl_str_split(&s, "::", 2, &list) == FL_OK && list.len == 3);
  if (list.len == 3) CHECK(HOLDS(&list.items[2], "three"));
  fl_str_clear(&s);
  CHECK(fl_str_split(&s, ",", 1, &list) == FL_OK && list.len == 1 &&
        fl_str_len(&list.items[0]) == 0);
  keep = list;
  CHECK(fl_str_split(&s, ",", 0, &list) == FL_EINVAL && list.items == keep.items &&
        list.len == keep.len);
  CHECK(fl_str_split(NULL, ",", 1, &list) == FL_EINVAL && list.items == keep.items);
  CHECK(fl_str_split(&s, NULL, 1, &list) == FL_EINVAL && list.items == keep.items);
  CHECK(fl_str_split(&s, ",", 1, NULL) == FL_EINVAL);
  fl_str_list_free(&list);
  CHECK(list.items == NULL && list.len == 0);
  fl_str_list_free(&list);
  fl_str_list_free(NULL);
  fl_str_free(&s);
}

static void test_files(void) {
  char dir[] = "/tmp/fl_c_api_testXXXXXX";
  char path[256];
  fl_str s;
  fl_str r = FL_STR_INIT;
  fl_str keep;
  size_t i;
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/data.bin", dir);
  fl_str_init(&s);
  for (i = 0; i < 100000; ++i) fl_str_append_n(&s, alphabet + (i % 61), 1);
  fl_str_append_n(&s, "\0end", 4);
  CHECK(fl_str_write_file(&s, path) == FL_OK);
  CHECK(fl_str_read_file(&r, path) == FL_OK);
  CHECK(fl_str_eq(&r, &s));
  /* Short files, across the inline limit. */
  for (i = 22; i <= 24; ++i) {
    fl_str_assign(&s, alphabet, i);
    CHECK(fl_str_write_file(&s, path) == FL_OK);
    CHECK(fl_str_read_file(&r, path) == FL_OK && holds(&r, alphabet, i));
  }
  /* FL_EIO with errno; the output is unchanged. */
  keep = r;
  errno = 0;
  CHECK(fl_str_read_file(&r, "/nonexistent/fl/file") == FL_EIO && errno == ENOENT &&
        same_bytes(&r, &keep));
  errno = 0;
  CHECK(fl_str_read_file(&r, dir) == FL_EIO && errno == EISDIR && same_bytes(&r, &keep));
  errno = 0;
  CHECK(fl_str_write_file(&s, "/nonexistent/fl/file") == FL_EIO && errno == ENOENT);
  CHECK(fl_str_read_file(NULL, path) == FL_EINVAL);
  CHECK(fl_str_read_file(&r, NULL) == FL_EINVAL && same_bytes(&r, &keep));
  CHECK(fl_str_write_file(NULL, path) == FL_EINVAL);
  CHECK(fl_str_write_file(&s, NULL) == FL_EINVAL);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  fl_str_free(&s);
  fl_str_free(&r);
}

int main(void) {
  test_layout_and_init();
  test_lengths_around_inline_limit();
  test_from();
  test_append_reserve();
  test_append_fills_capacity();
  test_appendf();
  test_edit();
  test_move();
  test_search_compare();
  test_split();
  test_files();
  if (failures != 0) {
    fprintf(stderr, "c_api_test: %d check(s) failed\n", failures);
    return 1;
  }
  puts("c_api_test: all checks passed");
  return 0;
}
