// src/c/c_api.cpp
// The C API (<fl/fl.h>): every function that edits its fl_str views it in
// place as the fl::string with the same bytes (fl::as_string, which creates
// that string from the bytes: see the rule in fl.h) and calls the member that
// does the work; functions that only read it read the bytes through
// detail::string_core::load and never write them.
// No exception crosses into C: each call is wrapped by c_call(), which maps
//   std::bad_alloc, std::length_error -> FL_ENOMEM (a length beyond what can
//                                        be allocated is an allocation failure)
//   std::out_of_range                 -> FL_ERANGE
//   std::system_error                 -> FL_EIO, errno = its code
//   anything else                     -> FL_EINVAL
// fl::string's members leave the string unchanged when they throw, which is
// what gives every C function its "a failed call leaves the output as it was"
// guarantee; functions with a separate output build the result in a
// temporary and move it in only on success.
//
// The library exports every function of fl.h, including those fl.h defines
// static inline (this file is built with FL_C_NO_INLINE).
#define FL_C_NO_INLINE 1
#include <fl/fl.h>

#include <fl/detail/string_access.hpp>
#include <fl/detail/string_core.hpp>
#include <fl/find.hpp>
#include <fl/io.hpp>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

namespace {

using fl::detail::string_core;

static_assert(sizeof(fl_str) == FL_STR_BYTES && alignof(fl_str) == alignof(string_core));
static_assert(sizeof(fl::string) == FL_STR_BYTES && std::is_standard_layout_v<fl::string>);
static_assert(FL_STR_INLINE_CAPACITY == string_core::inline_capacity);
static_assert(FL_NPOS == fl::npos);

fl::string& as(fl_str* s) noexcept { return fl::as_string(s); }

// The text of s, read through the core (no write, so concurrent readers of one
// fl_str stay readers).
std::string_view view(const fl_str* s) noexcept {
  const string_core c = string_core::load(s);
  if (c.is_heap()) return {c.ptr, c.size};
  return {reinterpret_cast<const char*>(s), c.size_any()};
}

// Constructs an fl::string in the raw storage of s (placement new, so that an
// fl::string object really lives there from now on).
void construct(fl_str* s, fl::string&& from) noexcept {
  ::new (static_cast<void*>(s)) fl::string(std::move(from));
}

template <class F>
fl_status c_call(F&& f) noexcept {
  try {
    f();
    return FL_OK;
  } catch (const std::bad_alloc&) { return FL_ENOMEM; } catch (const std::length_error&) {
    return FL_ENOMEM;
  } catch (const std::out_of_range&) { return FL_ERANGE; } catch (const std::system_error& e) {
    errno = e.code().value();
    return FL_EIO;
  } catch (...) { return FL_EINVAL; }
}

// The search engine, in one place.
std::size_t find_bytes(std::string_view hay, std::string_view needle, std::size_t pos) noexcept {
  return fl::find(hay, needle, pos);
}
std::size_t rfind_bytes(std::string_view hay, std::string_view needle, std::size_t pos) noexcept {
  return fl::rfind(hay, needle, pos);
}

bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace

extern "C" {

// --- Inline halves and their exported twins --------------------------------

fl_status fl_str_from_n_heap_(fl_str* s, const char* p, size_t n) {
  return c_call([&] { construct(s, fl::string(p, n)); });
}

fl_status fl_str_append_n_grow_(fl_str* s, const char* p, size_t n) {
  return c_call([&] { as(s).append(p, n); });
}

void fl_str_free_heap_(fl_str* s) {
  std::destroy_at(&as(s));
  construct(s, fl::string());
}

const char* fl_status_str(fl_status st) {
  // A switch over the enum, not a table indexed by it: any int may arrive
  // from C, and -Wswitch names a status added without its text.
  switch (st) {
    case FL_OK:
      return "FL_OK: success";
    case FL_ENOMEM:
      return "FL_ENOMEM: out of memory, or a length beyond what can be allocated";
    case FL_ERANGE:
      return "FL_ERANGE: position past the end";
    case FL_EIO:
      return "FL_EIO: the operating system refused (see errno)";
    case FL_EINVAL:
      return "FL_EINVAL: invalid argument (a NULL pointer or a bad format)";
  }
  return "FL_?: not an fl_status value";
}

fl_status fl_str_init(fl_str* s) {
  if (s == nullptr) return FL_EINVAL;
  construct(s, fl::string());
  return FL_OK;
}

fl_status fl_str_from_n(fl_str* s, const char* p, size_t n) {
  if (s == nullptr || (p == nullptr && n != 0)) return FL_EINVAL;
  if (n == 0) return fl_str_init(s);
  return c_call([&] { construct(s, fl::string(p, n)); });
}

fl_status fl_str_from(fl_str* s, const char* cstr) {
  if (cstr == nullptr) return FL_EINVAL;
  return fl_str_from_n(s, cstr, std::strlen(cstr));
}

void fl_str_free(fl_str* s) {
  if (s == nullptr) return;
  std::destroy_at(&as(s));
  construct(s, fl::string());
}

size_t fl_str_len(const fl_str* s) { return s == nullptr ? 0 : view(s).size(); }
const char* fl_str_cstr(const fl_str* s) { return s == nullptr ? "" : view(s).data(); }
char* fl_str_data(fl_str* s) { return s == nullptr ? nullptr : as(s).data(); }

void fl_str_clear(fl_str* s) {
  if (s != nullptr) as(s).clear();
}

// --- Creation ---------------------------------------------------------------

fl_status fl_str_clone(fl_str* dst, const fl_str* src) {
  if (dst == nullptr || src == nullptr) return FL_EINVAL;
  return c_call([&] { construct(dst, fl::string(view(src))); });
}

fl_status fl_str_move(fl_str* dst, fl_str* src) {
  if (dst == nullptr || src == nullptr) return FL_EINVAL;
  if (dst != src) as(dst) = std::move(as(src));  // leaves src empty
  return FL_OK;
}

size_t fl_str_capacity(const fl_str* s) {
  return s == nullptr ? 0 : string_core::load(s).capacity_any();
}

// --- Modification -----------------------------------------------------------

fl_status fl_str_assign(fl_str* s, const char* p, size_t n) {
  if (s == nullptr || (p == nullptr && n != 0)) return FL_EINVAL;
  return c_call([&] { as(s).assign(p, n); });
}

fl_status fl_str_append(fl_str* s, const char* cstr) {
  if (s == nullptr || cstr == nullptr) return FL_EINVAL;
  return c_call([&] { as(s).append(cstr); });
}

fl_status fl_str_append_n(fl_str* s, const char* p, size_t n) {
  if (s == nullptr || (p == nullptr && n != 0)) return FL_EINVAL;
  if (n == 0) return FL_OK;
  return c_call([&] { as(s).append(p, n); });
}

fl_status fl_str_appendf(fl_str* s, const char* fmt, ...) {
  if (s == nullptr || fmt == nullptr) return FL_EINVAL;
  fl::string& str = as(s);
  // The 24 bytes, restored byte for byte if the text does not fit (inline,
  // vsnprintf's terminator may land on the tag) or the format fails.
  const string_core saved = string_core::load(s);
  const std::size_t old = str.size();
  const std::size_t spare = str.capacity() - old;
  const auto keep = [](char*, std::size_t n) noexcept { return n; };

  va_list ap;
  va_start(ap, fmt);
  va_list again;
  va_copy(again, ap);
  // First pass straight into the spare capacity (spare + 1 bytes counting the
  // terminator slot, which exists in both modes). Usually this is the only one.
  const int k = std::vsnprintf(str.data() + old, spare + 1, fmt, ap);
  va_end(ap);
  fl_status st = FL_OK;
  if (k < 0) {
    st = FL_EINVAL;
    saved.store(s);
  } else if (static_cast<std::size_t>(k) <= spare) {
    str.resize_and_overwrite(old + static_cast<std::size_t>(k), keep);  // within the capacity
  } else {
    saved.store(s);
    const auto n = static_cast<std::size_t>(k);
    st = c_call([&] { str.reserve(old + n); });
    if (st == FL_OK) {
      std::vsnprintf(str.data() + old, n + 1, fmt, again);
      str.resize_and_overwrite(old + n, keep);
    }
  }
  va_end(again);
  return st;
}

fl_status fl_str_reserve(fl_str* s, size_t capacity) {
  if (s == nullptr) return FL_EINVAL;
  return c_call([&] { as(s).reserve(capacity); });
}

fl_status fl_str_insert(fl_str* s, size_t pos, const char* p, size_t n) {
  if (s == nullptr || (p == nullptr && n != 0)) return FL_EINVAL;
  return c_call([&] { as(s).insert(pos, p == nullptr ? "" : p, n); });
}

fl_status fl_str_erase(fl_str* s, size_t pos, size_t n) {
  if (s == nullptr) return FL_EINVAL;
  return c_call([&] { as(s).erase(pos, n); });
}

fl_status fl_str_replace(fl_str* s, size_t pos, size_t count, const char* p, size_t n) {
  if (s == nullptr || (p == nullptr && n != 0)) return FL_EINVAL;
  return c_call([&] { as(s).replace(pos, count, p == nullptr ? "" : p, n); });
}

fl_status fl_str_trim(fl_str* s) {
  if (s == nullptr) return FL_EINVAL;
  fl::string& str = as(s);
  std::size_t end = str.size();
  while (end > 0 && is_space(str[end - 1])) --end;
  std::size_t begin = 0;
  while (begin < end && is_space(str[begin])) ++begin;
  // Shrinking never allocates: these cannot throw.
  str.erase(end);
  str.erase(0, begin);
  return FL_OK;
}

// --- Search and comparison --------------------------------------------------

size_t fl_str_find(const fl_str* s, const char* needle, size_t n, size_t pos) {
  if (s == nullptr || (needle == nullptr && n != 0)) return FL_NPOS;
  return find_bytes(view(s), std::string_view(needle == nullptr ? "" : needle, n), pos);
}

size_t fl_str_rfind(const fl_str* s, const char* needle, size_t n, size_t pos) {
  if (s == nullptr || (needle == nullptr && n != 0)) return FL_NPOS;
  return rfind_bytes(view(s), std::string_view(needle == nullptr ? "" : needle, n), pos);
}

fl_status fl_str_substr(const fl_str* s, size_t pos, size_t n, fl_str* out) {
  if (s == nullptr || out == nullptr) return FL_EINVAL;
  const std::string_view v = view(s);
  if (pos > v.size()) return FL_ERANGE;
  return c_call([&] {
    fl::string part(v.substr(pos, n));
    as(out) = std::move(part);  // built first, so out may be s
  });
}

int fl_str_cmp(const fl_str* a, const fl_str* b) {
  if (a == nullptr || b == nullptr) return (a != nullptr) - (b != nullptr);
  const int c = view(a).compare(view(b));
  return (c > 0) - (c < 0);
}

bool fl_str_eq(const fl_str* a, const fl_str* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return view(a) == view(b);
}

bool fl_str_starts_with(const fl_str* s, const char* p, size_t n) {
  if (s == nullptr || (p == nullptr && n != 0)) return false;
  return view(s).starts_with(std::string_view(p == nullptr ? "" : p, n));
}

bool fl_str_ends_with(const fl_str* s, const char* p, size_t n) {
  if (s == nullptr || (p == nullptr && n != 0)) return false;
  return view(s).ends_with(std::string_view(p == nullptr ? "" : p, n));
}

fl_status fl_str_split(const fl_str* s, const char* sep, size_t n, fl_str_list* out) {
  if (s == nullptr || sep == nullptr || out == nullptr || n == 0) return FL_EINVAL;
  const std::string_view v = view(s);
  const std::string_view by(sep, n);
  std::size_t count = 1;
  for (std::size_t i = find_bytes(v, by, 0); i != fl::npos; i = find_bytes(v, by, i + n)) ++count;

  auto* items = static_cast<fl_str*>(std::malloc(count * sizeof(fl_str)));
  if (items == nullptr) return FL_ENOMEM;
  std::size_t made = 0;
  const fl_status st = c_call([&] {
    std::size_t from = 0;
    for (; made + 1 < count; ++made) {
      const std::size_t at = find_bytes(v, by, from);
      construct(&items[made], fl::string(v.substr(from, at - from)));
      from = at + n;
    }
    construct(&items[made], fl::string(v.substr(from)));
    ++made;
  });
  if (st != FL_OK) {
    for (std::size_t i = 0; i < made; ++i) std::destroy_at(&as(&items[i]));
    std::free(items);
    return st;
  }
  fl_str_list_free(out);
  out->items = items;
  out->len = count;
  return FL_OK;
}

void fl_str_list_free(fl_str_list* list) {
  if (list == nullptr) return;
  for (std::size_t i = 0; i < list->len; ++i) std::destroy_at(&as(&list->items[i]));
  std::free(list->items);
  list->items = nullptr;
  list->len = 0;
}

// --- Files ------------------------------------------------------------------

fl_status fl_str_read_file(fl_str* out, const char* path) {
  if (out == nullptr || path == nullptr) return FL_EINVAL;
  return c_call([&] {
    fl::string text = fl::read_file(path);
    as(out) = std::move(text);
  });
}

fl_status fl_str_write_file(const fl_str* s, const char* path) {
  if (s == nullptr || path == nullptr) return FL_EINVAL;
  return c_call([&] { fl::write_file(path, view(s)); });
}

}  // extern "C"
