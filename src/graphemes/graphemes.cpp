// src/graphemes/graphemes.cpp: grapheme boundaries of an fl::rope
// (fl/graphemes.hpp) by utf8proc's implementation of UAX #29. utf8proc
// decides each break from the pair of code points and a state it carries
// along the text, and that state may be reset to 0 after a break; so every
// call here finds a char before which a break is certain whatever came
// earlier (certain_break), starts there with state 0, and reads forward.
#include <fl/detail/out_of_range.hpp>
#include <fl/graphemes.hpp>
#include <fl/rope.hpp>

#include <utf8proc.h>

#include <cstdint>
#include <iterator>

namespace fl {
inline namespace FL_ABI_NS {
inline namespace FL_ROPE_NS {

namespace {

using char_iter = rope::char_range::iterator;

int break_class(char32_t cp) {
  return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->boundclass;
}

// Whether UAX #29 breaks between a and b whatever precedes a. The rules
// that look further back than a (GB9c Indic conjuncts, GB11 emoji ZWJ
// sequences, GB12/13 regional indicator pairs) can only remove a break
// before an Extend, ZWJ, Extended_Pictographic or Regional_Indicator char,
// or before an Indic consonant that follows an Extend or ZWJ char (the
// linkers are Extend); GB3-GB5 come before them all. So a break is certain
//   - after a control or LF, and after CR unless b is LF (GB4);
//   - before a control, CR or LF, unless a is CR and b LF (GB5, GB3);
//   - before a char of class Other when a is not Prepend (GB9b), Extend or
//     ZWJ (GB9c): no rule but GB999 applies to the pair.
bool certain_break(char32_t a, char32_t b) {
  const int ca = break_class(a), cb = break_class(b);
  if (ca == UTF8PROC_BOUNDCLASS_CR) return cb != UTF8PROC_BOUNDCLASS_LF;
  if (ca == UTF8PROC_BOUNDCLASS_LF || ca == UTF8PROC_BOUNDCLASS_CONTROL) return true;
  if (cb == UTF8PROC_BOUNDCLASS_CR || cb == UTF8PROC_BOUNDCLASS_LF ||
      cb == UTF8PROC_BOUNDCLASS_CONTROL)
    return true;
  return cb == UTF8PROC_BOUNDCLASS_OTHER && ca != UTF8PROC_BOUNDCLASS_PREPEND &&
         ca != UTF8PROC_BOUNDCLASS_EXTEND && ca != UTF8PROC_BOUNDCLASS_ZWJ;
}

void check_pos(const char* fn, const rope& r, std::size_t pos) {
  if (pos > r.size()) detail::throw_out_of_range(fn, "pos", pos, ">", "size()", r.size());
}

// The char that holds byte pos (or starts there); the end for pos ==
// size(); the first char for a pos before it.
char_iter char_holding(const rope& r, std::size_t pos) {
  const std::size_t before = r.byte_to_char(pos);  // chars that start before pos
  if (pos == r.size() || r.is_char_boundary(pos) || before == 0) return r.chars_at(before).begin();
  return r.chars_at(before - 1).begin();
}

// A char at or before the one holding pos where reading may start with
// state 0: the rope's first char, or one before which certain_break holds.
char_iter safe_start(const rope& r, std::size_t pos) {
  const char_iter first = r.chars().begin();
  char_iter it = char_holding(r, pos);
  if (it == first) return it;
  if (it.index() == r.size()) --it;  // the end holds no char: from the last one
  while (it != first) {
    const char_iter before = std::prev(it);
    if (certain_break(*before, *it)) return it;
    it = before;
  }
  return it;
}

// Reads forward from `it` (a safe start) and calls on(b) for each boundary
// b after it, in order, the text's end included, until on returns false.
template <class F>
void each_boundary_after(const rope& r, char_iter it, F&& on) {
  const char_iter end = r.chars().end();
  if (it == end) {
    on(r.size());
    return;
  }
  utf8proc_int32_t state = 0;
  char32_t prev = *it;
  for (++it; it != end; ++it) {
    const char32_t cp = *it;
    if (utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(prev),
                                         static_cast<utf8proc_int32_t>(cp), &state) &&
        !on(it.index()))
      return;
    prev = cp;
  }
  on(r.size());
}

}  // namespace

std::size_t next_grapheme_boundary(const rope& r, std::size_t pos) {
  check_pos("fl::next_grapheme_boundary", r, pos);
  if (pos == r.size()) return pos;
  std::size_t found = r.size();
  each_boundary_after(r, safe_start(r, pos), [&](std::size_t b) {
    if (b <= pos) return true;
    found = b;
    return false;
  });
  return found;
}

std::size_t prev_grapheme_boundary(const rope& r, std::size_t pos) {
  check_pos("fl::prev_grapheme_boundary", r, pos);
  if (pos == 0) return 0;
  const char_iter start = safe_start(r, pos - 1);
  // The safe start is a boundary itself, except the first char when
  // continuation bytes no char holds precede it: then 0 is.
  std::size_t found = start == r.chars().begin() ? 0 : start.index();
  each_boundary_after(r, start, [&](std::size_t b) {
    if (b >= pos) return false;
    found = b;
    return true;
  });
  return found;
}

bool is_grapheme_boundary(const rope& r, std::size_t pos) {
  check_pos("fl::is_grapheme_boundary", r, pos);
  if (pos == 0 || pos == r.size()) return true;
  return prev_grapheme_boundary(r, pos + 1) == pos;
}

std::size_t grapheme_count(const rope& r, std::size_t pos, std::size_t n) {
  check_pos("fl::grapheme_count", r, pos);
  const std::size_t end = pos + (n < r.size() - pos ? n : r.size() - pos);
  if (end == pos) return 0;
  std::size_t count = 1;  // the cluster holding pos
  each_boundary_after(r, safe_start(r, pos), [&](std::size_t b) {
    if (b >= end) return false;
    if (b > pos) ++count;
    return true;
  });
  return count;
}

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
