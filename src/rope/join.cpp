// src/rope/join.cpp: joining two ropes into one balanced tree (B+tree
// concatenation: the shorter tree hangs off the taller one's spine, full
// nodes split on the way up), the plan that says beforehand what a join will
// do, and the reservation that obtains what the plan needs, so that the join
// itself never allocates and cannot fail halfway through an in-place edit.
#include "rope/rope_impl.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {
namespace {

// ---------------------------------------------------------------- the plan

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

// Two neighbouring leaves that together have at most `limit` bytes become
// one; a larger pair stays two, unless the right one is small (at most
// merge_max_bytes) and fits the left one's spare room. `writable`: the left
// leaf's chunk may be written (its path is unique, so join will not copy
// it). Joined in place when the left chunk is unique with room, else copied.
leaf_merge decide_merge(const edge& l, const edge& r, std::size_t limit, bool writable) noexcept {
  const chunk* c = static_cast<const chunk*>(l.p);
  const bool room = writable && unique(c) && c->cap - (l.off + l.len) >= r.len;
  if (l.len + r.len > limit)
    return room && r.len <= merge_max_bytes ? leaf_merge::in_place : leaf_merge::none;
  return room ? leaf_merge::in_place : leaf_merge::copy;
}

// ---------------------------------------------------------------- join

// An owned edge to a new inner node over two owned edges of equal height.
edge pair_node(edge a, edge b) {
  inner* m = take_inner(static_cast<std::uint8_t>(a.p->height + 1));
  m->child[0] = a;
  m->child[1] = b;
  m->count = 2;
  return edge{m, 0, a.len + b.len};
}

// The reserved merge chunk with the least capacity >= need (taken out of
// the stash), or null.
chunk* take_merge_chunk(std::size_t need) noexcept {
  spare_blocks& sp = thread_spares();
  chunk** best = nullptr;
  for (chunk*& c : sp.merge)
    if (c && c->cap >= need && (!best || c->cap < (*best)->cap)) best = &c;
  if (!best) return nullptr;
  chunk* c = *best;
  *best = nullptr;
  return c;
}

// Joins the two owned leaf edges that meet in a join as its plan says:
// returns true with both in `a` (b empty), or false with both untouched
// (the plan keeps them apart, or no chunk was set aside for the copy; the
// tree is valid either way, merging only keeps leaves from getting tiny).
bool merge_leaves(edge& a, edge& b, const join_plan& plan) noexcept {
  switch (plan.merge) {
    case leaf_merge::none: return false;
    case leaf_merge::in_place:
      if (!leaf_append_in_place(a, leaf_text(b))) return false;
      break;
    case leaf_merge::copy: {
      const std::size_t need = a.len + b.len;
      chunk* c = take_merge_chunk(need);
      if (!c) return false;
      std::memcpy(c->data, leaf_text(a).data(), a.len);
      std::memcpy(c->data + a.len, leaf_text(b).data(), b.len);
      c->used = need;
      release(a.p);
      a = edge{c, 0, need};
      break;
    }
  }
  release(b.p);
  b = edge{};
  return true;
}

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
  inner* na = mut(a, true);
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
edge join_side(edge& a, edge b, const join_plan& plan) {
  inner* n = mut(a, true);
  a.len += b.len;
  a.forget();
  const unsigned idx = Right ? n->count - 1u : 0u;
  edge& near = n->child[idx];
  edge extra{};
  if (near.p->height == b.p->height) {
    if (b.p->height == 0) {
      const bool merged = Right ? merge_leaves(near, b, plan) : merge_leaves(b, near, plan);
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
    extra = join_side<Right>(near, b, plan);
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

}  // namespace

edge join(edge a, edge b) {
  if (!a.p) return b;
  if (!b.p) return a;
  const join_plan plan = plan_join(a, b);
  const unsigned ha = a.p->height, hb = b.p->height;
  if (ha == 0 && hb == 0) {
    if (merge_leaves(a, b, plan)) return a;
    return pair_node(a, b);
  }
  if (ha == hb) {
    edge spill = merge_equal(a, b);
    return spill.p ? pair_node(a, spill) : a;
  }
  if (ha > hb) {
    edge over = join_side<true>(a, b, plan);
    return over.p ? pair_node(a, over) : a;
  }
  edge over = join_side<false>(b, a, plan);
  return over.p ? pair_node(over, b) : b;
}

join_plan plan_join(const edge& a, const edge& b) noexcept {
  if (!a.p || !b.p) return {};
  const unsigned ha = a.p->height, hb = b.p->height;
  join_plan plan;
  plan.nodes = join_inner_need(ha, hb);
  // Leaves meet only when one side is a single leaf: two leaves may fill a
  // whole leaf; a leaf at the end of a tree takes a small neighbour only.
  if (ha != 0 && hb != 0) return plan;
  const std::size_t limit = ha == 0 && hb == 0 ? leaf_max_bytes : merge_max_bytes;
  bool path_unique = true, ignored = true;
  const edge& l = end_leaf(a, true, path_unique);
  const edge& r = end_leaf(b, false, ignored);
  plan.merge = decide_merge(l, r, limit, path_unique);
  plan.merge_bytes = l.len + r.len;
  return plan;
}

// ---------------------------------------------------------------- reservation

join_reserve::~join_reserve() {
  for (chunk*& c : sp_.merge) {
    if (c) rope_deallocate(c, chunk_bytes(c->cap));
    c = nullptr;
  }
}

void join_reserve::add(const edge& a, const edge& b) {
  const join_plan plan = plan_join(a, b);
  add_nodes(plan.nodes);
  if (plan.merge == leaf_merge::copy) add_chunk(merge_cap(plan.merge_bytes));
}

void join_reserve::add_nodes(unsigned k) {
  nodes_ += k;
  fill_spares(sp_, nodes_);
}

void join_reserve::add_chunk(std::size_t cap) {
  for (chunk*& c : sp_.merge) {
    if (!c) {
      c = new_chunk(cap);
      return;
    }
  }
}

void join_reserve::add_join3(const edge& left, const edge& mid, const edge& right) {
  add(left, mid);
  if (!right.p) return;
  if (!left.p || !mid.p) {
    add(left.p ? left : mid, right);  // the first join returns that side unchanged
    return;
  }
  // The first join's result x has height max(hl, hm) or one more, and its
  // last leaf is mid's last leaf, possibly merged with left's last (when
  // both are single leaves). Plan the second join for the worst of these.
  const unsigned hl = left.p->height, hm = mid.p->height, hr = right.p->height;
  const unsigned lo = std::max(hl, hm), hi = lo + 1;
  add_nodes(std::max(join_inner_need(lo, hr), join_inner_need(hi, hr)));
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
  add_chunk(merge_cap(std::min(x_max + first_r, limit)));
}

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

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
