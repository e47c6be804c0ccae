// src/rope/chars.cpp: fl::rope's code points and the checked byte edits:
// reading one char (its bytes to the next char start, its value by
// detail::utf8_char_value, the one owner of UTF-8's rules), char_at,
// chars_at, and replace_checked, which refuses an edit that would split a
// char or write ill-formed UTF-8 before it touches the tree.
#include "rope/rope_impl.hpp"

#include <fl/detail/out_of_range.hpp>
#include <fl/detail/utf8.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
inline namespace FL_ROPE_NS {

namespace {
// A char's value holds at most 4 bytes; a fifth that is still a
// continuation byte already makes it ill-formed (utf8_char_value gives
// U+FFFD for any length past 4), so no read keeps more.
constexpr std::size_t char_bytes_kept = 5;

// The bytes of the char whose lead is at `at`, up to `cap` of them read (the
// count goes on to the next char start when cap is npos): the value and the
// length. at must not be at the end.
struct char_read {
  char32_t cp;
  std::size_t len;
};
char_read read_char(rope::const_iterator at, const rope& r, std::size_t cap) noexcept {
  unsigned char b[char_bytes_kept];
  std::size_t n = 0;
  const std::size_t size = r.size();
  std::size_t pos = at.index();
  do {
    if (n < char_bytes_kept) b[n] = static_cast<unsigned char>(*at);
    ++n;
    ++at;
    ++pos;
  } while (pos < size && n < cap && detail::utf8_continuation(static_cast<unsigned char>(*at)));
  const std::size_t kept = n < char_bytes_kept ? n : char_bytes_kept;
  return {static_cast<char32_t>(detail::utf8_char_value(b, kept)), n};
}
}  // namespace

void rope::char_range::iterator::read() noexcept {
  if (at_.index() >= rope_->size()) {
    len_ = 0;
    cp_ = 0;
    return;
  }
  const char_read c = read_char(at_, *rope_, rope::npos);
  len_ = c.len;
  cp_ = c.cp;
}

char32_t rope::char_at(size_type i) const {
  const size_type total = char_count();
  if (i >= total)
    detail::throw_out_of_range("fl::rope::char_at", "i", i, ">=", "char_count()", total);
  // Past 5 bytes a char is ill-formed whatever follows: no longer scan.
  return read_char(iterator_at(char_to_byte(i)), *this, char_bytes_kept).cp;
}

rope::char_range rope::chars_at(size_type i) const {
  const size_type total = char_count();
  if (i > total)
    detail::throw_out_of_range("fl::rope::chars_at", "i", i, ">", "char_count()", total);
  return char_range(this, char_to_byte(i));
}

}  // namespace FL_ROPE_NS
namespace detail {
inline namespace FL_ROPE_NS {

void rope_engine::check_char_boundary(const rope& r, const char* fn, const char* what,
                                      size_type pos) {
  if (r.is_char_boundary(pos)) return;
  // The char it would split starts at the last byte before pos that is not
  // a continuation byte (or the rope's start, for continuation bytes that
  // no char leads).
  size_type lead = pos;
  while (lead > 0 && utf8_continuation(static_cast<unsigned char>(r[lead]))) --lead;
  char msg[256];
  std::snprintf(msg, sizeof msg,
                "%s: %s (which is %zu) splits a UTF-8 sequence: byte %zu (0x%02X) is a "
                "continuation byte of the char that starts at byte %zu",
                fn, what, pos, pos, static_cast<unsigned>(static_cast<unsigned char>(r[pos])),
                lead);
  throw std::invalid_argument(msg);
}

rope& rope_engine::checked_edit(rope& r, const char* name, size_type pos, size_type n,
                                std::string_view text) {
  if (pos > r.size()) throw_out_of_range(name, "pos", pos, ">", "size()", r.size());
  const size_type end = pos + (n < r.size() - pos ? n : r.size() - pos);
  check_char_boundary(r, name, "pos", pos);
  if (end != pos) check_char_boundary(r, name, "pos + n", end);
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t valid = utf8_valid_prefix(p, text.size());
  if (valid != text.size()) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: text is not valid UTF-8 from its byte %zu (0x%02X)", name,
                  valid, static_cast<unsigned>(p[valid]));
    throw std::invalid_argument(msg);
  }
  edit(r, pos, n, text, nullptr);
  return r;
}

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
