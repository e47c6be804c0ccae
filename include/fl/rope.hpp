// fl/rope.hpp: fl::rope, a rope of shared, immutable chunks for large text
// that is edited by splicing (append, insert, erase, replace, substr). Copies
// are O(1); edits are O(log n) and share every chunk they do not touch. For
// text under a few KiB, or text that is mostly read, fl::string is smaller
// and faster (a rope made from one text, or grown by appends alone, is one
// flat chunk, and one of up to two leaves is edited in place like a string).
//
// Threads: never change one rope from two threads at once; separate copies
// (even copies of copies) may be read and changed in parallel, since they
// share nodes read-only (atomic reference counts; a node is written only
// while its count is 1).
#pragma once

#include <fl/detail/rope_engine.hpp>
#include <fl/detail/rope_node.hpp>
#include <fl/detail/utf8.hpp>
#include <fl/string.hpp>

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <iterator>
#include <string_view>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
inline namespace FL_ROPE_NS {
class rope;

// Where a rope's lines end (rope::line_break_mode; docs/rope.md "Line
// breaks"). In both modes a line starts after each '\n' and line_count() is
// the number of '\n' plus one, so every line number and line start is the
// same in both; the mode decides where a line's text ends, and whether the
// two bytes of a "\r\n" may lie in different chunks.
enum class line_break : std::uint8_t {
  // A line ends at its '\n'; a '\r' before it is text of the line.
  lf,
  // A line ends at its "\r\n" (one break) or its '\n'. A '\r' not followed
  // by '\n' is text. No chunk ends with the '\r' of a "\r\n" (every edit
  // keeps it so), so positions the line calls return never fall between
  // the two bytes.
  lf_crlf,
};
}  // namespace FL_ROPE_NS

namespace detail {
inline namespace FL_ROPE_NS {
template <class R>
concept rope_operand = std::is_same_v<std::remove_cvref_t<R>, rope>;
template <class T>
concept rope_text = !rope_operand<T> && std::is_convertible_v<const T&, std::string_view>;
}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

class rope {
 public:
  using value_type = char;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  static constexpr size_type npos = static_cast<size_type>(-1);

  class const_iterator;
  using iterator = const_iterator;
  class chunk_range;
  class line_range;
  class char_range;

  // ---- construction (O(n) for text, O(1) for copies and moves) ----
  rope() noexcept = default;
  // One chunk holding a copy of `text` (a flat rope); edits later split it
  // into shared pieces.
  rope(std::string_view text);                              // NOLINT: implicit like std::string
  rope(const char* text) : rope(std::string_view(text)) {}  // NOLINT
  // Explicit: an fl::string never silently becomes a rope (in `s + x`, or
  // in an edit that also takes a string_view, which would be ambiguous).
  // Templates on fl::string exactly, so that a std::string, which converts
  // to both fl::string and std::string_view, takes the view constructor.
  template <std::same_as<fl::string> S>
  explicit rope(const S& text) : rope(std::string_view(text)) {}
  // Takes over the string's heap buffer as the rope's first chunk, no copy
  // (a short, inline string is copied: it has no buffer to give).
  template <std::same_as<fl::string> S>
  explicit rope(S&& text) : rope(adopt_tag{}, std::move(text)) {}
  // count copies of ch: O(count) bytes written, O(count / leaf) nodes.
  rope(size_type count, char ch);
  // The same in line-break mode `mode` (see line_break). From a text: no
  // extra cost (one chunk, or leaves that never split a "\r\n"). From a
  // rope: O(1) to line_break::lf or from a flat rope; a tree copied into
  // line_break::lf_crlf has its leaf ends checked, O(leaves), and a "\r\n"
  // split between two leaves is moved into one, O(log n) each.
  explicit rope(line_break mode) noexcept : mode_(mode) {}
  rope(std::string_view text, line_break mode) : rope(text) { mode_ = mode; }
  rope(const char* text, line_break mode) : rope(std::string_view(text), mode) {}
  template <std::same_as<fl::string> S>
  rope(S&& text, line_break mode) : rope(std::forward<S>(text)) {
    mode_ = mode;
  }
  rope(const rope& other, line_break mode);
  // Copies and moves take the other rope's text and its line-break mode,
  // never its anchors (see "anchors" below): a new rope has none, and a
  // rope assigned to keeps its own, clamped to its new size(); so does a
  // rope moved from, left empty (its anchors at 0). O(1); O(log k) more
  // (expected) for a rope with k anchors.
  rope(const rope& other) noexcept : root_(other.root_), mode_(other.mode_) {
    detail::acquire(root_.p);
  }
  rope(rope&& other) noexcept : root_(other.root_), mode_(other.mode_) {
    other.root_ = {};
    detail::rope_engine::clamp_anchors(other);
  }
  rope& operator=(const rope& other) noexcept {
    detail::acquire(other.root_.p);
    detail::release(root_.p);
    root_ = other.root_;
    mode_ = other.mode_;
    detail::rope_engine::clamp_anchors(*this);
    return *this;
  }
  rope& operator=(rope&& other) noexcept {
    if (this != &other) {
      detail::release(root_.p);
      root_ = other.root_;
      mode_ = other.mode_;
      other.root_ = {};
      detail::rope_engine::clamp_anchors(*this);
      detail::rope_engine::clamp_anchors(other);
    }
    return *this;
  }
  // Assigning a text keeps the rope's line-break mode.
  rope& operator=(std::string_view text) { return *this = rope(text, mode_); }
  rope& operator=(const char* text) { return *this = std::string_view(text); }

  // ---- line-break mode (see line_break) ----
  line_break line_break_mode() const noexcept { return mode_; }  // O(1)
  // To line_break::lf: O(1). To line_break::lf_crlf: O(1) for an empty or
  // flat rope; a tree has its leaf ends checked, O(leaves), and each "\r\n"
  // split between two leaves is moved into one, O(log n) each. The text
  // never changes; after a throw (std::bad_alloc) the mode is unchanged.
  void set_line_break_mode(line_break mode);
  // Anchors of the rope outlive it as handles that no rope holds.
  ~rope() {
    detail::release(root_.p);
    if (anchors_) [[unlikely]]
      detail::rope_engine::drop_anchors(*this);
  }

  // ---- size (O(1)) ----
  size_type size() const noexcept { return root_.len; }
  size_type length() const noexcept { return root_.len; }
  [[nodiscard]] bool empty() const noexcept { return root_.len == 0; }
  // Empties the rope; its line-break mode stays, its anchors go to 0. O(1),
  // plus freeing the nodes no other copy shares.
  void clear() noexcept {
    detail::release(root_.p);
    root_ = {};
    detail::rope_engine::clamp_anchors(*this);
  }
  // Exchanges the texts and modes; each rope keeps its anchors, clamped to
  // its new size() (as for an assignment). O(1); O(log k) more (expected)
  // for a rope with k anchors.
  void swap(rope& other) noexcept {
    detail::edge t = root_;
    root_ = other.root_;
    other.root_ = t;
    const line_break m = mode_;
    mode_ = other.mode_;
    other.mode_ = m;
    detail::rope_engine::clamp_anchors(*this);
    detail::rope_engine::clamp_anchors(other);
  }

  // ---- element access: O(log n); O(1) for a flat rope. r[r.size()] is
  // '\0', as for std::string (also on an empty rope). ----
  char operator[](size_type pos) const noexcept {
    if (pos >= root_.len) [[unlikely]]
      return '\0';
    if (root_.p->height == 0)
      return static_cast<const detail::chunk*>(root_.p)->data[root_.off + pos];
    const detail::leaf_view v = detail::seek(root_, pos);
    return v.data[pos - v.lo];
  }
  // Throws std::out_of_range if pos >= size().
  char at(size_type pos) const;
  char front() const noexcept { return (*this)[0]; }
  char back() const noexcept { return (*this)[size() - 1]; }

  // ---- edits. Each is O(log n + text.size()) and leaves the parts it does
  // not touch shared with other copies. A short edit inside the leaf where
  // the last edit inside one leaf landed (typing on at a cursor, by byte or
  // by char) takes no descent: O(height) in the nodes of its own path, no
  // search, and the bytes after it in its leaf moved (at most a few KB).
  // Those taking `pos` throw std::out_of_range if pos > size(); *this is
  // unchanged after a throw.
  // In line_break::lf_crlf mode an edit whose result joins a '\r' and a
  // '\n' at its ends (inserting "\n" after a '\r', erasing what lay
  // between them) rewrites the two bytes with it, so that they share a
  // chunk: the same bounds, a few more bytes copied. A rope operand of
  // mode line_break::lf is first checked as the mode's constructor does. ----

  // Appends `text`. A uniquely owned rope writes small pieces into the spare
  // room of its last chunk (no node per append); a unique flat rope grows
  // its one chunk geometrically like a string (realloc for large blocks), so
  // a rope built by appends alone stays flat. Amortized O(text.size()).
  rope& append(std::string_view text) {
    // Hot path, inline: a unique flat chunk with room takes the bytes in
    // place. Everything else, including growth, is out of line.
    if (root_.p && root_.p->height == 0 && !anchors_ && detail::leaf_append_in_place(root_, text))
      return *this;
    return detail::rope_engine::append_slow(*this, text);
  }
  rope& append(const rope& other);
  rope& append(const char* text) { return append(std::string_view(text)); }
  rope& append(size_type count, char ch) { return append(rope(count, ch)); }
  rope& prepend(std::string_view text);
  rope& prepend(const rope& other);
  rope& prepend(const char* text) { return prepend(std::string_view(text)); }
  rope& operator+=(std::string_view text) { return append(text); }
  rope& operator+=(const char* text) { return append(std::string_view(text)); }
  template <std::same_as<fl::string> S>
  rope& operator+=(const S& text) {
    return append(std::string_view(text));
  }
  rope& operator+=(const rope& other) { return append(other); }
  rope& operator+=(char ch) { return append(std::string_view(&ch, 1)); }
  void push_back(char ch) { append(std::string_view(&ch, 1)); }

  rope& insert(size_type pos, std::string_view text);
  rope& insert(size_type pos, const rope& other);
  rope& insert(size_type pos, const char* text) { return insert(pos, std::string_view(text)); }
  // Removes min(n, size() - pos) bytes from pos.
  rope& erase(size_type pos = 0, size_type n = npos);
  // Iterator forms (as std::string's): the edit at it.index(); each returns
  // an iterator to the first byte after the removed range / the first byte
  // inserted, valid for the edited rope. O(log n + text.size()).
  const_iterator insert(const_iterator it, std::string_view text);
  const_iterator insert(const_iterator it, char ch);
  const_iterator erase(const_iterator it);
  const_iterator erase(const_iterator first, const_iterator last);
  // Replaces min(n, size() - pos) bytes from pos with `text`.
  rope& replace(size_type pos, size_type n, std::string_view text);
  rope& replace(size_type pos, size_type n, const rope& other);
  rope& replace(size_type pos, size_type n, const char* text) {
    return replace(pos, n, std::string_view(text));
  }

  // ---- edits addressed by char (code point) or by UTF-16 unit, as editors
  // and language servers count: the same edits as above, after one descent
  // by the metric to the start of the range (O(log n); inside an all-ASCII
  // leaf no scan at all) and a conversion of the count relative to it, in
  // the same leaf when the range ends there. Chars and units are those of
  // the metrics below. Throw std::out_of_range if the start is past the end
  // (i > char_count(), u > utf16_count()); a count past the end stops at it.
  // A UTF-16 position inside a surrogate pair means the char holding it. ----
  rope& insert_chars(size_type i, std::string_view text) { return replace_chars(i, 0, text); }
  rope& erase_chars(size_type i, size_type n = npos) { return replace_chars(i, n, {}); }
  rope& replace_chars(size_type i, size_type n, std::string_view text) {
    // The usual keystroke (inside the leaf where the last one landed) in
    // one call; everything else, and every check, in the general path.
    if (root_.p && root_.p->height > 0 &&
        detail::rope_engine::type_at_cursor<true>(*this, i, n, text))
      return *this;
    return replace_chars_general(i, n, text);
  }
  rope& insert_utf16(size_type u, std::string_view text) { return replace_utf16(u, 0, text); }
  rope& erase_utf16(size_type u, size_type n = npos) { return replace_utf16(u, n, {}); }
  rope& replace_utf16(size_type u, size_type n, std::string_view text);

  // ---- checked byte edits: the edits by byte above, refused when they
  // would cut a UTF-8 sequence or write an ill-formed one, so that a valid
  // text stays valid. Both ends of the range (pos and pos + min(n, size() -
  // pos)) must be char boundaries (is_char_boundary) and `text` must be
  // well-formed UTF-8 (RFC 3629). Cost: the unchecked edit's, O(log n +
  // text.size()), plus one descent per end checked, O(log n), and one pass
  // over text, O(text.size()). Throw std::out_of_range if pos > size(), and
  // std::invalid_argument naming the position (or the text's byte) and why
  // if a check fails; *this is unchanged after a throw. (The suffix names
  // what is different about the edit, as _chars and _utf16 name the unit
  // their positions count.) ----
  rope& insert_checked(size_type pos, std::string_view text) {
    return detail::rope_engine::checked_edit(*this, "fl::rope::insert_checked", pos, 0, text);
  }
  rope& erase_checked(size_type pos, size_type n = npos) {
    return detail::rope_engine::checked_edit(*this, "fl::rope::erase_checked", pos, n, {});
  }
  rope& replace_checked(size_type pos, size_type n, std::string_view text) {
    return detail::rope_engine::checked_edit(*this, "fl::rope::replace_checked", pos, n, text);
  }

  // The bytes [pos, pos + min(n, size() - pos)), sharing this rope's chunks:
  // a range inside one leaf is one edge into that leaf's chunk (O(log n), no
  // copy); a range across leaves of at most one leaf's size is copied into
  // one fresh chunk. Throws std::out_of_range if pos > size().
  rope substr(size_type pos = 0, size_type n = npos) const;

  // ---- search and comparison ----
  // First index >= pos where `needle` occurs, or npos. O(size() + needle
  // size()) whatever the chunk boundaries (matches may span any number of
  // chunks); never flattens. An empty needle is found at pos if pos <= size().
  size_type find(std::string_view needle, size_type pos = 0) const noexcept;
  size_type find(char ch, size_type pos = 0) const noexcept {
    return find(std::string_view(&ch, 1), pos);
  }
  // Last index <= pos where `needle` occurs, or npos (std::string::rfind):
  // a walk back from pos over windows of the text, O(size() - start of the
  // match + needle size()), matches across chunk boundaries included. An
  // empty needle is found at min(pos, size()).
  size_type rfind(std::string_view needle, size_type pos = npos) const;
  size_type rfind(char ch, size_type pos = npos) const { return rfind(std::string_view(&ch, 1), pos); }
  bool contains(std::string_view needle) const noexcept { return find(needle) != npos; }
  // O(log n + prefix.size()) / O(log n + suffix.size()).
  bool starts_with(std::string_view prefix) const noexcept;
  bool ends_with(std::string_view suffix) const noexcept;

  // <0, 0, >0 as std::string::compare. O(common prefix).
  int compare(const rope& other) const noexcept;
  int compare(std::string_view other) const noexcept;
  int compare(const char* other) const noexcept { return compare(std::string_view(other)); }

  friend bool operator==(const rope& a, const rope& b) noexcept {
    return a.size() == b.size() &&
           (a.root_.p == b.root_.p && a.root_.off == b.root_.off ? true : a.compare(b) == 0);
  }
  friend bool operator==(const rope& a, std::string_view b) noexcept {
    return a.size() == b.size() && a.compare(b) == 0;
  }
  friend bool operator==(const rope& a, const char* b) noexcept { return a == std::string_view(b); }
  friend std::strong_ordering operator<=>(const rope& a, const rope& b) noexcept {
    return a.compare(b) <=> 0;
  }
  friend std::strong_ordering operator<=>(const rope& a, std::string_view b) noexcept {
    return a.compare(b) <=> 0;
  }
  friend std::strong_ordering operator<=>(const rope& a, const char* b) noexcept {
    return a.compare(std::string_view(b)) <=> 0;
  }

  // ---- conversion ----
  // The whole text in one fl::string: one allocation, one copy per chunk.
  fl::string flatten() const&;
  // The same, consuming the rope (left empty). A uniquely owned flat rope
  // whose chunk grew past one leaf by appends (or that adopted an
  // fl::string&&) hands its buffer to the string: O(1), no copy.
  fl::string flatten() &&;
  std::string to_std() const;  // O(n), one allocation
  // Copies min(n, size() - pos) bytes from pos to dest; returns the count.
  // O(log n + the count). Throws std::out_of_range if pos > size().
  size_type copy(char* dest, size_type n, size_type pos = 0) const;

  // The text as consecutive std::string_views, one per leaf (never empty).
  // The fastest way through the bytes: a loop over each view runs at
  // std::string speed (see also fl::for_each_chunk, fl::count, fl::find).
  chunk_range chunks() const noexcept;
  // The same from byte pos on: the first view starts at pos (inside the
  // leaf holding it), the others are whole leaves; chunks_at(size()) is
  // empty. O(log n) to start. Throws std::out_of_range if pos > size().
  chunk_range chunks_at(size_type pos) const;

  // ---- text metrics (O(log n) each; kept current by every edit) ----
  // A char is a byte that is not a UTF-8 continuation byte (10xxxxxx), so
  // any bytes have a defined count: for valid UTF-8 it is the number of code
  // points; each invalid byte that is not a continuation byte counts as one.
  // Lines are separated by '\n' (a "\r\n" line ends in '\r' '\n'; '\r'
  // alone is an ordinary byte). The first query of a big flat rope (or of
  // pieces cut from one) builds a block index of its chunk: O(n) once, at
  // memory bandwidth, shared by all copies.
  size_type char_count() const noexcept;
  size_type line_count() const noexcept;  // number of '\n' plus one
  // Where char i starts; i == char_count() gives size(). Throws
  // std::out_of_range if i > char_count().
  size_type char_to_byte(size_type i) const;
  // Chars that start before pos. Throws std::out_of_range if pos > size().
  size_type byte_to_char(size_type pos) const;
  // Where line `line` starts (just after the line-th '\n'); line ==
  // line_count() gives size(). Throws std::out_of_range past that.
  size_type line_to_byte(size_type line) const;
  // Number of '\n' before pos. Throws std::out_of_range if pos > size().
  size_type byte_to_line(size_type pos) const;

  // UTF-16 positions, as language servers count columns: each char counts
  // one code unit, and a char whose lead byte is >= 0xF0 (a 4-byte sequence:
  // a surrogate pair) two. Exact for valid UTF-8; for invalid bytes it
  // follows the char rule above (a stray byte >= 0xF0 also counts two).
  size_type utf16_count() const noexcept;
  // UTF-16 units of the chars that start before pos (a pos inside a char
  // counts that whole char). Throws std::out_of_range if pos > size().
  size_type byte_to_utf16(size_type pos) const;
  // Where the char holding UTF-16 unit u starts (the second unit of a
  // surrogate pair gives the start of its char); u == utf16_count() gives
  // size(). Throws std::out_of_range if u > utf16_count().
  size_type utf16_to_byte(size_type u) const;

  // Relative conversions: where the char n chars after the one holding
  // byte pos starts (chars_after(pos, 0) is the start of that char), or
  // size() when fewer remain; the same by UTF-16 units. One descent, and
  // when the result lies in the same leaf, a scan of the bytes between only.
  // Throw std::out_of_range if pos > size().
  size_type chars_after(size_type pos, size_type n) const;
  size_type utf16_after(size_type pos, size_type n) const;

  // Line of char i (number of '\n' before it) and the first char of line
  // `line` (line == line_count() gives char_count()). Throw
  // std::out_of_range past char_count() / line_count().
  size_type char_to_line(size_type i) const;
  size_type line_to_char(size_type line) const;

  // A position as the Language Server Protocol gives it: a line (0-based,
  // lines separated by '\n') and a column in UTF-16 units from the line's
  // start. In line_break::lf_crlf mode a line's text ends before its
  // "\r\n", so a column never counts the '\r' of the break.
  struct line_column {
    size_type line;
    size_type column;
    friend bool operator==(const line_column&, const line_column&) = default;
  };
  // The line and UTF-16 column of byte pos (a pos inside a char counts the
  // whole char, as byte_to_utf16; in line_break::lf_crlf mode the '\n' of a
  // "\r\n" counts as its '\r', the end of the line's text). Throws
  // std::out_of_range if pos > size().
  line_column byte_to_line_column(size_type pos) const;
  // The byte where that line and column start. A column past the end of
  // the line means the end of the line's text (line_end), as LSP asks; a
  // column inside a surrogate pair gives the start of its char. Throws
  // std::out_of_range if line >= line_count().
  size_type line_column_to_byte(line_column lc) const;

  // Where the text of line i ends: at its '\n' in line_break::lf mode; in
  // line_break::lf_crlf mode at the '\r' of its "\r\n", else at its '\n';
  // size() for the last line (which has no break). One descent, O(log n).
  // Throws std::out_of_range if i >= line_count().
  size_type line_end(size_type i) const;

  // Line i with its line break (the last line has none), sharing chunks:
  // O(log n). Throws std::out_of_range if i >= line_count().
  rope line(size_type i) const;
  // The text of line i, without its break: bytes [line_to_byte(i),
  // line_end(i)), sharing chunks, in the rope's mode. O(log n). Throws
  // std::out_of_range if i >= line_count().
  rope line_text(size_type i) const;
  // Every line, in order, as line(i) gives them (line_count() of them).
  // O(1) to make; each step and each * O(log n) (see line_range).
  line_range lines() const noexcept;
  // Every line's text, in order, as line_text(i) gives them.
  line_range line_texts() const noexcept;

  // ---- code points. A char (see the metrics above) is a byte that is not a
  // continuation byte and the continuation bytes after it; its value is the
  // code point those bytes encode when they are exactly one well-formed
  // UTF-8 sequence, and U+FFFD otherwise (a truncated or overlong sequence,
  // a surrogate, a stray lead byte or continuation bytes past a sequence's
  // end: one U+FFFD per char). So every text, valid or not, has exactly
  // char_count() values, the k-th is char_at(k), and char indexes mean the
  // same in every call. Continuation bytes before the first char of the
  // rope belong to no char and yield nothing. For valid UTF-8 this is plain
  // decoding. ----

  // The value of char i. O(log n): one descent to the char (as
  // char_to_byte), then at most 5 bytes read. Throws std::out_of_range if
  // i >= char_count().
  char32_t char_at(size_type i) const;
  // Every char's value, in order (see char_range: bidirectional, each step
  // O(1) amortized). O(1) to make; its begin() descends, O(log n).
  char_range chars() const noexcept;
  // The chars from char i on (chars_at(char_count()) is empty); its
  // iterators may also step back before char i. O(log n) to start. Throws
  // std::out_of_range if i > char_count().
  char_range chars_at(size_type i) const;
  // Whether an edit at byte pos splits no char: pos is 0, size(), or a
  // byte that is not a continuation byte (10xxxxxx). False past size().
  // O(log n) (O(1) for a flat rope).
  bool is_char_boundary(size_type pos) const noexcept {
    if (pos == 0 || pos == root_.len) return true;
    return pos < root_.len && !detail::utf8_continuation(static_cast<unsigned char>((*this)[pos]));
  }

  // ---- anchors: positions that move with the edits, for cursors,
  // selections, diagnostics and folds (docs/rope.md "Anchors"). An edit
  // that makes bytes [pos, pos + n) into m bytes moves an anchor at byte p
  //   p < pos:             not at all
  //   pos <= p <= pos + n: to pos (bias::before) or to pos + m (bias::after)
  //   p > pos + n:         to p - n + m
  // So an erase collapses the anchors inside it, and at its end, to its
  // start; an insert exactly at an anchor goes behind a bias::before anchor
  // and in front of a bias::after one (a cursor typing on); a replace is
  // the erase, then the insert. Every edit keeps them: insert, erase,
  // replace, append, prepend, push_back, +=, the iterator forms, the edits
  // by char and UTF-16 unit and the checked edits. A whole text given at
  // once (assignment, swap, clear, being moved from) says nothing of which
  // bytes stayed: each anchor keeps its byte offset, clamped to the new
  // size(). (An undo that must carry anchors is applied as an edit.)
  // set_line_break_mode changes no text and moves no anchor.
  //
  // Anchors belong to the rope object that made them, not to its text: a
  // copy or a move has none of them (anchors of a rope that moves, as in a
  // std::vector that grows, stay behind with the object moved from). An
  // anchor handle removes its position when it is destroyed or reset; a
  // rope destroyed first leaves its handles held by no rope (holds() false).
  //
  // Cost: a rope with k anchors keeps them in two treaps (one per bias) of
  // positions shifted lazily, so every edit above costs O(log k) more,
  // expected (a treap's depth is O(log k) with high probability, whatever
  // the positions), whatever the edit moves, and nothing when k == 0. Each
  // anchor takes one allocation of 64 bytes. Every O(log k) below is
  // expected in the same sense. ----

  // Which side of text inserted exactly at an anchor the anchor keeps to.
  enum class bias : std::uint8_t { before, after };
  class anchor;
  // A new anchor at byte pos with bias b. O(log k), one allocation. Throws
  // std::out_of_range if pos > size(); std::bad_alloc leaves *this
  // unchanged.
  [[nodiscard]] anchor anchor_at(size_type pos, bias b);
  // Where anchor a is now (<= size()). O(log k). Throws
  // std::invalid_argument unless holds(a).
  size_type position(const anchor& a) const;
  // Whether a is an anchor of this rope (false for an empty handle and for
  // another rope's anchor). O(1).
  bool holds(const anchor& a) const noexcept;
  // The number of anchors this rope keeps. O(1).
  size_type anchor_count() const noexcept;

  // ---- iteration: random access; an iterator holds a pointer into its
  // current leaf, so stepping through a rope costs one tree descent per leaf,
  // not per char. For bulk work, chunks() hands out whole leaves. begin()
  // descends, O(log n) (O(1) flat); end() is O(1). ----
  const_iterator begin() const noexcept;
  const_iterator end() const noexcept;
  const_iterator cbegin() const noexcept;
  const_iterator cend() const noexcept;

  // Hash of the bytes, independent of how they are chunked: O(n). It is not equal
  // to std::hash<std::string_view> of the flat text (that hash needs the
  // bytes contiguous).
  std::size_t hash() const noexcept;

 private:
  friend struct detail::rope_engine;  // the engine (src/rope/), over root_ and anchors_
  friend class const_iterator;
  friend class chunk_range;
  friend class char_range;
  friend class anchor;

  // An iterator at byte pos (0 <= pos <= size()): one descent.
  const_iterator iterator_at(size_type pos) const noexcept;
  // replace_chars but for its keystroke at the root's cursor (edit.cpp).
  rope& replace_chars_general(size_type i, size_type n, std::string_view text);
  rope(detail::edge root, line_break mode) noexcept : root_(root), mode_(mode) {
    detail::rope_engine::settle(*this);
  }
  struct adopt_tag {};
  rope(adopt_tag, fl::string&& text);

  detail::edge root_{};  // p == nullptr and len == 0 when empty
  line_break mode_ = line_break::lf;
  // The anchors (null until the first anchor_at; then kept until the rope
  // is destroyed, even when the last anchor goes).
  detail::anchor_table* anchors_ = nullptr;
};

// The root edge comes first (standard layout: at the rope's first byte,
// where the GDB printers read it), then the mode and the anchors.
static_assert(std::is_standard_layout_v<rope> &&
              sizeof(rope) == sizeof(detail::edge) + alignof(detail::edge) + sizeof(void*));

// A handle on one position of a rope (rope::anchor_at; the rules are at
// rope's "anchors"). Move-only: a copy would be a second position, which
// anchor_at(position(a), a.bias()) makes explicitly. Destroying or
// resetting it removes the position from its rope, O(log k) expected; a
// handle whose rope is gone is still safe to destroy (the anchors' table
// lives until its last handle goes). Threads: a handle is part of its rope's
// state; destroy or reset it only where the rope may be changed.
class rope::anchor {
 public:
  // A handle with no position (holds() of every rope is false).
  anchor() noexcept = default;
  anchor(anchor&& other) noexcept : table_(other.table_), node_(other.node_) {
    other.table_ = nullptr;
    other.node_ = nullptr;
  }
  anchor& operator=(anchor&& other) noexcept {
    if (this != &other) {
      reset();
      table_ = other.table_;
      node_ = other.node_;
      other.table_ = nullptr;
      other.node_ = nullptr;
    }
    return *this;
  }
  ~anchor() { reset(); }
  // Removes the position (O(log k)); the handle is then empty.
  void reset() noexcept {
    if (node_) release();
  }
  [[nodiscard]] bool empty() const noexcept { return node_ == nullptr; }
  // The anchor's bias. O(1). Requires !empty().
  rope::bias bias() const noexcept;

 private:
  friend class rope;
  anchor(detail::anchor_table* t, detail::anchor_node* n) noexcept : table_(t), node_(n) {}
  void release() noexcept;

  detail::anchor_table* table_ = nullptr;
  detail::anchor_node* node_ = nullptr;
};

// operator+ takes part only when an operand is a rope already (the rope
// parameter is deduced, so no conversion can make one): `s + x` with an
// fl::string or a C string s never turns into a rope. The other operand may
// be a rope, a std::string_view, a C string, an fl::string or std::string.
// Each is one append or prepend: O(log n + the text's size).

template <detail::rope_operand A, detail::rope_operand B>
rope operator+(A&& a, B&& b) {
  rope r(std::forward<A>(a));
  r.append(b);
  return r;
}
template <detail::rope_operand A, detail::rope_text T>
rope operator+(A&& a, const T& b) {
  rope r(std::forward<A>(a));
  r.append(std::string_view(b));
  return r;
}
template <detail::rope_text T, detail::rope_operand B>
rope operator+(const T& a, B&& b) {
  rope r(std::forward<B>(b));
  r.prepend(std::string_view(a));
  return r;
}

// Writes the bytes chunk by chunk (honours the stream's width and fill). O(n).
std::ostream& operator<<(std::ostream& os, const rope& r);

inline void swap(rope& a, rope& b) noexcept { a.swap(b); }

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl

// The nested iterator and range classes: their layouts and inline steps,
// which the compiler must see (each class's costs are stated where rope
// declares its accessor above).
#include <fl/detail/rope_iterators.hpp>

namespace fl {
inline namespace FL_ABI_NS {
inline namespace FL_ROPE_NS {

// ---- segmented algorithms: chunk by chunk, at std::string speed. Prefer
// these (or a loop over r.chunks()) to std algorithms over the per-char
// iterators, which pay a leaf check per byte. ----

// Calls f(std::string_view) for each chunk in order; if f returns bool,
// false stops the walk. Returns whether it ran to the end. O(n / leaf)
// descents besides f.
template <class F>
bool for_each_chunk(const rope& r, F&& f) {
  for (std::string_view c : r.chunks()) {
    if constexpr (std::is_same_v<decltype(f(c)), bool>) {
      if (!f(c)) return false;
    } else {
      f(c);
    }
  }
  return true;
}

// Number of bytes equal to ch (SIMD per chunk), O(n). (Templates, so that no
// argument converts to a rope to call them.)
template <detail::rope_operand R>
std::size_t count(const R& r, char ch) noexcept {
  return detail::rope_count(r, ch);
}
// r.find(needle, pos): fl::find per chunk, matches across chunk boundaries
// included.
template <detail::rope_operand R>
std::size_t find(const R& r, std::string_view needle, std::size_t pos = 0) noexcept {
  return r.find(needle, pos);
}

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl

template <>
struct std::hash<fl::rope> {
  std::size_t operator()(const fl::rope& r) const noexcept { return r.hash(); }
};
