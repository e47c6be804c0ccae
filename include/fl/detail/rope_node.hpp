// fl/detail/rope_node.hpp: the representation of fl::rope. Not a public
// interface; read docs/design.md ("fl::rope") for the picture.
//
// A rope is one `edge`: a pointer to a node plus the byte range of it that the
// rope covers. Nodes are reference counted (atomic) and are immutable as soon
// as a second reference exists; a node whose count is 1 is owned by exactly
// the edge that holds it and may be changed in place by the thread that owns
// that edge.
//   chunk  (height 0) a byte buffer: `used` bytes written of `cap`. An edge
//          may cover any sub-range [off, off + len) of it, so splitting a leaf
//          shares its bytes instead of copying them.
// Chunk sizes: leaves that building and appending to a tree make hold at most
// leaf_max_bytes; an edit inside a leaf may grow it to 1.5 leaf_max_bytes
// before it splits. A flat rope (the root is a chunk) may hold one chunk of
// any size: a rope made from a contiguous text, an adopted fl::string, or a
// unique rope grown by appends alone (its bytes then sit in a separate pool
// block, kind chunk_adopted). Edges into such a big chunk stay valid leaves
// after edits split it: only the bytes the edits write are new.
//   inner  (height >= 1) 1..max_children edges, all of height - 1. An edge to
//          an inner node always has off == 0 and len == the node's size.
// Balance (B+tree): every leaf is at the same depth (the root's height);
// every non-root inner node holds min_children..max_children edges, the root
// 2..max_children; every edge has len > 0. So depth <= 1 + log_min(leaves).
//
// FL_ROPE_LEAF_MAX is the leaf size of trees the rope builds (bytes). All
// rope symbols live in an inline namespace named after it (fl::rope_leaf4096
// and fl::detail::rope_leaf4096 by default), so a test program can link its
// own copy of src/rope/ built with a tiny leaf size (fl_rope_small: deep
// trees from small inputs) beside libfl, whose rope has the default.
#pragma once

#include <fl/detail/config.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#ifndef FL_ROPE_LEAF_MAX
#define FL_ROPE_LEAF_MAX 4096
#endif
#define FL_ROPE_NS_CAT2(a, b) a##b
#define FL_ROPE_NS_CAT(a, b) FL_ROPE_NS_CAT2(a, b)
#define FL_ROPE_NS FL_ROPE_NS_CAT(rope_leaf, FL_ROPE_LEAF_MAX)

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

// Leaf size, in bytes of text. 4096 keeps a leaf within a few cache-line
// streams for edits that copy one leaf, and 256 leaves cover 1 MB at depth 2.
inline constexpr std::size_t leaf_max_bytes = FL_ROPE_LEAF_MAX;
static_assert(leaf_max_bytes >= 4, "FL_ROPE_LEAF_MAX must be at least 4");

// Fan-out. 16 edges (24 bytes each) make a 392-byte node: a path copy of a
// 1 MB rope copies 2-3 such nodes. Tiny-leaf test builds use 4 so that a few
// kilobytes already make trees of depth 5 and more.
inline constexpr unsigned max_children = leaf_max_bytes < 64 ? 4 : 16;
inline constexpr unsigned min_children = max_children / 2;

// Two neighbouring leaves of at most this many bytes together are copied
// into one chunk when an edit joins them, so that repeated small edits do not
// leave a trail of tiny leaves; larger neighbours keep sharing their chunks.
inline constexpr std::size_t merge_max_bytes = leaf_max_bytes / 4 < 4 ? 4 : leaf_max_bytes / 4;

// Deepest tree possible: leaves have >= 1 byte and inner nodes >= 2 edges.
inline constexpr unsigned max_depth = 64;

enum class node_kind : std::uint8_t {
  chunk_inline,   // bytes follow the header in the same pool block
  chunk_adopted,  // bytes are an fl::string heap block (capacity + 1 bytes)
  inner,
};

struct node {
  std::atomic<std::uint32_t> refs;
  std::uint8_t height;  // 0 for chunks
  node_kind kind;
  std::uint16_t count;  // inner: number of edges in use
};

// Block index of a big chunk (src/rope/metrics.cpp): the text metrics of
// bytes [0, j * index_block) for j = 0..blocks, so that the metrics of any
// range of the chunk cost two block scans, not a scan of the range. Built
// lazily by the first metric query that needs it and published with a CAS
// (queries are const and may run on several threads); a rebuilt index links
// the one it replaced (`prev`), freed with the chunk, since a reader may
// still hold it. Valid for bytes below blocks * index_block: a unique
// chunk's owner that rewrites bytes at x lowers `blocks` to x / index_block
// (index_truncate), the only write to a published index.
struct chunk_index {
  std::size_t blocks;      // cum[0..blocks] are valid
  std::size_t cap_blocks;  // cum has room for cap_blocks + 1 entries
  chunk_index* prev;
  // followed by std::size_t cum[3 * (cap_blocks + 1)]: chars, newlines, astral
};
// One index entry (24 bytes) per index_block bytes of a chunk: 1 KiB, so a
// range's metrics scan at most half a block at each end (2.3% of the
// chunk's size; 16 bytes in the small-leaf test builds, so that their tests
// exercise the index).
inline constexpr std::size_t index_block =
    FL_ROPE_LEAF_MAX >= 64 ? FL_ROPE_LEAF_MAX / 4 : FL_ROPE_LEAF_MAX;

struct chunk : node {
  std::size_t used;  // bytes written; only a unique chunk may grow it
  std::size_t cap;   // bytes available at data
  char* data;
  std::atomic<chunk_index*> index;  // null until a query builds it
};

// Leaf index of a leaf-sized chunk (bytes inline, cap <= leaf_index_max_cap):
// the text metrics of bytes [0, j * leaf_block) for j = 0..valid, 16-bit
// counts stored after the chunk's bytes in the same pool block, so that a
// position inside a leaf resolves by a binary search over at most
// cap / leaf_block entries and a scan of at most one block, where a leaf
// without it scans up to half the leaf. Lazy: a new chunk has valid == 0,
// a query that needs a boundary past `valid` counts the blocks up to it and
// publishes them (entries and `valid` are atomic, since const queries on
// several threads may extend the same index; they write equal values), and
// an edit that rewrites the unique chunk's bytes from x on lowers valid to
// x / leaf_block (index_truncate), one store. Typing at a cursor therefore
// counts about one block per keystroke, and the entries below the cursor
// stay. 128-byte blocks: one step of the four-vector scan; 6 bytes of entry
// per block, 4.7% of the chunk (the tiny-leaf test builds use blocks of a
// quarter leaf, so that their trees exercise the index).
inline constexpr std::size_t leaf_block =
    FL_ROPE_LEAF_MAX >= 512 ? 128 : (FL_ROPE_LEAF_MAX / 4 > 0 ? FL_ROPE_LEAF_MAX / 4 : 1);
// Chunks up to two leaves (every leaf an edit writes, and a flat rope edited
// like a string) carry one; counts of at most that many bytes fit 16 bits.
inline constexpr std::size_t leaf_index_max_cap =
    2 * leaf_max_bytes < 65535 ? 2 * leaf_max_bytes : 65535 / leaf_block * leaf_block;
struct leaf_index {
  std::atomic<std::uint16_t> valid;  // boundaries 0..valid hold
  // Where the last edit by char ended: chunk byte `hint` (leaf_no_hint when
  // none) and the chars of chunk bytes [hint_off, hint), where hint_off is
  // the first byte of the leaf edge that edit went through, so that typing
  // on resolves its next position in a leaf starting at hint_off by
  // stepping over a char or two. The chars are those of bytes that only an
  // edit of the unique chunk rewrites: they stay true for any edge starting
  // at hint_off until such an edit writes below `hint`, and index_truncate
  // drops the hint then. Written only by an edit of the unique chunk (like
  // its bytes).
  std::uint16_t hint;
  std::uint16_t hint_chars;
  std::uint16_t hint_off;
  // Where the last edit of a leaf in this chunk (by char or by byte) ended,
  // chunk byte (leaf_no_hint when none): an edit that starts or ends there
  // is typing on at a cursor, and only such an edit cuts the leaf at the
  // cursor (src/rope/edit.cpp: cursor_split_min); edits at scattered places
  // leave the leaf whole. A guide for that choice only, never for a
  // position; written only by an edit of the unique chunk.
  std::uint16_t last_end;
  // followed by std::uint16_t cum[3 * (cap / leaf_block + 1)]: chars,
  // newlines, astral before each block boundary
};
inline constexpr std::uint16_t leaf_no_hint = 0xFFFF;  // above any chunk byte
static_assert(leaf_index_max_cap < leaf_no_hint);
static_assert(sizeof(leaf_index) == 10);

// Bytes a chunk of capacity cap needs past its text for its leaf index
// (padding to the index's alignment included); 0 when it has none.
inline constexpr std::size_t leaf_index_bytes(std::size_t cap) noexcept {
  return cap > leaf_index_max_cap
             ? 0
             : (cap + 3) / 4 * 4 - cap + sizeof(leaf_index) +
                   sizeof(std::uint16_t) * 3 * (cap / leaf_block + 1);
}

// Marks edge metrics that are not computed yet (see edge).
inline constexpr std::size_t metrics_unknown = static_cast<std::size_t>(-1);

// An edge carries the text metrics of the bytes it covers: chars (bytes that
// are not UTF-8 continuation bytes 10xxxxxx), newlines ('\n' bytes) and
// astral (bytes >= 0xF0: lead bytes of 4-byte sequences, which take two
// UTF-16 units). Every edge that sits in an inner node has them computed
// after each public rope operation (rope_engine::settle); the root edge of a flat
// rope may leave them unknown (chars == metrics_unknown) and a query then
// reads them from the chunk (its block index when big). Any code that changes
// an edge's len or the bytes under it marks it unknown or updates it exactly;
// a brace-initialized edge starts unknown.
struct edge {
  node* p;
  std::size_t off;
  std::size_t len;
  std::size_t chars = metrics_unknown;
  std::size_t newlines = 0;
  std::size_t astral = 0;
  bool known() const noexcept { return chars != metrics_unknown; }
  void forget() noexcept { chars = metrics_unknown; }
};

// Where the last edit inside one leaf of a tree landed, kept in its root
// node so that typing on at that place skips the descent
// (src/rope/cursor_edit.cpp, rope_engine::type_at_cursor): the child index
// taken at each level down to the leaf the edit wrote, and the chars and
// bytes of the text before that leaf (char_lo npos after an edit by byte,
// whose descent does not count chars). Meaningful only in a root node whose
// `depth` equals its height (0: none), and then always true of the tree
// below it: every operation that changes a tree ends in
// rope_engine::settle, which clears the root's cursor; an edit inside the
// cursor's leaf, which moves nothing before it, keeps it, and an edit
// inside another leaf that left the tree's shape as it was sets it anew.
// A node shared by several ropes is never written, so its cursor stays
// true for each. A node written in place below a root (a root that an
// edit kept as a child, or one that was shared and is a child's alone now)
// drops its cursor (mut, writable): a split may make it a root again, shared
// with the tree it came from, where settle may not clear it. The two
// in-place writes that keep it are those that move no cursor into the node:
// an append along the right spine, and a keystroke on the root's cursor
// path, whose nodes below the root dropped theirs when it was set.
// Trees deeper than cursor_max_depth keep none.
// check_invariants recomputes a kept cursor from the tree.
// `next` remembers whether a range by char may end where the cursor's leaf
// ends: it is the text's last leaf, or the leaf after it (a sibling, or the
// first under the next node) starts with a char of its own (0 not looked
// at yet, 1 yes, 2 no): the
// keystrokes at the end of a leaf after a cut at the cursor ask it every
// time, and the next leaf does not change while the cursor stays.
// `hint_r` is the leaf byte where the last edit there ended and `hint_k`
// the chars of the leaf before it (cursor_no_hint: unknown), so that the
// next keystroke by char finds its byte without reading the leaf index
// (a cache line away from the root's, past the leaf's bytes).
inline constexpr unsigned cursor_max_depth = 6;
inline constexpr std::uint16_t cursor_no_hint = 0xFFFF;
struct rope_cursor {
  std::uint8_t depth;
  std::uint8_t next;
  std::uint8_t idx[cursor_max_depth];
  std::size_t char_lo;
  std::size_t byte_lo;
  std::uint16_t hint_r;
  std::uint16_t hint_k;
};

struct inner : node {
  edge child[max_children];
  // Read and written only when this node is a tree's root (see rope_cursor).
  // 32 bytes that the pool's size class of a node had spare (776 -> 808 of
  // 896 bytes).
  rope_cursor cursor;
};

static_assert(sizeof(edge) == 48);
static_assert(sizeof(chunk) == 40);

// Frees a node whose count reached zero, releasing its children.
void destroy(node* p) noexcept;

inline void acquire(node* p) noexcept {
  if (p) p->refs.fetch_add(1, std::memory_order_relaxed);
}
inline void release(node* p) noexcept {
  // A count of 1 means no other edge can see the node: free it without the
  // atomic read-modify-write. acquire pairs with other owners' release.
  if (!p) return;
  if (p->refs.load(std::memory_order_acquire) == 1 ||
      p->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    destroy(p);
}

// Whether the edge holding p is its only owner: then, and only then, the
// node may be changed in place (acquire pairs with other owners' release).
inline bool unique(const node* p) noexcept { return p->refs.load(std::memory_order_acquire) == 1; }

// The leaf index of c, or null (a separate block of bytes, or a chunk
// bigger than leaf_index_max_cap). Inline chunks never change capacity.
inline leaf_index* leaf_index_of(const chunk* c) noexcept {
  if (c->kind != node_kind::chunk_inline || c->cap > leaf_index_max_cap) return nullptr;
  return reinterpret_cast<leaf_index*>(c->data + (c->cap + 3) / 4 * 4);
}

// The counts that follow a leaf index (see leaf_index).
inline std::uint16_t* leaf_index_counts(leaf_index* li) noexcept {
  return reinterpret_cast<std::uint16_t*>(li + 1);
}

// The unique chunk c's bytes from x on are about to be rewritten: its
// block index (if any) stops covering them.
[[gnu::always_inline]] inline void block_index_truncate(chunk* c, std::size_t x) noexcept {
  if (chunk_index* ix = c->index.load(std::memory_order_relaxed);
      ix && ix->blocks > x / index_block)
    ix->blocks = x / index_block;
}
// The same for the leaf index li of such a chunk: its counts.
[[gnu::always_inline]] inline void leaf_counts_truncate(leaf_index* li, std::size_t x) noexcept {
  if (li->valid.load(std::memory_order_relaxed) > x / leaf_block)
    li->valid.store(static_cast<std::uint16_t>(x / leaf_block), std::memory_order_relaxed);
}
// The same for both indexes of c (if any), the leaf index's hint too.
[[gnu::always_inline]] inline void index_truncate(chunk* c, std::size_t x) noexcept {
  block_index_truncate(c, x);
  if (leaf_index* li = leaf_index_of(c)) {
    leaf_counts_truncate(li, x);
    if (li->hint > x) li->hint = leaf_no_hint;
  }
}

// Tries to write `text` right after the bytes of the owned leaf edge `e`
// without a new node: possible when the chunk is unique and has room (bytes
// past the edge's end belong to nobody, since no other edge exists). Inline:
// it is fl::rope::append's fast path for a flat rope. Marks e unknown (its
// metrics are recomputed by rope_engine::settle).
inline bool leaf_append_in_place(edge& e, std::string_view text) noexcept {
  chunk* c = static_cast<chunk*>(e.p);
  if (!unique(c)) return false;
  const std::size_t end = e.off + e.len;
  if (c->cap - end < text.size()) return false;
  if (end < c->used) index_truncate(c, end);
  if (!text.empty()) std::memcpy(c->data + end, text.data(), text.size());
  c->used = end + text.size();
  e.len += text.size();
  e.forget();
  return true;
}

// The leaf holding byte `pos` (< root.len): its bytes [data, data + len) are
// the rope's bytes [lo, lo + len).
struct leaf_view {
  const char* data;
  std::size_t lo;
  std::size_t len;
};
leaf_view seek(const edge& root, std::size_t pos) noexcept;
// seek(root, pos) for pos < root.len; {nullptr, root.len, 0} for pos >=
// root.len (the end state of rope::const_iterator).
leaf_view seek_or_end(const edge& root, std::size_t pos) noexcept;

#ifdef FL_ROPE_FAIL_HOOK
// Test build only (fl_rope_small): the n-th allocation of this thread's
// rope code from now on throws std::bad_alloc (0: none), and the number of
// pool blocks that ropes allocated on this thread hold (nodes and chunk
// bytes, not counting the spare nodes the thread keeps for later edits).
void rope_fail_after(std::size_t n) noexcept;
long rope_live_blocks() noexcept;
#endif

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
