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
// Growth: the capacity at least doubles (minimum 63 chars) and is rounded up to
// the pool's block size (detail::pool_good_size), so no byte of a block is
// wasted. Growing copies into a new block before the old one is freed, so an
// argument may point into the builder itself (b.append(b.view())).
//
// Threads: a plain value; do not use one builder from two threads at once.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/concat.hpp>
#include <fl/detail/string_access.hpp>
#include <fl/pool.hpp>
#include <fl/string.hpp>

#include <cstddef>
#include <string_view>
#include <utility>

namespace fl {

class string_builder {
 public:
  using size_type = std::size_t;

  // Empty, no allocation.
  string_builder() noexcept = default;
  // Empty with room for `capacity` chars. Throws std::bad_alloc.
  explicit string_builder(size_type capacity) { reserve(capacity); }

  string_builder(const string_builder&) = delete;
  string_builder& operator=(const string_builder&) = delete;
  string_builder(string_builder&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        cap_(std::exchange(other.cap_, 0)) {}
  string_builder& operator=(string_builder&& other) noexcept {
    if (this != &other) {
      free_block();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      cap_ = std::exchange(other.cap_, 0);
    }
    return *this;
  }
  ~string_builder() { free_block(); }

  // Appends the text of every argument (as fl::concat writes it). At most one
  // allocation per call. Throws std::bad_alloc or std::length_error; the
  // builder is unchanged after a throw.
  template <class... Args>
  string_builder& append(const Args&... args) {
    static_assert(
        (detail::concat_argument<Args> && ...),
        "fl::string_builder::append: every argument must be text, char, bool, an integer or a "
        "floating-point number");
    const auto pieces = detail::concat_pieces(args...);
    const size_type n = pieces.size();
    if (n <= cap_ - size_) {
      pieces.write(data_ + size_);  // cap_ - size_ is 0 while data_ is null
    } else {
      grow_and_write(n, pieces);
    }
    size_ += n;
    return *this;
  }
  // b << x is b.append(x).
  template <class T>
  string_builder& operator<<(const T& x) {
    return append(x);
  }

  // Room for at least `capacity` chars without further allocation. Throws
  // std::bad_alloc or std::length_error (capacity > max_size()).
  void reserve(size_type capacity) {
    if (capacity > cap_) reallocate(capacity);
  }
  // Forgets the text, keeps the buffer.
  void clear() noexcept { size_ = 0; }

  size_type size() const noexcept { return size_; }
  size_type length() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_type capacity() const noexcept { return cap_; }
  static constexpr size_type max_size() noexcept { return (std::size_t{1} << 62) - 1; }
  // The text so far; valid until the next append, reserve or build.
  std::string_view view() const noexcept { return {data_, size_}; }
  const char* data() const noexcept { return data_; }

  // A copy of the text so far (the builder keeps it).
  string str() const { return string(view()); }
  // Hands the buffer to an fl::string without copying it (a result of up to
  // 23 chars is copied into the string's inline storage instead and the
  // buffer freed). The builder is left empty, without a buffer.
  [[nodiscard]] string build() && {
    if (size_ <= inline_result_max) {
      string s(view());  // cannot allocate: fits inline
      free_block();
      return s;
    }
    const detail::heap_block b{std::exchange(data_, nullptr), std::exchange(size_, 0),
                               std::exchange(cap_, 0)};
    return detail::string_access::adopt(b);
  }

 private:
  // fl::string's inline capacity: shorter results are not worth a heap block.
  static constexpr size_type inline_result_max = 23;
  // The first block holds 63 chars and the terminator: 64 bytes.
  static constexpr size_type min_capacity = 63;

  char* data_ = nullptr;  // a pool block of cap_ + 1 bytes, or null (then cap_ == 0)
  size_type size_ = 0;    // chars written; size_ <= cap_
  size_type cap_ = 0;     // chars that fit; the block keeps one more byte for build()'s terminator

  void free_block() noexcept {
    if (data_ != nullptr) detail::pool_deallocate(data_, cap_ + 1);
    data_ = nullptr;
    size_ = cap_ = 0;
  }
  // The capacity to grow to for `needed` chars: at least double, then the
  // whole pool block. Throws std::length_error.
  size_type grown_capacity(size_type needed) const;
  // Moves the text to a block of exactly `capacity` rounded up (pool_reallocate,
  // which grows large blocks in place when it can).
  void reallocate(size_type capacity);
  // Out of line so that append's fast path stays small.
  char* grow_begin(size_type n, size_type& new_cap);
  void grow_end(char* block, size_type new_cap) noexcept;

  template <class Pieces>
  void grow_and_write(size_type n, const Pieces& pieces) {
    size_type new_cap = 0;
    char* block = grow_begin(n, new_cap);  // new block holding the old text
    pieces.write(block + size_);           // may read the old block, still alive
    grow_end(block, new_cap);              // frees the old block
  }
};

}  // namespace fl
