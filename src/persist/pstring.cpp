// src/persist/pstring.cpp: fl::pstring (fl/pstring.hpp), the string that
// lives in a mapped_space. Its layout is in persist_format.hpp ("fl::pstring");
// its blocks come from the space's allocator (allocator.cpp); appends grow
// them by fl::string's growth policy (detail::grown_capacity).
#include <fl/pstring.hpp>

#include <fl/detail/string_core.hpp>

#include "persist/persist_format.hpp"

#include <cstring>
#include <new>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {

namespace {
constexpr std::size_t tag_byte = detail::pstring_tag_byte;
constexpr unsigned char inline_max = detail::pstring_inline_max;
// The longest text a block of the space holds (its header and a page of
// alignment slack below the largest class).
constexpr std::size_t max_text =
    static_cast<std::size_t>(detail::space_max_block - detail::space_page);
}  // namespace

bool pstring::is_heap() const noexcept { return bytes_[tag_byte] == detail::pstring_heap_tag; }

std::uint64_t pstring::heap_offset() const noexcept {
  std::uint64_t v;
  std::memcpy(&v, bytes_ + detail::pstring_offset_at, 8);
  return v;
}

std::size_t pstring::size() const noexcept {
  if (!is_heap()) return inline_max - bytes_[tag_byte];
  std::uint64_t n;
  std::memcpy(&n, bytes_ + detail::pstring_size_at, 8);
  return static_cast<std::size_t>(n);
}

void pstring::set_heap(std::uint64_t offset, std::uint64_t size) noexcept {
  std::memcpy(bytes_ + detail::pstring_offset_at, &offset, 8);
  std::memcpy(bytes_ + detail::pstring_size_at, &size, 8);
  bytes_[tag_byte] = detail::pstring_heap_tag;
}

void pstring::set_inline(std::string_view text) noexcept {
  if (!text.empty()) std::memmove(bytes_, text.data(), text.size());
  bytes_[tag_byte] = static_cast<unsigned char>(inline_max - text.size());
}

// The bytes the text may take without a new block.
std::size_t pstring::capacity(const mapped_space& space) const {
  return is_heap() ? space.block_size(fptr<void>(heap_offset())) : inline_max;
}

std::string_view pstring::view(const mapped_space& space) const {
  if (!is_heap()) {
    if (bytes_[tag_byte] > inline_max)
      throw persist_error(space.path(), "pstring: bad tag (damaged)");
    return {reinterpret_cast<const char*>(bytes_), size()};
  }
  const std::size_t n = size();
  const char* p = space.get(fptr<const char>(heap_offset()));
  if (p == nullptr || (n != 0 && !space.contains(p + (n - 1))))
    throw persist_error(space.path(), "pstring: text outside the file (damaged)");
  return {p, n};
}

namespace {

// Where `self` and `text` are, as offsets when they lie in the space, so both
// can be found again after an allocation moved the mapping.
struct anchor {
  const mapped_space& space;
  std::uint64_t off = 0;
  const void* raw = nullptr;
  anchor(const mapped_space& s, const void* p) : space(s) {
    if (s.contains(p))
      off = s.to_fptr(static_cast<const char*>(p)).offset();
    else
      raw = p;
  }
  template <class T>
  T* get() const {
    return off != 0 ? reinterpret_cast<T*>(space.get(fptr<char>(off)))
                    : static_cast<T*>(const_cast<void*>(raw));
  }
};

}  // namespace

void pstring::assign(mapped_space& space, std::string_view text) {
  const std::size_t n = text.size();
  if (n <= inline_max) {
    char tmp[inline_max];
    if (n) std::memcpy(tmp, text.data(), n);
    if (is_heap()) space.deallocate(fptr<void>(heap_offset()));
    set_inline({tmp, n});
    return;
  }
  if (is_heap() && space.block_size(fptr<void>(heap_offset())) >= n) {
    char* d = space.get(fptr<char>(heap_offset()));
    std::memmove(d, text.data(), n);
    set_heap(heap_offset(), n);
    return;
  }
  const anchor self(space, this), src(space, text.data());
  const fptr<void> block = space.allocate(n, 1);
  auto* me = self.get<pstring>();
  std::memcpy(space.get(block.cast<char>()), src.get<const char>(), n);
  const bool had = me->is_heap();
  const std::uint64_t old = me->heap_offset();
  me->set_heap(block.offset(), n);
  if (had) space.deallocate(fptr<void>(old));
}

void pstring::append(mapped_space& space, std::string_view text) {
  const std::size_t old_n = size();
  const std::size_t n = old_n + text.size();
  if (text.empty()) return;
  if (!is_heap() && n <= inline_max) {
    std::memmove(bytes_ + old_n, text.data(), text.size());
    bytes_[tag_byte] = static_cast<unsigned char>(inline_max - n);
    return;
  }
  const std::size_t cap_now = capacity(space);
  if (is_heap() && cap_now >= n) {
    char* d = space.get(fptr<char>(heap_offset()));
    std::memmove(d + old_n, text.data(), text.size());
    set_heap(heap_offset(), n);
    return;
  }
  if (n > max_text || n < old_n) throw std::bad_alloc();
  // fl::string's growth policy: amortized O(1) per appended byte.
  const std::size_t cap = detail::grown_capacity(cap_now, n, max_text);
  const anchor self(space, this), src(space, text.data());
  const fptr<void> block = space.allocate(cap, 1);
  auto* me = self.get<pstring>();
  char* d = space.get(block.cast<char>());
  const std::string_view cur = me->view(space);
  std::memcpy(d, cur.data(), old_n);
  std::memcpy(d + old_n, src.get<const char>(), text.size());
  const bool had = me->is_heap();
  const std::uint64_t old = me->heap_offset();
  me->set_heap(block.offset(), n);
  if (had) space.deallocate(fptr<void>(old));
}

void pstring::clear(mapped_space& space) {
  if (is_heap()) space.deallocate(fptr<void>(heap_offset()));
  set_inline({});
}

fptr<pstring> pstring::make(mapped_space& space, std::string_view text) {
  const anchor src(space, text.data());
  const fptr<pstring> p = space.make<pstring>();
  try {
    space.get(p)->assign(space, std::string_view(src.get<const char>(), text.size()));
  } catch (...) {
    space.deallocate(p);
    throw;
  }
  return p;
}

void pstring::destroy(mapped_space& space, fptr<pstring> p) {
  if (!p) return;
  space.get(p)->clear(space);
  space.deallocate(p);
}

}  // namespace FL_ABI_NS
}  // namespace fl
