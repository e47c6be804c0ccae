/* fl/fl.h: the C11 API of fl. fl_str is a byte string with 23 bytes of inline
 * storage and the same 24 bytes, the same pool and the same search engine as
 * C++'s fl::string; C++ code can view an fl_str as an fl::string in place
 * (fl::as_string, at the bottom of this header).
 *
 * Conventions
 * - fl_str is a value of 24 bytes. It must be initialized before use, with
 *   fl_str_init(), fl_str_from(), fl_str_from_n(), fl_str_clone() or the
 *   initializer FL_STR_INIT; a zero-filled fl_str is NOT an empty string.
 *   Those four functions treat their target as raw storage (they never free
 *   it); every other function that writes an fl_str requires an initialized
 *   one and replaces or edits its content. fl_str_free() releases the buffer
 *   and leaves the string empty and reusable.
 * - Nothing throws or aborts. Functions return fl_status: FL_OK (0), FL_ENOMEM
 *   (allocation failed, or a length beyond what can be allocated), FL_ERANGE
 *   (a position past the end), FL_EIO (the operating system refused; errno is
 *   kept as the system set it), FL_EINVAL (a NULL pointer where none is
 *   allowed, or an invalid printf format). A call that fails leaves its
 *   output exactly as it was.
 * - Byte strings: every (p, n) argument may hold any bytes including NUL;
 *   fl_str_cstr() is always NUL-terminated. Sources may point into the
 *   destination itself (fl_str_append_n(s, fl_str_cstr(s), 3) is fine).
 * - Threads: like int; separate strings may be used on separate threads, and a
 *   string may be freed on another thread than the one that created it.
 */
#ifndef FL_FL_H
#define FL_FL_H

#include <fl/detail/string_layout.h>

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_status {
  FL_OK = 0,
  FL_ENOMEM = 1,
  FL_ERANGE = 2,
  FL_EIO = 3,
  FL_EINVAL = 4
} fl_status;

#define FL_NPOS ((size_t)-1)

/* The status as text for messages: its name, a colon and what it means, e.g.
 * "FL_ERANGE: position past the end". A static string, never NULL; a value
 * that is no fl_status gives "FL_?: not an fl_status value". */
const char* fl_status_str(fl_status st);

/* The short, hot functions (init, from, from_n, free, len, cstr, data, clear,
 * and append/append_n when the text fits the capacity) are static inline
 * here, so that creating and freeing a short string or appending within the
 * capacity costs no call; their other cases call into the library. The library also
 * exports every one of them under the same name, for FFI users and for
 * programs built with FL_C_NO_INLINE defined (no inline definitions). */
#if defined(FL_C_NO_INLINE)
#define FL_C_INLINE_
#else
#define FL_C_INLINE_ static inline
#endif

/* FL_STR_INLINE_CAPACITY, the longest string held inline without any
 * allocation (23), is defined with the rest of the encoding in
 * <fl/detail/string_layout.h>. */

/* Opaque: use the functions. The 24 bytes are fl::string's representation,
 * described and defined once in <fl/detail/string_layout.h>. The words give
 * the size and alignment; the inline functions below (in C and in C++) read
 * and write the bytes only through unsigned char and memcpy, never through a
 * member, so no union member is read after another was written. */
typedef union fl_str {
  size_t fl_w_[FL_STR_BYTES / sizeof(size_t)];
  unsigned char fl_b_[FL_STR_BYTES];
} fl_str;

/* An empty string, for declarations: fl_str s = FL_STR_INIT; (C and C++) */
#define FL_STR_INIT                 \
  {                                 \
    { 0, 0, FL_STR_EMPTY_CAP_WORD } \
  }

/* A list of strings (fl_str_split). items[0..len) are initialized strings
 * owned by the list; release them all with fl_str_list_free. */
typedef struct fl_str_list {
  fl_str* items;
  size_t len;
} fl_str_list;

#define FL_STR_LIST_INIT \
  { NULL, 0 }

/* --- Creation and release ------------------------------------------------ */

/* Makes s empty (s is raw storage). FL_EINVAL if s is NULL. */
FL_C_INLINE_ fl_status fl_str_init(fl_str* s);
/* s = the NUL-terminated cstr (s is raw storage). */
FL_C_INLINE_ fl_status fl_str_from(fl_str* s, const char* cstr);
/* s = the n bytes at p (s is raw storage); p may be NULL when n == 0. */
FL_C_INLINE_ fl_status fl_str_from_n(fl_str* s, const char* p, size_t n);
/* dst = a copy of src (dst is raw storage, not src). */
fl_status fl_str_clone(fl_str* dst, const fl_str* src);
/* Releases the buffer; s is left empty and reusable. NULL is ignored. */
FL_C_INLINE_ void fl_str_free(fl_str* s);
/* Frees dst's content, moves src's into dst without copying, leaves src
 * empty. dst == src does nothing. */
fl_status fl_str_move(fl_str* dst, fl_str* src);

/* --- Access -------------------------------------------------------------- */

/* Length in bytes (0 for NULL). O(1). */
FL_C_INLINE_ size_t fl_str_len(const fl_str* s);
/* The text, NUL-terminated; valid until s is next modified ("" for NULL). */
FL_C_INLINE_ const char* fl_str_cstr(const fl_str* s);
/* The text, writable in [0, len); NULL for NULL. */
FL_C_INLINE_ char* fl_str_data(fl_str* s);
/* The most bytes s can hold without allocating (at least 23). */
size_t fl_str_capacity(const fl_str* s);

/* --- Modification -------------------------------------------------------- */

/* s = the n bytes at p. */
fl_status fl_str_assign(fl_str* s, const char* p, size_t n);
FL_C_INLINE_ fl_status fl_str_append(fl_str* s, const char* cstr);
FL_C_INLINE_ fl_status fl_str_append_n(fl_str* s, const char* p, size_t n);
/* Appends printf-style text (vsnprintf formats straight into the spare
 * capacity; one more pass only when the text does not fit). FL_EINVAL if the
 * format fails (vsnprintf < 0). As with snprintf, the arguments must not
 * point into s itself: copy such text first (fl_str_clone). */
fl_status fl_str_appendf(fl_str* s, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Makes room for at least `capacity` bytes; never shrinks. */
fl_status fl_str_reserve(fl_str* s, size_t capacity);
/* Length 0; keeps the buffer. */
FL_C_INLINE_ void fl_str_clear(fl_str* s);
/* Inserts the n bytes at p before byte pos. FL_ERANGE if pos > len. */
fl_status fl_str_insert(fl_str* s, size_t pos, const char* p, size_t n);
/* Removes min(n, len - pos) bytes from pos. FL_ERANGE if pos > len. */
fl_status fl_str_erase(fl_str* s, size_t pos, size_t n);
/* Replaces min(count, len - pos) bytes at pos with the n bytes at p.
 * FL_ERANGE if pos > len. */
fl_status fl_str_replace(fl_str* s, size_t pos, size_t count, const char* p, size_t n);
/* Removes leading and trailing ASCII white space (" \t\n\v\f\r"). */
fl_status fl_str_trim(fl_str* s);

/* --- Search and comparison ----------------------------------------------- */

/* First index >= pos where the n bytes at needle occur, or FL_NPOS (also for
 * NULL arguments). An empty needle is found at pos if pos <= len. */
size_t fl_str_find(const fl_str* s, const char* needle, size_t n, size_t pos);
/* Last index <= pos where the needle occurs, or FL_NPOS; pos = FL_NPOS
 * searches the whole string. */
size_t fl_str_rfind(const fl_str* s, const char* needle, size_t n, size_t pos);
/* out = min(n, len - pos) bytes from pos; out may be s. FL_ERANGE if
 * pos > len. */
fl_status fl_str_substr(const fl_str* s, size_t pos, size_t n, fl_str* out);
/* memcmp order, then the shorter first: <0, 0, >0. NULL sorts first. */
int fl_str_cmp(const fl_str* a, const fl_str* b);
bool fl_str_eq(const fl_str* a, const fl_str* b);
/* Whether s begins / ends with the n bytes at p (false for NULL). */
bool fl_str_starts_with(const fl_str* s, const char* p, size_t n);
bool fl_str_ends_with(const fl_str* s, const char* p, size_t n);
/* Splits s at every occurrence of the n-byte separator (n > 0, else
 * FL_EINVAL) into out, replacing out's previous items (freed). "a,,b" by ","
 * gives "a", "", "b"; an empty s gives one empty item. */
fl_status fl_str_split(const fl_str* s, const char* sep, size_t n, fl_str_list* out);
/* Frees every item and the array; list is left empty. NULL is ignored. */
void fl_str_list_free(fl_str_list* list);

/* --- Files --------------------------------------------------------------- */

/* out = the whole file at path (read to EOF, also for /proc files).
 * FL_EIO with errno set on failure. */
fl_status fl_str_read_file(fl_str* out, const char* path);
/* Writes s to path (created or truncated, mode 0666 & ~umask), completely or
 * FL_EIO with errno set. */
fl_status fl_str_write_file(const fl_str* s, const char* path);

/* --- Inline fast paths --------------------------------------------------- */
/* Not part of the API: out-of-line halves of the inline functions above. */
fl_status fl_str_from_n_heap_(fl_str* s, const char* p, size_t n);
void fl_str_free_heap_(fl_str* s);
fl_status fl_str_append_n_grow_(fl_str* s, const char* p, size_t n);

#if !defined(FL_C_NO_INLINE)

/* The bodies below are C; C++ projects that warn about C casts compile them
 * too. */
#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuseless-cast"
#endif
#endif

/* The encoding's fields, through the bytes (see fl_str). */
static inline unsigned char* fl_str_bytes_(fl_str* s) { return (unsigned char*)s; }
static inline size_t fl_str_word_(const fl_str* s, int i) {
  size_t w;
  memcpy(&w, (const unsigned char*)s + i * sizeof(size_t), sizeof w);
  return w;
}
static inline void fl_str_set_word_(fl_str* s, int i, size_t w) {
  memcpy((unsigned char*)s + i * sizeof(size_t), &w, sizeof w);
}
static inline unsigned char fl_str_tag_(const fl_str* s) {
  return ((const unsigned char*)s)[FL_STR_TAG_BYTE];
}
static inline char* fl_str_heap_ptr_(const fl_str* s) {
  char* p;
  memcpy(&p, (const unsigned char*)s + FL_STR_WORD_PTR * sizeof(size_t), sizeof p);
  return p;
}
/* Inline mode of length n <= 23: the terminator, then the tag (for n == 23
 * both are the tag byte, and both are 0). */
static inline void fl_str_set_inline_size_(fl_str* s, size_t n) {
  fl_str_bytes_(s)[n] = 0;
  fl_str_bytes_(s)[FL_STR_TAG_BYTE] = (unsigned char)(FL_STR_INLINE_CAPACITY - n);
}

static inline fl_status fl_str_init(fl_str* s) {
  if (s == NULL) return FL_EINVAL;
  fl_str_set_word_(s, FL_STR_WORD_PTR, 0);
  fl_str_set_word_(s, FL_STR_WORD_SIZE, 0);
  fl_str_set_word_(s, FL_STR_WORD_CAP, FL_STR_EMPTY_CAP_WORD);
  return FL_OK;
}

static inline fl_status fl_str_from_n(fl_str* s, const char* p, size_t n) {
  if (s == NULL || (p == NULL && n != 0)) return FL_EINVAL;
  if (n > FL_STR_INLINE_CAPACITY) return fl_str_from_n_heap_(s, p, n);
  if (n != 0) memcpy(fl_str_bytes_(s), p, n);
  fl_str_set_inline_size_(s, n);
  return FL_OK;
}

static inline fl_status fl_str_from(fl_str* s, const char* cstr) {
  if (cstr == NULL) return FL_EINVAL;
  return fl_str_from_n(s, cstr, strlen(cstr));
}

static inline void fl_str_free(fl_str* s) {
  if (s == NULL) return;
  if (fl_str_tag_(s) & FL_STR_TAG_HEAP) {
    fl_str_free_heap_(s);
  } else {
    fl_str_set_inline_size_(s, 0);
  }
}

static inline size_t fl_str_len(const fl_str* s) {
  if (s == NULL) return 0;
  return (fl_str_tag_(s) & FL_STR_TAG_HEAP) ? fl_str_word_(s, FL_STR_WORD_SIZE)
                                            : (size_t)(FL_STR_INLINE_CAPACITY - fl_str_tag_(s));
}

static inline const char* fl_str_cstr(const fl_str* s) {
  if (s == NULL) return "";
  return (fl_str_tag_(s) & FL_STR_TAG_HEAP) ? fl_str_heap_ptr_(s) : (const char*)s;
}

static inline char* fl_str_data(fl_str* s) {
  if (s == NULL) return NULL;
  return (fl_str_tag_(s) & FL_STR_TAG_HEAP) ? fl_str_heap_ptr_(s) : (char*)s;
}

/* Appends in place when the text fits the capacity; otherwise the library
 * grows the buffer (geometrically, onto the pool's size classes). A source
 * inside s is fine: it lies in [0, len), the copy goes to [len, len + n).
 * The heap path reads each word of *s once, before its byte stores (which may
 * alias *s as far as the compiler knows), and stores the length last. */
static inline fl_status fl_str_append_n(fl_str* s, const char* p, size_t n) {
  if (s == NULL || (p == NULL && n != 0)) return FL_EINVAL;
  if (n == 0) return FL_OK;
  const size_t w2 = fl_str_word_(s, FL_STR_WORD_CAP); /* holds the tag */
  if (w2 & FL_STR_HEAP_FLAG) {
    char* const d = fl_str_heap_ptr_(s);
    const size_t len = fl_str_word_(s, FL_STR_WORD_SIZE);
    const size_t cap = w2 & ~FL_STR_HEAP_FLAG;
    /* No buffer holds more than PTRDIFF_MAX bytes; saying so keeps an -O3
     * build from warning that a huge constant n would overflow the memcpy. */
    if (n <= cap - len && n <= ((size_t)-1 >> 1)) {
      memcpy(d + len, p, n);
      d[len + n] = 0;
      fl_str_set_word_(s, FL_STR_WORD_SIZE, len + n);
      return FL_OK;
    }
  } else {
    const size_t len = (size_t)(FL_STR_INLINE_CAPACITY - fl_str_tag_(s));
    if (n <= FL_STR_INLINE_CAPACITY - len) {
      memcpy(fl_str_bytes_(s) + len, p, n);
      fl_str_set_inline_size_(s, len + n);
      return FL_OK;
    }
  }
  return fl_str_append_n_grow_(s, p, n);
}

static inline fl_status fl_str_append(fl_str* s, const char* cstr) {
  if (cstr == NULL) return FL_EINVAL;
  return fl_str_append_n(s, cstr, strlen(cstr));
}

static inline void fl_str_clear(fl_str* s) {
  if (s == NULL) return;
  if (fl_str_tag_(s) & FL_STR_TAG_HEAP) {
    fl_str_set_word_(s, FL_STR_WORD_SIZE, 0);
    fl_str_heap_ptr_(s)[0] = 0;
  } else {
    fl_str_set_inline_size_(s, 0);
  }
}

#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif /* !FL_C_NO_INLINE */

#ifdef __cplusplus
} /* extern "C" */

/* C++: the same bytes as an fl::string, in place and without copying.
 *   fl_str s = FL_STR_INIT;
 *   fl::as_string(&s) += "text";          // edits s
 *   fl::string owned = std::move(fl::as_string(&s));  // takes the buffer; s empty
 * The reference aliases *s: it is valid while s is, and s keeps ownership
 * (release it with fl_str_free, never by destroying the reference).
 *
 * The rule that makes this defined behaviour: an fl_str's 24 bytes are the
 * object representation of fl::detail::string_core, the first and only
 * non-empty member of the standard-layout fl::string (both static_asserted
 * below against <fl/detail/string_layout.h>). as_string reads the bytes with
 * string_core::load (memcpy) and creates the fl::string that lives in s's
 * storage from them (placement new writes the same 24 bytes back), so the
 * reference always names a live fl::string, whatever wrote the bytes (C code,
 * the inline functions above, or an earlier view). Creating it again over an
 * earlier view is storage reuse by an object of the same type, so earlier
 * references keep naming the string. Consequences: the const overload also
 * stores those bytes, so s must not be an object defined const, and a view is
 * taken by one thread at a time, like any edit. */
#include <fl/detail/string_access.hpp>
#include <fl/string.hpp>

#include <new>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
inline string& as_string(fl_str* s) noexcept {
  return *::new (static_cast<void*>(s))
      string(detail::string_access::from_core(detail::string_core::load(s)));
}
inline const string& as_string(const fl_str* s) noexcept {
  return as_string(const_cast<fl_str*>(s));
}
static_assert(sizeof(fl_str) == sizeof(string) && alignof(fl_str) == alignof(string));
static_assert(sizeof(fl_str) == sizeof(detail::string_core) &&
              alignof(fl_str) == alignof(detail::string_core));
static_assert(std::is_standard_layout_v<string> && std::is_trivially_copyable_v<fl_str> &&
              std::is_trivially_copyable_v<detail::string_core>);
}  // namespace FL_ABI_NS
}  // namespace fl
#endif

#endif /* FL_FL_H */
