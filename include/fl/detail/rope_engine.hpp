// fl/detail/rope_engine.hpp: the private engine behind fl::rope's public
// calls, as static functions over a rope (the one friend that reaches the
// rope's members; bodies in src/rope/). Included by <fl/rope.hpp> so that
// its few inline calls can reach the out-of-line parts; users never call
// it. Threads: as the rope's own calls (a function that changes a rope
// changes only that rope).
#pragma once

#include <fl/detail/rope_node.hpp>

#include <cstddef>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {
inline namespace FL_ROPE_NS {
class rope;
}  // namespace FL_ROPE_NS

namespace detail {
enum class text_metric : unsigned char;  // chars, newlines, utf16 (src/text/text_count.hpp)
inline namespace FL_ROPE_NS {
struct anchor_table;  // a rope's anchors (src/rope/anchors.cpp)
struct anchor_node;

// fl::count(rope, ch) (src/rope/metrics.cpp).
std::size_t rope_count(const rope& r, char ch) noexcept;

struct rope_engine {
  using size_type = std::size_t;
  static constexpr size_type npos = static_cast<size_type>(-1);

  // The root edge, for the checks of src/rope/check.cpp.
  static const edge& root(const rope& r) noexcept;

  // ---- edits (src/rope/edit.cpp) ----
  // rope::append past its inline path (a unique flat chunk with room).
  static rope& append_slow(rope& r, std::string_view text);
  // The text's part of an edit: bytes [pos, pos + n) become `text` (or
  // *other). set_line_break_mode and the widened edits of line_break::
  // lf_crlf mode use it alone to rewrite bytes in place.
  static void splice(rope& r, size_type pos, size_type n, std::string_view text,
                     const rope* other);
  // splice as a user's edit: the anchors move with it.
  static void edit(rope& r, size_type pos, size_type n, std::string_view text, const rope* other);
  // Computes the metrics an edit left unknown (see detail::edge); called at
  // the end of every edit that may leave a tree.
  static void settle(rope& r) noexcept;
  // Computes a flat root's unknown metrics (edits by char call it first).
  static void know_flat_metrics(rope& r) noexcept;
  static bool unique_flat(const rope& r) noexcept;
  // Items [i, i + n) of metric m become `text` (replace_chars, replace_utf16).
  static rope& replace_by(rope& r, text_metric m, size_type i, size_type n, std::string_view text);
  // replace_chars of a flat root in lf mode; false, with nothing changed,
  // when i > char_count().
  static bool replace_chars_flat(rope& r, size_type i, size_type n, std::string_view text);
  // replace_chars of a tree in lf mode done inside one leaf
  // (src/rope/leaf_edit.cpp); false, with nothing changed, when the edit is
  // not of that kind.
  static bool replace_chars_in_leaf(rope& r, size_type i, size_type n, std::string_view text);
  // The same edit (ByChar), or bytes [i, i + n) of a tree in lf mode
  // becoming a short text (!ByChar, anchors moved too), made at the tree
  // root's cursor (detail::rope_cursor) without a descent, when it lies in
  // the cursor's leaf and is made in place there (src/rope/cursor_edit.cpp);
  // false, with nothing changed, otherwise.
  template <bool ByChar>
  static bool type_at_cursor(rope& r, size_type i, size_type n, std::string_view text);
  // Whether a range that ends with char `end` of the tree's leaf `leaf`
  // (rope offset lo, child indexes idx) ends where the leaf's bytes end.
  static bool ends_at_leaf_end(const rope& r, const unsigned* idx, const edge* leaf,
                               std::size_t lo, std::size_t end) noexcept;

  // ---- line breaks (src/rope/line_break.cpp) ----
  // line_break::lf_crlf's part of splice: true when it made the edit, with
  // its ends widened so that no "\r\n" is split between chunks (or with a
  // checked copy of an lf-mode `other`); false when the edit needs nothing
  // of that kind.
  static bool splice_crlf(rope& r, size_type pos, size_type n, std::string_view text,
                          const rope* other);
  // pos, or pos - 1 when pos is the '\n' of a "\r\n" (lf_crlf mode: a
  // position inside a line break means the end of the line's text).
  static size_type crlf_text_position(const rope& r, size_type pos) noexcept;

  // ---- reads (src/rope/read.cpp) ----
  static int substr_compare(const rope& r, size_type pos, std::string_view s) noexcept;

  // ---- checked edits (src/rope/chars.cpp) ----
  // The checked edits' one body; name is the call in the messages.
  static rope& checked_edit(rope& r, const char* name, size_type pos, size_type n,
                            std::string_view text);
  // Throws std::invalid_argument unless byte pos is a char boundary (fn
  // names the call, what the argument, as in the messages of range errors).
  static void check_char_boundary(const rope& r, const char* fn, const char* what, size_type pos);

  // ---- anchors (src/rope/anchors.cpp) ----
  // The anchors after an edit that made bytes [pos, pos + n) into ins bytes
  // (rope.hpp "anchors"); O(log k) expected. Callers test the rope's
  // anchors first.
  static void move_anchors(rope& r, size_type pos, size_type n, size_type ins) noexcept;
  // After a whole new text: anchors past size() go to size(). A template
  // only so that rope's inline members can call it before rope is complete.
  template <class Rope>
  static void clamp_anchors(Rope& r) noexcept {
    if (r.anchors_) [[unlikely]]
      move_anchors(r, r.size(), npos, 0);
  }
  // The rope lets its anchors go (its destructor).
  static void drop_anchors(rope& r) noexcept;
};

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
