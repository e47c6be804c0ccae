// src/rope.cpp: fl::rope's tree algorithms (split, join, edits inside one
// leaf, in-place appends, flat chunks that grow like a string), search across
// chunk boundaries, comparison, hashing and invariant checks.
//
// Ownership convention inside this file: a function taking an `edge` by value
// consumes one reference to e.p; a function returning an `edge` hands one
// reference to the caller. A node reached through an owned edge whose count
// is 1 belongs to that edge alone and is changed in place (mut); any other
// node is copied first (path copying), so a node that another rope can see is
// never written. All reference-count decisions use acquire loads, which pair
// with the release decrements of other threads.
#include <fl/rope.hpp>

#include <fl/find.hpp>
#include <fl/pool.hpp>

#include "rope_metrics.hpp"
#include "text_count.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#if __has_include(<fl/detail/string_access.hpp>)
#include <fl/detail/string_access.hpp>
#define FL_ROPE_HAVE_STRING_ACCESS 1
#endif

namespace fl::detail {
inline namespace FL_ROPE_NS {
namespace {

// ---------------------------------------------------------------- nodes

// Every block the rope takes from the pool or gives back passes through these
// three, so that the test build (FL_ROPE_FAIL_HOOK, see rope_test.cmake) can
// make the n-th allocation throw std::bad_alloc and count the blocks alive.
#ifdef FL_ROPE_FAIL_HOOK
thread_local std::size_t fail_countdown = 0;  // 0: never fail
thread_local long live_blocks = 0;
void fail_point() {
  if (fail_countdown != 0 && --fail_countdown == 0) throw std::bad_alloc();
}
#else
inline void fail_point() noexcept {}
#endif

void* rope_allocate(std::size_t bytes) {
  fail_point();
  void* p = pool_allocate(bytes);
#ifdef FL_ROPE_FAIL_HOOK
  ++live_blocks;
#endif
  return p;
}

void rope_deallocate(void* p, std::size_t bytes) noexcept {
#ifdef FL_ROPE_FAIL_HOOK
  if (p) --live_blocks;
#endif
  pool_deallocate(p, bytes);
}

void* rope_reallocate(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  fail_point();
  return pool_reallocate(p, old_bytes, new_bytes);
}

// A block that the rope took over from (or handed to) an fl::string.
inline void count_adopted(long n) noexcept {
#ifdef FL_ROPE_FAIL_HOOK
  live_blocks += n;
#else
  (void)n;
#endif
}

std::size_t chunk_bytes(std::size_t cap) noexcept { return sizeof(chunk) + cap; }

chunk* new_chunk(std::size_t cap) {
  void* mem = rope_allocate(chunk_bytes(cap));
  chunk* c = static_cast<chunk*>(mem);
  c->refs.store(1, std::memory_order_relaxed);
  c->height = 0;
  c->kind = node_kind::chunk_inline;
  c->count = 0;
  c->used = 0;
  c->cap = cap;
  c->data = reinterpret_cast<char*>(c + 1);
  new (&c->index) std::atomic<chunk_index*>(nullptr);
  return c;
}

// A chunk whose bytes are a separate pool block of cap + 1 bytes (the layout
// of an fl::string heap block, so flatten() && can hand it over).
chunk* new_block_chunk(std::size_t cap) {
  char* data = static_cast<char*>(rope_allocate(cap + 1));
  chunk* c = nullptr;
  try {
    c = static_cast<chunk*>(rope_allocate(sizeof(chunk)));
  } catch (...) {
    rope_deallocate(data, cap + 1);
    throw;
  }
  c->refs.store(1, std::memory_order_relaxed);
  c->height = 0;
  c->kind = node_kind::chunk_adopted;
  c->count = 0;
  c->used = 0;
  c->cap = cap;
  c->data = data;
  new (&c->index) std::atomic<chunk_index*>(nullptr);
  return c;
}

inner* init_inner(void* mem, std::uint8_t height) noexcept {
  inner* n = static_cast<inner*>(mem);
  n->refs.store(1, std::memory_order_relaxed);
  n->height = height;
  n->kind = node_kind::inner;
  n->count = 0;
  return n;
}

inner* new_inner(std::uint8_t height) { return init_inner(rope_allocate(sizeof(inner)), height); }

// ---------------------------------------------------------------- reserve before mutate
//
// join edits unique nodes in place (a node whose count is 1 belongs to the
// edge being joined), and an in-place edit cannot be undone. So join never
// allocates: every block it may need is obtained before an edit changes
// anything (join_reserve), and join takes them from here. Inner nodes come
// from a per-thread stash that stays filled between edits, so the usual edit
// pays one check and the allocations of the nodes it really used (the same
// count as before, made earlier). A leaf chunk that join would merge two
// small leaves into is sized from the leaves it will meet and held only for
// the joins of one edit. split, sub_node and build allocate as they go but
// change nothing they do not own, and release what they built if a later
// allocation fails.
struct spare_blocks {
  void* head = nullptr;  // inner-node blocks, linked through their first word
  unsigned count = 0;
  chunk* merge[2] = {};  // chunks for join's leaf merges (join_reserve)
  ~spare_blocks() {
    while (head) {
      void* next = *static_cast<void**>(head);
      rope_deallocate(head, sizeof(inner));
      head = next;
    }
  }
};
thread_local spare_blocks spares;

// Makes the stash hold at least k inner blocks. Throws std::bad_alloc with
// the blocks it got kept for next time (nothing else changes).
void fill_spares(spare_blocks& sp, unsigned k) {
  while (sp.count < k) {
    void* b = rope_allocate(sizeof(inner));
    *static_cast<void**>(b) = sp.head;
    sp.head = b;
    ++sp.count;
  }
}

// An inner node from the stash. join_reserve counted the nodes join can
// take (join_inner_need), so the stash is never empty here; if that count
// were ever short, the test build stops loudly, and a release build falls
// back to allocating (correct unless that allocation fails).
inner* take_inner(std::uint8_t height) {
  spare_blocks& sp = spares;
  if (sp.head == nullptr) [[unlikely]] {
#ifdef FL_ROPE_FAIL_HOOK
    std::fputs("fl::rope: join used more nodes than join_reserve counted\n", stderr);
    std::abort();
#else
    return new_inner(height);
#endif
  }
  void* b = sp.head;
  sp.head = *static_cast<void**>(b);
  --sp.count;
  return init_inner(b, height);
}

// A leaf that edits rewrite may grow to this size before it splits: an
// insert into a full leaf then copies it once into a chunk with room (no new
// edge, no node split), and the next edits nearby are in place. Leaves made
// by building and appending stay within leaf_max_bytes.
inline constexpr std::size_t leaf_edit_max = leaf_max_bytes + leaf_max_bytes / 2;

// Capacity for a fresh chunk that an edit fills with len <= leaf_edit_max
// bytes and that later edits change in place: leaf_edit_max, or less when
// that keeps the chunk (header included) within the pool's largest cached
// block.
std::size_t fresh_leaf_cap(std::size_t len) noexcept {
  constexpr std::size_t pooled = pool_max_cached_bytes - sizeof(chunk);
  return len <= pooled ? std::min(pooled, leaf_edit_max) : leaf_edit_max;
}

// An owned edge covering `text` in a fresh chunk of capacity cap >= size.
edge make_leaf(std::string_view text, std::size_t cap) {
  chunk* c = new_chunk(cap);
  std::memcpy(c->data, text.data(), text.size());
  c->used = text.size();
  return edge{c, 0, text.size()};
}

// A flat rope whose result has at most this many bytes is edited like a
// string: one unique chunk with spare room, changed in place by memmove (the
// first edit of a shared chunk copies it once). Up to two leaves of memmove
// cost less than a walk through a tree, and the chunk stays small enough
// that no edit moves more than 8 KiB (with 4 KiB leaves).
inline constexpr std::size_t flat_edit_max = 2 * leaf_max_bytes;

std::size_t node_len(const inner* n) noexcept {
  std::size_t s = 0;
  for (unsigned i = 0; i < n->count; ++i) s += n->child[i].len;
  return s;
}

// Makes the inner node behind the owned edge `e` writable: unique nodes are
// returned as they are; shared ones are copied (children acquired) and the
// edge moves to the copy.
template <bool Reserved = false>
inner* mut(edge& e) {
  inner* n = static_cast<inner*>(e.p);
  if (unique(n)) return n;
  inner* c = Reserved ? take_inner(n->height) : new_inner(n->height);
  c->count = n->count;
  // One block copy, then the counts (child pointers are never null).
  std::memcpy(c->child, n->child, sizeof(edge) * n->count);
  for (unsigned i = 0; i < n->count; ++i)
    c->child[i].p->refs.fetch_add(1, std::memory_order_relaxed);
  release(n);
  e.p = c;
  return c;
}

// An owned edge to a new node holding (acquired copies of) edges [b, e) of n.
// Zero edges give the empty edge, one edge is returned itself.
edge sub_node(const inner* n, unsigned b, unsigned e) {
  if (b == e) return edge{};
  if (e - b == 1) {
    acquire(n->child[b].p);
    return n->child[b];
  }
  inner* m = new_inner(n->height);
  std::size_t len = 0;
  for (unsigned i = b; i < e; ++i) {
    m->child[m->count++] = n->child[i];
    acquire(n->child[i].p);
    len += n->child[i].len;
  }
  return edge{m, 0, len};
}

// An owned edge to a new inner node over two owned edges of equal height.
edge pair_node(edge a, edge b) {
  inner* m = take_inner(static_cast<std::uint8_t>(a.p->height + 1));
  m->child[0] = a;
  m->child[1] = b;
  m->count = 2;
  return edge{m, 0, a.len + b.len};
}

// ---------------------------------------------------------------- leaves

// Capacity for a chunk that starts a run of appends: grows geometrically in
// small ropes (like a string), and is a full leaf once the rope is large, so
// the following appends land in place.
std::size_t append_cap(std::size_t need, std::size_t rope_len) noexcept {
  if (need >= leaf_max_bytes) return need;
  if (rope_len >= leaf_max_bytes) return leaf_max_bytes;
  std::size_t cap = std::max<std::size_t>(need + need / 2, 32);
  return std::min(cap, leaf_max_bytes);
}

std::string_view leaf_text(const edge& e) noexcept {
  return std::string_view(static_cast<const chunk*>(e.p)->data + e.off, e.len);
}

// Capacity of the chunk that two leaves of `need` bytes together are copied
// into: room for more edits nearby (1.5x, at least 32), at most a leaf.
std::size_t merge_cap(std::size_t need) noexcept {
  return std::min(leaf_max_bytes, std::max(need, append_cap(need, 0)));
}

// The reserved merge chunk with the least capacity >= need (taken out of
// the stash), or null.
chunk* take_merge_chunk(std::size_t need) noexcept {
  spare_blocks& sp = spares;
  chunk** best = nullptr;
  for (chunk*& c : sp.merge)
    if (c && c->cap >= need && (!best || c->cap < (*best)->cap)) best = &c;
  if (!best) return nullptr;
  chunk* c = *best;
  *best = nullptr;
  return c;
}

// Joins two owned leaf edges into one when cheap: in place into a's spare
// room, or by copying both into a chunk that join_reserve set aside when
// together they are small. Returns false (and leaves both untouched) when
// they should stay two leaves, or when no chunk was set aside (the tree is
// valid either way; merging only keeps leaves from getting tiny).
bool merge_leaves(edge& a, edge& b, std::size_t limit) noexcept {
  if (a.len + b.len > limit) {
    if (b.len <= merge_max_bytes && leaf_append_in_place(a, leaf_text(b))) {
      release(b.p);
      b = edge{};
      return true;
    }
    return false;
  }
  if (!leaf_append_in_place(a, leaf_text(b))) {
    const std::size_t need = a.len + b.len;
    chunk* c = take_merge_chunk(need);
    if (!c) return false;
    std::memcpy(c->data, leaf_text(a).data(), a.len);
    std::memcpy(c->data + a.len, leaf_text(b).data(), b.len);
    c->used = need;
    release(a.p);
    a = edge{c, 0, need};
  }
  release(b.p);
  b = edge{};
  return true;
}

// ---------------------------------------------------------------- join

edge join(edge a, edge b);

// Adds the owned edge `x` (same height as n's children) at index `at` of the
// writable node n. If n is full, n keeps the left half and the right half is
// returned as an owned edge (otherwise the empty edge).
edge add_child(inner* n, unsigned at, edge x) {
  if (n->count < max_children) {
    for (unsigned i = n->count; i > at; --i) n->child[i] = n->child[i - 1];
    n->child[at] = x;
    ++n->count;
    return edge{};
  }
  edge all[max_children + 1];
  for (unsigned i = 0, j = 0; i <= max_children; ++i) all[i] = i == at ? x : n->child[j++];
  const unsigned left = (max_children + 1) / 2;
  inner* r = take_inner(n->height);
  n->count = static_cast<std::uint16_t>(left);
  for (unsigned i = 0; i < left; ++i) n->child[i] = all[i];
  for (unsigned i = left; i <= max_children; ++i) r->child[r->count++] = all[i];
  return edge{r, 0, node_len(r)};
}

// Joins two owned inner edges of equal height whose roots may be underfull.
// Result: a's node holds everything (returns empty) or a and the returned
// edge split the children evenly (each >= min_children).
edge merge_equal(edge& a, edge b) {
  inner* na = mut<true>(a);
  const inner* nb = static_cast<const inner*>(b.p);
  const unsigned total = na->count + nb->count;
  const bool own_b = unique(nb);
  auto take = [&](unsigned i) {
    if (!own_b) acquire(nb->child[i].p);
    return nb->child[i];
  };
  edge result{};
  a.forget();
  if (total <= max_children) {
    for (unsigned i = 0; i < nb->count; ++i) na->child[na->count++] = take(i);
    a.len += b.len;
  } else {
    edge all[2 * max_children];
    unsigned k = 0;
    for (unsigned i = 0; i < na->count; ++i) all[k++] = na->child[i];
    for (unsigned i = 0; i < nb->count; ++i) all[k++] = take(i);
    const unsigned left = total / 2;
    inner* r = take_inner(na->height);
    na->count = static_cast<std::uint16_t>(left);
    for (unsigned i = 0; i < left; ++i) na->child[i] = all[i];
    for (unsigned i = left; i < total; ++i) r->child[r->count++] = all[i];
    a.len = node_len(na);
    result = edge{r, 0, node_len(r)};
  }
  if (own_b) {
    // The children moved over; free b's node without releasing them.
    rope_deallocate(b.p, sizeof(inner));
  } else {
    release(b.p);
  }
  return result;
}

// Joins b (owned, lower than a) onto the right (Right) or left end of the
// owned edge a. Returns an overflow sibling of a (to its right, or left when
// !Right) or the empty edge.
template <bool Right>
edge join_side(edge& a, edge b) {
  inner* n = mut<true>(a);
  a.len += b.len;
  a.forget();
  const unsigned idx = Right ? n->count - 1u : 0u;
  edge& near = n->child[idx];
  edge extra{};
  if (near.p->height == b.p->height) {
    if (b.p->height == 0) {
      bool merged =
          Right ? merge_leaves(near, b, merge_max_bytes) : merge_leaves(b, near, merge_max_bytes);
      if (merged) {
        if (!Right) near = b;  // b now holds both
        return edge{};
      }
      extra = b;
    } else if (Right) {
      extra = merge_equal(near, b);
    } else {
      edge nb = b;
      edge spill = merge_equal(nb, near);  // nb = b's children followed by near's
      near = nb;
      extra = spill;
      if (extra.p) {
        // nb holds the left part, spill the right: keep order by putting the
        // spill at idx and nb before it.
        near = spill;
        extra = nb;
      }
    }
  } else {
    extra = join_side<Right>(near, b);
  }
  if (!extra.p) return edge{};
  edge over = add_child(n, Right ? n->count : idx, extra);
  if (over.p) {
    a.len = node_len(n);
    if (!Right) {
      // add_child keeps the left half in n; for a left join the caller wants
      // the overflow on the left, so swap the halves' roles.
      std::swap(a, over);
    }
  }
  return over;
}

edge join(edge a, edge b) {
  if (!a.p) return b;
  if (!b.p) return a;
  const unsigned ha = a.p->height, hb = b.p->height;
  if (ha == 0 && hb == 0) {
    if (merge_leaves(a, b, leaf_max_bytes)) return a;
    return pair_node(a, b);
  }
  if (ha == hb) {
    edge spill = merge_equal(a, b);
    return spill.p ? pair_node(a, spill) : a;
  }
  if (ha > hb) {
    edge over = join_side<true>(a, b);
    return over.p ? pair_node(a, over) : a;
  }
  edge over = join_side<false>(b, a);
  return over.p ? pair_node(over, b) : b;
}

// ---------------------------------------------------------------- what a join needs

// Inner nodes join(a, b) can take, from the heights alone: with d the
// difference of the heights, join_side visits d nodes of the taller tree,
// each may be copied (mut) and split by an overflow from below (add_child):
// 2d; at the bottom merge_equal may copy one node and split it: 2; a new
// root: 1. So 2d + 3 (equal heights: mut, split, root).
unsigned join_inner_need(unsigned ha, unsigned hb) noexcept {
  return 2 * (ha > hb ? ha - hb : hb - ha) + 3;
}

// The leaf at the right (or left) end of e; path_unique is cleared when a
// node above it is shared (join would copy it, which shares the leaf too).
const edge& end_leaf(const edge& e, bool right, bool& path_unique) noexcept {
  const edge* x = &e;
  while (x->p->height > 0) {
    if (!unique(x->p)) path_unique = false;
    const inner* n = static_cast<const inner*>(x->p);
    x = &n->child[right ? n->count - 1u : 0u];
  }
  return *x;
}

// Capacity of the chunk join(a, b) will copy two leaves into, or 0 when it
// will not (mirrors join, join_side and merge_leaves): leaves meet only when
// one side is a single leaf; they are copied when together at most `limit`
// bytes and the left one cannot take the right one in place.
std::size_t join_merge_cap(const edge& a, const edge& b) noexcept {
  if (!a.p || !b.p || (a.p->height != 0 && b.p->height != 0)) return 0;
  const std::size_t limit = a.p->height == 0 && b.p->height == 0 ? leaf_max_bytes : merge_max_bytes;
  bool path_unique = true, ignored = true;
  const edge& l = end_leaf(a, true, path_unique);
  const edge& r = end_leaf(b, false, ignored);
  const std::size_t need = l.len + r.len;
  if (need > limit) return 0;
  const chunk* c = static_cast<const chunk*>(l.p);
  if (path_unique && unique(c) && c->cap - (l.off + l.len) >= r.len) return 0;  // in place
  return merge_cap(need);
}

// Everything one edit's joins may allocate, obtained before the edit changes
// the tree: inner nodes go to the thread's stash (what is left stays there),
// merge chunks are held in it for this object's lifetime and freed if the
// joins did not use them. At most one join_reserve is alive per thread (the
// edits never nest them).
class join_reserve {
 public:
  join_reserve() noexcept : sp_(spares) {}
  join_reserve(const join_reserve&) = delete;
  join_reserve& operator=(const join_reserve&) = delete;
  ~join_reserve() {
    for (chunk*& c : sp_.merge) {
      if (c) rope_deallocate(c, chunk_bytes(c->cap));
      c = nullptr;
    }
  }
  // For a join of a and b as they are now (before any other join of this
  // edit runs, or after it, if it cannot change them).
  void add(const edge& a, const edge& b) {
    if (!a.p || !b.p) return;
    add_nodes(join_inner_need(a.p->height, b.p->height));
    add_chunk(join_merge_cap(a, b));
  }
  void add_nodes(unsigned k) {
    nodes_ += k;
    fill_spares(sp_, nodes_);
  }
  void add_chunk(std::size_t cap) {
    if (cap == 0) return;
    for (chunk*& c : sp_.merge) {
      if (!c) {
        c = new_chunk(cap);
        return;
      }
    }
  }

 private:
  spare_blocks& sp_;
  unsigned nodes_ = 0;
};

// Joins the owned edge `piece` to the right (or, with !piece_last, the left)
// of the owned edge `root` and returns the result. Everything the join may
// allocate is reserved first, so a failure throws with `root` untouched and
// `piece` released; the join itself cannot fail.
edge join_piece(edge root, edge piece, bool piece_last) {
  join_reserve res;
  try {
    if (piece_last)
      res.add(root, piece);
    else
      res.add(piece, root);
  } catch (...) {
    release(piece.p);
    throw;
  }
  return piece_last ? join(root, piece) : join(piece, root);
}

// join_reserve for join(join(left, mid), right), before the first join: the
// first is counted exactly; the second from bounds on what the first can
// make (its height is max(hl, hm) or one more; its last leaf is mid's last
// leaf, possibly merged with left's last).
void reserve_join3(join_reserve& res, const edge& left, const edge& mid, const edge& right) {
  res.add(left, mid);
  if (!right.p) return;
  if (!left.p || !mid.p) {
    res.add(left.p ? left : mid, right);  // the first join returns that side unchanged
    return;
  }
  const unsigned hl = left.p->height, hm = mid.p->height, hr = right.p->height;
  const unsigned lo = std::max(hl, hm), hi = lo + 1;
  res.add_nodes(std::max(join_inner_need(lo, hr), join_inner_need(hi, hr)));
  // Leaves meet in the second join only if one side is a single leaf.
  const bool x_may_be_leaf = hl == 0 && hm == 0;
  if (hr != 0 && !x_may_be_leaf) return;
  bool ignored = true;
  const std::size_t last_l = end_leaf(left, true, ignored).len;
  const std::size_t last_m = end_leaf(mid, true, ignored).len;
  const std::size_t first_r = end_leaf(right, false, ignored).len;
  std::size_t x_min = last_m, x_max = hm == 0 ? last_l + last_m : last_m;
  if (hr != 0) x_min = x_max = left.len + mid.len;  // only a merged single leaf meets a tree
  const std::size_t limit = x_may_be_leaf && hr == 0 ? leaf_max_bytes : merge_max_bytes;
  if (x_min + first_r > limit) return;
  res.add_chunk(merge_cap(std::min(x_max + first_r, limit)));
}

// ---------------------------------------------------------------- split

// Splits the owned edge t at pos (0 <= pos <= t.len) into owned halves.
// Consumes t only on success: if an allocation fails, t is still the
// caller's, unchanged, and every node made so far has been released. That
// holds because nothing under t is written here: while t is alive its
// children have a second owner, so the joins below copy them, and only the
// fresh nodes of this split are edited in place.
std::pair<edge, edge> split(edge t, std::size_t pos) {
  if (pos == 0) return {edge{}, t};
  if (pos == t.len) return {t, edge{}};
  if (t.p->height == 0) {
    // Both halves view the same chunk: no byte is copied. When t's metrics
    // are known, only the shorter half is counted.
    acquire(t.p);
    edge l{t.p, t.off, pos}, r{t.p, t.off + pos, t.len - pos};
    if (t.known()) {
      const chunk* c = static_cast<const chunk*>(t.p);
      const bool left_short = pos <= t.len - pos;
      edge& a = left_short ? l : r;
      edge& b = left_short ? r : l;
      const text_counts ta = chunk_counts(c, a.off, a.len);
      a.chars = ta.chars;
      a.newlines = ta.newlines;
      a.astral = ta.astral;
      b.chars = t.chars - ta.chars;
      b.newlines = t.newlines - ta.newlines;
      b.astral = t.astral - ta.astral;
    }
    return {l, r};
  }
  const inner* n = static_cast<const inner*>(t.p);
  unsigned i = 0;
  std::size_t start = 0;
  while (pos >= start + n->child[i].len) start += n->child[i++].len;
  edge left{}, right{}, ml{}, mr{};
  try {
    if (pos == start) {
      left = sub_node(n, 0, i);
      right = sub_node(n, i, n->count);
    } else {
      left = sub_node(n, 0, i);
      right = sub_node(n, i + 1, n->count);
      edge mid = n->child[i];
      acquire(mid.p);
      try {
        std::tie(ml, mr) = split(mid, pos - start);
      } catch (...) {
        release(mid.p);
        throw;
      }
      // One reservation per join: the first join may free ml's share of
      // the chunk mr also views, after which mr takes right in place.
      {
        join_reserve res;
        res.add(left, ml);
        left = join(left, ml);
        ml = edge{};
      }
      join_reserve res;
      res.add(mr, right);
      right = join(mr, right);
      mr = edge{};
    }
  } catch (...) {
    release(left.p);
    release(right.p);
    release(ml.p);
    release(mr.p);
    throw;
  }
  release(t.p);
  return {left, right};
}

// An owned tree holding `text`: one chunk when it fits, else full leaves
// grouped bottom-up into evenly filled nodes. Every leaf and node is
// allocated before the first is linked, so a failure frees them all.
edge build(std::string_view text, std::size_t cap_hint) {
  if (text.empty()) return edge{};
  if (text.size() <= leaf_max_bytes) return make_leaf(text, std::max(cap_hint, text.size()));
  const std::size_t leaves = (text.size() + leaf_max_bytes - 1) / leaf_max_bytes;
  std::size_t nodes = 0;
  for (std::size_t n = leaves; n > 1; n = (n + max_children - 1) / max_children)
    nodes += (n + max_children - 1) / max_children;
  // level[0, leaves): the current level; level[leaves, leaves + nodes): the
  // blocks of the inner nodes, taken in order as the levels are grouped.
  const std::size_t slots = leaves + nodes;
  edge* level = static_cast<edge*>(rope_allocate(sizeof(edge) * slots));
  std::size_t made = 0;
  try {
    // Leaves of equal size (within one byte), each <= leaf_max_bytes.
    std::size_t off = 0;
    for (; made < leaves; ++made) {
      const std::size_t len = text.size() / leaves + (made < text.size() % leaves ? 1 : 0);
      level[made] = make_leaf(text.substr(off, len), len);
      off += len;
    }
    for (; made < slots; ++made) level[made].p = new_inner(0);
  } catch (...) {
    for (std::size_t j = 0; j < made; ++j) {
      if (j < leaves) {
        release(level[j].p);
      } else {
        rope_deallocate(level[j].p, sizeof(inner));
      }
    }
    rope_deallocate(level, sizeof(edge) * slots);
    throw;
  }
  std::size_t level_n = leaves;
  std::size_t next_node = leaves;
  std::uint8_t height = 0;
  while (level_n > 1) {
    ++height;
    const std::size_t groups = (level_n + max_children - 1) / max_children;
    std::size_t k = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t cnt = level_n / groups + (g < level_n % groups ? 1 : 0);
      inner* m = static_cast<inner*>(level[next_node++].p);
      m->height = height;
      std::size_t len = 0;
      for (std::size_t j = 0; j < cnt; ++j) {
        m->child[m->count++] = level[k];
        len += level[k++].len;
      }
      level[g] = edge{m, 0, len};
    }
    level_n = groups;
  }
  edge root = level[0];
  rope_deallocate(level, sizeof(edge) * slots);
  return root;
}

// Appends in place along the right spine when every node on it is unique
// and the last chunk has room. O(height).
bool append_in_place(edge& root, std::string_view text) noexcept {
  if (!root.p) return false;
  edge* path[max_depth];
  unsigned depth = 0;
  edge* e = &root;
  while (e->p->height > 0) {
    if (!unique(e->p)) return false;
    path[depth++] = e;
    inner* n = static_cast<inner*>(e->p);
    e = &n->child[n->count - 1];
  }
  // The metrics change by those of `text` (all edges on the spine, when
  // they are known; unknown ones are computed by rope::settle).
  const edge before = *e;
  if (!leaf_append_in_place(*e, text)) return false;
  const text_counts add = count_text(text.data(), text.size());
  if (before.known()) {
    e->chars = before.chars + add.chars;
    e->newlines = before.newlines + add.newlines;
    e->astral = before.astral + add.astral;
  }
  for (unsigned i = 0; i < depth; ++i) {
    edge& x = *path[i];
    x.len += text.size();
    if (x.known()) {
      x.chars += add.chars;
      x.newlines += add.newlines;
      x.astral += add.astral;
    }
  }
  return true;
}

// Grows the chunk of a flat, unique rope geometrically, like a string, and
// appends `text`. Up to leaf_max_bytes the bytes stay inline (one copy per
// doubling); past that they live in a separate pool block of cap + 1 bytes
// (chunk_adopted: the layout of an fl::string heap block), which
// pool_reallocate extends in place when it can (realloc remaps the pages of
// a large block instead of copying them), and which flatten() && hands to an
// fl::string without a copy. So a rope built by appends alone stays one
// flat chunk of any size until it is copied or edited elsewhere than at its
// end.
bool append_flat_grow(edge& root, std::string_view text) {
  chunk* c = static_cast<chunk*>(root.p);
  const std::size_t need = root.len + text.size();
  if (need < root.len || need > (std::size_t{1} << 62))
    throw std::length_error("fl::rope: too long");
  if (need <= leaf_max_bytes) {
    const std::size_t cap =
        std::min(leaf_max_bytes, std::max({need, root.len * 2, append_cap(need, 0)}));
    chunk* f = new_chunk(cap);
    std::memcpy(f->data, leaf_text(root).data(), root.len);
    std::memcpy(f->data + root.len, text.data(), text.size());
    f->used = need;
    release(root.p);
    root = edge{f, 0, need};
    return true;
  }
  const std::size_t cap = std::max(need, root.len * 2);
  const bool overlaps = text.data() < c->data + c->cap && text.data() + text.size() > c->data;
  if (c->kind == node_kind::chunk_adopted && root.off == 0 && !overlaps) {
    c->data = static_cast<char*>(rope_reallocate(c->data, c->cap + 1, cap + 1));
    c->cap = cap;
    std::memcpy(c->data + root.len, text.data(), text.size());
    c->used = need;
    root.len = need;
    root.forget();
    return true;
  }
  chunk* f = new_block_chunk(cap);
  f->used = need;
  std::memcpy(f->data, leaf_text(root).data(), root.len);
  std::memcpy(f->data + root.len, text.data(), text.size());
  release(root.p);
  root = edge{f, 0, need};
  return true;
}

// ---------------------------------------------------------------- edits inside one leaf

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

// The splice of bytes [pos, pos + n) of the rope `root` (a tree, or a flat
// chunk too big for flat_edit_max) into
// `text`, done on the one leaf that holds the range: the nodes on the path
// are made writable (copied when shared), the leaf is rewritten in place when
// its chunk is unique and roomy, else its new bytes go to a fresh chunk with
// room up to leaf_edit_max (so that the next edits nearby are in place); a
// leaf that outgrows leaf_edit_max becomes up to three edges, a fresh chunk
// of about leaf_max_bytes / 2 around the text between pieces that keep
// sharing the old chunk, and full nodes split on the way up. O(height +
// leaf_max_bytes), no tree is split or joined. Returns false, with the
// content unchanged, when the edit is not of that kind (range across leaves,
// text longer than leaf_max_bytes / 4, a leaf that would become empty).
// Allocates everything it needs before the first write, so a throw leaves
// the content unchanged (path copies are equal to what they replace).
bool edit_in_leaf(edge& root, std::size_t pos, std::size_t n, std::string_view text) {
  const std::size_t ins = text.size();
  if (ins > leaf_max_bytes / 4) return false;
  // A pure insert at a leaf boundary goes to the end of the left leaf.
  const std::size_t target = n == 0 && pos > 0 ? pos - 1 : pos;
  unsigned idx[max_depth];
  unsigned depth = 0;
  std::size_t lo = 0;
  const edge* e = &root;
  while (e->p->height > 0) {
    const inner* nd = static_cast<const inner*>(e->p);
    unsigned i = 0;
    while (target - lo >= nd->child[i].len) lo += nd->child[i++].len;
    idx[depth++] = i;
    e = &nd->child[i];
  }
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
    path[d] = mut(*cur);
    cur = &path[d]->child[idx[d]];
  }
  edge& leaf = *cur;
  chunk* c = static_cast<chunk*>(leaf.p);
  const char* old = c->data + leaf.off;

  if (out <= leaf_edit_max) {
    // The metrics change by those of `text` minus those of the bytes it
    // replaces, on the leaf and every edge above it that is known.
    const edge before = leaf;
    const text_counts add = count_text(text.data(), ins), sub = count_text(old + p, n);
    const auto shift = [&](edge& x) {
      if (!x.known()) return;
      x.chars = x.chars + add.chars - sub.chars;
      x.newlines = x.newlines + add.newlines - sub.newlines;
      x.astral = x.astral + add.astral - sub.astral;
    };
    const bool overlaps = text.data() < c->data + c->cap && text.data() + ins > c->data;
    if (unique(c) && leaf.off + out <= c->cap && !overlaps) {
      index_truncate(c, leaf.off + p);
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
      release(c);
      leaf = edge{f, 0, out};
    }
    leaf.len = out;
    // A fresh chunk's edge starts unknown: it takes the old leaf's metrics
    // shifted, since every edge above it is shifted and stays known.
    leaf.chars = before.chars;
    leaf.newlines = before.newlines;
    leaf.astral = before.astral;
    shift(leaf);
    for (unsigned d = depth; d-- > 0;) {
      up[d]->len = up[d]->len + ins - n;
      shift(*up[d]);
    }
    return true;
  }

  // The new leaf text is A | text | B with A = old[0, p) and B = old[p + n,
  // len). A window of about leaf_max_bytes / 2 around the text is copied;
  // what lies outside it keeps pointing into c.
  const std::size_t want = leaf_max_bytes / 2 - ins;  // ins <= leaf_max / 4
  std::size_t ta = std::min(p, want / 2);
  const std::size_t tb = std::min(tail, want - ta);
  ta = std::min(p, want - tb);
  const std::size_t a_keep = p - ta;      // shared head: old[0, a_keep)
  const std::size_t b_keep = tail - tb;   // shared tail: old[len - b_keep, len)
  const std::size_t mid = ta + ins + tb;  // copied window
  edge pieces[3];
  // New inner nodes the split may need: the leaf's parent overflows if it
  // gains k - 1 edges, then each full ancestor, then a new root.
  unsigned k = 1u + (a_keep > 0 ? 1u : 0u) + (b_keep > 0 ? 1u : 0u);
  unsigned need = 0;
  if (depth == 0) {
    need = 1;  // a flat root becomes a node over the pieces
  } else if (path[depth - 1]->count + k - 1 > max_children) {
    need = 1;
    unsigned d = depth - 1;
    while (d > 0 && path[d - 1]->count == max_children) {
      ++need;
      --d;
    }
    if (d == 0) ++need;  // the root splits: a new root above it
  }
  chunk* f = new_chunk(fresh_leaf_cap(mid));
  inner* spare[max_depth + 1];
  unsigned got = 0;
  try {
    for (; got < need; ++got) spare[got] = new_inner(0);
  } catch (...) {
    for (unsigned i = 0; i < got; ++i) rope_deallocate(spare[i], sizeof(inner));
    rope_deallocate(f, chunk_bytes(f->cap));
    throw;
  }
  std::memcpy(f->data, old + a_keep, ta);
  if (ins) std::memcpy(f->data + ta, text.data(), ins);
  std::memcpy(f->data + ta + ins, old + p + n, tb);
  f->used = mid;
  // The pieces' metrics: the kept parts are ranges of c (the block index
  // answers long ones cheaply); the window is the leaf minus those, minus
  // the bytes replaced, plus the text, so it is never scanned.
  const text_counts whole = leaf.known() ? text_counts{leaf.chars, leaf.newlines, leaf.astral}
                                         : chunk_counts(c, leaf.off, leaf.len);
  const text_counts ca = a_keep ? chunk_counts(c, leaf.off, a_keep) : text_counts{};
  const text_counts cb =
      b_keep ? chunk_counts(c, leaf.off + leaf.len - b_keep, b_keep) : text_counts{};
  const text_counts gone = count_text(old + p, n), added = count_text(text.data(), ins);
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
  release(c);  // the leaf's own reference; the pieces hold theirs
  if (depth == 0) {
    inner* m = spare[0];
    m->height = 1;
    m->count = 0;
    for (unsigned j = 0; j < k; ++j) m->child[m->count++] = pieces[j];
    root = edge{m, 0, out};
    return true;
  }
  // Bottom-up: each level takes the overflow sibling of the level below
  // right after the child it came from, and fixes the length of its edge.
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
  return true;
}

// ---------------------------------------------------------------- walking

// Calls f(string_view) for each leaf slice of e from byte `from` on, in
// order, until f returns false. Returns false if stopped.
template <class F>
bool for_each_leaf(const edge& e, std::size_t from, F& f) {
  if (e.p->height == 0) {
    const chunk* c = static_cast<const chunk*>(e.p);
    return f(std::string_view(c->data + e.off + from, e.len - from));
  }
  const inner* n = static_cast<const inner*>(e.p);
  for (unsigned i = 0; i < n->count; ++i) {
    const edge& ch = n->child[i];
    if (from >= ch.len) {
      from -= ch.len;
      continue;
    }
    if (!for_each_leaf(ch, from, f)) return false;
    from = 0;
  }
  return true;
}

// A streaming, chunking-independent 64-bit hash: 8-byte words through a
// multiply-xorshift mix, the tail and the length folded in at the end.
class stream_hash {
 public:
  void feed(std::string_view s) noexcept {
    total_ += s.size();
    const char* p = s.data();
    std::size_t n = s.size();
    while (n > 0 && fill_ > 0 && fill_ < 8) {
      buf_[fill_++] = *p++;
      --n;
    }
    if (fill_ == 8) {
      word(load(buf_));
      fill_ = 0;
    }
    while (n >= 8) {
      word(load(p));
      p += 8;
      n -= 8;
    }
    while (n > 0) {
      buf_[fill_++] = *p++;
      --n;
    }
  }
  std::size_t finish() noexcept {
    std::uint64_t last = 0;
    std::memcpy(&last, buf_, fill_);
    word(last ^ (static_cast<std::uint64_t>(fill_) << 56));
    std::uint64_t h = h_ ^ total_;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return static_cast<std::size_t>(h);
  }

 private:
  static std::uint64_t load(const char* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  void word(std::uint64_t w) noexcept {
    w *= 0x9e3779b97f4a7c15ULL;
    w ^= w >> 29;
    h_ = (h_ ^ w) * 0xbf58476d1ce4e5b9ULL;
    h_ ^= h_ >> 31;
  }
  std::uint64_t h_ = 0x243f6a8885a308d3ULL;
  std::uint64_t total_ = 0;
  char buf_[8] = {};
  std::size_t fill_ = 0;
};

}  // namespace

// ---------------------------------------------------------------- detail API

void destroy(node* p) noexcept {
  switch (p->kind) {
    case node_kind::chunk_inline: {
      chunk* c = static_cast<chunk*>(p);
      free_index(c);
      rope_deallocate(c, chunk_bytes(c->cap));
      break;
    }
    case node_kind::chunk_adopted: {
      chunk* c = static_cast<chunk*>(p);
      free_index(c);
      rope_deallocate(c->data, c->cap + 1);
      rope_deallocate(c, sizeof(chunk));
      break;
    }
    case node_kind::inner: {
      inner* n = static_cast<inner*>(p);
      for (unsigned i = 0; i < n->count; ++i) release(n->child[i].p);
      rope_deallocate(n, sizeof(inner));
      break;
    }
  }
}

leaf_view seek(const edge& root, std::size_t pos) noexcept {
  const edge* e = &root;
  std::size_t lo = 0;
  while (e->p->height > 0) {
    const inner* n = static_cast<const inner*>(e->p);
    unsigned i = 0;
    while (pos - lo >= n->child[i].len) lo += n->child[i++].len;
    e = &n->child[i];
  }
  return leaf_view{static_cast<const chunk*>(e->p)->data + e->off, lo, e->len};
}

leaf_view seek_or_end(const edge& root, std::size_t pos) noexcept {
  if (pos >= root.len) return leaf_view{nullptr, root.len, 0};
  return seek(root, pos);
}

#ifdef FL_ROPE_FAIL_HOOK
void rope_fail_after(std::size_t n) noexcept { fail_countdown = n; }
long rope_live_blocks() noexcept { return live_blocks - static_cast<long>(spares.count); }
#endif

unsigned rope_height(const rope& r) noexcept { return r.root_.p ? r.root_.p->height : 0; }

namespace {
[[noreturn]] void broken(const char* what) {
  throw std::logic_error(std::string("fl::rope invariant: ") + what);
}

// Returns the subtree's byte count; checks everything below e.
std::size_t check_edge(const edge& e, unsigned expect_height, bool is_root) {
  if (!e.p) broken("null child");
  if (e.p->refs.load(std::memory_order_acquire) == 0) broken("live node with zero count");
  if (e.p->height != expect_height) broken("leaves at different depths");
  if (e.len == 0) broken("empty edge");
  if (e.p->height == 0) {
    if (e.p->kind != node_kind::chunk_inline && e.p->kind != node_kind::chunk_adopted)
      broken("leaf is not a chunk");
    const chunk* c = static_cast<const chunk*>(e.p);
    if (c->used > c->cap) broken("chunk used > cap");
    if (e.off + e.len > c->used) broken("edge beyond chunk bytes");
    if (c->kind == node_kind::chunk_inline && c->cap > flat_edit_max && c->cap != c->used)
      broken("oversized chunk with spare room");
    if (!is_root && !e.known()) broken("leaf metrics not computed");
    if (e.known()) {
      const text_counts t = count_text(c->data + e.off, e.len);
      if (t.chars != e.chars || t.newlines != e.newlines || t.astral != e.astral)
        broken("leaf metrics wrong");
    }
    if (!index_ok(c, e.off, e.len)) broken("chunk index disagrees with its bytes");
    return e.len;
  }
  if (e.p->kind != node_kind::inner) broken("inner height on a chunk");
  if (e.off != 0) broken("offset into an inner node");
  const inner* n = static_cast<const inner*>(e.p);
  if (n->count > max_children) broken("too many children");
  if (is_root ? n->count < 2 : n->count < min_children) broken("underfull node");
  std::size_t sum = 0;
  for (unsigned i = 0; i < n->count; ++i) sum += check_edge(n->child[i], expect_height - 1, false);
  if (sum != e.len) broken("edge length != sum of children");
  if (!e.known()) broken("inner metrics not computed");
  text_counts t;
  for (unsigned i = 0; i < n->count; ++i) {
    t.chars += n->child[i].chars;
    t.newlines += n->child[i].newlines;
    t.astral += n->child[i].astral;
  }
  if (t.chars != e.chars || t.newlines != e.newlines || t.astral != e.astral)
    broken("inner metrics != sum of children");
  return sum;
}
}  // namespace

void check_invariants(const rope& r) {
  const edge& root = r.root_;
  if (!root.p) {
    if (root.len != 0 || root.off != 0) broken("empty rope with a size");
    return;
  }
  if (root.len == 0) broken("non-empty root of size 0");
  // Depth bound: a tree of height h has >= 2 * min^(h-1) leaves, each >= 1 byte.
  if (root.p->height >= max_depth) broken("too deep");
  check_edge(root, root.p->height, true);
}

}  // namespace FL_ROPE_NS
}  // namespace fl::detail

// ================================================================ rope

namespace fl {
inline namespace FL_ROPE_NS {

using detail::edge;

// A contiguous text becomes one chunk, whatever its size (one allocation,
// one copy): edits later share it piecewise, and reads of it are flat.
rope::rope(std::string_view text) {
  if (text.size() <= detail::leaf_max_bytes) {
    root_ = detail::build(text, text.size());
    return;
  }
  detail::chunk* c = detail::new_block_chunk(text.size());
  std::memcpy(c->data, text.data(), text.size());
  c->used = text.size();
  root_ = edge{c, 0, text.size()};
}

rope::rope(adopt_tag, fl::string&& text) {
#ifdef FL_ROPE_HAVE_STRING_ACCESS
  if (text.size() > 0) {
    ::fl::detail::heap_block b = ::fl::detail::string_access::release(text);
    if (b.data) {
      try {
        detail::chunk* c =
            static_cast<detail::chunk*>(detail::rope_allocate(sizeof(detail::chunk)));
        c->refs.store(1, std::memory_order_relaxed);
        c->height = 0;
        c->kind = detail::node_kind::chunk_adopted;
        c->count = 0;
        c->used = b.size;
        c->cap = b.capacity;
        c->data = b.data;
        new (&c->index) std::atomic<detail::chunk_index*>(nullptr);
        root_ = edge{c, 0, b.size};
        detail::count_adopted(1);
        if (b.size == 0) clear();
        return;
      } catch (...) {
        text = ::fl::detail::string_access::adopt(b);  // give the buffer back
        throw;
      }
    }
  }
#endif
  root_ = detail::build(std::string_view(text), text.size());
  settle();
}

rope::rope(size_type count, char ch) {
  if (count == 0) return;
  if (count <= detail::leaf_max_bytes) {
    detail::chunk* c = detail::new_chunk(count);
    std::memset(c->data, static_cast<unsigned char>(ch), count);
    c->used = count;
    root_ = edge{c, 0, count};
    return;
  }
  // Every full leaf holds the same bytes: build one and share it.
  const std::size_t leaves = (count + detail::leaf_max_bytes - 1) / detail::leaf_max_bytes;
  detail::chunk* c = detail::new_chunk(detail::leaf_max_bytes);
  std::memset(c->data, static_cast<unsigned char>(ch), detail::leaf_max_bytes);
  c->used = detail::leaf_max_bytes;
  edge piece{c, 0, detail::leaf_max_bytes};
  edge acc{};
  try {
    for (std::size_t i = 0; i < leaves; ++i) {
      const std::size_t len =
          i + 1 < leaves ? detail::leaf_max_bytes : count - i * detail::leaf_max_bytes;
      const edge leaf{c, 0, len};
      detail::join_reserve res;
      res.add(acc, leaf);
      detail::acquire(c);
      acc = detail::join(acc, leaf);
    }
  } catch (...) {
    detail::release(acc.p);
    detail::release(piece.p);
    throw;
  }
  detail::release(piece.p);
  root_ = acc;
  settle();
}

char rope::at(size_type pos) const {
  if (pos >= size()) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "fl::rope::at: pos (which is %zu) >= size() (which is %zu)", pos,
                  size());
    throw std::out_of_range(buf);
  }
  return (*this)[pos];
}

rope& rope::append_slow(std::string_view text) {
  if (text.empty()) return *this;
  // A flat rope already failed the inline in-place path; a tree may still
  // have room at the end of its right spine.
  if (root_.p && root_.p->height > 0 && detail::append_in_place(root_, text)) {
    settle();
    return *this;
  }
  if (unique_flat() && detail::append_flat_grow(root_, text)) return *this;
  const edge piece = detail::build(text, detail::append_cap(text.size(), root_.len + text.size()));
  root_ = detail::join_piece(root_, piece, true);
  settle();
  return *this;
}

rope& rope::append(const rope& other) {
  if (other.empty()) return *this;
  if (other.root_.p->height == 0 && other.size() <= detail::merge_max_bytes &&
      detail::append_in_place(root_, detail::leaf_text(other.root_))) {
    settle();
    return *this;
  }
  // Acquire before join (other may be *this) and before reserving, so that
  // the reservation sees the counts join will see.
  detail::acquire(other.root_.p);
  root_ = detail::join_piece(root_, other.root_, true);
  settle();
  return *this;
}

rope& rope::prepend(std::string_view text) {
  if (text.empty()) return *this;
  splice(0, 0, text, nullptr);
  return *this;
}

rope& rope::prepend(const rope& other) {
  if (other.empty()) return *this;
  detail::acquire(other.root_.p);
  root_ = detail::join_piece(root_, other.root_, false);
  settle();
  return *this;
}

bool rope::unique_flat() const noexcept {
  return root_.p && root_.p->height == 0 && detail::unique(root_.p);
}

// The one edit: bytes [pos, pos + n) become `text` (or *other). Flat ropes
// whose result has at most flat_edit_max bytes are edited like a string (in
// place when unique and roomy, else one new chunk); a small edit inside one
// leaf of a tree rewrites that leaf (edit_in_leaf); everything else is
// split, split, join, join: O(log n) nodes, chunks shared.
void rope::splice(size_type pos, size_type n, std::string_view text, const rope* other) {
  const size_type sz = size();
  n = std::min(n, sz - pos);
  const size_type ins = other ? other->size() : text.size();
  if (n == 0 && ins == 0) return;
  if (other && other->root_.p && other->root_.p->height == 0 && ins <= detail::merge_max_bytes) {
    text = detail::leaf_text(other->root_);
    other = nullptr;
  }
  const size_type out = sz - n + ins;
  if (!other && out > 0 && out <= detail::flat_edit_max && (!root_.p || root_.p->height == 0)) {
    const size_type tail = sz - pos - n;
    if (root_.p && detail::unique(root_.p)) {
      auto* c = static_cast<detail::chunk*>(root_.p);
      if (c->cap >= out + root_.off &&
          (text.data() + text.size() <= c->data || text.data() >= c->data + c->cap)) {
        detail::index_truncate(c, root_.off + pos);
        char* base = c->data + root_.off;
        std::memmove(base + pos + ins, base + pos + n, tail);
        if (ins) std::memcpy(base + pos, text.data(), ins);
        c->used = root_.off + out;
        root_.len = out;
        root_.forget();
        return;
      }
    }
    const std::size_t cap =
        std::min(detail::flat_edit_max, out + std::max<std::size_t>(out / 2, 32));
    detail::chunk* c = detail::new_chunk(cap);
    const char* old =
        root_.p ? static_cast<const detail::chunk*>(root_.p)->data + root_.off : nullptr;
    if (pos) std::memcpy(c->data, old, pos);
    if (ins) std::memcpy(c->data + pos, text.data(), ins);
    if (tail) std::memcpy(c->data + pos + ins, old + pos + n, tail);
    c->used = out;
    detail::release(root_.p);
    root_ = edge{c, 0, out};
    return;
  }
  if (!other && root_.p && detail::edit_in_leaf(root_, pos, n, text)) {
    settle();
    return;
  }
  edge mid{};
  if (other) {
    mid = other->root_;
    detail::acquire(mid.p);
  } else {
    mid = detail::build(text, text.size());
  }
  // The splits work on a second reference to the tree, so root_ stays
  // intact until everything the joins need is reserved; then the old tree
  // is dropped (its unique nodes now belong to the pieces alone, and the
  // joins edit them in place) and the joins cannot fail.
  edge whole = root_;
  detail::acquire(whole.p);
  edge left{}, rest{}, cut{}, right{};
  detail::join_reserve res;
  try {
    std::tie(left, rest) = detail::split(whole, pos);
    whole = edge{};
    std::tie(cut, right) = detail::split(rest, n);
    rest = edge{};
    detail::reserve_join3(res, left, mid, right);
  } catch (...) {
    for (edge e : {whole, left, rest, cut, right, mid}) detail::release(e.p);
    throw;
  }
  detail::release(cut.p);
  detail::release(root_.p);
  root_ = detail::join(detail::join(left, mid), right);
  settle();
}

rope& rope::insert(size_type pos, std::string_view text) {
  if (pos > size()) throw std::out_of_range("fl::rope::insert: pos > size()");
  splice(pos, 0, text, nullptr);
  return *this;
}

rope& rope::insert(size_type pos, const rope& other) {
  if (pos > size()) throw std::out_of_range("fl::rope::insert: pos > size()");
  const rope keep(other);  // other may be *this
  splice(pos, 0, {}, &keep);
  return *this;
}

rope& rope::erase(size_type pos, size_type n) {
  if (pos > size()) throw std::out_of_range("fl::rope::erase: pos > size()");
  splice(pos, n, {}, nullptr);
  return *this;
}

rope& rope::replace(size_type pos, size_type n, std::string_view text) {
  if (pos > size()) throw std::out_of_range("fl::rope::replace: pos > size()");
  splice(pos, n, text, nullptr);
  return *this;
}

rope& rope::replace(size_type pos, size_type n, const rope& other) {
  if (pos > size()) throw std::out_of_range("fl::rope::replace: pos > size()");
  const rope keep(other);
  splice(pos, n, {}, &keep);
  return *this;
}

rope rope::substr(size_type pos, size_type n) const {
  if (pos > size()) throw std::out_of_range("fl::rope::substr: pos > size()");
  n = std::min(n, size() - pos);
  if (n == 0) return rope();
  // Inside one leaf: one edge sharing that leaf's chunk.
  const edge* e = &root_;
  size_type lo = 0;
  while (e->p->height > 0) {
    const auto* nd = static_cast<const detail::inner*>(e->p);
    unsigned i = 0;
    while (pos - lo >= nd->child[i].len) lo += nd->child[i++].len;
    e = &nd->child[i];
  }
  if (pos + n <= lo + e->len) {
    detail::acquire(e->p);
    return rope(edge{e->p, e->off + (pos - lo), n});
  }
  // Across leaves but short: one fresh chunk (cheaper than a tree of
  // pieces, and the copy is at most one leaf).
  if (n <= detail::leaf_max_bytes) {
    detail::chunk* c = detail::new_chunk(n);
    c->used = copy(c->data, n, pos);
    return rope(edge{c, 0, n});
  }
  // split consumes its argument only on success.
  detail::acquire(root_.p);
  edge left{}, rest{};
  try {
    std::tie(left, rest) = detail::split(root_, pos);
  } catch (...) {
    detail::release(root_.p);
    throw;
  }
  detail::release(left.p);
  edge mid{}, right{};
  try {
    std::tie(mid, right) = detail::split(rest, n);
  } catch (...) {
    detail::release(rest.p);
    throw;
  }
  detail::release(right.p);
  return rope(mid);
}

// Linear search over the chunk stream. Matches inside a chunk of at least
// m bytes are found by fl::find on the chunk itself. Matches that cross
// boundaries are found in a small buffer `win` holding the stream's bytes
// since the last position that could still start a match: when a big chunk
// arrives, win gets its first m-1 bytes and is searched (O(m) work paid by
// a chunk of >= m bytes), then restarts as the chunk's last m-1 bytes; small
// chunks are appended to win, which is searched and cut back to its last m-1
// bytes once it reaches 2m + 64 bytes (each search covers >= m + 64 new
// bytes). So every byte is searched O(1) times: O(n + m) overall, however
// many chunks a match spans.
rope::size_type rope::find(std::string_view needle, size_type pos) const noexcept {
  const size_type n = size(), m = needle.size();
  if (pos > n || m > n - pos) return npos;
  if (m == 0) return pos;
  if (root_.p->height == 0) {
    const size_type r = fl::find(detail::leaf_text(root_), needle, pos);
    return r;
  }
  const size_type keep = m - 1;
  const size_type limit = 2 * m + 64;
  std::string win;  // bytes [win_lo, win_lo + win.size()) of the rope
  size_type win_lo = pos;
  size_type at = pos;  // rope offset of the next chunk
  size_type found = npos;
  auto search_win = [&]() {
    const size_type r = fl::find(std::string_view(win), needle);
    if (r != npos) found = win_lo + r;
    return r == npos;
  };
  auto trim_win = [&]() {
    if (win.size() > keep) {
      win_lo += win.size() - keep;
      win.erase(0, win.size() - keep);
    }
  };
  try {
    auto visit = [&](std::string_view c) {
      if (c.size() >= m) {
        if (!win.empty()) {
          win.append(c.substr(0, keep));
          if (!search_win()) return false;
        }
        const size_type r = fl::find(c, needle);
        if (r != npos) {
          found = at + r;
          return false;
        }
        win.assign(c.substr(c.size() - keep));
        win_lo = at + c.size() - keep;
      } else {
        if (win.empty()) win_lo = at;
        win.append(c);
        if (win.size() >= limit) {
          if (!search_win()) return false;
          trim_win();
        }
      }
      at += c.size();
      return true;
    };
    if (detail::for_each_leaf(root_, pos, visit) && !win.empty()) search_win();
  } catch (...) {
    // Only the window's allocation can throw (a few m bytes): fall back to a
    // byte-by-byte comparison, still correct, without extra memory.
    for (size_type i = pos; i + m <= n; ++i) {
      size_type k = 0;
      while (k < m && (*this)[i + k] == needle[k]) ++k;
      if (k == m) return i;
    }
    return npos;
  }
  return found;
}

bool rope::starts_with(std::string_view prefix) const noexcept {
  if (prefix.size() > size()) return false;
  return substr_compare(0, prefix) == 0;
}

bool rope::ends_with(std::string_view suffix) const noexcept {
  if (suffix.size() > size()) return false;
  return substr_compare(size() - suffix.size(), suffix) == 0;
}

// Compares bytes [pos, pos + s.size()) (all present) with s.
int rope::substr_compare(size_type pos, std::string_view s) const noexcept {
  if (s.empty()) return 0;
  int result = 0;
  size_type done = 0;
  auto visit = [&](std::string_view c) {
    const size_type k = std::min(c.size(), s.size() - done);
    result = std::memcmp(c.data(), s.data() + done, k);
    done += k;
    return result == 0 && done < s.size();
  };
  detail::for_each_leaf(root_, pos, visit);
  return result;
}

int rope::compare(std::string_view other) const noexcept {
  const size_type k = std::min(size(), other.size());
  const int r = substr_compare(0, other.substr(0, k));
  if (r != 0) return r < 0 ? -1 : 1;
  return size() < other.size() ? -1 : size() > other.size() ? 1 : 0;
}

int rope::compare(const rope& other) const noexcept {
  if (other.root_.p && other.root_.p->height == 0) return compare(detail::leaf_text(other.root_));
  const size_type k = std::min(size(), other.size());
  size_type pos = 0;
  while (pos < k) {
    const detail::leaf_view a = detail::seek(root_, pos);
    const detail::leaf_view b = detail::seek(other.root_, pos);
    const size_type ea = a.lo + a.len, eb = b.lo + b.len;
    const size_type stop = std::min({ea, eb, k});
    const int r = std::memcmp(a.data + (pos - a.lo), b.data + (pos - b.lo), stop - pos);
    if (r != 0) return r < 0 ? -1 : 1;
    pos = stop;
  }
  return size() < other.size() ? -1 : size() > other.size() ? 1 : 0;
}

fl::string rope::flatten() && {
#ifdef FL_ROPE_HAVE_STRING_ACCESS
  if (root_.p && root_.p->height == 0 && root_.off == 0 &&
      root_.p->kind == detail::node_kind::chunk_adopted && detail::unique(root_.p)) {
    // The chunk's bytes are a pool block of cap + 1 bytes: the string's own
    // heap layout. Hand it over and free the chunk header.
    auto* c = static_cast<detail::chunk*>(root_.p);
    const ::fl::detail::heap_block b{c->data, root_.len, c->cap};
    detail::free_index(c);
    detail::rope_deallocate(c, sizeof(detail::chunk));
    detail::count_adopted(-1);
    root_ = {};
    return ::fl::detail::string_access::adopt(b);
  }
#endif
  fl::string out = static_cast<const rope&>(*this).flatten();
  clear();
  return out;
}

fl::string rope::flatten() const& {
  fl::string out;
  if (empty()) return out;
  out.resize_and_overwrite(size(), [this](char* p, std::size_t count) {
    auto visit = [&p](std::string_view c) {
      std::memcpy(p, c.data(), c.size());
      p += c.size();
      return true;
    };
    detail::for_each_leaf(root_, 0, visit);
    return count;
  });
  return out;
}

std::string rope::to_std() const {
  std::string out;
  out.reserve(size());
  for (std::string_view c : chunks()) out.append(c);
  return out;
}

rope::size_type rope::copy(char* dest, size_type n, size_type pos) const {
  if (pos > size()) throw std::out_of_range("fl::rope::copy: pos > size()");
  n = std::min(n, size() - pos);
  if (n == 0) return 0;
  size_type done = 0;
  auto visit = [&](std::string_view c) {
    const size_type k = std::min(c.size(), n - done);
    std::memcpy(dest + done, c.data(), k);
    done += k;
    return done < n;
  };
  detail::for_each_leaf(root_, pos, visit);
  return n;
}

std::size_t rope::hash() const noexcept {
  detail::stream_hash h;
  if (!empty()) {
    auto visit = [&h](std::string_view c) {
      h.feed(c);
      return true;
    };
    detail::for_each_leaf(root_, 0, visit);
  }
  return h.finish();
}

std::ostream& operator<<(std::ostream& os, const rope& r) {
  if (os.width() > 0 && static_cast<std::size_t>(os.width()) > r.size()) {
    os << std::string_view(r.flatten());
    return os;
  }
  for (std::string_view c : r.chunks()) os.write(c.data(), static_cast<std::streamsize>(c.size()));
  os.width(0);
  return os;
}

}  // namespace FL_ROPE_NS
}  // namespace fl
