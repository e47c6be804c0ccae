// src/rope/metrics.hpp: what the files of src/rope/ share about
// fl::rope's text metrics (private to src/). The metrics are defined in
// src/text/text_count.hpp; where they are kept, in detail/rope_node.hpp (edge).
#pragma once

#include <fl/detail/rope_node.hpp>
#include <fl/detail/utf8.hpp>

#include "text/text_count.hpp"

#include <cstddef>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

// Frees the block index chain of a chunk being destroyed (chunk_index.cpp).
void free_index(chunk* c) noexcept;

// Records in the leaf index li of the unique chunk c (written by this
// edit) that the text just written through the leaf edge starting at chunk
// byte off ends at byte x of that leaf (last_end), with chars_before + the
// text's chars before it in the leaf (the hint; chars_before npos:
// unknown, no hint).
[[gnu::always_inline]] inline void record_hint(leaf_index* li, std::size_t off, std::size_t x,
                                               std::size_t chars_before,
                                               const text_counts& text) noexcept {
  li->last_end = static_cast<std::uint16_t>(off + x);
  if (chars_before == static_cast<std::size_t>(-1)) {
    li->hint = leaf_no_hint;
    return;
  }
  li->hint = static_cast<std::uint16_t>(off + x);
  li->hint_chars = static_cast<std::uint16_t>(chars_before + text.chars);
  li->hint_off = static_cast<std::uint16_t>(off);
}

// record_hint in c's leaf index, if it has one. Inline: every keystroke
// leaves one.
inline void set_hint(chunk* c, std::size_t off, std::size_t x, std::size_t chars_before,
                     const text_counts& text) noexcept {
  if (leaf_index* li = leaf_index_of(c)) record_hint(li, off, x, chars_before, text);
}

// The unique chunk c keeps its bytes but no edge starts where its leaf
// index's hint was taken any more (the edge's head moved elsewhere): the
// hint and last_end are dropped.
inline void drop_hint(chunk* c) noexcept {
  if (leaf_index* li = leaf_index_of(c)) li->hint = li->last_end = leaf_no_hint;
}

// An edit of the unique chunk c through the leaf edge starting at chunk
// byte off rewrites its bytes from leaf byte p on, and its text ends at
// leaf byte x: index_truncate(c, off + p), then set_hint, with one lookup
// of the leaf index for both and no drop of the hint that set_hint
// rewrites (every keystroke at the cursor makes both).
[[gnu::always_inline]] inline void note_rewrite(chunk* c, std::size_t off, std::size_t p,
                                                std::size_t x, std::size_t chars_before,
                                                const text_counts& text) noexcept {
  block_index_truncate(c, off + p);
  if (leaf_index* li = leaf_index_of(c)) {
    leaf_counts_truncate(li, off + p);
    record_hint(li, off, x, chars_before, text);
  }
}

// Whether the valid entries of c's index for the blocks overlapping
// [off, off + len) agree with c's bytes (for check_invariants). O(len).
bool index_ok(const chunk* c, std::size_t off, std::size_t len) noexcept;

// Whether the valid entries of c's leaf index (if any) agree with c's
// bytes (for check_invariants). O(c->used).
bool leaf_index_ok(const chunk* c) noexcept;

// The metrics of bytes [off, off + len) of c: a scan for short ranges, the
// block index (built on first use) for long ones.
text_counts chunk_counts(const chunk* c, std::size_t off, std::size_t len) noexcept;

// The metrics of bytes [off, off + len) of c (whole), of its first a bytes
// (head) and of its last b bytes (tail), for an edit that cuts the range
// into head | window | tail; `whole` may be given when known. Long parts
// take three or four lookups in the block index (one per cut, shared by the
// parts that meet there), short ones a scan.
struct chunk_cut {
  text_counts whole, head, tail;
};
chunk_cut chunk_cut_counts(const chunk* c, std::size_t off, std::size_t len,
                           const text_counts* whole, std::size_t a, std::size_t b) noexcept;

// The weight of metric m in t: its items (chars, newlines) or UTF-16 units.
inline std::size_t weight(const text_counts& t, text_metric m) noexcept {
  switch (m) {
    case text_metric::chars: return t.chars;
    case text_metric::newlines: return t.newlines;
    case text_metric::utf16: return t.chars + t.astral;
  }
  return 0;
}
inline text_counts operator-(const text_counts& a, const text_counts& b) noexcept {
  return {a.chars - b.chars, a.newlines - b.newlines, a.astral - b.astral};
}
inline text_counts operator+(const text_counts& a, const text_counts& b) noexcept {
  return {a.chars + b.chars, a.newlines + b.newlines, a.astral + b.astral};
}
inline void add(text_counts& a, const text_counts& b) noexcept {
  a.chars += b.chars;
  a.newlines += b.newlines;
  a.astral += b.astral;
}

// ---- the block index of big chunks (chunk_index.cpp)

// Ranges of a chunk shorter than this are scanned; longer ones use its
// block index.
inline constexpr std::size_t index_min_range = 2 * index_block;

// Position (relative to off) in c's bytes [off, off + len) of item k of
// metric m, or len when the range holds k items or fewer: through the
// block index when the range is long, else a scan.
std::size_t chunk_nth(const chunk* c, std::size_t off, std::size_t len, text_metric m,
                      std::size_t k) noexcept;

// Stores t as e's metrics.
inline void set_counts(edge& e, const text_counts& t) noexcept {
  e.chars = t.chars;
  e.newlines = t.newlines;
  e.astral = t.astral;
}

// e's metrics (known ones: see edge).
inline text_counts counts_of(const edge& e) noexcept { return {e.chars, e.newlines, e.astral}; }

// The metrics of e, if known, after an edit under it removed bytes counting
// `sub` and wrote bytes counting `add`.
inline void shift_counts(edge& e, const text_counts& add, const text_counts& sub) noexcept {
  if (e.known()) set_counts(e, counts_of(e) + add - sub);
}

// The edges up[0..depth) from the root down to a leaf whose bytes an edit
// changed without changing the tree's shape: n bytes counting `sub`
// replaced by ins bytes counting `add`.
inline void shift_path(edge* const* up, unsigned depth, std::size_t n, std::size_t ins,
                       const text_counts& add, const text_counts& sub) noexcept {
  for (unsigned d = depth; d-- > 0;) {
    up[d]->len = up[d]->len + ins - n;
    shift_counts(*up[d], add, sub);
  }
}

// ---- descents and leaf scans by a metric (metrics.cpp)

// Whether item k of metric m (chars or UTF-16 units) in the leaf e is byte
// k: e's metrics are known and every byte is a char (and, for UTF-16, none
// is astral), as in ASCII text. Then a conversion needs no scan at all.
inline bool one_per_byte(const edge& e, text_metric m) noexcept {
  return m != text_metric::newlines && e.known() && e.chars == e.len &&
         (m == text_metric::chars || e.astral == 0);
}

// How far (in chars) a position is looked for by stepping from the hint.
inline constexpr std::size_t hint_reach = 16;

// Whether b is a UTF-8 continuation byte: not a char (fl/detail/utf8.hpp).
inline bool continuation(char b) noexcept { return utf8_continuation(static_cast<unsigned char>(b)); }

// Whether a range by char may end where the leaf that the child indexes
// idx (depth levels) reach from the tree `root` ends: it is the text's
// last leaf, or the next one starts with a char of its own (not a
// continuation byte of that leaf's last char). The next
// leaf is the first under the deepest node on the path with a child after
// the path's: a sibling, or under the next node (typing at the end of a
// node's last leaf, which every split of a node makes, asked for it too).
template <class Index>
inline bool next_leaf_starts_char(const edge& root, const Index* idx, unsigned depth) noexcept {
  const edge* next = nullptr;
  const edge* e = &root;
  for (unsigned d = 0; d < depth; ++d) {
    const inner* n = static_cast<const inner*>(e->p);
    if (idx[d] + 1u < n->count) next = &n->child[idx[d] + 1];
    e = &n->child[idx[d]];
  }
  if (!next) return true;
  while (next->p->height > 0) next = &static_cast<const inner*>(next->p)->child[0];
  return !continuation(static_cast<const chunk*>(next->p)->data[next->off]);
}

// Char k of the bytes [0, len) at p, given that byte h starts a char (or is
// len) and hc chars lie before it: stepped to from h when it is within
// hint_reach chars, else npos. len when the bytes hold k chars or fewer.
inline std::size_t step_from_hint(const char* p, std::size_t len, std::size_t h, std::size_t hc,
                           std::size_t k) noexcept {
  std::size_t x = h;
  if (k >= hc) {
    if (k - hc > hint_reach) return static_cast<std::size_t>(-1);
    for (std::size_t d = k - hc;; --d) {
      while (x < len && continuation(p[x])) ++x;
      if (x == len || d == 0) return x;
      ++x;
    }
  }
  if (hc - k > hint_reach) return static_cast<std::size_t>(-1);
  for (std::size_t d = hc - k; d > 0; --d) {
    --x;
    while (x > 0 && continuation(p[x])) --x;
  }
  return x;
}

// The scans behind leaf_nth and leaf_nth_from (a big chunk: its index).
std::size_t leaf_nth_scan(const edge& e, text_metric m, std::size_t k) noexcept;
std::size_t leaf_nth_from_scan(const edge& e, text_metric m, std::size_t r,
                               std::size_t n) noexcept;

// Position in the leaf e of its item k of metric m, or e.len when it has k
// items or fewer (an all-ASCII leaf: no scan).
inline std::size_t leaf_nth(const edge& e, text_metric m, std::size_t k) noexcept {
  if (one_per_byte(e, m)) return k < e.len ? k : e.len;
  return leaf_nth_scan(e, m, k);
}

// leaf_nth(e, chars, k) for k below e's chars (known), no call: a step
// from either end of the leaf when k lies within hint_reach chars of it
// (the keystroke after a cut at the cursor, a backspace at a leaf's end:
// no hint there yet), else from the leaf index's hint when it was left by
// an edge starting where e does (the next keystroke), else a search.
inline std::size_t leaf_nth_char(const edge& e, std::size_t k) noexcept {
  if (e.chars == e.len) return k;
  const chunk* c = static_cast<const chunk*>(e.p);
  // (Byte 0 may be inside a char that an earlier leaf starts: the forward
  // step skips continuation bytes first, so char 0 is the first lead byte.)
  if (k <= hint_reach) return step_from_hint(c->data + e.off, e.len, 0, 0, k);
  if (e.chars - k <= hint_reach) return step_from_hint(c->data + e.off, e.len, e.len, e.chars, k);
  if (const leaf_index* li = leaf_index_of(c);
      li && e.off == li->hint_off && li->hint <= e.off + e.len) {
    const std::size_t r =
        step_from_hint(c->data + e.off, e.len, li->hint - e.off, li->hint_chars, k);
    if (r != static_cast<std::size_t>(-1)) return r;
  }
  return leaf_nth_scan(e, text_metric::chars, k);
}

// Position in the leaf e of item n counted from leaf byte r (item 0 is
// the first starting at or after r), or e.len when the leaf ends before it.
inline std::size_t leaf_nth_from(const edge& e, text_metric m, std::size_t r,
                                 std::size_t n) noexcept {
  if (one_per_byte(e, m)) return n < e.len - r ? r + n : e.len;
  return leaf_nth_from_scan(e, m, r, n);
}

// The leaf holding item k of metric m of the rope `root` (non-empty), the
// rope offset of its first byte and k relative to it; leaf null when the
// rope has k items or fewer. With idx, the child index taken at each level
// (root height entries), as descend() gives them.
struct metric_hit {
  const edge* leaf;
  std::size_t lo;
  std::size_t k;
};
metric_hit descend_metric(const edge& root, text_metric m, std::size_t k, unsigned* idx) noexcept;

// descend_metric for one metric, known at compile time, so that the loop
// over a node's edges is one load, compare and subtract per edge.
// Unchecked: the caller knows that k is below the root's weight, so every
// node holds a child where the item lies and the loop needs no bound.
template <text_metric M, bool Checked = true>
inline metric_hit descend_by(const edge& root, std::size_t k, unsigned* idx) noexcept {
  const auto w = [](const edge& e) {
    if constexpr (M == text_metric::chars) return e.chars;
    if constexpr (M == text_metric::newlines) return e.newlines;
    if constexpr (M == text_metric::utf16) return e.chars + e.astral;
  };
  const edge* e = &root;
  std::size_t lo = 0;
  unsigned depth = 0;
  while (e->p->height > 0) {
    const inner* n = static_cast<const inner*>(e->p);
    const unsigned count = n->count;
    unsigned i = 0;
    while ((!Checked || i < count) && k >= w(n->child[i])) {
      k -= w(n->child[i]);
      lo += n->child[i].len;
      ++i;
    }
    if (Checked && i == count) return {nullptr, 0, 0};
    if (idx) idx[depth++] = i;
    e = &n->child[i];
  }
  return {e, lo, k};
}

// descend_metric by chars for k < root.chars (known): no bound checks.
// Inline: it is the first half of every keystroke by char (the second is
// the leaf edit, inlined beside it), as descend() is of one by byte.
inline metric_hit descend_chars(const edge& root, std::size_t k, unsigned* idx) noexcept {
  return descend_by<text_metric::chars, false>(root, k, idx);
}

// Position of item k of metric m in the rope `root` (non-empty), or
// static_cast<size_t>(-1) when it has k items or fewer.
std::size_t rope_nth(const edge& root, text_metric m, std::size_t k) noexcept;

// Positions of items k and k + n (each -1 when the rope has too few): one
// descent; item k + n is looked for in the same leaf first.
std::pair<std::size_t, std::size_t> rope_nth_pair(const edge& root, text_metric m, std::size_t k,
                                                  std::size_t n) noexcept;

// Computes the metrics of e and of every edge below it that is unknown.
// Writes only edges reached through unknown edges: those sit in nodes that
// the running edit made or changed, which no other rope can see.
void fill_metrics(edge& e) noexcept;

// Throws std::out_of_range "<fn>: i (which is i) >= line_count() (which is
// lines)" (fl/detail/out_of_range.hpp) unless i < lines: the one check of the
// calls that take a line index (fl::rope::line, line_text, line_end).
void check_line_index(const char* fn, std::size_t i, std::size_t lines);

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
