// src/io/writer.cpp
// fl::writer's slow paths: draining the buffer to the descriptor and growing
// the string. The inline paths in fl/writer.hpp handle every write that fits.
#include <fl/writer.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include <unistd.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace {

// Writes all of [p, p + n) to fd, looping over partial writes and EINTR.
void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::write(fd, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw std::system_error(err, std::system_category(),
                              "fl::writer: write to fd " + std::to_string(fd));
    }
    p += r;
    n -= static_cast<std::size_t>(r);
  }
}

// At least this much buffer, so that make_room(n <= 64) always succeeds by
// draining.
constexpr std::size_t min_buffer = 64;

}  // namespace

writer::writer(int fd, size_type buffer_size) : fd_(fd) {
  const size_type n = std::max(buffer_size, min_buffer);
  buffer_.reset(new char[n]);
  begin_ = pos_ = buffer_.get();
  end_ = begin_ + n;
}

writer::writer(fl::string& out) : out_(&out), base_(out.size()) { open_string(0); }

writer::~writer() {
  if (out_ != nullptr) {
    close_string();
    return;
  }
  try {
    drain();
  } catch (...) {
    // A destructor cannot report it; flush() does (see the header).
  }
}

void writer::flush() {
  if (out_ != nullptr) {
    close_string();
    return;
  }
  drain();
}

void writer::drain() {
  const size_type n = static_cast<size_type>(pos_ - begin_);
  // The bytes count as handed over even if write(2) fails, so that a later
  // flush (or the destructor) does not write them again after a partial write.
  pos_ = begin_;
  flushed_ += n;
  write_all(fd_, begin_, n);
}

writer& writer::write_slow(std::string_view text) {
  if (out_ != nullptr) {
    open_string(text.size());
    detail::copy_bytes(pos_, text.data(), text.size());
    pos_ += text.size();
    return *this;
  }
  const size_type cap = static_cast<size_type>(end_ - begin_);
  if (pos_ != begin_) {
    // Fill the buffer first: full buffers make the fewest system calls.
    const size_type room = static_cast<size_type>(end_ - pos_);
    std::memcpy(pos_, text.data(), room);
    pos_ = end_;
    text.remove_prefix(room);
    drain();
  }
  if (text.size() >= cap) {
    flushed_ += text.size();
    write_all(fd_, text.data(), text.size());
  } else {
    std::memcpy(pos_, text.data(), text.size());
    pos_ += text.size();
  }
  return *this;
}

void writer::make_room(size_type n) {
  if (out_ != nullptr) {
    open_string(n);
  } else {
    drain();  // the buffer holds at least min_buffer >= n bytes
  }
}

// Makes the string's whole capacity its size (at least min_room past what
// was written), so the window [pos_, end_) is real storage of the string.
// Growth is fl::string's (detail::grown_capacity): resize_and_overwrite reallocates (copying the whole
// old block, written text included) only when the room asked for is not there.
void writer::open_string(size_type min_room) {
  const size_type used =
      begin_ != nullptr ? static_cast<size_type>(pos_ - out_->data()) : out_->size();
  const size_type need = used + min_room;
  if (min_room > out_->max_size() - used) {
    throw std::length_error("fl::writer: text exceeds fl::string::max_size()");
  }
  // After a flush the size is the text flushed; bytes written since lie past
  // it. Making the size the whole capacity again (no reallocation) brings
  // them inside before a growth copies the block.
  out_->resize_and_overwrite(out_->capacity(), [](char*, size_type k) { return k; });
  if (need > out_->capacity()) {
    const size_type want = detail::grown_capacity(out_->capacity(), need, out_->max_size());
    // The whole old capacity is the string's size here, so the text written
    // so far moves along with the block.
    out_->resize_and_overwrite(want, [](char*, size_type k) { return k; });
    out_->resize_and_overwrite(out_->capacity(), [](char*, size_type k) { return k; });
  }
  char* d = out_->data();
  begin_ = d + base_;
  pos_ = d + used;
  end_ = d + out_->size();
}

void writer::close_string() noexcept {
  const size_type used = static_cast<size_type>(pos_ - out_->data());
  // Not resize(): after an earlier flush the size may be below `used`, and
  // resize would fill the bytes written since. used <= capacity(), so this
  // neither allocates nor throws.
  out_->resize_and_overwrite(used, [](char*, size_type k) { return k; });
  // The window stays valid: the block did not move, only the size did.
  // Reopening happens on the next write that does not fit; meanwhile writes
  // that fit go on into the spare capacity, and the next flush sets the size.
  end_ = out_->data() + out_->capacity();
}

}  // namespace FL_ABI_NS
}  // namespace fl
