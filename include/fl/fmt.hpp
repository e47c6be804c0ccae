// fl/fmt.hpp: fl's strings in {fmt} and std::format. Formatters for
// fl::basic_string (also the result of `a + b`), fl::immutable_string and
// fl::rope (written chunk by chunk, never flattened), and fl::format /
// fl::format_to, which format straight into an fl::string's own buffer.
//
// The {fmt} part is compiled when <fmt/format.h> is found (Debian's
// libfmt-dev; link fmt::fmt, or the CMake target fl::fmt which does), the
// std::formatter part when the standard library has <format>
// (__cpp_lib_format). The core library needs neither: only this header
// names them. Format specs follow the string specs of {fmt} and std::format:
// fill, align, width, precision ("{:*>8}", "{:.3}"). For fl::rope, width and
// precision count code points (bytes that are not UTF-8 continuation bytes),
// not display columns, and must be literal numbers; the other types use the
// library's own string formatter, so every spec it knows works.
//
// Threads: formatting reads its arguments; fl::format_to(s, ...) changes s
// (the usual rule: one writer, no concurrent readers).
#pragma once

#include <fl/detail/config.hpp>
#include <fl/detail/utf8.hpp>

#include <fl/immutable_string.hpp>
#include <fl/rope.hpp>
#include <fl/string.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>

#if __has_include(<fmt/format.h>)
#include <fmt/format.h>
#define FL_HAVE_FMT 1
#endif
#if __has_include(<format>)
#include <format>
#endif
#if defined(__cpp_lib_format) && __cpp_lib_format >= 201907L
#define FL_HAVE_STD_FORMAT 1
#endif
#if !defined(FL_HAVE_FMT) && !defined(FL_HAVE_STD_FORMAT)
#error "fl/fmt.hpp needs {fmt} (libfmt-dev) or a standard library with <format>"
#endif

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// The string format spec, as far as fl::rope supports it:
//   [[fill]align][width][.precision][s]
// fill is any one UTF-8 code point other than '{' and '}'; align is '<' (the
// default for text), '>' or '^'.
struct text_spec {
  char fill[4] = {' ', 0, 0, 0};
  unsigned char fill_len = 1;
  char align = '<';
  std::size_t width = 0;
  std::size_t precision = static_cast<std::size_t>(-1);
};


// Parses a spec from [it, end) up to the closing '}' (or end). Returns the
// position of the '}' or end (which may be null for an empty format string),
// with *error set if the spec is bad. constexpr, so a bad spec in a checked
// format string is a compile error.
constexpr const char* parse_text_spec(const char* it, const char* end, text_spec& s,
                                      const char** error) {
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^'; };
  if (it == end || *it == '}') return it;
  // A fill is one code point followed by an align char.
  const unsigned n = utf8_lead_length(static_cast<unsigned char>(*it));
  if (static_cast<std::size_t>(end - it) > n && is_align(it[n]) && *it != '{' && *it != '}') {
    for (unsigned i = 0; i < n; ++i) s.fill[i] = it[i];
    s.fill_len = static_cast<unsigned char>(n);
    s.align = it[n];
    it += n + 1;
  } else if (is_align(*it)) {
    s.align = *it++;
  }
  auto number = [&](std::size_t& out) {
    std::size_t v = 0;
    while (it != end && *it >= '0' && *it <= '9') {
      if (v > (static_cast<std::size_t>(-1) >> 8)) {
        *error = "fl::rope format spec: number too big";
        return false;
      }
      v = v * 10 + static_cast<std::size_t>(*it++ - '0');
    }
    out = v;
    return true;
  };
  if (it != end && *it == '{') {
    *error = "fl::rope format spec: dynamic width is not supported (write the width as a number)";
    return nullptr;
  }
  if (it != end && *it >= '0' && *it <= '9') {
    if (*it == '0') {
      *error = "fl::rope format spec: zero padding is for numbers";
      return nullptr;
    }
    if (!number(s.width)) return nullptr;
  }
  if (it != end && *it == '.') {
    ++it;
    if (it != end && *it == '{') {
      *error =
          "fl::rope format spec: dynamic precision is not supported (write the precision as a "
          "number)";
      return nullptr;
    }
    if (it == end || *it < '0' || *it > '9') {
      *error = "fl::rope format spec: '.' needs a precision";
      return nullptr;
    }
    if (!number(s.precision)) return nullptr;
  }
  if (it != end && *it == 's') ++it;
  if (it != end && *it != '}') {
    *error =
        "fl::rope format spec: unknown spec for text (expected "
        "[[fill]align][width][.precision][s])";
    return nullptr;
  }
  return it;
}

// Writes the rope with the spec applied: at most `precision` code points of
// it, padded with fill to `width` code points. Chunks are copied as they
// are, never joined. Out is an output iterator over char.
template <class Out>
Out write_rope(Out out, const rope& r, const text_spec& spec) {
  auto put = [&out](std::string_view v) { out = std::copy(v.begin(), v.end(), out); };
  auto pad = [&](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) put(std::string_view(spec.fill, spec.fill_len));
  };
  const bool plain = spec.width == 0 && spec.precision == static_cast<std::size_t>(-1);
  if (plain) {
    for (std::string_view c : r.chunks()) put(c);
    return out;
  }
  // One pass to find where the precision cuts and how many code points the
  // written text has; a second to write it. Each reads the chunks in place.
  std::size_t bytes = 0, points = 0;
  for (std::string_view c : r.chunks()) {
    std::size_t i = 0;
    for (; i < c.size(); ++i) {
      if (utf8_continuation(static_cast<unsigned char>(c[i]))) continue;
      if (points == spec.precision) break;
      ++points;
    }
    bytes += i;
    if (i < c.size()) break;
  }
  const std::size_t fill = spec.width > points ? spec.width - points : 0;
  const std::size_t before = spec.align == '>' ? fill : spec.align == '^' ? fill / 2 : 0;
  pad(before);
  std::size_t left = bytes;
  for (std::string_view c : r.chunks()) {
    if (left == 0) break;
    const std::size_t n = std::min(left, c.size());
    put(c.substr(0, n));
    left -= n;
  }
  pad(fill - before);
  return out;
}

// The formatters of {fmt} and std::format, written once over the library's
// pieces. view_formatter: a contiguous fl string through the library's own
// string formatter Base (so every spec it knows works), as a View.
template <class Base, class View>
struct view_formatter : Base {
  template <class T, class FormatContext>
  auto format(const T& s, FormatContext& ctx) const {
    return Base::format(View(s.data(), s.size()), ctx);
  }
};

// rope_formatter: fl::rope through text_spec and write_rope (chunk by chunk);
// a bad spec throws Error (fmt::format_error or std::format_error).
template <class Error>
struct rope_formatter {
  text_spec spec;

  template <class ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    const char* error = nullptr;
    const char* b = std::to_address(ctx.begin());
    const char* e = parse_text_spec(b, std::to_address(ctx.end()), spec, &error);
    if (error != nullptr) throw Error(error);
    return ctx.begin() + (e - b);
  }
  template <class FormatContext>
  auto format(const fl::rope& r, FormatContext& ctx) const {
    return write_rope(ctx.out(), r, spec);
  }
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl

// The formatter specializations of one formatting library (NS: fmt or std;
// VIEW its string view, ERROR its format error), built on view_formatter and
// rope_formatter above, so the string types accept exactly the specs a
// std::string does. Written once for both libraries.
#define FL_FORMATTERS_(NS, VIEW, ERROR)                                 \
  template <class A>                                                    \
  struct NS::formatter<fl::basic_string<A>, char>                       \
      : fl::detail::view_formatter<NS::formatter<VIEW, char>, VIEW> {}; \
  template <>                                                           \
  struct NS::formatter<fl::immutable_string, char>                      \
      : fl::detail::view_formatter<NS::formatter<VIEW, char>, VIEW> {}; \
  template <>                                                           \
  struct NS::formatter<fl::rope, char> : fl::detail::rope_formatter<ERROR> {};

#if defined(FL_HAVE_FMT)

FL_FORMATTERS_(fmt, fmt::string_view, fmt::format_error)

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// A {fmt} buffer over an fl::string's storage: {fmt} writes its output into
// the string's spare capacity directly, and the string grows geometrically
// (its own reallocation, which extends large blocks in place) when that runs
// out. While the buffer is open, the string's size() is its whole capacity
// and the bytes past the formatted text are scratch; close() sets the size
// to what was written. If formatting throws, the destructor restores the old
// size, so the string keeps its old text (its capacity may have grown).
class fmt_string_buffer final : public fmt::detail::buffer<char> {
 public:
  explicit fmt_string_buffer(fl::string& s)
#if FMT_VERSION >= 110000
      : fmt::detail::buffer<char>(&fmt_string_buffer::grow_to),
#else
      :
#endif
        s_(s),
        old_size_(s.size()) {
    open_all();
    this->try_resize(old_size_);
  }
  fmt_string_buffer(const fmt_string_buffer&) = delete;
  fmt_string_buffer& operator=(const fmt_string_buffer&) = delete;
  ~fmt_string_buffer() {
    if (!closed_) s_.resize(old_size_);
  }
  void close() noexcept {
    s_.resize(this->size());  // a shrink: never allocates
    closed_ = true;
  }

 private:
  // size() = capacity(), so the whole block is visible to the buffer.
  void open_all() {
    s_.resize_and_overwrite(s_.capacity(), [](char*, std::size_t n) { return n; });
    this->set(s_.data(), s_.size());
  }
  void grow_storage(std::size_t want) {
    // The growth of every fl text container (at least double: appends of
    // many short pieces stay amortized O(1)).
    const std::size_t n = detail::grown_capacity(s_.size(), want, s_.max_size());
    // resize_and_overwrite copies the whole old block (size() == capacity()),
    // so what was formatted so far moves along with it.
    s_.resize_and_overwrite(n, [](char*, std::size_t k) { return k; });
    open_all();
  }
#if FMT_VERSION >= 110000
  static void grow_to(fmt::detail::buffer<char>& b, std::size_t want) {
    static_cast<fmt_string_buffer&>(b).grow_storage(want);
  }
#else
  void grow(std::size_t want) override { grow_storage(want); }
#endif

  fl::string& s_;
  std::size_t old_size_;
  bool closed_ = false;
};

}  // namespace detail

// Appends the formatted text to s, written straight into s's buffer (no
// intermediate string, no per-char push_back). Returns s. Throws
// fmt::format_error for a bad format string detected at run time,
// std::length_error past max_size(), std::bad_alloc; s keeps its old text
// after a throw.
inline fl::string& vformat_to(fl::string& s, fmt::string_view format, fmt::format_args args) {
  detail::fmt_string_buffer buf(s);
  fmt::vformat_to(fmt::appender(buf), format, args);
  buf.close();
  return s;
}

template <class... T>
fl::string& format_to(fl::string& s, fmt::format_string<T...> format, T&&... args) {
  return fl::vformat_to(s, format, fmt::make_format_args(args...));
}

// The formatted text as a new fl::string (inline, without allocating, when it
// fits 23 chars). The format string is checked at compile time, as
// fmt::format's.
template <class... T>
[[nodiscard]] fl::string format(fmt::format_string<T...> format, T&&... args) {
  fl::string s;
  fl::vformat_to(s, format, fmt::make_format_args(args...));
  return s;
}

}  // namespace FL_ABI_NS
}  // namespace fl

#endif  // FL_HAVE_FMT

#if defined(FL_HAVE_STD_FORMAT)

FL_FORMATTERS_(std, std::string_view, std::format_error)

#endif  // FL_HAVE_STD_FORMAT
#undef FL_FORMATTERS_
