// fl::immutable_string: the out-of-line parts (making and freeing the shared
// block, hashing, errors, stream output). Copies and destruction stay inline.
#include <fl/immutable_string.hpp>
#include <fl/pool.hpp>

#include <new>
#include <ostream>
#include <stdexcept>
#include <string>

namespace fl {
namespace detail {

immutable_rep* immutable_make_rep(const char* p, std::size_t n) {
  if (n > immutable_max_size) throw std::length_error("fl::immutable_string: text longer than max_size()");
  void* block = pool_allocate(immutable_rep::block_size(n));
  auto* rep = ::new (block) immutable_rep{{1}, {0}, n};
  std::memcpy(rep->bytes(), p, n);
  rep->bytes()[n] = '\0';
  return rep;
}

void immutable_free_rep(immutable_rep* rep) noexcept {
  const std::size_t bytes = immutable_rep::block_size(rep->size);
  rep->~immutable_rep();
  pool_deallocate(rep, bytes);
}

std::size_t immutable_hash_bytes(const char* p, std::size_t n) noexcept {
  return std::hash<std::string_view>{}(std::string_view(p, n));
}

void immutable_throw_out_of_range(std::size_t index, std::size_t size) {
  throw std::out_of_range("fl::immutable_string::at: index " + std::to_string(index) + " >= size " +
                          std::to_string(size));
}

}  // namespace detail

std::ostream& operator<<(std::ostream& os, const immutable_string& s) { return os << s.view(); }

}  // namespace fl
