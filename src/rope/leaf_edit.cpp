// src/rope/leaf_edit.cpp: fl::rope's edits inside one leaf found by a
// descent, with no split and no join: the leaf's bytes rewritten in place
// when its chunk is unique and has room (and cut at the cursor while typing
// goes on there: cut_leaf, shift_left), else the leaf replaced by up to
// three pieces (a window of copied bytes between the kept head and tail).
// One body, edit_leaf, inlined into its two entries: by byte (edit_in_leaf,
// which rope_engine::splice in edit.cpp tries first) and by char
// (rope_engine::replace_chars_in_leaf, whose descent finds the leaf by
// chars). The keystroke at the root's cursor, with no descent, is
// cursor_edit.cpp's.
#include "rope/rope_impl.hpp"

#include "rope/metrics.hpp"

#include <cstring>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

namespace {

// Replaces the child at index `at` of the writable node n by the k (1..3)
// owned edges `pieces`. If n overflows, n keeps the left half, the spare node
// r (height set here) takes the rest and is returned as an owned edge;
// otherwise r is untouched and the empty edge is returned.
edge replace_child(inner* n, unsigned at, const edge* pieces, unsigned k, inner* r) noexcept {
  const unsigned total = n->count + k - 1;
  if (total <= max_children) {
    for (unsigned i = n->count; i-- > at + 1;) n->child[i + k - 1] = n->child[i];
    for (unsigned j = 0; j < k; ++j) n->child[at + j] = pieces[j];
    n->count = static_cast<std::uint16_t>(total);
    return edge{};
  }
  edge all[max_children + 2];
  unsigned m = 0;
  for (unsigned i = 0; i < n->count; ++i) {
    if (i != at) {
      all[m++] = n->child[i];
      continue;
    }
    for (unsigned j = 0; j < k; ++j) all[m++] = pieces[j];
  }
  // total <= max_children + 2 <= 2 * max_children, so both halves get
  // between min_children and max_children edges.
  const unsigned left = total / 2;
  n->count = static_cast<std::uint16_t>(left);
  for (unsigned i = 0; i < left; ++i) n->child[i] = all[i];
  r->height = n->height;
  r->count = 0;
  for (unsigned i = left; i < total; ++i) r->child[r->count++] = all[i];
  return edge{r, 0, node_len(r)};
}

// A leaf of at most this many bytes that cannot be edited in place is
// copied whole; a longer one is cut around the edit (a window of at most
// 2.5 window_block old bytes is copied), so that an edit of a shared 4 KiB
// leaf, the first edit after a copy of the rope, copies an eighth to about
// a half of it.
constexpr std::size_t copy_whole_max = leaf_max_bytes / 2;
// The window's ends lie on multiples of this in the chunk: index_block, so
// that the kept pieces' metrics are exact lookups in the chunk's index, or
// less in the tiny-leaf test builds, whose index blocks are a whole leaf
// (3 window_block + text <= leaf_max_bytes <= leaf_edit_max, so the window
// always fits a fresh chunk).
constexpr std::size_t window_block = std::min(index_block, leaf_max_bytes / 4);
static_assert(3 * window_block + leaf_max_bytes / 4 <= leaf_edit_max);

// The bytes [lo, hi) of the chunk to copy for an edit of [p, p + n) of the
// leaf viewing chunk bytes [off, off + len): at least a quarter block of
// context on each side of the edit (so that typing on, or an edit just
// before, stays in the window) where the leaf has it, rounded out to
// window_block boundaries. Context is what keeps the window non-empty: lo <
// off + p unless p == 0, hi > off + p + n unless the edit reaches the end.
// An end that would fall inside a "\r\n" of the chunk's bytes `data` moves
// out by one byte, so that the pieces never split a line break
// (line_break::lf_crlf's invariant).
struct window {
  std::size_t lo, hi;
};
window edit_window(const char* data, std::size_t off, std::size_t len, std::size_t p,
                   std::size_t n) noexcept {
  constexpr std::size_t W = window_block, margin = W / 4 > 0 ? W / 4 : 1;
  const std::size_t from = off + p, to = off + p + n, end = off + len;
  std::size_t lo = std::max(from - off > margin ? (from - margin) / W * W : off, off);
  std::size_t hi = std::min(end - to > margin ? (to + margin + W - 1) / W * W : end, end);
  if (lo > off && data[lo - 1] == '\r' && data[lo] == '\n') --lo;
  if (hi < end && data[hi - 1] == '\r' && data[hi] == '\n') ++hi;
  return {lo, hi};
}

// New inner nodes that replacing the leaf under path[depth - 1] (depth >=
// 1) by k (1..3) pieces may take: the parent overflows if it gains k - 1
// edges, then each full ancestor, then the root (a new root above it).
unsigned pieces_need(inner* const* path, unsigned depth, unsigned k) noexcept {
  if (path[depth - 1]->count + k - 1 <= max_children) return 0;
  unsigned need = 1;
  unsigned d = depth - 1;
  while (d > 0 && path[d - 1]->count == max_children) {
    ++need;
    --d;
  }
  return d == 0 ? need + 1 : need;
}

// Allocates `need` inner nodes into spare. Throws std::bad_alloc with
// those it got freed.
void get_spares(inner** spare, unsigned need) {
  unsigned got = 0;
  try {
    for (; got < need; ++got) spare[got] = new_inner(0);
  } catch (...) {
    for (unsigned i = 0; i < got; ++i) rope_deallocate(spare[i], sizeof(inner));
    throw;
  }
}

// A fresh chunk with room for `bytes` and `need` spare nodes in `spare`, or
// neither: everything an edit allocates, before its first write.
chunk* chunk_and_spares(std::size_t bytes, inner** spare, unsigned need) {
  // (bytes may pass leaf_edit_max: the tail of a flat root cut at a cursor
  // near its start, cut_flat.)
  chunk* f = new_chunk(std::max(bytes, fresh_leaf_cap(bytes)));
  try {
    get_spares(spare, need);
  } catch (...) {
    rope_deallocate(f, chunk_bytes(f->cap));
    throw;
  }
  return f;
}

// Puts the k owned pieces in place of the leaf edge under path[depth - 1]
// (depth >= 1; the writable path from the root, up[d] the edge to path[d],
// idx the child taken at each level), an edit that replaced n bytes by ins.
// Bottom-up: each level takes the overflow sibling of the level below right
// after the child it came from (from the `need` spare nodes, pieces_need),
// and fixes the length of its edge, whose metrics become unknown (the
// caller settles them). Unused spares are freed.
void put_pieces(edge& root, inner* const* path, edge* const* up, const unsigned* idx,
                unsigned depth, const edge* pieces, unsigned k, inner* const* spare,
                unsigned need, std::size_t ins, std::size_t n) noexcept {
  unsigned s = 0;
  edge carry{};
  for (unsigned d = depth; d-- > 0;) {
    inner* nd = path[d];
    if (d + 1 == depth) {
      carry = replace_child(nd, idx[d], pieces, k, s < need ? spare[s] : nullptr);
    } else if (carry.p) {
      const edge two[2] = {nd->child[idx[d]], carry};
      carry = replace_child(nd, idx[d], two, 2, s < need ? spare[s] : nullptr);
    }
    if (carry.p) {
      ++s;
      up[d]->len = node_len(nd);
    } else {
      up[d]->len = up[d]->len + ins - n;
    }
    up[d]->forget();
  }
  if (carry.p) {
    inner* r = spare[s++];
    r->height = static_cast<std::uint8_t>(root.p->height + 1);
    r->child[0] = root;
    r->child[1] = carry;
    r->count = 2;
    root = edge{r, 0, root.len + carry.len};
  }
  for (; s < need; ++s) rope_deallocate(spare[s], sizeof(inner));
}

// The cut: of the unique chunk c of the leaf edge under path[depth - 1]
// (with room: an in-place edit), bytes [0, p), then `text`, make the first
// piece and bytes [p + n, len) the second. With copy_tail, c keeps the
// first (the text written in place) and the second is copied to a fresh
// chunk; with copy_head, the first is copied to a fresh chunk and c keeps
// the second (see cursor_split_min). At depth 0 the leaf is the flat
// root, and a new root node holds the two. chars_before as for edit_leaf.
// Allocates before the first write: a throw changes nothing.
[[gnu::noinline]] void cut_leaf(edge& root, inner* const* path, edge* const* up,
                                const unsigned* idx, unsigned depth, std::size_t p, std::size_t n,
                                std::string_view text, std::size_t chars_before, cursor_cut how) {
  edge& leaf = depth == 0 ? root : path[depth - 1]->child[idx[depth - 1]];
  chunk* c = static_cast<chunk*>(leaf.p);
  const std::size_t ins = text.size(), tail = leaf.len - p - n;
  const bool copy_tail = how == cursor_cut::copy_tail;
  const unsigned need = depth == 0 ? 1 : pieces_need(path, depth, 2);
  inner* spare[max_depth + 1];
  chunk* g = chunk_and_spares(copy_tail ? tail : p + ins, spare, need);
  char* base = c->data + leaf.off;
  // The pieces' metrics: the shorter side is counted, the other is the
  // leaf's minus it (and minus the bytes replaced, plus the text).
  const text_counts add = ins ? count_text(text.data(), ins) : text_counts{};
  const text_counts sub = n ? count_text(base + p, n) : text_counts{};
  const text_counts whole{leaf.chars, leaf.newlines, leaf.astral};
  text_counts head, back;
  if (tail <= p) {
    back = count_text(base + p + n, tail);
    head = whole - back - sub + add;
  } else {
    const text_counts a = p ? count_text(base, p) : text_counts{};
    head = a + add;
    back = whole - a - sub;
  }
  edge pieces[2];
  if (copy_tail) {
    std::memcpy(g->data, base + p + n, tail);
    g->used = tail;
    note_rewrite(c, leaf.off, p, p + ins, chars_before, add);
    if (ins) std::memcpy(base + p, text.data(), ins);
    c->used = leaf.off + p + ins;
    pieces[0] = edge{c, leaf.off, p + ins};
    pieces[1] = edge{g, 0, tail};
  } else {
    std::memcpy(g->data, base, p);
    if (ins) std::memcpy(g->data + p, text.data(), ins);
    g->used = p + ins;
    set_hint(g, 0, p + ins, chars_before, add);
    drop_hint(c);  // c keeps its bytes from p + n on
    pieces[0] = edge{g, 0, p + ins};
    pieces[1] = edge{c, leaf.off + p + n, tail};
  }
  set_counts(pieces[0], head);
  set_counts(pieces[1], back);
  if (depth == 0) {
    inner* m = spare[0];
    m->height = 1;
    m->count = 2;
    m->child[0] = pieces[0];
    m->child[1] = pieces[1];
    root = edge{m, 0, pieces[0].len + pieces[1].len};
    return;
  }
  put_pieces(root, path, up, idx, depth, pieces, 2, spare, need, ins, n);
}

// The left sibling of the leaf `e` (child `at` of the writable node
// `parent`) when the first piece of a copy_head cut at the cursor (bytes
// [0, p) of e and `text`) can go to its end instead of a fresh chunk: its
// chunk unique (bytes past its end belong to nobody) with room, the leaf
// no longer than leaf_edit_max after it. Else null.
inline edge* shift_target(inner* parent, unsigned at, std::size_t p,
                          std::string_view text) noexcept {
  if (at == 0) return nullptr;
  edge& left = parent->child[at - 1];
  const chunk* lc = static_cast<const chunk*>(left.p);
  const std::size_t head = p + text.size();
  if (!unique(lc) || !left.known() || left.len + head > leaf_edit_max ||
      lc->cap - (left.off + left.len) < head || overlaps(text, lc))
    return nullptr;
  return &left;
}

// The shift (see shift_target): bytes [0, p) of the leaf edge `leaf` and
// then `text` are appended to its left sibling `left`; the leaf keeps bytes
// [p + n, len). up[0..depth) are the writable path's edges above them,
// whose lengths and metrics change by the edit's alone. Returns the left
// leaf's bytes and chars before the edit (for the root's cursor).
[[gnu::noinline]] std::pair<std::size_t, std::size_t> shift_left(edge& leaf, edge& left,
                                                                 edge* const* up, unsigned depth,
                                                                 std::size_t p, std::size_t n,
                                                                 std::string_view text) noexcept {
  chunk* c = static_cast<chunk*>(leaf.p);
  chunk* lc = static_cast<chunk*>(left.p);
  const char* old = c->data + leaf.off;
  const std::size_t ins = text.size(), end = left.off + left.len;
  const std::pair<std::size_t, std::size_t> before{left.len, left.chars};
  const text_counts head = p ? count_text(old, p) : text_counts{};
  const text_counts add = ins ? count_text(text.data(), ins) : text_counts{};
  const text_counts sub = n ? count_text(old + p, n) : text_counts{};
  if (end < lc->used) index_truncate(lc, end);
  std::memcpy(lc->data + end, old, p);
  if (ins) std::memcpy(lc->data + end + p, text.data(), ins);
  lc->used = end + p + ins;
  set_hint(lc, left.off, left.len + p + ins, left.chars + head.chars, add);
  set_counts(left, counts_of(left) + head + add);
  left.len += p + ins;
  drop_hint(c);  // c keeps its bytes from p + n on
  set_counts(leaf, counts_of(leaf) - head - sub);
  leaf.off += p + n;
  leaf.len -= p + n;
  shift_path(up, depth, n, ins, add, sub);
  return before;
}

// What an in-leaf edit (edit_leaf) tells its caller about the leaf that
// holds its text, for the root's cursor: whether the tree kept its shape,
// so that the child indexes of the descent still lead to that leaf; and
// when the text went to the end of the left sibling (shift_left), that
// sibling's bytes and chars before the edit.
struct leaf_landing {
  bool kept_shape = false;
  bool to_left = false;
  std::size_t left_bytes = 0, left_chars = 0;
};

// The root's cursor at the leaf an edit that kept the tree's shape wrote:
// the one under idx, with char_lo chars (npos: not counted) and byte_lo
// bytes before it, the text ending at its byte hint_r after hint_k chars
// (cursor_no_hint: not counted); or its left sibling, when the text went
// there (idx's last index is moved to it).
inline rope_cursor landing_cursor(const leaf_landing& l, unsigned* idx, unsigned depth,
                                  std::size_t char_lo, std::size_t byte_lo, std::size_t hint_r,
                                  std::size_t hint_k) noexcept {
  if (l.to_left) {
    --idx[depth - 1];
    byte_lo -= l.left_bytes;
    hint_r += l.left_bytes;
    if (char_lo != static_cast<std::size_t>(-1)) char_lo -= l.left_chars;
    if (hint_k != cursor_no_hint) hint_k += l.left_chars;
  }
  return cursor_at(idx, depth, char_lo, byte_lo, hint_r, static_cast<std::uint16_t>(hint_k));
}

// The splice of bytes [pos, pos + n) of the rope `root` (a tree, or a flat
// chunk too big for flat_edit_max) into
// `text`, done on the one leaf that holds the range: the nodes on the path
// are made writable (copied when shared), the leaf is rewritten in place when
// its chunk is unique and roomy; a leaf of at most copy_whole_max bytes
// that cannot be is copied whole to a fresh chunk with room up to
// leaf_edit_max (so that the next edits nearby are in place). A longer leaf
// (shared, or outgrowing leaf_edit_max) becomes up to three edges: a fresh
// chunk holding the text and a window of old bytes around it, between
// pieces that keep sharing the old chunk, with full nodes split on the way
// up. The window's ends lie on index blocks of the old chunk (see
// edit_window), so the kept pieces' metrics are exact index lookups. O(height
// + leaf_max_bytes), no tree is split or joined. Returns false, with the
// content unchanged, when the edit is not of that kind (range across leaves,
// text longer than leaf_max_bytes / 4, a leaf that would become empty).
// Allocates everything it needs before the first write, so a throw leaves
// the content unchanged (path copies are equal to what they replace).
//
// edit_leaf is the same edit on a leaf already found: e (rope offset lo)
// reached from root through the child indexes idx, as descend() or
// descend_metric() give them. An edit by char passes the chars of the leaf
// before the range (else npos): the chunk that ends up holding the text
// keeps where it ends as its leaf index's hint, for the next keystroke.
// With `landing`, it is told whether the edit left the tree's shape as it
// was (the leaf rewritten in place or copied into the same slot, or its
// head shifted to the left sibling), so that idx still leads to the leaf
// holding the text, or to its right neighbour (see leaf_landing).
//
// The body is written once (edit_leaf) and inlined into both entries
// (edit_in_leaf, rope_engine::replace_chars_in_leaf): each is a typing loop's hot
// path, and a call with eight arguments between the descent and the edit
// cost it about a tenth of an in-place insert (rope/edit_then_query/fl).
[[gnu::always_inline]] inline bool edit_leaf(edge& root, const unsigned* idx, const edge* e,
                                             std::size_t lo, std::size_t pos, std::size_t n,
                                             std::string_view text, std::size_t chars_before,
                                             leaf_landing* landing = nullptr) {
  const std::size_t ins = text.size();
  if (ins > leaf_max_bytes / 4) return false;
  const unsigned depth = root.p->height;
  const std::size_t p = pos - lo;  // the range is leaf bytes [p, p + n)
  if (p + n > e->len) return false;
  const std::size_t out = e->len - n + ins;
  if (out == 0) return false;
  const std::size_t tail = e->len - p - n;

  inner* path[max_depth];
  edge* up[max_depth];  // up[d]: the edge to path[d]
  edge* cur = &root;
  for (unsigned d = 0; d < depth; ++d) {
    up[d] = cur;
    path[d] = writable(*cur);
    cur = &path[d]->child[idx[d]];
  }
  edge& leaf = *cur;
  chunk* c = static_cast<chunk*>(leaf.p);
  const char* old = c->data + leaf.off;

  const bool in_place = out <= leaf_edit_max && unique(c) && leaf.off + out <= c->cap &&
                        !overlaps(text, c);
  if (const cursor_cut how =
          in_place && depth > 0 ? cut_at_cursor(leaf, c, old, p, n, text) : cursor_cut::none;
      how != cursor_cut::none) {
    if (how == cursor_cut::copy_head)
      if (edge* left = shift_target(path[depth - 1], idx[depth - 1], p, text)) {
        const auto [bytes, chars] = shift_left(leaf, *left, up, depth, p, n, text);
        if (landing) *landing = leaf_landing{true, true, bytes, chars};
        return true;
      }
    cut_leaf(root, path, up, idx, depth, p, n, text, chars_before, how);
    return true;
  }
  if (in_place || (out <= leaf_edit_max && e->len <= copy_whole_max)) {
    // The metrics change by those of `text` minus those of the bytes it
    // replaces, on the leaf and every edge above it that is known.
    const edge before = leaf;
    const text_counts add = ins ? count_text(text.data(), ins) : text_counts{};
    const text_counts sub = n ? count_text(old + p, n) : text_counts{};
    if (in_place) {
      note_rewrite(c, leaf.off, p, p + ins, chars_before, add);
      char* base = c->data + leaf.off;
      std::memmove(base + p + ins, base + p + n, tail);
      if (ins) std::memcpy(base + p, text.data(), ins);
      c->used = leaf.off + out;
    } else {
      chunk* f = new_chunk(fresh_leaf_cap(out));
      std::memcpy(f->data, old, p);
      if (ins) std::memcpy(f->data + p, text.data(), ins);
      std::memcpy(f->data + p + ins, old + p + n, tail);
      f->used = out;
      set_hint(f, 0, p + ins, chars_before, add);
      release(c);
      leaf = edge{f, 0, out};
    }
    leaf.len = out;
    // A fresh chunk's edge starts unknown: it takes the old leaf's metrics
    // shifted, since every edge above it is shifted and stays known.
    set_counts(leaf, counts_of(before));
    shift_counts(leaf, add, sub);
    shift_path(up, depth, n, ins, add, sub);
    if (landing) landing->kept_shape = true;
    return true;
  }

  // The new leaf text is A | text | B with A = old[0, p) and B = old[p + n,
  // len). A window of old bytes around the text is copied; what lies
  // outside it keeps pointing into c.
  const window w = edit_window(c->data, leaf.off, e->len, p, n);
  const std::size_t a_keep = w.lo - leaf.off;            // shared head: old[0, a_keep)
  const std::size_t b_keep = leaf.off + e->len - w.hi;   // shared tail: old[len - b_keep, len)
  const std::size_t ta = p - a_keep, tb = tail - b_keep;  // the window's old bytes
  const std::size_t mid = ta + ins + tb;                  // copied window, >= 1 byte
  edge pieces[3];
  // New inner nodes the pieces may need (a flat root becomes a node over
  // them).
  unsigned k = 1u + (a_keep > 0 ? 1u : 0u) + (b_keep > 0 ? 1u : 0u);
  const unsigned need = depth == 0 ? 1 : pieces_need(path, depth, k);
  inner* spare[max_depth + 1];
  chunk* f = chunk_and_spares(mid, spare, need);
  std::memcpy(f->data, old + a_keep, ta);
  if (ins) std::memcpy(f->data + ta, text.data(), ins);
  std::memcpy(f->data + ta + ins, old + p + n, tb);
  f->used = mid;
  // The pieces' metrics: the kept parts are ranges of c (the block index
  // answers long ones cheaply); the window is the leaf minus those, minus
  // the bytes replaced, plus the text, so it is never scanned.
  const text_counts known{leaf.chars, leaf.newlines, leaf.astral};
  const chunk_cut cut =
      chunk_cut_counts(c, leaf.off, leaf.len, leaf.known() ? &known : nullptr, a_keep, b_keep);
  const text_counts &whole = cut.whole, &ca = cut.head, &cb = cut.tail;
  const text_counts gone = n ? count_text(old + p, n) : text_counts{};
  const text_counts added = ins ? count_text(text.data(), ins) : text_counts{};
  const auto with = [](edge x, const text_counts& t) {
    x.chars = t.chars;
    x.newlines = t.newlines;
    x.astral = t.astral;
    return x;
  };
  k = 0;
  if (a_keep) {
    acquire(c);
    pieces[k++] = with(edge{c, leaf.off, a_keep}, ca);
  }
  pieces[k++] =
      with(edge{f, 0, mid},
           text_counts{whole.chars - ca.chars - cb.chars - gone.chars + added.chars,
                       whole.newlines - ca.newlines - cb.newlines - gone.newlines + added.newlines,
                       whole.astral - ca.astral - cb.astral - gone.astral + added.astral});
  if (b_keep) {
    acquire(c);
    pieces[k++] = with(edge{c, leaf.off + leaf.len - b_keep, b_keep}, cb);
  }
  set_hint(f, 0, ta + ins,
           chars_before != static_cast<std::size_t>(-1) ? chars_before - ca.chars : chars_before,
           added);
  release(c);  // the leaf's own reference; the pieces hold theirs
  if (depth == 0) {
    inner* m = spare[0];
    m->height = 1;
    m->count = 0;
    for (unsigned j = 0; j < k; ++j) m->child[m->count++] = pieces[j];
    root = edge{m, 0, out};
    return true;
  }
  put_pieces(root, path, up, idx, depth, pieces, k, spare, need, ins, n);
  return true;
}

}  // namespace

bool cut_flat(edge& root, std::size_t pos, std::size_t n, std::string_view text) {
  const chunk* c = static_cast<const chunk*>(root.p);
  const cursor_cut how = cut_at_cursor(root, c, c->data + root.off, pos, n, text);
  if (how == cursor_cut::none) return false;
  cut_leaf(root, nullptr, nullptr, nullptr, 0, pos, n, text, static_cast<std::size_t>(-1), how);
  return true;
}

bool edit_in_leaf(edge& root, std::size_t pos, std::size_t n, std::string_view text,
                  rope_cursor* cursor) {
  if (text.size() > leaf_max_bytes / 4) return false;
  // A pure insert at a leaf boundary goes to the end of the left leaf.
  const std::size_t target = n == 0 && pos > 0 ? pos - 1 : pos;
  unsigned idx[max_depth];
  const auto [e, lo] = descend(root, target, idx);
  const unsigned depth = root.p->height;
  leaf_landing landed;
  if (!edit_leaf(root, idx, e, lo, pos, n, text, static_cast<std::size_t>(-1), &landed))
    return false;
  if (cursor)
    *cursor = landed.kept_shape && depth > 0 && depth <= cursor_max_depth
                  ? landing_cursor(landed, idx, depth, static_cast<std::size_t>(-1), lo,
                                   pos - lo + text.size(), cursor_no_hint)
                  : rope_cursor{};
  return true;
}

// Chars [i, i + n) of a tree (i + n <= char_count(), lf mode, a short
// text) become `text` when the edit lies in one leaf: one descent by chars
// to the leaf of char i, char i + n looked for in the same leaf, and the
// edit made there (edit_leaf) without a second descent by byte, so it
// costs one descent, as an edit by byte does. An insert goes where
// edit_in_leaf puts one by byte: at a leaf boundary, to the end of the left
// leaf (the previous edge of the same node; under another node, the general
// path), and at the end of the text, to the end of the last leaf; the leaf
// written keeps where the text ends as its hint, so typing on at a leaf's
// end or the text's end steps from there too. False, with nothing changed,
// when the edit is not of that kind.
bool rope_engine::replace_chars_in_leaf(rope& self, size_type i, size_type n,
                                        std::string_view text) {
  using detail::text_metric;
  unsigned idx[max_depth];
  const unsigned depth = self.root_.p->height;
  const edge* leaf;
  std::size_t lo, r, del = 0, chars_before;
  if (i == self.root_.chars) {
    // The end of the text: the last leaf, at its end (n == 0 here).
    leaf = &self.root_;
    for (unsigned d = 0; d < depth; ++d) {
      const auto* nd = static_cast<const inner*>(leaf->p);
      idx[d] = nd->count - 1u;
      leaf = &nd->child[idx[d]];
    }
    lo = self.root_.len - leaf->len;
    r = leaf->len;
    chars_before = leaf->chars;
  } else {
    const metric_hit h = descend_chars(self.root_, i, idx);
    leaf = h.leaf;
    lo = h.lo;
    r = leaf_nth_char(*leaf, h.k);
    chars_before = h.k;
    if (n) {
      const std::size_t r2 = leaf_nth_from(*leaf, text_metric::chars, r, n);
      if (r2 >= leaf->len && !ends_at_leaf_end(self, idx, leaf, lo, h.k + n)) return false;
      del = r2 - r;
    } else if (r == 0 && lo > 0) {
      // An insert at the first byte of a leaf: the end of the edge before
      // it in the same node (leaf edges in nodes are known).
      if (idx[depth - 1] == 0) return false;
      --idx[depth - 1];
      --leaf;
      lo -= leaf->len;
      r = leaf->len;
      chars_before = leaf->chars;
    }
  }
  // The one call of the edit's body (inlined): no call with eight
  // arguments between the descent and the edit.
  leaf_landing landed;
  if (!edit_leaf(self.root_, idx, leaf, lo, lo + r, del, text, chars_before, &landed)) return false;
  settle(self);
  // The leaf written is where typing goes on: the root keeps it as its
  // cursor (its chars and bytes before it did not change).
  if (landed.kept_shape && depth <= cursor_max_depth)
    static_cast<inner*>(self.root_.p)->cursor =
        landing_cursor(landed, idx, depth, i - chars_before, lo, r + text.size(),
                       chars_before + count_text(text.data(), text.size()).chars);
  if (self.anchors_) [[unlikely]]
    move_anchors(self, lo + r, del, text.size());
  return true;
}

// Whether a range of the tree's leaf `leaf` (rope offset lo, reached by
// the child indexes idx) that ends with its char `end` (counted from the
// leaf's first) ends at the leaf's end: the leaf holds exactly `end` chars
// and the byte after it starts a char (or the text ends there), so no
// continuation byte of the leaf's last char lies in the next leaf. The
// backspace at the end of a leaf, after a cut at the cursor the usual one,
// then stays an edit inside the leaf (next_leaf_starts_char: a sibling or
// the first leaf under the next node).
bool rope_engine::ends_at_leaf_end(const rope& r, const unsigned* idx, const edge* leaf,
                                   std::size_t lo, std::size_t end) noexcept {
  if (end != leaf->chars) return false;
  if (lo + leaf->len == r.root_.len) return true;
  return next_leaf_starts_char(r.root_, idx, r.root_.p->height);
}

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
