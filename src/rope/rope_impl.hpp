// src/rope/rope_impl.hpp: what the files of fl::rope's tree engine share.
// Private to src/rope/ (not installed). The representation is in
// include/fl/detail/rope_node.hpp; what the rope's public calls reach of
// the engine is detail::rope_engine (include/fl/detail/rope_engine.hpp),
// whose functions these files define. The files, by job:
//   node.cpp     blocks from the pool (and the test build's failure hook),
//                the spare-node stash, copying a shared node, destroy
//   join.cpp     plan_join (the one decision of what a join will do), join,
//                and join_reserve, which obtains what a plan needs
//   split.cpp    split, build, the constructors and substr
//   edit.cpp     appends, splice and the edit members
//   leaf_edit.cpp  edits inside one leaf (edit_in_leaf, the cut at the
//                cursor, rope_engine::replace_chars_in_leaf)
//   cursor_edit.cpp  the keystroke at the root's cursor (type_at_cursor)
//   seam_edit.cpp  an erase across leaves of one node, on their edges
//   read.cpp     seek, find, compare, hash, flatten, copy and streams
//   check.cpp    check_invariants
//   metrics.cpp  the text metrics, the leaf index and the metric queries
//   chunk_index.cpp  the block index of big chunks and its lookups
//   chars.cpp    code points (one char read and decoded, char_at, chars_at)
//                and the checked byte edits
//   anchors.cpp  anchors: the two trees of positions every edit moves
//
// Ownership convention: a function taking an `edge` by value consumes one
// reference to e.p; a function returning an `edge` hands one reference to
// the caller. A node reached through an owned edge whose count is 1 belongs
// to that edge alone and is changed in place (mut); any other node is copied
// first (path copying), so a node that another rope can see is never
// written. All reference-count decisions use acquire loads, which pair with
// the release decrements of other threads.
#pragma once

#include <fl/detail/rope_node.hpp>
#include <fl/detail/string_core.hpp>
#include <fl/pool.hpp>
#include <fl/rope.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

// ---------------------------------------------------------------- sizes

// A leaf that edits rewrite may grow to this size before it splits: an
// insert into a full leaf then copies it once into a chunk with room (no new
// edge, no node split), and the next edits nearby are in place. Leaves made
// by building and appending stay within leaf_max_bytes.
inline constexpr std::size_t leaf_edit_max = leaf_max_bytes + leaf_max_bytes / 2;

// A flat rope whose result has at most this many bytes is edited like a
// string: one unique chunk with spare room, changed in place by memmove (the
// first edit of a shared chunk copies it once). Up to two leaves of memmove
// cost less than a walk through a tree, and the chunk stays small enough
// that no edit moves more than 8 KiB (with 4 KiB leaves).
inline constexpr std::size_t flat_edit_max = 2 * leaf_max_bytes;

// Capacity for a chunk that starts a run of appends: grows geometrically in
// small ropes (like a string), and is a full leaf once the rope is large, so
// the following appends land in place.
inline std::size_t append_cap(std::size_t need, std::size_t rope_len) noexcept {
  if (need >= leaf_max_bytes) return need;
  if (rope_len >= leaf_max_bytes) return leaf_max_bytes;
  std::size_t cap = std::max<std::size_t>(need + need / 2, 32);
  return std::min(cap, leaf_max_bytes);
}

// Capacity of the chunk that two leaves of `need` bytes together are copied
// into: room for more edits nearby (1.5x, at least 32), at most a leaf.
inline std::size_t merge_cap(std::size_t need) noexcept {
  return std::min(leaf_max_bytes, std::max(need, append_cap(need, 0)));
}

// Capacity for a fresh chunk that an edit fills with len <= leaf_edit_max
// bytes and that later edits change in place: leaf_edit_max, or less when
// that keeps the chunk (header included) within the pool's largest cached
// block.
inline std::size_t fresh_leaf_cap(std::size_t len) noexcept {
  constexpr std::size_t pooled = pool_max_cached_bytes - sizeof(chunk);
  return len <= pooled ? std::min(pooled, leaf_edit_max) : leaf_edit_max;
}

// A chunk with its bytes inline: header, cap bytes, leaf index (if any).
inline std::size_t chunk_bytes(std::size_t cap) noexcept {
  return sizeof(chunk) + cap + leaf_index_bytes(cap);
}

// ---------------------------------------------------------------- blocks (node.cpp)

// Every block the rope takes from the pool or gives back passes through
// these, so that the test build (FL_ROPE_FAIL_HOOK) can make the n-th
// allocation throw std::bad_alloc and count the blocks alive.
#ifdef FL_ROPE_FAIL_HOOK
void fail_point();
void count_blocks(long n) noexcept;
#else
inline void fail_point() noexcept {}
inline void count_blocks(long) noexcept {}
#endif

inline void* rope_allocate(std::size_t bytes) {
  fail_point();
  void* p = pool_allocate(bytes);
  count_blocks(1);
  return p;
}
inline void rope_deallocate(void* p, std::size_t bytes) noexcept {
  if (p) count_blocks(-1);
  pool_deallocate(p, bytes);
}
inline void* rope_reallocate(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  fail_point();
  return pool_reallocate(p, old_bytes, new_bytes);
}

// The one initialization of a chunk header: `used` bytes of `cap` at data,
// count 1, no index.
inline chunk* init_chunk(void* mem, node_kind kind, char* data, std::size_t cap,
                         std::size_t used) noexcept {
  chunk* c = static_cast<chunk*>(mem);
  c->refs.store(1, std::memory_order_relaxed);
  c->height = 0;
  c->kind = kind;
  c->count = 0;
  c->used = used;
  c->cap = cap;
  c->data = data;
  new (&c->index) std::atomic<chunk_index*>(nullptr);
  return c;
}

// A chunk whose bytes follow its header in one pool block.
// A leaf-sized one starts its leaf index empty (boundary 0 only).
inline chunk* new_chunk(std::size_t cap) {
  void* mem = rope_allocate(chunk_bytes(cap));
  chunk* c =
      init_chunk(mem, node_kind::chunk_inline, static_cast<char*>(mem) + sizeof(chunk), cap, 0);
  if (leaf_index* li = leaf_index_of(c)) {
    new (&li->valid) std::atomic<std::uint16_t>(0);
    li->hint = leaf_no_hint;
    li->hint_chars = 0;
    li->hint_off = 0;
    li->last_end = leaf_no_hint;
    std::fill_n(leaf_index_counts(li), 3, std::uint16_t{0});
  }
  return c;
}

// A chunk whose bytes are a separate pool block of cap + 1 bytes (the layout
// of an fl::string heap block, so flatten() && can hand it over).
chunk* new_block_chunk(std::size_t cap);

inline inner* init_inner(void* mem, std::uint8_t height) noexcept {
  inner* n = static_cast<inner*>(mem);
  n->refs.store(1, std::memory_order_relaxed);
  n->height = height;
  n->kind = node_kind::inner;
  n->count = 0;
  n->cursor.depth = 0;
  return n;
}
inline inner* new_inner(std::uint8_t height) {
  return init_inner(rope_allocate(sizeof(inner)), height);
}

// ---------------------------------------------------------------- the spare-node stash (node.cpp)
//
// join edits unique nodes in place (a node whose count is 1 belongs to the
// edge being joined), and an in-place edit cannot be undone. So join never
// allocates: every block it may need is obtained before an edit changes
// anything (join_reserve, from plan_join), and join takes them from here.
// Inner nodes come from a per-thread stash that stays filled between edits,
// so the usual edit pays one check and the allocations of the nodes it
// really used (the same count as before, made earlier). A leaf chunk that
// join would merge two small leaves into is sized from the leaves it will
// meet and held only for the joins of one edit. split, sub_node and build
// allocate as they go but change nothing they do not own, and release what
// they built if a later allocation fails.
struct spare_blocks {
  void* head = nullptr;  // inner-node blocks, linked through their first word
  unsigned count = 0;
  chunk* merge[2] = {};  // chunks for join's leaf merges (join_reserve)
  ~spare_blocks();
};
spare_blocks& thread_spares() noexcept;

// Makes the stash hold at least k inner blocks. Throws std::bad_alloc with
// the blocks it got kept for next time (nothing else changes).
void fill_spares(spare_blocks& sp, unsigned k);

// An inner node from the stash. join_reserve counted the nodes join can
// take (plan_join), so the stash is never empty here; if that count were
// ever short, the test build stops loudly, and a release build falls back to
// allocating (correct unless that allocation fails).
inner* take_inner(std::uint8_t height);

// ---------------------------------------------------------------- nodes (node.cpp)

inline std::string_view leaf_text(const edge& e) noexcept {
  return std::string_view(static_cast<const chunk*>(e.p)->data + e.off, e.len);
}

inline std::size_t node_len(const inner* n) noexcept {
  std::size_t s = 0;
  for (unsigned i = 0; i < n->count; ++i) s += n->child[i].len;
  return s;
}

// Whether `text` lies (partly) in c's buffer, so that an edit of c in place
// would overwrite bytes it is about to read. Compared as integers: the
// pointers may belong to unrelated objects, for which `<` is unspecified.
inline bool overlaps(std::string_view text, const chunk* c) noexcept {
  const auto t = reinterpret_cast<std::uintptr_t>(text.data());
  const auto d = reinterpret_cast<std::uintptr_t>(c->data);
  return t < d + c->cap && d < t + text.size();
}

// The one descent by byte position: the leaf edge holding byte `pos` (<
// root.len) and the rope offset `lo` of its first byte. With `idx`, the
// child index taken at each level is stored there (root height entries).
struct leaf_hit {
  const edge* leaf;
  std::size_t lo;
};
inline leaf_hit descend(const edge& root, std::size_t pos, unsigned* idx = nullptr) noexcept {
  const edge* e = &root;
  std::size_t lo = 0;
  unsigned depth = 0;
  while (e->p->height > 0) {
    const inner* n = static_cast<const inner*>(e->p);
    unsigned i = 0;
    while (pos - lo >= n->child[i].len) lo += n->child[i++].len;
    if (idx) idx[depth++] = i;
    e = &n->child[i];
  }
  return leaf_hit{e, lo};
}

// Makes the inner node behind the owned edge `e` writable: unique nodes are
// returned as they are, their cursor dropped (see rope_cursor: what is
// written next may make it stale); shared ones are copied (children
// acquired; the copy comes from the stash when `reserved`) and the edge
// moves to the copy.
inner* mut(edge& e, bool reserved);
// mut(e, false) with the unique node's case inline (the usual one on a
// descent that edits in place).
inline inner* writable(edge& e) {
  if (!unique(e.p)) return mut(e, false);
  inner* n = static_cast<inner*>(e.p);
  n->cursor.depth = 0;
  return n;
}

// An owned edge to a new node holding (acquired copies of) edges [b, e) of n.
// Zero edges give the empty edge, one edge is returned itself.
edge sub_node(const inner* n, unsigned b, unsigned e);

// An owned edge covering `text` in a fresh chunk of capacity cap >= size.
edge make_leaf(std::string_view text, std::size_t cap);

// ---------------------------------------------------------------- join (join.cpp)

// How the two leaves that meet in a join (when one side is a single leaf)
// end up: the right one's bytes written into the left one's spare room, both
// copied into a chunk that join_reserve set aside, or left as two leaves.
enum class leaf_merge : std::uint8_t { none, in_place, copy };

// What join(a, b) will do, read from a and b as they are now: at most
// `nodes` inner nodes taken from the stash, and the fate of the leaves that
// meet (merge_bytes: their bytes together). plan_join is the only place that
// decides; join follows the plan it computes on entry, and join_reserve
// obtains what the plan needs, so the two cannot disagree.
struct join_plan {
  unsigned nodes = 0;
  leaf_merge merge = leaf_merge::none;
  std::size_t merge_bytes = 0;
};
join_plan plan_join(const edge& a, const edge& b) noexcept;

// Joins two owned edges (either may be empty) into one balanced tree: the
// bytes of a, then those of b. Never allocates: the blocks its plan needs
// must be reserved first (join_reserve); cannot fail.
edge join(edge a, edge b);

// Everything one edit's joins may allocate, obtained before the edit changes
// the tree: inner nodes go to the thread's stash (what is left stays there),
// merge chunks are held in it for this object's lifetime and freed if the
// joins did not use them. At most one join_reserve is alive per thread (the
// edits never nest them).
class join_reserve {
 public:
  join_reserve() noexcept : sp_(thread_spares()) {}
  join_reserve(const join_reserve&) = delete;
  join_reserve& operator=(const join_reserve&) = delete;
  ~join_reserve();
  // For a join of a and b as they are now (before any other join of this
  // edit runs, or after it, if it cannot change them).
  void add(const edge& a, const edge& b);
  // For join(join(left, mid), right), before the first join: the first is
  // planned exactly; the second from bounds on what the first can make.
  void add_join3(const edge& left, const edge& mid, const edge& right);

 private:
  void add_nodes(unsigned k);
  void add_chunk(std::size_t cap);
  spare_blocks& sp_;
  unsigned nodes_ = 0;
};

// Joins the owned edge `piece` to the right (or, with !piece_last, the left)
// of the owned edge `root` and returns the result. Everything the join may
// allocate is reserved first, so a failure throws with `root` untouched and
// `piece` released; the join itself cannot fail.
edge join_piece(edge root, edge piece, bool piece_last);

// ---------------------------------------------------------------- split and build (split.cpp)

// Splits the owned edge t at pos (0 <= pos <= t.len) into owned halves.
// Consumes t only on success: if an allocation fails, t is still the
// caller's, unchanged, and every node made so far has been released.
std::pair<edge, edge> split(edge t, std::size_t pos);

// One half of split(t, pos) (the left one if keep_left), the other
// released; consumes t, also when the split throws.
edge split_keep(edge t, std::size_t pos, bool keep_left);

// An owned tree holding `text`: one chunk (of capacity >= cap_hint) when it
// fits a leaf, else full leaves grouped bottom-up into evenly filled nodes.
// Every leaf and node is allocated before the first is linked, so a failure
// frees them all.
edge build(std::string_view text, std::size_t cap_hint);

// ---------------------------------------------------------------- edits (edit.cpp, leaf_edit.cpp,
// cursor_edit.cpp, seam_edit.cpp)

// Appends in place along the right spine when every node on it is unique
// and the last chunk has room. O(height).
bool append_in_place(edge& root, std::string_view text) noexcept;

// The root's cursor at the leaf reached by the child indexes idx (depth
// levels, 1..cursor_max_depth), with char_lo chars (npos: not counted) and
// byte_lo bytes before it; the last edit there ended at leaf byte hint_r,
// after hint_k chars of the leaf (cursor_no_hint: not counted).
inline rope_cursor cursor_at(const unsigned* idx, unsigned depth, std::size_t char_lo,
                             std::size_t byte_lo, std::size_t hint_r,
                             std::uint16_t hint_k) noexcept {
  rope_cursor cu{};
  for (unsigned d = 0; d < depth; ++d) cu.idx[d] = static_cast<std::uint8_t>(idx[d]);
  cu.depth = static_cast<std::uint8_t>(depth);
  cu.char_lo = char_lo;
  cu.byte_lo = byte_lo;
  cu.hint_r = static_cast<std::uint16_t>(hint_r);
  cu.hint_k = hint_k;
  return cu;
}

// An edit in place in the middle of a leaf moves every byte after it, and
// typing repeats that move on every keystroke: 4-6 KiB leaves made it a
// quarter of a keystroke's cost. So an in-place edit that types on where
// the last edit of the chunk ended (leaf_index::last_end: the second
// keystroke at a cursor) with at least cursor_split_min bytes after where
// its text ends cuts the leaf there instead, copying the shorter side once:
// - with at least cursor_split_min bytes before it too, the tail goes to a
//   fresh chunk (a leaf of its own, the next edge), and the text is written
//   at the end of the head, which stays in the unique chunk;
// - with fewer (typing near a leaf's start), the head and the text go to
//   the end of the left sibling when that is a unique chunk with room under
//   the same node (shift_left: the leaf boundary moves to the cursor, and
//   the tree keeps its shape), else to a fresh chunk before the tail, which
//   stays in the old chunk.
// Typing on is then an append at the end of a leaf (the insert at a leaf
// boundary goes to the left leaf), and a backspace there removes the leaf's
// last bytes: neither moves anything. A head under cursor_split_min makes
// a short leaf, but one that the typing run grows and that the next run
// near the following leaf's start fills (its chunk has room); a short tail
// is never cut off (its move is short too). Edits at scattered places (no
// typing run to repay the cut, whose copy costs what one move does) leave
// the leaf whole, as before.
inline constexpr std::size_t cursor_split_min = leaf_max_bytes >= 64 ? leaf_max_bytes / 8 : 4;

enum class cursor_cut : std::uint8_t { none, copy_tail, copy_head };

// Which cut, if any, an in-place edit of bytes [p, p + n) of the leaf `e`
// (its chunk c, whose bytes from e's start are at old) into `text` makes at
// the cursor (see cursor_split_min): a leaf (or a flat root edited like a
// string, see cut_flat) whose metrics are known, the edit starting or
// ending where the chunk's last edit ended, something before the cut, and
// no "\r\n" across it (the pieces never split a line break:
// line_break::lf_crlf's invariant).
inline cursor_cut cut_at_cursor(const edge& e, const chunk* c, const char* old, std::size_t p,
                                std::size_t n, std::string_view text) noexcept {
  const std::size_t tail = e.len - p - n, head = p + text.size();
  if (tail < cursor_split_min || head == 0 || !e.known()) return cursor_cut::none;
  const leaf_index* li = leaf_index_of(c);
  if (!li || li->last_end < e.off + p || li->last_end > e.off + p + n) return cursor_cut::none;
  const char last = text.empty() ? old[p - 1] : text.back();
  if (last == '\r' && old[p + n] == '\n') return cursor_cut::none;
  return head >= cursor_split_min ? cursor_cut::copy_tail : cursor_cut::copy_head;
}

// Bytes [pos, pos + n) of the tree or flat root `root` become `text` when
// the edit lies inside one leaf and the text is short (leaf_edit.cpp):
// in place, cut at the cursor, or the leaf replaced by up to three pieces;
// no split, no join. False, with nothing changed, otherwise.
// With `cursor`, the leaf the edit wrote as the root's cursor will hold it
// (char_lo npos: the chars before it are not counted), or depth 0 when the
// edit changed the tree's shape; the caller keeps it after settle.
bool edit_in_leaf(edge& root, std::size_t pos, std::size_t n, std::string_view text,
                  rope_cursor* cursor = nullptr);

// Erases bytes [pos, pos + n) of the tree `root` (lf mode: the new seam
// may fall inside a "\r\n") when they start inside one leaf and end
// inside a later sibling under the same node, which may drop the leaves
// between and stay full enough: the two leaves' edges are cut short, the
// counts of the removed bytes come off every edge above, and no byte moves
// (seam_edit.cpp). With `cursor`, the first leaf, where the range was, as
// the root's cursor will hold it (as edit_in_leaf's). False, with nothing
// changed, otherwise.
bool erase_across_leaves(edge& root, std::size_t pos, std::size_t n, rope_cursor* cursor);

// The in-place edit of bytes [pos, pos + n) of the unique flat root `root`
// (with room for it) into `text`, when it types on at a cursor inside it
// with cursor_split_min bytes after it: the root becomes a node over two
// leaves cut there (leaf_edit.cpp, cut_leaf), so that the keystrokes
// after it append at a leaf's end instead of moving the bytes after the
// cursor. False, with nothing changed, otherwise.
bool cut_flat(edge& root, std::size_t pos, std::size_t n, std::string_view text);

// ---------------------------------------------------------------- checks (check.cpp)

// check_invariants for the tree under an owned root edge (empty allowed).
void check_tree(const edge& root);

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
