// fl/builder.hpp: fl::string_builder, for text assembled piece by piece
// (loops, serializers, log lines) and then handed over as an fl::string.
//
// append(...) takes the same arguments as fl::concat (text, char, bool,
// integers, floating point; see <fl/concat.hpp>), sizes all of them first and
// grows the buffer at most once per call. std::move(b).build() gives the
// buffer itself to the resulting fl::string: no copy, no new allocation (a
// result of up to 23 chars becomes an inline string and the buffer is freed).
// When all pieces are known at once, fl::concat is simpler; to edit text in
// place, use fl::string.
//
// A thin wrapper over fl::string (the builder is that string): up to 23 chars
// need no allocation, growth is fl::string's (detail::grown_capacity, at least
// doubling, rounded up to the pool's block size), and a growth copies into a
// new block before the old one is freed, so an argument may point into the
// builder itself (b.append(b.view())).
//
// Threads: a plain value; do not use one builder from two threads at once.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/concat.hpp>
#include <fl/detail/string_core.hpp>
#include <fl/string.hpp>

#include <cstddef>
#include <string_view>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {

class string_builder {
 public:
  using size_type = std::size_t;

  // Empty, no allocation.
  string_builder() noexcept = default;
  // Empty with room for `capacity` chars. Throws std::bad_alloc.
  explicit string_builder(size_type capacity) { reserve(capacity); }

  string_builder(const string_builder&) = delete;
  string_builder& operator=(const string_builder&) = delete;
  string_builder(string_builder&&) noexcept = default;
  string_builder& operator=(string_builder&&) noexcept = default;
  ~string_builder() = default;

  // Appends the text of every argument (as fl::concat writes it). At most one
  // allocation per call. Throws std::bad_alloc or std::length_error; the
  // builder is unchanged after a throw.
  template <class... Args>
  string_builder& append(const Args&... args) {
    static_assert(
        (detail::concat_argument<Args> && ...),
        "fl::string_builder::append: every argument must be text, char, bool, an integer or a "
        "floating-point number");
    text_.append(detail::concat_pieces(args...));
    return *this;
  }
  // b << x is b.append(x).
  template <class T>
  string_builder& operator<<(const T& x) {
    return append(x);
  }

  // Room for at least `capacity` chars without further allocation (up to 23
  // need no buffer). Throws std::bad_alloc or std::length_error (capacity >
  // max_size()).
  void reserve(size_type capacity) { text_.reserve(capacity); }
  // Forgets the text, keeps the buffer.
  void clear() noexcept { text_.clear(); }

  size_type size() const noexcept { return text_.size(); }
  size_type length() const noexcept { return text_.size(); }
  bool empty() const noexcept { return text_.empty(); }
  // Chars the builder holds without allocating; 0 while it holds nothing
  // (an empty builder owns no buffer: before the first append or reserve,
  // and after build()).
  size_type capacity() const noexcept {
    return text_.empty() && text_.capacity() <= detail::string_core::inline_capacity
               ? 0
               : text_.capacity();
  }
  static constexpr size_type max_size() noexcept { return detail::pool_string_max_size; }
  // The text so far; valid until the next append, reserve or build.
  std::string_view view() const noexcept { return text_; }
  const char* data() const noexcept { return text_.data(); }

  // A copy of the text so far (the builder keeps it).
  string str() const { return text_; }
  // Hands the buffer to an fl::string without copying it (a result of up to
  // 23 chars is copied into the string's inline storage instead and the
  // buffer freed). The builder is left empty, without a buffer.
  [[nodiscard]] string build() && {
    if (text_.size() <= detail::string_core::inline_capacity) text_.shrink_to_fit();
    return std::move(text_);
  }

 private:
  // The text: inline up to 23 chars, then a heap block that grows as
  // fl::string's does.
  string text_;
};

}  // namespace FL_ABI_NS
}  // namespace fl
