// src/rope/metrics.cpp: fl::rope's text metrics (chars, newlines, UTF-16
// units; defined in src/text/text_count.hpp): computing them for edges an edit
// left unknown, the leaf index of leaf-sized chunks, and the O(log n) queries
// that descend the tree by a metric. The block index of big chunks is
// chunk_index.cpp.
//
// Cost model. Every edge in an inner node carries the metrics of its bytes,
// so a query descends like operator[] (one pass over at most max_children
// edges per level) and finishes in one leaf: a lookup in the leaf index and
// a scan of at most one leaf_block, or, in a leaf that views a big chunk (a
// flat rope, or the pieces an edit cut out of one), a search of the chunk's
// block index and a scan of at most half an index_block.
//
// Threads: queries are const and may run on many threads; they may extend a
// leaf index (atomic entries, equal values from every thread) or publish a
// chunk's block index (chunk_index.cpp).
#include <fl/rope.hpp>

#include <fl/pool.hpp>

#include "rope/metrics.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <new>
#include <utility>
#include <stdexcept>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {
namespace {

// ---- the leaf index (detail/rope_node.hpp): 16-bit counts per leaf_block,
// extended lazily by queries, truncated by in-place edits.

constexpr std::size_t LB = leaf_block;

// Entries are read and written through atomic_ref: queries on several
// threads may extend one index at once (with equal values).
std::size_t load16(std::uint16_t& x) noexcept {
  return std::atomic_ref<std::uint16_t>(x).load(std::memory_order_relaxed);
}
void store16(std::uint16_t& x, std::size_t v) noexcept {
  std::atomic_ref<std::uint16_t>(x).store(static_cast<std::uint16_t>(v), std::memory_order_relaxed);
}
// The counts before boundary j (j <= valid).
text_counts leaf_at(std::uint16_t* q, std::size_t j) noexcept {
  return {load16(q[3 * j]), load16(q[3 * j + 1]), load16(q[3 * j + 2])};
}

// Counts blocks [from, upto) of c (from <= valid, upto * LB <= c->used)
// into the index and publishes them; stops early, after the first block
// whose end has more than `stop` items of metric m (stop == npos: never).
// Returns the last boundary written (from when none).
std::size_t leaf_extend(const chunk* c, leaf_index* li, std::size_t from, std::size_t upto,
                        text_metric m, std::size_t stop) noexcept {
  std::uint16_t* q = leaf_index_counts(li);
  text_counts t = leaf_at(q, from);
  std::size_t j = from;
  while (j < upto) {
    add(t, count_text(c->data + j * LB, LB));
    ++j;
    store16(q[3 * j], t.chars);
    store16(q[3 * j + 1], t.newlines);
    store16(q[3 * j + 2], t.astral);
    if (weight(t, m) > stop) break;
  }
  std::uint16_t cur = li->valid.load(std::memory_order_relaxed);
  while (cur < j &&
         !li->valid.compare_exchange_weak(cur, static_cast<std::uint16_t>(j),
                                          std::memory_order_release, std::memory_order_relaxed)) {}
  return j;
}

// Metrics of c's bytes [0, x) through its leaf index: the entry of the block
// holding x (counting the blocks up to it if needed) and a scan of less
// than one block.
text_counts leaf_prefix(const chunk* c, leaf_index* li, std::size_t x) noexcept {
  const std::size_t j = x / LB;
  const std::size_t v = li->valid.load(std::memory_order_acquire);
  if (v < j) leaf_extend(c, li, v, j, text_metric::chars, static_cast<std::size_t>(-1));
  text_counts r = leaf_at(leaf_index_counts(li), j);
  if (x > j * LB) add(r, count_text(c->data + j * LB, x - j * LB));
  return r;
}

// A query by byte (rope_prefix) counts at most this many blocks past the
// index's frontier into it, and the rest of the way to its position in one
// pass. Counting a block into the index is a kernel call of its own (about
// seven times the cost of passing over the same 128 bytes inside a longer
// count), so a query far past the frontier of a leaf that edits keep
// truncating (edits and queries at unrelated places) would pay several times
// the plain scan; a leaf queried again without edits still gets its index
// filled in, leaf_query_blocks blocks per query.
constexpr std::size_t leaf_query_blocks = 2;

// The same counts as leaf_prefix(c, li, x), extending the index by at most
// leaf_query_blocks blocks.
text_counts leaf_prefix_query(const chunk* c, leaf_index* li, std::size_t x) noexcept {
  const std::size_t v = li->valid.load(std::memory_order_acquire);
  const std::size_t j = std::min(x / LB, v + leaf_query_blocks);
  if (v < j) leaf_extend(c, li, v, j, text_metric::chars, static_cast<std::size_t>(-1));
  text_counts r = leaf_at(leaf_index_counts(li), j);
  if (x > j * LB) add(r, count_text(c->data + j * LB, x - j * LB));
  return r;
}

// Item weight of metric m before boundary j (j <= valid): one or two loads.
std::size_t leaf_weight(std::uint16_t* q, std::size_t j, text_metric m) noexcept {
  switch (m) {
    case text_metric::chars: return load16(q[3 * j]);
    case text_metric::newlines: return load16(q[3 * j + 1]);
    case text_metric::utf16: break;
  }
  return load16(q[3 * j]) + load16(q[3 * j + 2]);
}

// A scan from the index's frontier longer than this many blocks counts the
// blocks it crossed into the index, so that the next query there is a lookup.
constexpr std::size_t leaf_scan_blocks = 2;

// Position (relative to off) in c's bytes [off, off + len) of item k of
// metric m, or len when the range holds k items or fewer. The index's
// frontier (the first boundary not known, where the last edit wrote) is
// where editing happens, so the search starts there: an item past it is
// scanned for from the frontier (and the blocks crossed are counted into the
// index when that scan was long); an item before it is found by galloping
// down the known boundaries, then a scan of at most one block.
std::size_t leaf_index_nth(const chunk* c, leaf_index* li, std::size_t off, std::size_t len,
                           text_metric m, std::size_t k) noexcept {
  const std::size_t end = off + len, first = off / LB, last = end / LB;
  std::uint16_t* q = leaf_index_counts(li);
  const std::size_t base = off == 0 ? 0 : weight(leaf_prefix(c, li, off), m);
  const std::size_t target = base + k;
  const std::size_t hi = std::min<std::size_t>(li->valid.load(std::memory_order_acquire), last);
  std::size_t skipped = 0;
  if (hi > first && leaf_weight(q, hi, m) <= target) {
    // At or past the frontier: scan from it.
    const std::size_t seen = leaf_weight(q, hi, m);
    const std::size_t at = hi * LB;
    const std::size_t r = nth_item(c->data + at, end - at, m, target - seen, skipped);
    if (r > leaf_scan_blocks * LB && hi < last)
      leaf_extend(c, li, hi, std::min(last, (at + r) / LB), text_metric::chars,
                  static_cast<std::size_t>(-1));
    return at + r - off;
  }
  // Before the frontier (or no boundary inside the range is known): the
  // largest boundary j in (first, hi] with at most target items before it,
  // galloping down from hi (the item is usually near the frontier).
  std::size_t lo = first, top = hi > first ? hi - 1 : first;  // the answer is in [lo, top]
  for (std::size_t step = 1; top > lo; step *= 2) {
    const std::size_t j = top - lo > step ? top - step + 1 : lo + 1;
    if (leaf_weight(q, j, m) <= target) {
      lo = j;
      break;
    }
    top = j - 1;
  }
  while (lo < top) {
    const std::size_t mid = lo + (top - lo + 1) / 2;
    if (leaf_weight(q, mid, m) <= target) {
      lo = mid;
    } else {
      top = mid - 1;
    }
  }
  if (lo == first && hi == first && last > first + leaf_scan_blocks) {
    // Nothing known inside the range: count it into the index while the
    // item may lie beyond, then search again (from the new frontier).
    // (valid == first here: leaf_prefix made it reach first.)
    if (leaf_extend(c, li, first, last, m, target) > first)
      return leaf_index_nth(c, li, off, len, m, k);
  }
  const std::size_t start = lo > first ? lo * LB : off;
  const std::size_t seen = lo > first ? leaf_weight(q, lo, m) : base;
  return start - off + nth_item(c->data + start, end - start, m, target - seen, skipped);
}

text_counts edge_counts(const edge& e) noexcept {
  if (e.known()) return {e.chars, e.newlines, e.astral};
  // Only a flat root may be unknown.
  return chunk_counts(static_cast<const chunk*>(e.p), e.off, e.len);
}

}  // namespace

// Whether item k of metric m in the leaf e is simply byte k: every byte
// of e is a char (no continuation byte) and, for UTF-16, none is astral, as
// in ASCII text. Then a conversion needs no scan at all.

// Position in the leaf e of its item k of metric m, or e.len when it has k
// items or fewer.
std::size_t leaf_nth_scan(const edge& e, text_metric m, std::size_t k) noexcept {
  // A leaf-sized chunk resolves through its leaf index (see leaf_index):
  // near the last edit by char, a step from its end; else a lookup.
  if (e.len > 2 * LB) {
    const chunk* c = static_cast<const chunk*>(e.p);
    if (leaf_index* li = leaf_index_of(c)) {
      if (e.known() && k >= weight(counts_of(e), m)) return e.len;
      if (m == text_metric::chars && e.off == li->hint_off && li->hint <= e.off + e.len) {
        const std::size_t r =
            step_from_hint(c->data + e.off, e.len, li->hint - e.off, li->hint_chars, k);
        if (r != static_cast<std::size_t>(-1)) return r;
      }
      return leaf_index_nth(c, li, e.off, e.len, m, k);
    }
  }
  // A leaf whose count is known is scanned from the nearer end (the item's
  // rank against half the count), unless the chunk's block index covers the
  // item's part of the leaf (then chunk_nth scans at most one block).
  if (e.known() && e.len <= 2 * leaf_max_bytes) {
    const std::size_t total = weight(counts_of(e), m);
    if (k >= total) return e.len;
    const chunk* c = static_cast<const chunk*>(e.p);
    const chunk_index* ix =
        e.len >= index_min_range ? c->index.load(std::memory_order_acquire) : nullptr;
    // Where the item lies, about (k * len < 2^26: no overflow).
    const bool indexed = ix && ix->blocks * index_block > e.off + k * e.len / total + index_block;
    if (!indexed && 2 * k >= total) return nth_item_back(c->data + e.off, e.len, m, total - 1 - k);
    if (!indexed) {
      std::size_t skipped = 0;
      return nth_item(c->data + e.off, e.len, m, k, skipped);
    }
  }
  return chunk_nth(static_cast<const chunk*>(e.p), e.off, e.len, m, k);
}

metric_hit descend_metric(const edge& root, text_metric m, std::size_t k, unsigned* idx) noexcept {
  switch (m) {
    case text_metric::chars: return descend_by<text_metric::chars>(root, k, idx);
    case text_metric::newlines: return descend_by<text_metric::newlines>(root, k, idx);
    case text_metric::utf16: break;
  }
  return descend_by<text_metric::utf16>(root, k, idx);
}

// Position of item k of metric m in the rope `root` (non-empty), or npos
// when it has k items or fewer.
std::size_t rope_nth(const edge& root, text_metric m, std::size_t k) noexcept {
  const metric_hit h = descend_metric(root, m, k, nullptr);
  if (!h.leaf) return rope::npos;
  const std::size_t r = leaf_nth(*h.leaf, m, h.k);
  return r == h.leaf->len ? rope::npos : h.lo + r;
}

std::size_t leaf_nth_from_scan(const edge& e, text_metric m, std::size_t r,
                               std::size_t n) noexcept {
  std::size_t skipped = 0;
  const chunk* c = static_cast<const chunk*>(e.p);
  // A few chars on (a keystroke's delete): stepped over, no vector scan.
  if (m == text_metric::chars && n <= hint_reach)
    return step_from_hint(c->data + e.off, e.len, r, 0, n);
  return r + nth_item(c->data + e.off + r, e.len - r, m, n, skipped);
}

// Positions of items k and k + n of metric m (each npos when the rope has
// too few): one descent to item k; item k + n is looked for in the same
// leaf first (a second descent only when it lies beyond).
std::pair<std::size_t, std::size_t> rope_nth_pair(const edge& root, text_metric m, std::size_t k,
                                                  std::size_t n) noexcept {
  const metric_hit h = descend_metric(root, m, k, nullptr);
  if (!h.leaf) return {rope::npos, rope::npos};
  const std::size_t r = leaf_nth(*h.leaf, m, h.k);
  if (r == h.leaf->len) return {rope::npos, rope::npos};
  if (n == 0) return {h.lo + r, h.lo + r};
  const std::size_t r2 = leaf_nth_from(*h.leaf, m, r, n);
  if (r2 < h.leaf->len) return {h.lo + r, h.lo + r2};
  return {h.lo + r, n > static_cast<std::size_t>(-1) - k ? rope::npos : rope_nth(root, m, k + n)};
}

namespace {

// Metrics of the rope's bytes [0, pos), pos <= root.len. With
// !want_newlines the newline count may be left short (a leaf of one char per
// byte then needs no scan).
// When `leaf` is given, it receives the leaf that holds byte pos and pos's
// place in it (bytes [0, len) of the leaf are those before pos); it is left
// alone when pos == root.len.
text_counts rope_prefix(const edge& root, std::size_t pos, bool want_newlines = true,
                        leaf_view* leaf = nullptr) noexcept {
  if (!root.p) return {};
  if (pos == root.len) return edge_counts(root);
  text_counts r;
  const edge* e = &root;
  while (e->p->height > 0) {
    const inner* n = static_cast<const inner*>(e->p);
    unsigned i = 0;
    while (pos >= n->child[i].len) {
      add(r, edge_counts(n->child[i]));
      pos -= n->child[i++].len;
    }
    e = &n->child[i];
  }
  if (leaf) *leaf = leaf_view{static_cast<const chunk*>(e->p)->data + e->off, 0, pos};
  if (!want_newlines && one_per_byte(*e, text_metric::utf16)) {
    r.chars += pos;
    return r;
  }
  const chunk* c = static_cast<const chunk*>(e->p);
  leaf_index* li = pos > 2 * LB ? leaf_index_of(c) : nullptr;
  add(r, li ? leaf_prefix_query(c, li, e->off + pos) - leaf_prefix_query(c, li, e->off)
            : chunk_counts(c, e->off, pos));
  return r;
}

// How many bytes around a position the (line, column) conversions scan in
// its leaf before they fall back to lookups by metric: a few lines of
// source text, about what one more descent costs to scan.
constexpr std::size_t line_scan_max = 256;

// The last '\n' in [p, p + n), or null.
const char* last_newline(const char* p, std::size_t n) noexcept {
#if defined(__GLIBC__)
  return static_cast<const char*>(::memrchr(p, '\n', n));
#else
  while (n > 0)
    if (p[--n] == '\n') return p + n;
  return nullptr;
#endif
}

// The column `column` (UTF-16 units, > 0) of the line whose text starts at
// p (a char start), within [p, p + n): the start of the char holding that
// unit, or where the line's text ends (its '\n'; with crlf, the '\r' before
// it) when the line is shorter. npos (-1) when neither lies in [p, p + n)
// (the last char seen may go on past it).
std::size_t line_column_in(const char* p, std::size_t n, std::size_t column, bool crlf) noexcept {
  const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
  std::size_t end = nl ? static_cast<std::size_t>(nl - p) : n;
  if (crlf && nl && end > 0 && p[end - 1] == '\r') --end;
  // The char holding unit `column`, through the counting kernel (a vector
  // of bytes per step; a loop over the line's bytes took about seven
  // instructions a byte, most of the call). The kernel counts on past the
  // line's end when the line is shorter: all n bytes are given it, since
  // the units before `end` are the line's either way, and a range cut at
  // `end` would leave its last partial vector to the byte-by-byte tail.
  std::size_t skipped = 0;
  const std::size_t i = nth_item(p, n, text_metric::utf16, column, skipped);
  if (i < end) return i;
  // The line's text ends within [p, p + n): the column is at or past it,
  // unless the last char's bytes run on past the scan (no '\n' seen).
  return nl ? end : static_cast<std::size_t>(-1);
}

}  // namespace

void check_line_index(const char* fn, std::size_t i, std::size_t lines) {
  if (i < lines) return;
  throw_out_of_range(fn, "i", i, ">=", "line_count()", lines);
}

bool leaf_index_ok(const chunk* c) noexcept {
  leaf_index* li = leaf_index_of(c);
  if (!li) return true;
  const std::size_t v = li->valid.load(std::memory_order_acquire);
  if (v * LB > c->used) return false;
  std::uint16_t* q = leaf_index_counts(li);
  const text_counts zero = leaf_at(q, 0);
  if (zero.chars || zero.newlines || zero.astral) return false;
  for (std::size_t j = 0; j < v; ++j) {
    const text_counts t = count_text(c->data + j * LB, LB);
    const text_counts d = leaf_at(q, j + 1) - leaf_at(q, j);
    if (d.chars != t.chars || d.newlines != t.newlines || d.astral != t.astral) return false;
  }
  return true;
}

void fill_metrics(edge& e) noexcept {
  if (e.known()) return;
  text_counts t;
  if (e.p->height == 0) {
    t = chunk_counts(static_cast<const chunk*>(e.p), e.off, e.len);
  } else {
    inner* n = static_cast<inner*>(e.p);
    for (unsigned i = 0; i < n->count; ++i) {
      fill_metrics(n->child[i]);
      add(t, text_counts{n->child[i].chars, n->child[i].newlines, n->child[i].astral});
    }
  }
  e.chars = t.chars;
  e.newlines = t.newlines;
  e.astral = t.astral;
}

void rope_engine::settle(rope& r) noexcept {
  if (r.root_.p && r.root_.p->height > 0) {
    fill_metrics(r.root_);
    // The operation may have changed the tree anywhere: the cursor goes
    // (a shared root was not changed, and its cursor is its other owners').
    if (unique(r.root_.p)) static_cast<inner*>(r.root_.p)->cursor.depth = 0;
  }
}

}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

using detail::text_metric;

rope::size_type rope::char_count() const noexcept {
  return root_.p ? detail::edge_counts(root_).chars : 0;
}
rope::size_type rope::line_count() const noexcept {
  return (root_.p ? detail::edge_counts(root_).newlines : 0) + 1;
}
rope::size_type rope::utf16_count() const noexcept {
  if (!root_.p) return 0;
  const detail::text_counts t = detail::edge_counts(root_);
  return t.chars + t.astral;
}

rope::size_type rope::byte_to_char(size_type pos) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::byte_to_char", "pos", pos, ">", "size()", size());
  return detail::rope_prefix(root_, pos, false).chars;
}
rope::size_type rope::byte_to_line(size_type pos) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::byte_to_line", "pos", pos, ">", "size()", size());
  return detail::rope_prefix(root_, pos).newlines;
}
rope::size_type rope::byte_to_utf16(size_type pos) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::byte_to_utf16", "pos", pos, ">", "size()", size());
  const detail::text_counts t = detail::rope_prefix(root_, pos, false);
  return t.chars + t.astral;
}

rope::size_type rope::char_to_byte(size_type i) const {
  const size_type total = char_count();
  if (i > total)
    detail::throw_out_of_range("fl::rope::char_to_byte", "i", i, ">", "char_count()", total);
  return i == total ? size() : detail::rope_nth(root_, text_metric::chars, i);
}
rope::size_type rope::utf16_to_byte(size_type u) const {
  const size_type total = utf16_count();
  if (u > total)
    detail::throw_out_of_range("fl::rope::utf16_to_byte", "u", u, ">", "utf16_count()", total);
  return u == total ? size() : detail::rope_nth(root_, text_metric::utf16, u);
}
rope::size_type rope::line_to_byte(size_type line) const {
  const size_type lines = line_count();
  if (line > lines)
    detail::throw_out_of_range("fl::rope::line_to_byte", "line", line, ">", "line_count()", lines);
  if (line == 0) return 0;
  if (line == lines) return size();
  return detail::rope_nth(root_, text_metric::newlines, line - 1) + 1;
}

rope::size_type rope::chars_after(size_type pos, size_type n) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::chars_after", "pos", pos, ">", "size()", size());
  if (pos == size()) return size();
  // The char holding pos is item byte_to_char(pos + 1) - 1 (with no char
  // before pos + 1, the count starts at the first char).
  const size_type upto = detail::rope_prefix(root_, pos + 1, false).chars;
  const size_type k = upto ? upto - 1 : 0;
  const size_type total = char_count();
  if (n >= total - k) return size();
  return detail::rope_nth_pair(root_, text_metric::chars, k, n).second;
}

rope::size_type rope::utf16_after(size_type pos, size_type n) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::utf16_after", "pos", pos, ">", "size()", size());
  if (pos == size()) return size();
  // The first unit of the char holding pos: the units up to and including
  // that char, less its width (two for an astral lead byte).
  const detail::text_counts t = detail::rope_prefix(root_, pos + 1, false);
  size_type k = 0;
  if (t.chars > 0) {
    size_type c = pos;
    if (detail::continuation((*this)[c])) c = detail::rope_nth(root_, text_metric::chars, t.chars - 1);
    k = t.chars + t.astral - detail::utf8_utf16_units(static_cast<unsigned char>((*this)[c]));
  }
  const size_type total = utf16_count();
  if (n >= total - k) return size();
  return detail::rope_nth_pair(root_, text_metric::utf16, k, n).second;
}

rope::size_type rope::char_to_line(size_type i) const { return byte_to_line(char_to_byte(i)); }
rope::size_type rope::line_to_char(size_type line) const {
  return byte_to_char(line_to_byte(line));
}

rope::line_column rope::byte_to_line_column(size_type pos) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::byte_to_line_column", "pos", pos, ">", "size()", size());
  if (mode_ != line_break::lf) pos = detail::rope_engine::crlf_text_position(*this, pos);
  detail::leaf_view v{nullptr, 0, 0};
  const detail::text_counts at = detail::rope_prefix(root_, pos, true, &v);
  const size_type line = at.newlines;
  // The line's start found within the leaf of pos, at most line_scan_max
  // bytes back: the column is the UTF-16 units of the bytes between, so the
  // call costs one descent. (Lines that start further back, or in an
  // earlier leaf, take the two lookups below.)
  if (const std::size_t back = std::min(v.len, detail::line_scan_max)) {
    if (const char* nl = detail::last_newline(v.data + v.len - back, back)) {
      const detail::text_counts col =
          detail::count_text(nl + 1, static_cast<std::size_t>(v.data + v.len - nl - 1));
      return {line, col.chars + col.astral};
    }
  }
  const size_type start = line_to_byte(line);
  const detail::text_counts before = detail::rope_prefix(root_, start, false);
  return {line, at.chars + at.astral - before.chars - before.astral};
}

rope::size_type rope::line_column_to_byte(line_column lc) const {
  const size_type lines = line_count();
  if (lc.line >= lines)
    detail::throw_out_of_range("fl::rope::line_column_to_byte", "line", lc.line, ">",
                               "line_count() - 1", lines - 1);
  // One descent to the line's '\n' before it, then the line's own bytes in
  // that leaf, up to the column or the line's end: when the line's end (or
  // the column) lies in the same leaf within line_scan_max bytes, that is
  // the whole call.
  constexpr text_metric newlines = text_metric::newlines;
  const char* data;  // the leaf holding byte `start`, from byte `start` on
  std::size_t left;  // its bytes from `start` on
  size_type start;
  if (lc.line == 0) {
    start = 0;
    const detail::leaf_view v = detail::seek_or_end(root_, 0);
    data = v.data;
    left = v.len;
  } else {
    const detail::metric_hit h = detail::descend_metric(root_, newlines, lc.line - 1, nullptr);
    const std::size_t r = detail::leaf_nth(*h.leaf, newlines, h.k) + 1;
    start = h.lo + r;
    data = static_cast<const detail::chunk*>(h.leaf->p)->data + h.leaf->off + r;
    left = h.leaf->len - r;
  }
  if (lc.column == 0) return start;
  if (left > 0 && !detail::continuation(data[0])) {
    const size_type hit = detail::line_column_in(data, std::min(left, detail::line_scan_max),
                                                 lc.column, mode_ != line_break::lf);
    if (hit != npos) return start + hit;
  }
  const size_type eol = line_end(lc.line);
  if (start == eol) return start;
  return std::min(utf16_after(start, lc.column), eol);
}

rope rope::line(size_type i) const {
  detail::check_line_index("fl::rope::line", i, line_count());
  const size_type from = line_to_byte(i);
  return substr(from, line_to_byte(i + 1) - from);
}

}  // namespace FL_ROPE_NS

namespace detail {
inline namespace FL_ROPE_NS {

std::size_t rope_count(const rope& r, char ch) noexcept {
  std::size_t n = 0;
  for (std::string_view c : r.chunks()) n += count_byte(c.data(), c.size(), ch);
  return n;
}

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
