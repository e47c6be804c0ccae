// fl/writer.hpp: fl::writer, buffered output of text and numbers to a file
// descriptor or into an fl::string, for programs that write a lot of small
// pieces (logs, exports, code generators): `w << id << '_' << value << '\n'`.
//
// The hot path of every write is inline: one comparison against the room
// left, then the bytes are copied (numbers are formatted in place, straight
// into the buffer). Integers print in decimal; double the shortest text that
// reads back as the same value (what std::to_chars and fl::concat print:
// 0.1 -> "0.1", 1e100 -> "1e+100"); float and long double through
// std::to_chars; bool as "true"/"false". There is no locale, no width, no
// precision: for those, format with <fl/fmt.hpp> and write the result.
//
// To a file descriptor: bytes collect in a buffer of buffer_size bytes
// (64 KiB unless told) that goes to write(2) when full, on flush() and on
// destruction; a piece larger than the buffer is written directly. The
// descriptor is not closed. A failed write(2) throws std::system_error from
// the call that wrote; the destructor flushes too but cannot report a
// failure, so call flush() when errors matter. For one whole string, use
// fl::write_file (fl/io.hpp) instead.
//
// Into an fl::string: the text is appended to the string, written straight
// into its buffer, which grows geometrically. While the writer is alive the
// string is its working storage (its size() covers the whole capacity):
// read or change it only after flush() or the writer's end, which set its
// size to the text written.
//
// Threads: a writer is used by one thread at a time.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/detail/number_text.hpp>
#include <fl/detail/string_core.hpp>
#include <fl/string.hpp>

#include <charconv>
#include <concepts>
#include <cstddef>
#include <memory>
#include <string_view>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {

class writer {
 public:
  using size_type = std::size_t;
  static constexpr size_type default_buffer_size = size_type{64} << 10;

  // Writes to the open descriptor fd through a buffer of buffer_size bytes
  // (at least 64 are used). Throws std::bad_alloc.
  explicit writer(int fd, size_type buffer_size = default_buffer_size);
  // Appends to out (see the file comment for out's state meanwhile). Throws
  // std::bad_alloc.
  explicit writer(fl::string& out);
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;
  // Flushes; an error is lost here (see flush()).
  ~writer();

  // Appends the bytes. O(n).
  writer& write(std::string_view text) {
    const size_type n = text.size();
    if (n <= static_cast<size_type>(end_ - pos_)) [[likely]] {
      detail::copy_bytes(pos_, text.data(), n);
      pos_ += n;
      return *this;
    }
    return write_slow(text);
  }
  writer& write(const char* p, size_type n) { return write(std::string_view(p, n)); }
  writer& put(char c) {
    if (pos_ == end_) [[unlikely]]
      make_room(1);
    *pos_++ = c;
    return *this;
  }

  // Decimal text of any integer type (char and bool excepted: see put and
  // operator<<(bool)).
  template <std::integral T>
  requires(!std::is_same_v<T, bool> && !std::is_same_v<T, char>) writer& write_number(T v) {
    if constexpr (sizeof(T) <= sizeof(std::uint64_t)) {
      const auto op = detail::integer_operand::of(v);
      if (static_cast<size_type>(end_ - pos_) < max_number_chars) [[unlikely]]
        make_room(max_number_chars);
      pos_ = op.write(pos_);
      return *this;
    } else {
      return write_chars(v);
    }
  }
  // The shortest text that reads back as v (fl::concat's formatting).
  writer& write_number(double v) {
    const detail::double_operand op = detail::plan_double(v);
    if (static_cast<size_type>(end_ - pos_) < max_number_chars) [[unlikely]]
      make_room(max_number_chars);
    pos_ = op.write(pos_);
    return *this;
  }
  writer& write_number(float v) { return write_chars(v); }
  writer& write_number(long double v) { return write_chars(v); }

  writer& operator<<(std::string_view text) { return write(text); }
  writer& operator<<(const char* text) { return write(std::string_view(text)); }
  template <class A>
  writer& operator<<(const basic_string<A>& text) {
    return write(std::string_view(text.data(), text.size()));
  }
  writer& operator<<(char c) { return put(c); }
  writer& operator<<(bool b) {
    return write(b ? std::string_view("true") : std::string_view("false"));
  }
  template <class T>
  requires((std::integral<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>) ||
           std::is_floating_point_v<T>) writer&
  operator<<(T v) {
    return write_number(v);
  }

  // Fd: writes the buffered bytes out (throws std::system_error naming the
  // descriptor and errno if write(2) fails; the bytes not written are
  // dropped, so a later flush does not repeat them). String: sets the
  // string's size to the text written so far; it may be read until the next
  // write.
  void flush();

  // Bytes written through this writer so far (buffered or not).
  size_type bytes_written() const noexcept {
    return flushed_ + static_cast<size_type>(pos_ - begin_);
  }

 private:
  // Longest text write_number produces: a double's plan (24 chars) or a
  // 64-bit integer with its sign (20 chars); 128-bit integers and long
  // double (up to 41 and 29 chars) go through write_chars.
  static constexpr size_type max_number_chars = 32;

  // float, long double and 128-bit integers: std::to_chars straight into the
  // buffer; 64 bytes hold the longest text of each (41 chars).
  template <class T>
  writer& write_chars(T v) {
    if (static_cast<size_type>(end_ - pos_) < 64) [[unlikely]]
      make_room(64);
    pos_ = std::to_chars(pos_, pos_ + 64, v).ptr;
    return *this;
  }
  writer& write_slow(std::string_view text);
  // Makes at least n (<= 64) bytes of room at pos_.
  void make_room(size_type n);
  void drain();                          // fd: the buffer to the descriptor
  void open_string(size_type min_room);  // string: size = capacity, window over the spare room
  void close_string() noexcept;

  char* begin_ = nullptr;  // start of the window (fd: the buffer; string: its data())
  char* pos_ = nullptr;    // next byte to write
  char* end_ = nullptr;    // end of the room
  size_type flushed_ = 0;  // fd: bytes handed to write(2); string: 0
  int fd_ = -1;            // -1: string mode
  fl::string* out_ = nullptr;
  size_type base_ = 0;  // string: its size when the writer took it (begin_ = data() + base_)
  std::unique_ptr<char[]> buffer_;  // fd mode
};

}  // namespace FL_ABI_NS
}  // namespace fl
