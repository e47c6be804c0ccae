// src/rope/line_break.cpp: fl::rope's line-break modes (fl::line_break):
// switching a rope to line_break::lf_crlf, the edit rule that keeps every
// "\r\n" inside one chunk in that mode, and the line calls whose answer
// depends on the mode (line_end, line_text, a position inside a break).
//
// Why so little: in both modes a line starts after each '\n' and the lines
// are counted by '\n' (a "\r\n" holds exactly one, and a '\r' alone is text),
// so the edges' newline counts answer line_count, line_to_byte,
// byte_to_line, char_to_line and line_to_char in both modes alike, and an
// lf-mode rope pays nothing for the other mode. What differs is where a
// line's text ends, which is the byte before its '\n' when that byte is a
// '\r'; the invariant that no chunk ends with the '\r' of a "\r\n" makes that
// byte one to read in the leaf the descent to the '\n' already reached.
//
// Keeping the invariant. A seam between two leaves holds a "\r\n" only if
// some edit put a leaf boundary between the two bytes. The engine's own
// cuts never do (build and edit_window move a cut that would, in every
// mode); the remaining boundaries an edit makes are at its two ends, where
// the bytes that meet are known before the edit: the byte before it, the
// first and last byte it inserts, the byte after it. When a '\r' and a '\n'
// would meet there, splice_crlf widens the edit by that byte on each such
// side and inserts it again with the text, so the pair is written together
// (an edit that copies at most two bytes more). A rope inserted whole is
// checked for split breaks first (set_line_break_mode on a copy) unless it
// is in lf_crlf mode or flat. Every edit therefore stays one splice and
// keeps its strong guarantee.
#include "rope/line_break.hpp"

#include "rope/metrics.hpp"
#include "rope/rope_impl.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {
namespace {

// Calls f(b) for each leaf boundary b of the tree under e (whose first byte
// is at lo) where the previous leaf (last byte `prev`) ends with '\r' and
// the next starts with '\n'.
template <class F>
void walk_seams(const edge& e, std::size_t lo, char& prev, F& f) {
  if (e.p->height == 0) {
    const char* d = static_cast<const chunk*>(e.p)->data + e.off;
    if (prev == '\r' && d[0] == '\n') f(lo);
    prev = d[e.len - 1];
    return;
  }
  const inner* n = static_cast<const inner*>(e.p);
  for (unsigned i = 0; i < n->count; ++i) {
    walk_seams(n->child[i], lo, prev, f);
    lo += n->child[i].len;
  }
}

}  // namespace

std::vector<std::size_t> split_line_breaks(const edge& root) {
  std::vector<std::size_t> at;
  if (!root.p) return at;
  char prev = '\0';
  auto keep = [&](std::size_t b) { at.push_back(b); };
  walk_seams(root, 0, prev, keep);
  return at;
}

void check_line_breaks(const edge& root) {
  if (!root.p) return;
  char prev = '\0';
  auto fail = [](std::size_t b) {
    throw std::logic_error("fl::rope invariant: a \"\\r\\n\" split between two leaves at byte " +
                           std::to_string(b) + " (line_break::lf_crlf)");
  };
  walk_seams(root, 0, prev, fail);
}

bool rope_engine::splice_crlf(rope& r, size_type pos, size_type n, std::string_view text,
                              const rope* other) {
  const size_type sz = r.size();
  const size_type ins = other ? other->size() : text.size();
  // A result that splice edits like a string is one chunk: nothing splits.
  if (!other && sz - n + ins <= flat_edit_max && (!r.root_.p || r.root_.p->height == 0))
    return false;
  // An lf-mode tree may hold split breaks: insert a checked copy instead
  // (made before *this changes; a flat rope is one chunk).
  rope checked;
  if (other && other->mode_ == line_break::lf && other->root_.p &&
      other->root_.p->height > 0) {
    checked = rope(*other, line_break::lf_crlf);
    other = &checked;
  }
  // The bytes that meet at the edit's two ends once it is made: one
  // descent, and a second only when the byte after lies in another leaf.
  char before = '\0', after = '\0';
  if (sz > 0) {
    const leaf_view v = seek(r.root_, pos > 0 ? pos - 1 : 0);
    const auto at = [&](size_type i) { return i - v.lo < v.len ? v.data[i - v.lo] : r[i]; };
    if (pos > 0) before = at(pos - 1);
    if (pos + n < sz) after = at(pos + n);
  }
  const char first = ins == 0 ? after : other ? other->front() : text.front();
  const char last = ins == 0 ? before : other ? other->back() : text.back();
  const bool left = before == '\r' && first == '\n';
  const bool right = last == '\r' && after == '\n';
  if (!left && !right) {
    if (other != &checked) return false;  // the edit as asked
    splice(r, pos, n, {}, other);
    return true;
  }
  // Widened: the '\r' before (left) and the '\n' after (right) are
  // replaced by themselves, written with the inserted bytes. Then the ends
  // meet the byte before that '\r' and the byte after that '\n', which
  // cannot form a "\r\n" with what was inserted ('\r' first, '\n' last), so
  // the second splice_crlf below finds nothing to widen.
  const size_type from = left ? pos - 1 : pos;
  const size_type count = n + (left ? 1 : 0) + (right ? 1 : 0);
  if (!other) {
    // Copied before any change (text may view this rope's own bytes).
    std::string widened;
    widened.reserve(ins + 2);
    if (left) widened += '\r';
    widened += text;
    if (right) widened += '\n';
    splice(r, from, count, widened, nullptr);
    return true;
  }
  rope piece(*other);  // flat or lf_crlf already: no split break inside
  piece.mode_ = line_break::lf_crlf;
  if (left) piece.prepend("\r");
  if (right) piece.append("\n");
  splice(r, from, count, {}, &piece);
  return true;
}

rope_engine::size_type rope_engine::crlf_text_position(const rope& r, size_type pos) noexcept {
  if (pos == 0 || pos >= r.size()) return pos;
  const leaf_view v = seek(r.root_, pos);
  // A '\n' that starts a leaf follows no '\r' (the mode's invariant).
  if (pos == v.lo) return pos;
  const char* at = v.data + (pos - v.lo);
  return at[0] == '\n' && at[-1] == '\r' ? pos - 1 : pos;
}

}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

rope::rope(const rope& other, line_break mode) : rope(other) { set_line_break_mode(mode); }

void rope::set_line_break_mode(line_break mode) {
  if (mode == mode_) return;
  if (mode == line_break::lf || !root_.p || root_.p->height == 0) {
    mode_ = mode;  // one chunk splits nothing
    return;
  }
  // Each split break becomes a two-byte replacement by itself: splice cuts
  // before the '\r' and after the '\n' and joins the pair as one piece, so
  // the text and the length stay, the positions found stay valid, and no
  // new seam can hold a "\r\n" (the pieces meeting the pair end in a byte
  // before the '\r' and start after the '\n'). mode_ is still lf here, so
  // splice does not look at the edits' ends.
  for (const std::size_t b : detail::split_line_breaks(root_))
    detail::rope_engine::splice(*this, b - 1, 2, "\r\n", nullptr);
  mode_ = mode;
}

rope::size_type rope::line_end(size_type i) const {
  const size_type lines = line_count();
  detail::check_line_index("fl::rope::line_end", i, lines);
  if (i + 1 == lines) return size();
  // The i-th '\n' (0-based), in the leaf the descent reaches; in lf_crlf
  // mode the '\r' of its "\r\n" is in the same leaf, or there is none.
  constexpr detail::text_metric newlines = detail::text_metric::newlines;
  const detail::metric_hit h = detail::descend_metric(root_, newlines, i, nullptr);
  const std::size_t r = detail::leaf_nth(*h.leaf, newlines, h.k);
  if (mode_ != line_break::lf && r > 0 &&
      static_cast<const detail::chunk*>(h.leaf->p)->data[h.leaf->off + r - 1] == '\r')
    return h.lo + r - 1;
  return h.lo + r;
}

rope rope::line_text(size_type i) const {
  detail::check_line_index("fl::rope::line_text", i, line_count());
  const size_type from = line_to_byte(i);
  return substr(from, line_end(i) - from);
}

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
