// fl::string_builder: the growth path, out of line so that append stays a
// bounds check and a copy.
#include <fl/builder.hpp>

#include <cstring>
#include <stdexcept>

namespace fl {

string_builder::size_type string_builder::grown_capacity(size_type needed) const {
  if (needed > max_size())
    throw std::length_error("fl::string_builder: text longer than max_size()");
  size_type want = cap_ < max_size() / 2 ? cap_ * 2 : max_size();
  if (want < needed) want = needed;
  if (want < min_capacity) want = min_capacity;
  // The whole block the pool would reserve anyway, minus the terminator byte.
  return detail::pool_good_size(want + 1) - 1;
}

void string_builder::reallocate(size_type capacity) {
  if (capacity > max_size())
    throw std::length_error("fl::string_builder::reserve: capacity > max_size()");
  const size_type new_cap = detail::pool_good_size(capacity + 1) - 1;
  char* block = data_ == nullptr
                    ? static_cast<char*>(detail::pool_allocate(new_cap + 1))
                    : static_cast<char*>(detail::pool_reallocate(data_, cap_ + 1, new_cap + 1));
  data_ = block;
  cap_ = new_cap;
}

char* string_builder::grow_begin(size_type n, size_type& new_cap) {
  if (n > max_size() - size_)
    throw std::length_error("fl::string_builder::append: text longer than max_size()");
  new_cap = grown_capacity(size_ + n);
  char* block = static_cast<char*>(detail::pool_allocate(new_cap + 1));
  if (size_ != 0) std::memcpy(block, data_, size_);
  return block;
}

void string_builder::grow_end(char* block, size_type new_cap) noexcept {
  if (data_ != nullptr) detail::pool_deallocate(data_, cap_ + 1);
  data_ = block;
  cap_ = new_cap;
}

}  // namespace fl
